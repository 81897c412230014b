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
# every required field of tools/copybench/record.h present); cb_finish.

cb_lib_here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
cb_top=$(cd "$cb_lib_here/.." && pwd)
CB=${COPYBENCH:-$cb_top/build/copybench}
CB_RECORD_H=$cb_top/tools/copybench/record.h

ktap_print_header
if [ ! -x "$CB" ]; then
	ktap_test_fail "copybench built ($CB missing: run 'make copybench')"
	ktap_set_plan 1
	ktap_finished
fi
for tool in jq awk; do
	if ! command -v $tool > /dev/null; then
		ktap_test_fail "$tool present (apt-get install $tool; tools/setup does)"
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

# record_fields KIND: the REQ field names of record.h's HEADER or POINT list.
record_fields()
{
	awk -v list="CB_RECORD_$1_FIELDS" '
		$0 ~ "define " list { on = 1; next }
		on && /F\(/ && /CB_REQ/ { f = $0; sub(/.*F\(/, "", f); sub(/,.*/, "", f); print f }
		on && substr($0, length($0)) != "\\" { on = 0 }' "$CB_RECORD_H"
}

# record_ok FILE: a header line, then points; every required field there.
record_ok()
{
	local f=$1 field n

	[ -s "$f" ] || { echo "$f is empty"; return 1; }
	[ "$(head -n 1 "$f" | jq -r .copybench_record)" = 1 ] ||
		{ echo "line 1 is no version 1 header"; return 1; }
	n=$(wc -l < "$f")
	[ "$n" -ge 2 ] || { echo "no points"; return 1; }
	[ "$(tail -n +2 "$f" | jq -s 'map(select(has("copybench_record"))) | length')" = 0 ] ||
		{ echo "a second header"; return 1; }
	for field in $(record_fields HEADER); do
		head -n 1 "$f" | jq -e "has(\"$field\")" > /dev/null ||
			{ echo "header lacks $field"; return 1; }
	done
	for field in $(record_fields POINT); do
		tail -n +2 "$f" | jq -s -e "all(has(\"$field\"))" > /dev/null ||
			{ echo "a point lacks $field"; return 1; }
	done
	[ "$(record_fields HEADER | wc -l)" -ge 20 ] && [ "$(record_fields POINT | wc -l)" -ge 15 ] ||
		{ echo "could not read the field lists of $CB_RECORD_H"; return 1; }
}

cb_finish()
{
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_finished
}
