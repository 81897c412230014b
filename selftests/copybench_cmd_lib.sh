# SPDX-License-Identifier: GPL-2.0
#
# copybench_cmd_lib.sh - what the copybench command's tests share, sourced
# after ktap.sh by copybench_cmd_test.sh (native) and
# vm-tests/copybench_sweep.sh (the module, in the VM).
#
# Gives: $CB, the command (build/copybench, or set COPYBENCH); $tmp, a
# directory removed on exit; check NAME COMMAND... (one test point from a
# command's status, its output as diagnostics when it fails); record_ok
# FILE, which checks a record's shape with jq (header first, then points,
# every required field of tools/copybench/record_fields.h present);
# cb_finish.

# shellcheck shell=bash
cb_lib_here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
cb_top=$(cd "$cb_lib_here/.." && pwd)
CB=${COPYBENCH:-$cb_top/build/copybench}
CB_RECORD_FIELDS=$cb_top/tools/copybench/record_fields.h

ktap_print_header
if [ ! -x "$CB" ]; then
	ktap_test_fail "copybench built ($CB missing: run 'make copybench')"
	ktap_set_plan 1
	ktap_finished
fi
for tool in jq awk; do
	if ! command -v $tool > /dev/null; then
		ktap_test_fail "$tool present (apt-get install $tool; scripts/setup does)"
		ktap_set_plan 1
		ktap_finished
	fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check NAME COMMAND...: pass when COMMAND exits 0; else fail with its output.
check()
{
	local name=$1 out

	shift
	if out=$("$@" 2>&1); then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name"
		printf '%s\n' "$out" | head -n 30 | sed 's/^/# /'
	fi
}

# record_fields KIND: the CB_REQ field names of record_fields.h's HEADER or
# POINT list.
record_fields()
{
	sed -n "s/^CB_$1_FIELD(\([a-z_0-9]*\),.*CB_REQ)\$/\1/p" "$CB_RECORD_FIELDS"
}

# as_json WORDS...: the words as a JSON array of strings.
as_json()
{
	printf '%s\n' "$@" | jq -R . | jq -s -c .
}

# record_ok FILE: a header line, then points; every required field there.
# One jq for the whole check: jq starts slowly under TCG.
record_ok()
{
	local f=$1 hf pf

	[ -s "$f" ] || { echo "$f is empty"; return 1; }
	# shellcheck disable=SC2046 # field names, one word each
	hf=$(as_json $(record_fields HEADER))
	# shellcheck disable=SC2046 # field names, one word each
	pf=$(as_json $(record_fields POINT))
	[ "$(echo "$hf" | jq length)" -ge 20 ] && [ "$(echo "$pf" | jq length)" -ge 15 ] ||
		{ echo "could not read the field lists of $CB_RECORD_FIELDS"; return 1; }
	jq -s -r --argjson hf "$hf" --argjson pf "$pf" '
		if .[0].copybench_record != 1 then "line 1 is no version 1 header"
		elif length < 2 then "no points"
		elif (.[1:] | any(has("copybench_record"))) then "a second header"
		else ([$hf[] as $k | select(.[0] | has($k) | not) | "header lacks \($k)"] +
		      [.[1:][] as $p | $pf[] as $k | select($p | has($k) | not) |
		       "a point lacks \($k)"] | unique | join("; ")) end' "$f" > "$tmp/record_ok" ||
		{ echo "$f: not JSON lines"; return 1; }
	[ ! -s "$tmp/record_ok" ] || [ "$(cat "$tmp/record_ok")" = "" ] ||
		{ cat "$tmp/record_ok"; return 1; }
}

cb_finish()
{
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_finished
}
