# SPDX-License-Identifier: GPL-2.0
#
# vm_plan.sh - the in-VM suites' plan per kernel, in one place: what does
# not run on the debug kernel (scripts/debug-kernel) and why. Not skips: not
# in that kernel's plan (Documentation/testing.rst says why). Sourced by
# vm-suite.sh and tree_test.sh (POSIX sh).
#
# Usage, with CB_SELFTESTS set to this directory:
#	. "$CB_SELFTESTS/vm_plan.sh"
#	if cb_debug_kernel; then ... "$CB_DEBUG_NOT_SUITES" ... fi
#
# cb_debug_kernel: true on the debug kernel, known by the LOCALVERSION that
# scripts/debug-kernel.config gives it (the one place that names it).
# CB_DEBUG_NOT_SUITES: the vm-tests/ it does not run; cb_debug_not_suite_why
# NAME says why, for the log: the bpftrace tools need BTF, and the tracers
# suite a function tracer, which it has not;
# the suites of the userspace tools (the copybench command's module backend,
# bisect-run, readers) are the tools' tests, and drive no module interface
# that copybench_test, copybench_run_test, copybench_data_test and
# stress.sh do not drive on it (knobs, run, results, the buffer's mmap, the
# data file's reads, load and unload); under KASAN and TCG they took 320 s
# of make check's longest suite. It boots on as many CPUs as the others
# (tools/vm-run gives each vCPU a socket of its own), so every test of the
# suites it runs is in its plan.

# shellcheck shell=sh
cb_plan_localversion=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' \
	"$CB_SELFTESTS/../scripts/debug-kernel.config")

cb_debug_kernel()
{
	[ -n "$cb_plan_localversion" ] || return 1
	case $(uname -r) in
	*"$cb_plan_localversion") return 0 ;;
	esac
	return 1
}

# shellcheck disable=SC2034 # for the scripts that source this file
CB_DEBUG_NOT_SUITES="bpftrace_tools.sh copybench_bisect.sh copybench_sweep.sh copybench_tracers.sh readers_vm_test.sh"

cb_debug_not_suite_why()
{
	case $1 in
	bpftrace_tools.sh)
		echo "the debug kernel has no BTF (scripts/debug-kernel.config)" ;;
	copybench_tracers.sh)
		echo "the debug kernel has no function tracer (scripts/debug-kernel.config), whose removal is what waits for RCU Tasks there" ;;
	*)
		echo "a userspace tool's test: it runs on 6.1 and 6.12; the module interfaces it drives run here in the copybench_*test programs and stress.sh" ;;
	esac
}
