#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-check.sh - how make check counts a suite's TAP (scripts/check
# --count-tap), on logs of every shape its suites print: flat, nested the
# kselftest way ("# " per level, as vm-suite.sh, runner.sh and make check's
# VM runs nest them), skips, crashes and empty runs; and that a bad
# CB_CHECK_JOBS is refused.
#
# Usage: scripts/test-check.sh
#
# Prints TAP through the kernel's ktap_helpers.sh (needs 'make selftests'
# or 'make ksft-headers' first). No root, no VM; under a second.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
# shellcheck source=SCRIPTDIR/../selftests/ktap.sh
. "$CB_SELFTESTS/ktap.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# count NAME WANT STATUS LINE...: the log of LINEs, exited with STATUS,
# counts as WANT ("N passed, N failed").
count() {
	local name=$1 want=$2 status=$3 got
	shift 3
	printf '%s\n' "$@" > "$tmp/log"
	got=$("$top/scripts/check" --count-tap "$tmp/log" "$status" 2>&1)
	if [ "$got" = "$want" ]; then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "counted '$got', want '$want', for (status $status):" \
			"$(cat "$tmp/log")"
	fi
}

ktap_print_header
count flat_results_count_one_each "2 passed, 1 failed" 1 \
	"TAP version 13" "1..3" "ok 1 a" "ok 2 b" "not ok 3 c"
count skip_counts_as_failed "1 passed, 2 failed" 0 \
	"ok 1 a" "ok 2 b # SKIP no module" "ok 3 c # skip lower case"
count nested_results_count_and_their_wrapper_does_not "3 passed, 0 failed" 0 \
	"ok 1 insmod" "# TAP version 13" "# ok 1 x" "# ok 2 y" "ok 2 copybench_test"
count failing_wrapper_of_a_failure_adds_nothing "1 passed, 1 failed" 1 \
	"# ok 1 x" "# not ok 2 y" "not ok 1 sub"
count failing_wrapper_of_passes_is_one_failure "1 passed, 1 failed" 1 \
	"# ok 1 x" "not ok 1 sub # exit=139"
count skipped_wrapper_of_nothing_is_one_failure "1 passed, 1 failed" 0 \
	"ok 1 insmod" "# 1..0 # SKIP no helpers" "ok 2 sub # SKIP"
count two_levels_deep "2 passed, 1 failed" 1 \
	"# # ok 1 a" "# # not ok 2 b" "# not ok 1 inner" "# ok 2 c" "not ok 1 vm"
count harness_chatter_is_not_a_result "1 passed, 0 failed" 0 \
	"#  RUN           global.x ..." "#            OK  global.x" "ok 1 global.x" \
	"# PASSED: 1 / 1 tests passed." "# Totals: pass:1 fail:0"
count nonzero_status_without_a_failure_is_one "2 passed, 1 failed" 1 \
	"ok 1 a" "ok 2 b"
count no_test_at_all_is_one_failure "0 passed, 1 failed" 0 \
	"TAP version 13" "# nothing ran"

# A pool size that is not 1 to 99 is refused, named, before anything runs.
for jobs in 0 x 100 -1; do
	printf 'ok 1 a\n' > "$tmp/log"
	got=$(CB_CHECK_JOBS=$jobs "$top/scripts/check" --count-tap "$tmp/log" 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && [ "$got" = "check: invalid CB_CHECK_JOBS '$jobs' (accepted: 1 to 99)" ]; then
		ktap_test_pass "CB_CHECK_JOBS=$jobs is refused"
	else
		ktap_fail_why "CB_CHECK_JOBS=$jobs is refused" "status $rc, said: $got"
	fi
done
ktap_end
