#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# copybench_bisect.sh - copybench bisect-run and compare on the module
# backend, in the VM of make check (6.1 and 6.12), TAP 13 through the
# kernel's ktap_helpers.sh.
#
# Usage (as vm-suite.sh runs it, root, copybench.ko loaded, COPYBENCH_KO
# set): selftests/vm-tests/copybench_bisect.sh
#
# Unloads the module vm-suite loaded, records a GOOD record with `sweep
# --backend module --load`, then runs bisect-run steps against it: one that
# loads the module itself (answer 0, 1 or 125: TCG timings are emulated, so
# which one is not asserted; the step's record is the module's, named
# after this kernel, and one log line is written), and one whose module
# will not load (a file that is no module: 125, never a blamed commit).
# compare of GOOD with the step must give a verdict (exit 0, 1 or 3) in
# LKP's layout. Leaves the module loaded, as it found it. Exit 0 pass,
# 1 fail, 4 skip (not root, no COPYBENCH_KO).
set -u

CB_SELFTESTS=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
# shellcheck source=SCRIPTDIR/../ktap.sh
. "$CB_SELFTESTS/ktap.sh"
# shellcheck source=SCRIPTDIR/../copybench_cmd_lib.sh
. "$CB_SELFTESTS/copybench_cmd_lib.sh"

ko=${COPYBENCH_KO:-}

if [ "$(id -u)" != 0 ] || [ -z "$ko" ] || [ ! -r "$ko" ]; then
	ktap_test_skip "bisect-run on the module backend: needs root and COPYBENCH_KO (run by selftests/vm-suite.sh)"
	ktap_set_plan 1
	exit "$KSFT_SKIP"
fi

check "rmmod the module vm-suite loaded" rmmod copybench

good()
{
	"$CB" sweep --backend module --load="$ko" --sizes 64,4K \
		--variants native,movsb,movsq,unrolled,orig --samples 5 --repeat 5 \
		-o "$tmp/good.json" > /dev/null 2> "$tmp/e" || { cat "$tmp/e"; return 1; }
	head -n 1 "$tmp/good.json" | jq -e '.backend == "module" and .repeat == 5' > /dev/null
}
check "GOOD: sweep --backend module --load, 5 repeats" good

step()
{
	local rc rec

	"$CB" bisect-run --good "$tmp/good.json" --load="$ko" > "$tmp/o" 2> "$tmp/e"
	rc=$?
	case $rc in 0|1|125) ;; *) echo "exit $rc"; cat "$tmp/o" "$tmp/e"; return 1 ;; esac
	grep -q "^copybench bisect-run: .* $(uname -r) .* (exit $rc): " "$tmp/o" ||
		{ echo "no step line for exit $rc:"; cat "$tmp/o" "$tmp/e"; return 1; }
	# shellcheck disable=SC2012 # copybench's names; nothing when no match
	rec=$(ls "$tmp"/bisect-"$(uname -r)"*.json 2> /dev/null | head -n 1)
	[ -n "$rec" ] || { echo "no step record beside GOOD (exit $rc):"; cat "$tmp/o" "$tmp/e"; return 1; }
	record_ok "$rec" &&
		head -n 1 "$rec" | jq -e --arg k "$(uname -r)" '.backend == "module" and .kernel == $k' \
			> /dev/null &&
		[ "$(wc -l < "$tmp/bisect-run.log")" = 1 ] && [ ! -d /sys/module/copybench ] &&
		cp "$rec" "$tmp/step.json"
}
check "a step on the module: 0, 1 or 125, its record named after this kernel, unloaded" step

compare_step()
{
	"$CB" compare "$tmp/good.json" "$tmp/step.json" > "$tmp/o" 2> "$tmp/e"
	case $? in 0|1|3) ;; *) cat "$tmp/o" "$tmp/e"; return 1 ;; esac
	grep -q '^ *base %stddev *%change *new %stddev verdict' "$tmp/o" &&
		grep -q '^# verdict: ' "$tmp/o"
}
check "compare GOOD with the step: a verdict, in LKP's layout" compare_step

no_module()
{
	echo "not a module" > "$tmp/bad.ko"
	"$CB" bisect-run --good "$tmp/good.json" --load="$tmp/bad.ko" > "$tmp/o" 2> "$tmp/e"
	[ $? = 125 ] && grep -q "skip (exit 125): the measurement exited with 1" "$tmp/o" &&
		[ ! -d /sys/module/copybench ] || { cat "$tmp/o" "$tmp/e"; return 1; }
}
check "a module that will not load: skip (125), nothing blamed" no_module

check "insmod again, as vm-suite left it" insmod "$ko"

cb_finish
