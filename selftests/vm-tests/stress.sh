#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh - copybench's stress suite, through the kernel's kselftest
# runner (kselftest/runner.sh): stress_fuzz, stress_race, stress_lifetime,
# stress_faults and stress_bounds of build/selftests/, each as one nested
# TAP test. Documentation/testing.rst says what each proves.
#
# Usage (inside the VM, from the project directory, root, copybench.ko
# loaded, COPYBENCH_KO set; vm-suite.sh runs it through the vm-tests hook):
#	selftests/vm-tests/stress.sh
# Environment: CB_FUZZ_SEED, CB_FUZZ_OPS, CB_RACE_PASSES, CB_FAULT_SEED,
# CB_BOUND_SLACK_MS (see the programs), CB_STRESS_TIMEOUT (seconds per
# program, default 1500).
#
# The fault-injection fixture of stress_faults needs a kernel with fault
# injection (the debug kernel, scripts/debug-kernel); on others it is left
# out (-F fault) and says so, and its memcg fixture runs alone.
# Exit: 0 all passed, 1 something failed, 4 nothing could run.

set -u	# off below: the kernel's runner.sh reads unset variables
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$top/build/selftests

CB_SELFTESTS=$top/selftests
# shellcheck source=SCRIPTDIR/../ktap.sh
. "$CB_SELFTESTS/ktap.sh"
BASE_DIR=$KSFT_BASE
export BASE_DIR
# shellcheck source=/dev/null # the kernel's file, not in this tree
. "$BASE_DIR/kselftest/runner.sh"
export kselftest_override_timeout=${CB_STRESS_TIMEOUT:-1500}

progs=()
for p in stress_fuzz stress_race stress_lifetime stress_faults stress_bounds; do
	progs+=("$bin/$p")
done

if [ ! -e /proc/self/fail-nth ] || [ ! -d /sys/kernel/debug/failslab ]; then
	echo "# $(uname -r) has no fault injection: stress_faults runs without its fault fixture (-F fault)"
	export KSELFTEST_STRESS_FAULTS_ARGS="-F fault"
fi

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
cd "$bin" || { echo "1..0 # SKIP no $bin: run 'make selftests'"; exit 4; }
set +u
run_many "${progs[@]}" | tee "$out"

grep -q '^not ok' "$out" && exit 1
grep -q '^ok .*# SKIP' "$out" && exit 4
grep -q '^ok ' "$out" || exit 1
exit 0
