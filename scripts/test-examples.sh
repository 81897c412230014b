#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-examples.sh - the VM examples a new user copies, run as written in a
# fresh checkout: every line of "Examples" in tools/vm-run --help and of
# the README's "The VM runner" block, in order (a later example may use
# what an earlier one built), each one test.
#
# Usage: scripts/test-examples.sh
#
# The checkout is the tracked files as they are now (uncommitted changes
# included), copied to build/examples-test/ and removed at the end: no
# build/ directory, nothing make check made. Each example runs there with
# bash -c, stdin from /dev/null, and must exit 0 within 900 s. Needs what
# tools/vm-run needs and the kernel headers the examples build against
# (scripts/setup). Boots a VM per vm-run example: about 1 to 3 minutes here.
# TAP through the kernel's ktap_helpers.sh ('make ksft-headers' first).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
# shellcheck source=SCRIPTDIR/../selftests/ktap.sh
. "$CB_SELFTESTS/ktap.sh"
work=$top/build/examples-test
rm -rf "$work"
mkdir -p "$work/clone"
trap 'rm -rf "$work"' EXIT

ktap_print_header
if ! (cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$work/clone"; then
	ktap_test_fail "a fresh checkout of the tracked files"
	ktap_end
fi

# examples FILE: the example lines, "SOURCE<TAB>COMMAND".
{
	(cd "$work/clone" && tools/vm-run --help) |
		sed -n '/^Examples/,/^[^ ]/{/^  [^ ]/s/^  /vm-run --help\t/p}'
	# shellcheck disable=SC2016 # Markdown's backquotes, not the shell's
	sed -n '/^## The VM runner/,/^## /{/^```sh/,/^```$/{/^```/d;s/^/README.md\t/p}}' \
		"$work/clone/README.md"
} > "$work/examples"
if [ "$(grep -c '^vm-run --help' "$work/examples")" -lt 2 ] ||
   [ "$(grep -c '^README.md' "$work/examples")" -lt 2 ]; then
	ktap_fail_why "examples found in vm-run --help and README.md" "$(cat "$work/examples")"
	ktap_end
fi

n=0
while IFS=$'\t' read -r src cmd; do
	n=$((n + 1))
	ktap_diag "$src example $n: $cmd"
	start=$(date +%s)
	(cd "$work/clone" && timeout 900 bash -c "$cmd") < /dev/null > "$work/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ktap_diag "exit 0 after $(($(date +%s) - start)) s; last lines:" "$(tail -n 3 "$work/out")"
		ktap_test_pass "${src%% *}_example_$n"
	else
		ktap_fail_why "${src%% *}_example_$n" \
			"exit $rc after $(($(date +%s) - start)) s:" "$(tail -n 30 "$work/out")"
	fi
done < "$work/examples"
ktap_end
