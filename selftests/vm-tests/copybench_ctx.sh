#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_ctx.sh - the in-VM hook (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded) for build/selftests/copybench_ctx_test:
# a run never sleeps holding its CPU while another thread of its writer
# holds or queues for the mmap lock (a GUP on a FUSE file that is never
# answered), io_uring's cancel and ring teardown end a run started through
# IORING_OP_WRITE, and protection keys and mprotect() refusals say what
# happened (selftests/copybench_ctx_test.c). hung_task is armed at 10 s for
# its duration, so a task the module holds up is reported and the test's
# kernel log check fails. FUSE is loaded when it is a module.
#
# Usage: selftests/vm-tests/copybench_ctx.sh     (root, in the VM)

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
CB_SELFTESTS=$top/selftests
bin=$top/build/selftests/copybench_ctx_test
if [ ! -x "$bin" ]; then
	# shellcheck source=SCRIPTDIR/../ktap.sh
	. "$CB_SELFTESTS/ktap.sh"
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$bin is built (run 'make selftests')"
	ktap_finished
fi
[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || echo "# modprobe fuse failed: the lock tests will say so"

hung=/proc/sys/kernel/hung_task_timeout_secs
old_hung=
if [ -w "$hung" ]; then
	old_hung=$(cat "$hung")
	echo 10 > "$hung"
else
	echo "# $hung: absent (no CONFIG_DETECT_HUNG_TASK); the kernel log check still runs"
fi
"$bin"
rc=$?
[ -n "$old_hung" ] && echo "$old_hung" > "$hung"
exit $rc
