#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_limits.sh - the in-VM hook (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded) for build/selftests/copybench_limits_test,
# the module's bounds: time, signals, CPUs, memory cgroups, mappings
# (selftests/copybench_limits_test.c). Its TAP is the harness's own; without
# the binary, one failing test point says to build it.
#
# Usage: selftests/vm-tests/copybench_limits.sh     (root, in the VM)

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$top/build/selftests/copybench_limits_test
CB_SELFTESTS=$top/selftests
if [ ! -x "$bin" ]; then
	. "$CB_SELFTESTS/ktap.sh"
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$bin is built (run 'make selftests')"
	ktap_finished
fi
# The debug kernel's plan (vm_plan.sh): the tests that need a second CPU
# are not in it (excluded with the harness's -T, said here), not skipped;
# Debian's kernels, on two CPUs, run them.
. "$CB_SELFTESTS/vm_plan.sh"
if cb_debug_kernel; then
	set --
	for t in $CB_DEBUG_NOT_LIMITS; do
		echo "# $t: not in the debug kernel's plan ($CB_DEBUG_NOT_LIMITS_WHY)"
		set -- "$@" -T "$t"
	done
	exec "$bin" "$@"
fi
exec "$bin"
