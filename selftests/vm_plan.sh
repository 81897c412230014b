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
# CB_DEBUG_NOT_SUITES: the vm-tests/ it does not run; cb_debug_not_suite_why
# NAME says why, for the log: the bpftrace tools need BTF, which it has not;
# the suites of the userspace tools (the copybench command's module backend,
# bisect-run, readers) are the tools' tests, and drive no module interface
# that copybench_test, copybench_run_test, copybench_data_test and
# stress.sh do not drive on it (knobs, run, results, the buffer's mmap, the
# data file's reads, load and unload); under KASAN and TCG they took 320 s
# of make check's longest suite.
# CB_DEBUG_NOT_LIMITS, CB_DEBUG_NOT_LIMITS_WHY: the copybench_limits_test
# tests it does not run (it boots on one CPU; they need a second one);
# CB_DEBUG_NOT_CTX the same for copybench_ctx_test.

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

CB_DEBUG_NOT_SUITES="bpftrace_tools.sh copybench_bisect.sh copybench_sweep.sh readers_vm_test.sh"

cb_debug_not_suite_why()
{
	case $1 in
	bpftrace_tools.sh)
		echo "the debug kernel has no BTF (tools/debug-kernel.config)" ;;
	*)
		echo "a userspace tool's test: it runs on 6.1 and 6.12; the module interfaces it drives run here in the copybench_*test programs and stress.sh" ;;
	esac
}
CB_DEBUG_NOT_LIMITS="a_cpu_outside_the_cpuset_is_refused
an_unpinned_writer_runs_on_the_cpu_asked_for_or_is_told_to_pin
a_cpuset_narrowed_during_a_run_stays_narrowed
a_cpu_offlined_during_a_run_ends_it_with_enodev
a_pinned_writer_moved_while_faulting_in_is_told_why"
CB_DEBUG_NOT_LIMITS_WHY="one CPU"
# The copybench_ctx_test tests it does not run, for the same reason.
CB_DEBUG_NOT_CTX="cpu_offline_is_not_held_by_a_run_waiting_for_its_mmap_lock
cpu_offline_is_not_held_by_a_pinned_run_queued_for_its_mmap_lock
an_affinity_change_is_not_held_by_a_run_waiting_for_its_mmap_lock"
