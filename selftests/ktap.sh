# SPDX-License-Identifier: GPL-2.0
#
# ktap.sh - source the kernel's own kselftest/ktap_helpers.sh for copybench's
# shell tests, wherever this directory sits:
#   in a kernel tree or a kselftest install (tools/testing/selftests/copybench):
#     ../kselftest/ktap_helpers.sh
#   out of tree (make selftests extracted it from Debian's linux-source):
#     ../build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh
# or $KSFT_DIR/kselftest/ktap_helpers.sh when KSFT_DIR is set.
#
# Usage, from a script in selftests/ (POSIX sh or bash):
#	. "$(dirname "$0")/ktap.sh"
# from elsewhere, with CB_SELFTESTS set to this directory first:
#	CB_SELFTESTS=/path/to/selftests; . "$CB_SELFTESTS/ktap.sh"
# Gives everything ktap_helpers.sh gives (ktap_print_header, ktap_test_pass,
# ktap_test_fail, ktap_test_skip, ktap_print_msg, ktap_set_plan,
# ktap_finished, KSFT_PASS/FAIL/SKIP) and $KTAP_HELPERS, its path;
# $KSFT_BASE, the directory holding kselftest/ (for kselftest/runner.sh:
# BASE_DIR=$KSFT_BASE); and helpers for what those do not cover:
#   ktap_diag TEXT...       each line of each non-empty TEXT as a "# "
#                           comment line, verbatim (ktap_print_msg
#                           word-splits and expands globs: keep it for
#                           fixed text)
#   ktap_fail_why NAME TEXT...
#                           a failed test point, then its diagnostics
#   ktap_skip_why NAME WHY  a skipped test point, its reason as a comment
#   ktap_end                the plan (after the tests: their number need not
#                           be known first), the totals, and the exit status
#                           copybench's suites use: 1 if a test failed, 4
#                           (skip) if none passed, else 0
# Test names go through an unquoted echo in ktap_helpers.sh: no globs in
# them. Exits 4 (kselftest's skip) with a message when the helpers cannot
# be found.

# shellcheck shell=sh
: "${CB_SELFTESTS:=$(cd "$(dirname "$0")" && pwd)}"
for KTAP_HELPERS in \
	${KSFT_DIR:+"$KSFT_DIR/kselftest/ktap_helpers.sh"} \
	"$CB_SELFTESTS/../kselftest/ktap_helpers.sh" \
	"$CB_SELFTESTS/../build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh"; do
	[ -r "$KTAP_HELPERS" ] && break
done
if [ ! -r "$KTAP_HELPERS" ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP the kernel's kselftest/ktap_helpers.sh not found: run 'make selftests'"
	exit 4
fi
# shellcheck source=/dev/null # the kernel's file, not in this tree
. "$KTAP_HELPERS"
# shellcheck disable=SC2034 # for the scripts that source this file
KSFT_BASE=$(cd "$(dirname "$KTAP_HELPERS")/.." && pwd)

ktap_diag()
{
	for ktap_text in "$@"; do
		[ -n "$ktap_text" ] && printf '%s\n' "$ktap_text" | sed 's/^/# /'
	done
	return 0
}

ktap_fail_why()
{
	ktap_test_fail "$1"
	shift
	ktap_diag "$@"
}

ktap_skip_why()
{
	ktap_diag "$1: $2"
	ktap_test_skip "$1"
}

ktap_end()
{
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" -gt 0 ] && exit "$KSFT_FAIL"
	[ "$KTAP_CNT_PASS" -eq 0 ] && exit "$KSFT_SKIP"
	# shellcheck disable=SC2153 # KSFT_PASS: set by ktap_helpers.sh
	exit "$KSFT_PASS"
}
