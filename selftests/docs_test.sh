#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs_test.sh - make htmldocs builds every Documentation/*.rst with Sphinx
# without a single warning, and a warning fails it.
#
# Usage: selftests/docs_test.sh
#
# Covers whatever .rst files Documentation/ holds when it runs (index.rst's
# toctree globs them). Needs python3-sphinx (tools/setup). Prints TAP; exit
# 0 pass, 1 fail. Takes a few seconds.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

out=$top/build/htmldocs
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 4

command -v sphinx-build >/dev/null ||
	ktap_exit_fail_msg "sphinx-build missing: install python3-sphinx (tools/setup)"

rm -rf "$out"
if make -s htmldocs >"$tmp/log" 2>&1; then
	ktap_test_pass "make htmldocs succeeds"
else
	sed 's/^/# /' "$tmp/log" | head -n 40
	ktap_test_fail "make htmldocs succeeds"
fi

if grep -qiE 'warning|error' "$tmp/log"; then
	grep -iE 'warning|error' "$tmp/log" | head -n 40 | sed 's/^/# /'
	ktap_test_fail "Sphinx printed no warning"
else
	ktap_test_pass "Sphinx printed no warning"
fi

# Every page is in the book.
missing=
for f in Documentation/*.rst; do
	page=$(basename "$f" .rst).html
	[ -s "$out/$page" ] || missing="$missing $page"
done
if [ -z "$missing" ]; then
	ktap_test_pass "every .rst page of Documentation/ has its HTML page"
else
	ktap_print_msg "missing:$missing"
	ktap_test_fail "every .rst page of Documentation/ has its HTML page"
fi

# The same target on a copy with one bad title must fail: warnings are
# errors, and a page of the directory is read even if nothing links it.
cp -r Documentation VERSION "$tmp/"
printf '.. SPDX-License-Identifier: GPL-2.0\n\n====\nbroken title\n====\n' \
	>"$tmp/Documentation/zz-broken.rst"
if make -s htmldocs HTMLDOCS_SRC="$tmp/Documentation" HTMLDOCS="$tmp/html" \
		>"$tmp/bad.log" 2>&1; then
	ktap_test_fail "a page with a warning fails make htmldocs"
elif grep -q 'zz-broken.rst.*WARNING' "$tmp/bad.log"; then
	ktap_test_pass "a page with a warning fails make htmldocs"
else
	sed 's/^/# /' "$tmp/bad.log" | head -n 20
	ktap_test_fail "a page with a warning fails make htmldocs (for another reason)"
fi

ktap_finished
