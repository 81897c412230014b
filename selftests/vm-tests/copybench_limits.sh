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
if [ ! -x "$bin" ]; then
	CB_SELFTESTS=$top/selftests
	. "$CB_SELFTESTS/ktap.sh"
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$bin is built (run 'make selftests')"
	ktap_finished
fi
# The debug kernel runs on one CPU (Documentation/testing.rst says why):
# the four tests that need a second CPU are not in its plan (excluded
# with the harness's -T, said here), not skipped; Debian's kernels, on two
# CPUs, run them.
case $(uname -r) in
*-copybench-debug)
	set --
	for t in a_cpu_outside_the_cpuset_is_refused \
		 an_unpinned_writer_runs_on_the_cpu_asked_for_or_is_told_to_pin \
		 a_cpuset_narrowed_during_a_run_stays_narrowed \
		 a_cpu_offlined_during_a_run_ends_it_with_enodev; do
		echo "# $t: not in the debug kernel's plan (one CPU)"
		set -- "$@" -T "$t"
	done
	exec "$bin" "$@" ;;
esac
exec "$bin"
