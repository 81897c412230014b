#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_end.sh - the in-VM hook (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded) for build/selftests/copybench_end_test:
# how a run ends (SIGKILL, a signal with and without SA_RESTART, SIGSTOP,
# the cgroup and suspend freezers, max_run_ms, CPU offline, an affinity
# change, io_uring's cancel, a second write, a throttled cgroup) wherever
# it is (preparing, faulting its buffer in, waiting for the mmap lock,
# timing hot or cold samples), one matrix (selftests/copybench_end_test.c).
# hung_task is armed at 10 s for its duration, so a task the module holds
# up is reported and the test's kernel log check fails. FUSE is loaded
# when it is a module.
#
# Usage: selftests/vm-tests/copybench_end.sh     (root, in the VM)

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
CB_SELFTESTS=$top/selftests
bin=$top/build/selftests/copybench_end_test
if [ ! -x "$bin" ]; then
	# shellcheck source=SCRIPTDIR/../ktap.sh
	. "$CB_SELFTESTS/ktap.sh"
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$bin is built (run 'make selftests')"
	ktap_finished
fi
[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || echo "# modprobe fuse failed: the HOLD cells will say so"

hung=/proc/sys/kernel/hung_task_timeout_secs
old_hung=
if [ -w "$hung" ]; then
	old_hung=$(cat "$hung")
	echo 10 > "$hung"
else
	echo "# $hung: absent (no CONFIG_DETECT_HUNG_TASK); the kernel log check still runs"
fi
"$bin" "$@"
rc=$?
[ -n "$old_hung" ] && echo "$old_hung" > "$hung"
exit $rc
