# SPDX-License-Identifier: GPL-2.0
#
# vm_plan.sh - the in-VM suites' plan per kernel, in one place: what does
# not run on the debug kernel (tools/debug-kernel) and why. Not skips: not
# in that kernel's plan (Documentation/testing.rst says why). Sourced by
# vm-suite.sh and vm-tests/copybench_limits.sh (POSIX sh).
#
# Usage, with CB_SELFTESTS set to this directory:
#	. "$CB_SELFTESTS/vm_plan.sh"
#	if cb_debug_kernel; then ... "$CB_DEBUG_NOT_SUITES" ... fi
#
# cb_debug_kernel: true on the debug kernel, known by the LOCALVERSION that
# tools/debug-kernel.config gives it (the one place that names it).
# CB_DEBUG_NOT_SUITES, CB_DEBUG_NOT_SUITES_WHY: the vm-tests/ it does not
# run (it has no BTF, which the bpftrace tools need).
# CB_DEBUG_NOT_LIMITS, CB_DEBUG_NOT_LIMITS_WHY: the copybench_limits_test
# tests it does not run (it boots on one CPU; they need a second one).

cb_plan_localversion=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' \
	"$CB_SELFTESTS/../tools/debug-kernel.config")

cb_debug_kernel()
{
	[ -n "$cb_plan_localversion" ] || return 1
	case $(uname -r) in
	*"$cb_plan_localversion") return 0 ;;
	esac
	return 1
}

CB_DEBUG_NOT_SUITES="bpftrace_tools.sh"
CB_DEBUG_NOT_SUITES_WHY="the debug kernel has no BTF (tools/debug-kernel.config)"
CB_DEBUG_NOT_LIMITS="a_cpu_outside_the_cpuset_is_refused
an_unpinned_writer_runs_on_the_cpu_asked_for_or_is_told_to_pin
a_cpuset_narrowed_during_a_run_stays_narrowed
a_cpu_offlined_during_a_run_ends_it_with_enodev"
CB_DEBUG_NOT_LIMITS_WHY="one CPU"
