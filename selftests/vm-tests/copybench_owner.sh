#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_owner.sh - the in-VM hook (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded) for build/selftests/copybench_owner_test:
# the writer owns its run's context and buffer (OOM group kill and suspend,
# task_work, MAP_FIXED, fork, mseal, pid namespaces;
# selftests/copybench_owner_test.c). A test the running kernel
# cannot run (mseal() before 6.10) is left out of its plan with the
# harness's -T, and this script says why; none is skipped, and a kernel
# without what a test needs (/sys/power/pm_test: CONFIG_PM_DEBUG; io_uring;
# cgroup v2) fails it. Its TAP is the harness's own; without the binary,
# one failing test point says to build it.
#
# Usage: selftests/vm-tests/copybench_owner.sh     (root, in the VM)

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$top/build/selftests/copybench_owner_test
if [ ! -x "$bin" ]; then
	CB_SELFTESTS=$top/selftests
	# shellcheck source=SCRIPTDIR/../ktap.sh
	. "$CB_SELFTESTS/ktap.sh"
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$bin is built (run 'make selftests')"
	ktap_finished
fi

excluded=
leave_out() {
	echo "# $1: not in $(uname -r)'s plan: $2"
	excluded="$excluded -T $1"
}

# mseal() came in 6.10.
release=$(uname -r)
major=${release%%.*}
minor=${release#*.}
minor=${minor%%[!0-9]*}
if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 10 ]; }; then
	leave_out mseal_leaves_no_mapping_of_the_module "mseal() is 6.10+"
fi
# shellcheck disable=SC2086 # the -T options, one word each
exec "$bin" $excluded
