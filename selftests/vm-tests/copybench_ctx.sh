#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_ctx.sh - the in-VM hook (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded) for build/selftests/copybench_ctx_test:
# io_uring's ring teardown and a stop end a run started through
# IORING_OP_WRITE, protection keys and mprotect() refusals say what
# happened, and a storm of mmap() calls does not starve a run
# (selftests/copybench_ctx_test.c). hung_task is armed at 10 s for its
# duration, so a task the module holds up is reported and the test's
# kernel log check fails.
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
