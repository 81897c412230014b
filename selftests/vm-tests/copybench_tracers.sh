#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_tracers.sh - an in-VM suite (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded): a run beside the kernel's tracers.
# Removing a function tracer whose ops were allocated (a tracefs instance's)
# waits in ftrace_shutdown() for an RCU Tasks grace period, which every
# task must end with a voluntary switch or a report of its own; a run that
# only reschedules by preemption holds it up to the run's end. Here the
# tracer comes and goes 2 s into a run that lasts up to 60 s: the run must
# still be going when the removal returns. The debug kernel has no function
# tracer (vm_plan.sh leaves the suite out there).
#
# Usage: selftests/vm-tests/copybench_tracers.sh     (root, in the VM)

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
CB_SELFTESTS=$top/selftests
# shellcheck source=SCRIPTDIR/../ktap.sh
. "$CB_SELFTESTS/ktap.sh"

dbg=/sys/kernel/debug/copybench
tr=/sys/kernel/tracing
inst=$tr/instances/copybench-test
knobs="variant direction size cache loops samples max_run_ms cpu"
saved=
writer=

cleanup()
{
	if [ -n "$writer" ]; then
		kill -KILL "$writer" 2>/dev/null
		wait "$writer" 2>/dev/null
	fi
	[ -d "$inst" ] && { echo nop > "$inst/current_tracer"; rmdir "$inst"; } 2>/dev/null
	for kv in $saved; do
		echo "${kv#*=}" > "$dbg/${kv%%=*}"
	done
}
trap cleanup EXIT

# The writer's run is under way when a knob write is refused with EBUSY.
run_started()
{
	i=0
	while [ $i -lt 300 ]; do
		kill -0 "$writer" 2>/dev/null || return 1
		echo 16384 2>/dev/null > "$dbg/size" || return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

ktap_print_header
ktap_set_plan 1
name="a function tracer's removal is not held up by a run"
if ! grep -qw function "$tr/available_tracers" 2>/dev/null; then
	ktap_fail_why "$name" "$tr/available_tracers has no function tracer: this kernel is not in this suite's plan (selftests/vm_plan.sh)"
	ktap_finished
fi
for k in $knobs; do
	saved="$saved$k=$(cat "$dbg/$k") "
done
for kv in variant=native direction=memcpy size=16384 cache=hot loops=1000 \
	  samples=100000 max_run_ms=60000 cpu=-1; do
	echo "${kv#*=}" > "$dbg/${kv%%=*}" || { ktap_fail_why "$name" "cannot set $kv"; ktap_finished; }
done

( echo 1 > "$dbg/run" ) &
writer=$!
if ! run_started; then
	ktap_fail_why "$name" "the run was not seen under way"
	ktap_finished
fi
sleep 2
mkdir "$inst" && echo vfs_read > "$inst/set_ftrace_filter" &&
	echo function > "$inst/current_tracer" && echo nop > "$inst/current_tracer"
ret=$?
if [ $ret != 0 ]; then
	ktap_fail_why "$name" "the tracer could not be set up and removed in $inst"
elif kill -0 "$writer" 2>/dev/null; then
	ktap_test_pass "$name"
else
	wait "$writer"
	ktap_fail_why "$name" "the tracer's removal returned after the run's end (the writer exited $?): it waited for the run" \
		"$(cat "$dbg/last_error")"
fi
ktap_finished
