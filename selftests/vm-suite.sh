#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vm-suite.sh - copybench's in-VM test suite, one TAP stream.
#
# Usage (inside the VM, from the project directory):
#	selftests/vm-suite.sh build/ko/<release>/copybench.ko
#
# Steps, each one TAP test point:
#   1. load the given copybench.ko (unloading an old one first);
#   2. run the interface tests with COPYBENCH_KO set, each one test point:
#      build/selftests/copybench_test (knobs, files, variant list,
#      lifetime), copybench_run_test (timed runs), copybench_data_test
#      (the data file);
#   3. run every executable selftests/vm-tests/* in name order (on the
#      debug kernel those its plan has: selftests/vm_plan.sh), the hook
#      for other in-VM suites: each is called with no arguments, from the
#      project directory, with COPYBENCH_KO set and the module loaded; it
#      prints TAP (nested here behind "# ") and exits 0 pass, 4 skip,
#      anything else fail;
#   4. unload the module;
#   5. check the kernel log written since step 1 for WARNING, BUG, Oops,
#      "Call Trace", leak reports and the like.
# Everything on stdout is TAP, through the kernel's own kselftest helpers
# (ktap_helpers.sh via selftests/ktap.sh; runner.sh's tap_prefix and
# tap_timeout for the sub-suites, so they nest as "# " lines the kselftest
# way and time out after $CB_SUITE_TIMEOUT seconds, default 3000). A
# sub-suite's path must not contain spaces (runner.sh splits it). Exit
# status 1 when a step failed, 4 when none passed, else 0. Needs root.

ko=${1:?usage: selftests/vm-suite.sh <copybench.ko>}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
BASE_DIR=$KSFT_BASE
# shellcheck source=/dev/null # the kernel's file, not in this tree
. "$BASE_DIR/kselftest/runner.sh"
kselftest_timeout=${CB_SUITE_TIMEOUT:-3000}

case $ko in /*) ;; *) ko=$top/$ko ;; esac
export COPYBENCH_KO="$ko"
cd "$top" || exit 1

# run_nested NAME CMD: one sub-suite as one test point, as runner.sh's
# run_one runs a kselftest (its output nested through tap_prefix, under
# tap_timeout; 0 pass, 4 skip, else fail), but from the project directory,
# where vm-tests run. stdin is /dev/null: tap_timeout runs CMD in a process
# group of its own, where touching the console would stop it.
run_nested() {
	name=$1
	start=$(date +%s)
	{ tap_timeout "$2" < /dev/null 2>&1; echo $? > "$tmp/rc"; } | tap_prefix
	rc=$(cat "$tmp/rc")
	ktap_print_msg "$name: exit $rc after $(($(date +%s) - start)) s"
	# shellcheck disable=SC2154 # skip_rc, timeout_rc: set by runner.sh
	case $rc in
	0) ktap_test_pass "$name" ;;
	"$skip_rc") ktap_skip_why "$name" "exit $rc" ;;
	"$timeout_rc")
		ktap_print_msg "$name: timed out after $kselftest_timeout s"
		ktap_test_fail "$name" ;;
	*) ktap_test_fail "$name" ;;
	esac
}

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_why vm-suite "not root"
	ktap_end
fi

# The debug kernel's plan (vm_plan.sh): the suites it does not run. Not a
# skip: not in the plan.
. "$CB_SELFTESTS/vm_plan.sh"
not_here=
if cb_debug_kernel; then
	not_here=$CB_DEBUG_NOT_SUITES
fi

# Mark the kernel log so step 5 reads only what this suite caused.
marker="copybench-vm-suite-$$-$(date +%s)"
echo "$marker" > /dev/kmsg

if [ -d /sys/module/copybench ]; then
	rmmod copybench 2>/dev/null
fi
loaded=0
name="insmod $(basename "$ko") ($(uname -r))"
if [ -r "$ko" ] && out=$(insmod "$ko" 2>&1); then
	ktap_test_pass "$name"
	loaded=1
else
	ktap_fail_why "$name" "insmod $ko: ${out:-not readable}"
fi

if [ "$loaded" = 1 ]; then
	for t in copybench_test copybench_run_test copybench_data_test; do
		if [ -x "build/selftests/$t" ]; then
			run_nested "$t" "build/selftests/$t"
		else
			ktap_print_msg "build/selftests/$t missing: run 'make selftests'"
			ktap_test_fail "$t"
		fi
	done

	for t in selftests/vm-tests/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		case " $not_here " in
		*" $(basename "$t") "*)
			ktap_print_msg "$(basename "$t"): not in this kernel's plan: $(cb_debug_not_suite_why "$(basename "$t")")"
			continue ;;
		esac
		run_nested "$(basename "$t")" "$t"
	done

	if out=$(rmmod copybench 2>&1); then
		ktap_test_pass "rmmod copybench"
	else
		ktap_fail_why "rmmod copybench" "rmmod: $out"
	fi
fi

# Step 5: the kernel log since the marker. copybench_owner_test provokes
# an OOM kill on purpose and brackets it with two lines of its own: the
# OOM killer's report dumps the allocating task's stack, so a "Call Trace"
# between them is expected; every other pattern counts there too.
name="kernel log clean (no WARN, BUG, Oops, leak or verify messages)"
dmesg | sed -n "/$marker/,\$p" | awk '
	/copybench-test: an OOM report follows/ { oom = 1 }
	/copybench-test: the OOM report is over/ { oom = 0 }
	!(oom && /Call Trace/)' > "$tmp/dmesg"
if grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|kernel BUG|UBSAN|KASAN|suspected memory leak|leak detector disabled|refcount_t:|list_(add|del) corruption|copybench: .*byte .* want' \
	"$tmp/dmesg" > "$tmp/bad"; then
	ktap_fail_why "$name" "$(sed 's/^/dmesg: /' "$tmp/bad" | head -50)"
else
	ktap_test_pass "$name"
fi

ktap_end
