#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# copybench_cmd_test.sh - the copybench command natively (user backend),
# TAP 13 through the kernel's ktap_helpers.sh.
#
# Usage: selftests/copybench_cmd_test.sh      (after make copybench)
#        COPYBENCH=/path/to/copybench selftests/copybench_cmd_test.sh
#
# Needs: build/copybench and build/unit/*_test (make copybench), jq, gnuplot (plot),
# python3 (a terminal for the progress test). Runs the unit tests (nested),
# then every subcommand and every option's bad values: a usage error (exit
# 2) that names the option, the value and what is accepted, with nothing
# written to -o; records parse and hold every documented field; a record
# of N repeats is N processes (N pids) at placements drawn from the seed,
# within their bounds; a killed worker or command leaves nothing behind;
# placement names the slow placements of records made to order; random
# sizes and shuffles repeat with the seed; plots are written and not empty;
# a SIGINT leaves no file behind. Timings are never asserted.
set -u

. "$(dirname "$(readlink -f "$0")")/ktap.sh"
. "$(dirname "$(readlink -f "$0")")/copybench_cmd_lib.sh"

UNIT=${COPYBENCH_UNIT:-$(dirname "$CB")/unit}
DOC=$cb_top/Documentation/records.rst
# Quick points, one process a record unless a test asks more: timings are
# not looked at here.
fast=(--backend user --samples 5 --max-run-ms 200 --repeat 1)

# The unit tests of the command's parts, one program a part (tools/copybench/
# NAME_test.c, built as build/unit/NAME_test), nested: each of their
# results counts.
unit()
{
	local rc

	[ -x "$UNIT/$1_test" ] || { echo "$UNIT/$1_test missing: run 'make copybench'"; return 1; }
	"$UNIT/$1_test" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	return "$rc"
}
unit_parts=(
	"stats: the plateau merge, the statistics, the slowdown's search"
	"points: point names, classes, patterns, --sizes, number options"
	"json: the JSON parser and writer"
	"record: records read, written, refused; a line's figures"
	"sweep: a sweep described in C, its argv parsed back by sweep's parser"
)
for part in "${unit_parts[@]}"; do
	if unit "${part%%:*}"; then
		ktap_test_pass "unit tests of ${part%%:*}:${part#*:}"
	else
		ktap_test_fail "unit tests of ${part%%:*}:${part#*:}"
	fi
done

# --- the command itself -----------------------------------------------------

usage_no_args()
{
	"$CB" > "$tmp/o" 2> "$tmp/e"
	[ $? = 2 ] && grep -q "^Usage: copybench SUBCOMMAND" "$tmp/e"
}
check "no subcommand: usage on stderr, exit 2" usage_no_args

help_works()
{
	"$CB" --help | grep -q sweep &&
	"$CB" help | grep -q plot &&
	"$CB" help sweep | grep -q -- --sizes &&
	"$CB" sweep --help | grep -q -- --plateau &&
	"$CB" alias --help | grep -q -- --step &&
	"$CB" plot --help | grep -q -- --plateau &&
	"$CB" --version | grep -q "^copybench "
}
check "--help, help SUBCOMMAND, --version" help_works

unknown_subcommand()
{
	"$CB" frobnicate 2> "$tmp/e"
	[ $? = 2 ] && grep -q "unknown subcommand 'frobnicate' (accepted: sweep, alias, plot, compare, bisect-run, placement, pattern, help)" "$tmp/e"
}
check "unknown subcommand: named, with the accepted ones, exit 2" unknown_subcommand

# --- sweep -------------------------------------------------------------------

sweep_auto()
{
	local nvar

	"$CB" sweep --samples 5 --sizes 64,4K > "$tmp/o" 2> "$tmp/e" || return 1
	grep -q "backend user: /sys/kernel/debug/copybench" "$tmp/e" || return 1
	nvar=$(grep -c '^# to_user ' "$tmp/o")
	[ "$nvar" -ge 9 ] || { echo "$nvar tables, want one per variant"; return 1; }
	grep -E '^ +64 +[0-9.]+ +[0-9.]+ .* yes$' "$tmp/o" | grep -q . &&
		grep -qE '^ +4K ' "$tmp/o"
}
check "sweep: auto picks user here and says why; a table per variant" sweep_auto

sweep_record()
{
	"$CB" sweep "${fast[@]}" --sizes 1,64,4K --variants all --directions all \
		--repeat 2 -o "$tmp/r.json" > /dev/null 2>&1 || return 1
	record_ok "$tmp/r.json" || return 1
	# 3 directions x 9 variants x 3 sizes x 2 repeats, all verified
	[ "$(tail -n +2 "$tmp/r.json" | wc -l)" -ge $((3 * 9 * 3 * 2)) ] &&
		tail -n +2 "$tmp/r.json" | jq -s -e 'all(.verified == true)' > /dev/null &&
		tail -n +2 "$tmp/r.json" | jq -s -e 'map(.repeat) | unique == [0, 1]' > /dev/null
}
check "sweep -o: a well-formed record, every field, all verified" sweep_record

json_matches()
{
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --json > "$tmp/j" 2> /dev/null &&
		record_ok "$tmp/j" &&
		head -n 1 "$tmp/j" | jq -e '.backend == "user" and .subcommand == "sweep" and
			(.command | test("--json")) and .tsc_khz > 0 and .estimator == "min"' > /dev/null
}
check "sweep --json: the record on stdout" json_matches

fields_documented()
{
	local f bad=0

	[ -r "$DOC" ] || { echo "no $DOC"; return 1; }
	# shellcheck disable=SC2013 # field names, one word each
	for f in $(sed -n 's/^CB_[A-Z]*_FIELD(\([a-z_0-9]*\),.*/\1/p' "$CB_RECORD_FIELDS"); do
		grep -q "\`\`$f\`\`" "$DOC" || { echo "field $f not in $DOC"; bad=1; }
	done
	return $bad
}
check "every record field is documented in Documentation/records.rst" fields_documented

random_sizes()
{
	local a b c

	a=$("$CB" sweep "${fast[@]}" --sizes random:1-64 --variants movsb --seed 7 --json 2>/dev/null |
		jq -s -c '.[1:] | map([.size, .size_max, .size_mean])')
	b=$("$CB" sweep "${fast[@]}" --sizes random:1-64 --variants movsb --seed 7 --json 2>/dev/null |
		jq -s -c '.[1:] | map([.size, .size_max, .size_mean])')
	c=$("$CB" sweep "${fast[@]}" --sizes random:1-64 --variants movsb --seed 8 --json 2>/dev/null |
		jq -s -c '.[1:] | map([.size, .size_max, .size_mean])')
	echo "seed 7: $a; again: $b; seed 8: $c"
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ] &&
		echo "$a" | jq -e '.[0][0] == 1 and .[0][1] == 64 and .[0][2] > 20 and .[0][2] < 45' > /dev/null
}
check "random sizes: the same draws with the same seed, others with another" random_sizes

shuffle()
{
	local p="$CB sweep --backend user --sizes 1,2,3,4 --variants movsb,native --repeat 3"

	$p --dry-run | grep -v '^#' > "$tmp/d0" &&
	$p --seed 1 --dry-run | grep -v '^#' > "$tmp/d1" &&
	$p --seed 1 --dry-run | grep -v '^#' > "$tmp/d1b" &&
	$p --seed 2 --dry-run | grep -v '^#' > "$tmp/d2" || return 1
	cmp -s "$tmp/d1" "$tmp/d1b" || { echo "seed 1 twice differs"; return 1; }
	! cmp -s "$tmp/d1" "$tmp/d2" || { echo "seeds 1 and 2 give one order"; return 1; }
	! cmp -s "$tmp/d0" "$tmp/d1" || { echo "seeded order is not shuffled"; return 1; }
	# repeat-major either way: all of repeat 0, then 1, then 2
	for f in "$tmp/d0" "$tmp/d1"; do
		awk '{ print $1 }' "$f" | uniq | tr '\n' ' ' | grep -qx '0 1 2 ' ||
			{ echo "$f: repeats are not interleaved round-robin"; cat "$f"; return 1; }
	done
	[ "$(wc -l < "$tmp/d0")" = 24 ]
}
check "repeats interleaved round-robin; --seed shuffles each the same way" shuffle

# Plateaus of both figures: the time per call, then the latency, each from size 1.
plateau_out()
{
	"$CB" sweep "${fast[@]}" --sizes 1-32 --variants movsb --plateau > "$tmp/p" 2>/dev/null &&
		grep -q '^# to_user movsb, cache hot, .*ranges of equal cost' "$tmp/p" &&
		grep -qE '^ +1(-[0-9]+)? +[0-9.]+ clocks per call$' "$tmp/p" &&
		grep -qE '^ +1(-[0-9]+)? +[0-9.]+ clocks latency$' "$tmp/p" || { cat "$tmp/p"; return 1; }
}
check "sweep --plateau: ranges of time per call and of latency from size 1" plateau_out

# The default sizes: the powers of two and three short bands untrained
# (random: each copy its own size and offset), verified byte for byte over
# the union of what the draws wrote.
default_sizes()
{
	"$CB" sweep --backend user --variants movsb --dry-run 2> /dev/null |
		awk '!/^#/ { print $4 }' | sort -u > "$tmp/ds" &&
		[ "$(grep -c '^random:' "$tmp/ds")" = 3 ] &&
		grep -qx 'random:1-16' "$tmp/ds" && grep -qx 'random:17-64' "$tmp/ds" &&
		grep -qx 'random:65-256' "$tmp/ds" && grep -qx '1M' "$tmp/ds" || { cat "$tmp/ds"; return 1; }
	"$CB" sweep "${fast[@]}" --sizes random:1-16,random:65-256,random:1-4K --variants native,bytes \
		--directions memcpy --cache hot,cold -o "$tmp/ds.json" > /dev/null 2>&1 &&
		jq -s -e '.[1:] | length == 12 and all(.verified and .size_max > .size)' "$tmp/ds.json" \
			> /dev/null
}
check "sweep's default sizes: powers of two and random 1-16, 17-64, 65-256; random points verified" default_sizes

cold_and_offsets()
{
	"$CB" sweep "${fast[@]}" --sizes 4K --variants movsb,native --cache hot,cold \
		--directions memcpy --src-offset 1 --dst-offset 4095 --clock core --estimator median \
		--repeat 1 -o "$tmp/c.json" > /dev/null 2>&1 &&
		tail -n +2 "$tmp/c.json" | jq -s -e 'length == 4 and all(.verified) and
			(map(.cache) | unique == ["cold", "hot"]) and
			all(.src_offset == 1 and .dst_offset == 4095 and .clock_ratio > 0) and
			all(.src_place % 4096 == 1 and .dst_place % 4096 == 4095)' > /dev/null &&
		head -n 1 "$tmp/c.json" | jq -e '.clock == "core" and .estimator == "median"' > /dev/null
}
check "sweep: cold cache, offsets, --clock core, --estimator median" cold_and_offsets

pinned()
{
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --cpu 0 --json 2>/dev/null |
		jq -s -e '.[0].cpu == 0 and .[1].run_cpu == 0' > /dev/null
}
check "sweep --cpu 0: pinned there" pinned

# --- processes and placement --------------------------------------------------

# A record of N repeats is N processes: N pids, none of them the command's,
# each with its placement (drawn from the seed, distances out of the band,
# stack aligned), the CPUs taken in turn; the same seed, the same placements.
processes()
{
	local ncpu

	"$CB" sweep "${fast[@]}" --sizes 64,4K --variants native,movsb --repeat 4 \
		-o "$tmp/p.json" > /dev/null 2>&1 &
	wait $! || return 1
	record_ok "$tmp/p.json" || return 1
	ncpu=$(nproc)
	head -n 1 "$tmp/p.json" | jq -e '.placement == "vary" and .repeat == 4' > /dev/null &&
	tail -n +2 "$tmp/p.json" | jq -s -e --argjson ncpu "$ncpu" '
		def m: (. % 4096 + 4096) % 4096;
		(map(.pid) | unique | length) == 4 and
		(group_by(.pid) | all(length == 4 and (map(.repeat) | unique | length) == 1 and
			(map([.src_place, .dst_place, .stack_place, .run_cpu]) | unique | length) == 1)) and
		(map(.repeat) | unique) == [0, 1, 2, 3] and
		all(.src_place % 64 == 0 and .dst_place % 64 == 0 and .src_place < 2097152 and
		    .dst_place < 2097152 and .stack_place % 16 == 0 and .stack_place < 4096) and
		all((.dst_place - .src_place | m) as $d | $d == 0 or ($d > 256 and $d < 3840)) and
		(map([.src_place, .dst_place]) | unique | length) == 4 and
		(if $ncpu > 1 then (map(.run_cpu) | unique | length) > 1 else true end)' \
		> /dev/null || { tail -n +2 "$tmp/p.json" | jq -c '{pid, repeat, src_place, dst_place, stack_place, run_cpu}'; return 1; }
	# The same seed draws the same placements; another seed others.
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --repeat 4 --json 2> /dev/null |
		jq -s -c '.[1:] | map([.src_place, .dst_place, .stack_place])' > "$tmp/pl1" &&
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --repeat 4 --seed 1 --json 2> /dev/null |
		jq -s -c '.[1:] | map([.src_place, .dst_place, .stack_place])' > "$tmp/pl2" &&
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --repeat 4 --seed 2 --json 2> /dev/null |
		jq -s -c '.[1:] | map([.src_place, .dst_place, .stack_place])' > "$tmp/pl3" || return 1
	cmp -s "$tmp/pl1" "$tmp/pl2" && ! cmp -s "$tmp/pl1" "$tmp/pl3" &&
		[ "$(tail -n +2 "$tmp/p.json" | jq -s -c 'map(select(.size == 64 and
			.variant == "movsb") | [.src_place, .dst_place, .stack_place])')" = "$(cat "$tmp/pl1")" ]
}
check "sweep --repeat 4: 4 processes, 4 pids, each at its placement, from the seed" processes

placement_modes()
{
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --repeat 3 --placement fixed \
		--json 2> /dev/null > "$tmp/f.json" &&
		head -n 1 "$tmp/f.json" | jq -e '.placement == "fixed" and .cpu >= 0' > /dev/null &&
		tail -n +2 "$tmp/f.json" | jq -s -e 'length == 3 and (map(.pid) | unique | length) == 3 and
			all(.src_place == 0 and .dst_place == 0 and (has("stack_place") | not)) and
			(map(.run_cpu) | unique | length) == 1' > /dev/null || return 1
	# At one placement, as a record gives it: every process there.
	"$CB" sweep "${fast[@]}" --sizes 64 --variants movsb --repeat 2 --src-offset 8 \
		--placement 8192:4160:2048 --json 2> /dev/null > "$tmp/at.json" &&
		head -n 1 "$tmp/at.json" | jq -e '.placement == "8192:4160:2048"' > /dev/null &&
		tail -n +2 "$tmp/at.json" | jq -s -e 'length == 2 and
			all(.src_place == 8200 and .dst_place == 4160 and .stack_place == 2048)' > /dev/null
}
check "--placement fixed: every process alike; SRC:DST:STACK: every process there" placement_modes

dry_run_processes()
{
	"$CB" sweep --backend user --sizes 64 --variants movsb --repeat 3 --dry-run > "$tmp/dr" &&
		[ "$(grep -c '^# process [0-2]: src+[0-9]* dst+[0-9]* distance [0-9]* stack [0-9]* cpu [0-9]*$' "$tmp/dr")" = 3 ] &&
		grep -q '^# 3 points in 3 process(es)' "$tmp/dr"
}
check "--dry-run: each process and its placement" dry_run_processes

# --slow-native adds real work after each native copy: at 1000% the native
# point costs several times what it costs without (any machine), and the
# header says it is a test record.
# The fastest process of each: a plain process slowed by a busy host (the
# slowest of two, three times the fastest slowed one, failed so in CI with a
# kernel build beside it) says nothing of --slow-native; the slowed copy's
# chain is sized from its own timing, at least ten times the copy's cost.
slow_native()
{
	"$CB" sweep "${fast[@]}" --sizes 4K --variants native,movsb --repeat 2 --samples 21 \
		-o "$tmp/sn0.json" > /dev/null 2>&1 &&
	"$CB" sweep "${fast[@]}" --sizes 4K --variants native,movsb --repeat 2 --samples 21 \
		--slow-native 1000 -o "$tmp/sn.json" > /dev/null 2>&1 || return 1
	head -n 1 "$tmp/sn.json" | jq -e '.slow_native == 1000' > /dev/null &&
	[ "$(jq -s -r '[.[1:][] | select(.variant == "native") | .cycles_min] | max' "$tmp/sn0.json")" != null ] &&
	jq -n -e --slurpfile a "$tmp/sn0.json" --slurpfile b "$tmp/sn.json" '
		def nat(r; f): [r[1:][] | select(.variant == "native") | f] | min;
		nat($a; .cycles_min) * 3 < nat($b; .cycles_min) and
		nat($a; .latency_min) * 3 < nat($b; .latency_min) and
		([$b[1:][] | select(.variant == "native") | .latency_slowed > 500] | all)' > /dev/null ||
		{ jq -s -c '[.[1:][] | select(.variant == "native") | [.cycles_min, .latency_min]]' "$tmp/sn0.json" "$tmp/sn.json"
		  return 1; }
}
check "--slow-native 1000: the native copy with real work after it, several times dearer, chained too" slow_native

# A short copy the chain makes dearer: --slow-native 100 at 64 B, where on
# some CPUs (a Zen 5, a Xeon) libc's memcpy runs in the shadow of the timing
# loop, doubles the latency as well as the time per call (more copies in
# the chain), each calibrated on its own figure.
slow_native_latency()
{
	"$CB" sweep "${fast[@]}" --sizes 64 --variants native --directions memcpy --repeat 2 \
		--samples 21 -o "$tmp/sl0.json" > /dev/null 2>&1 &&
	"$CB" sweep "${fast[@]}" --sizes 64 --variants native --directions memcpy --repeat 2 \
		--samples 21 --slow-native 100 -o "$tmp/sl.json" > /dev/null 2>&1 || return 1
	jq -n -e --slurpfile a "$tmp/sl0.json" --slurpfile b "$tmp/sl.json" '
		def f(r; g): [r[1:][] | g] | min;
		f($a; .latency_min) * 1.5 < f($b; .latency_min) and
		f($a; .call_min) * 1.5 < f($b; .call_min) and
		([$b[1:][] | (.slow_delivered - 100 | fabs) < 20 and
			(.latency_slowed - 100 | fabs) < 20] | all)' > /dev/null ||
		{ jq -s -c '[.[1:][] | [.call_min, .latency_min, .slow_delivered, .latency_slowed]]' \
			"$tmp/sl0.json" "$tmp/sl.json"; return 1; }
}
check "--slow-native 100 at 64 B: the latency chain's copy dearer moves the latency figure" slow_native_latency

# Every hot point of the user backend carries its time per call as timed
# (call_min, call_median), its latency and the chain's own; cycles_min is
# call_min less the baseline, clamped at 0. The table shows a figure net of
# the loop only where the copy makes at least half of the time per call and
# "hidden" elsewhere, never a cost near 0: libc's memcpy of 1 to 128 B runs
# in the loop's shadow on a Zen 5 and a Xeon, of 0 B on any CPU.
figures()
{
	"$CB" sweep --backend user --sizes 0,1,16,64,128,512,4K --variants native,movsb,orig \
		--directions memcpy --repeat 2 --process-ms 200 -o "$tmp/fig.json" > "$tmp/fig.txt" 2>&1 ||
		{ cat "$tmp/fig.txt"; return 1; }
	jq -s -e '.[1:] | length == 42 and all(.call_min > 0 and .call_median >= .call_min and
		.latency_min > 0 and .latency_median >= .latency_min and .latency_chain > 0 and
		((.call_min - .baseline_cycles) as $n |
			if $n > 0 then (.cycles_min - $n | fabs) < 0.001 else .cycles_min == 0 end))' \
		"$tmp/fig.json" > /dev/null || { jq -s -c '.[1:][] | [.variant, .size, .call_min, .baseline_cycles, .cycles_min, .latency_min]' "$tmp/fig.json"; return 1; }
	grep -q '^#  *size  *per call  *loop  *net  *latency  *chain ' "$tmp/fig.txt" &&
	awk '/^ +[0-9]+K? / {
		rows++
		if ($2 + 0 <= 0 || $5 + 0 <= 0 || $6 + 0 <= 0) bad = "a figure <= 0"
		if ($4 == "hidden") hidden++
		else if ($4 + 0 < $3 / 2 || $4 + 0 > $2) bad = "net " $4 " of per call " $2 ", loop " $3
	} END { if (bad || rows != 21) { print rows " rows: " bad; exit 1 } }' "$tmp/fig.txt" ||
		{ cat "$tmp/fig.txt"; return 1; }
	# Cold points have no chain: their lines lack the latency.
	"$CB" sweep "${fast[@]}" --sizes 4K --variants movsb --cache cold --repeat 1 \
		-o "$tmp/figc.json" > /dev/null 2>&1 &&
		jq -s -e '.[1:] | all(.call_min > 0 and (has("latency_min") | not))' "$tmp/figc.json" \
			> /dev/null
}
check "figures: time per call and latency on every hot point; net shown only beyond half the loop, else hidden" figures

# The interleaved design: the record says its rounds and bursts; every point
# took one burst a round, spread over its process's life; a native point
# carries its size class's paired control, timed in the same rounds (its
# control's figure net of the loop may be 0 where the core runs the copy in
# the loop's shadow; the ratio of the two as timed never is).
interleaved()
{
	"$CB" sweep --backend user --sizes 64,512,64K --variants native,unrolled --repeat 2 \
		--rounds 12 --burst 3 -o "$tmp/il.json" > /dev/null 2>&1 || return 1
	jq -s -e '
		(.[0] | .design == "interleaved" and .rounds == 12 and .burst == 3 and
			.samples == 36) and
		(.[1:] | all(.bursts == 12 and .samples == 36)) and
		# spread over the process: every point from near its start to near its end
		(.[1:] | group_by(.pid) | all((map(.span_ms) | max) as $m |
			all(.span_ms >= 0.5 * $m))) and
		(.[1:] | map(select(.variant == "native")) |
			all(.control_ratio > 0 and .control_min >= 0) and
			all(if .size < 4096 then .control == "orig" else .control == "movsb" end)) and
		(.[1:] | map(select(.variant != "native")) | all(has("control") | not))' \
		"$tmp/il.json" > /dev/null || { jq -s -c '.[0] | {design, rounds, burst}' "$tmp/il.json"; return 1; }
	# --samples alone: whole bursts of the default; fewer than a burst, one burst.
	"$CB" sweep "${fast[@]}" --sizes 64 --variants native --samples 12 -o "$tmp/il2.json" \
		> /dev/null 2>&1 &&
		head -n 1 "$tmp/il2.json" | jq -e '.rounds == 3 and .burst == 5 and .samples == 15' > /dev/null &&
		"$CB" sweep "${fast[@]}" --sizes 64 --variants native --samples 3 -o "$tmp/il2.json" \
			> /dev/null 2>&1 &&
		head -n 1 "$tmp/il2.json" | jq -e '.rounds == 1 and .burst == 3' > /dev/null &&
		head -n 1 "$tmp/sn.json" | jq -e '.rounds == 5 and .burst == 5' > /dev/null &&
		"$CB" sweep --backend user --sizes 64 --variants native --design block --repeat 1 \
			-o "$tmp/il3.json" > /dev/null 2>&1 &&
		jq -s -e '(.[0] | .design == "block" and (has("rounds") | not) and .samples == 1001) and
			(.[1:] | all((has("bursts") | not) and (has("control") | not)))' "$tmp/il3.json" > /dev/null
}
check "interleaved: rounds and bursts recorded, spread over the process, natives paired" interleaved

# Call sites: the header says how many copies of the timing loop the user
# backend has (libc's memcpy called by the loop itself); a point's samples
# rotate over them, a burst a site (block: a sample a site), so a point
# timed in fewer bursts than sites used as many sites as bursts.
call_sites()
{
	"$CB" sweep --backend user --sizes 1,64,4K --variants native,movsb --repeat 1 \
		--rounds 12 --burst 2 -o "$tmp/cs.json" > /dev/null 2>&1 &&
		jq -s -e '(.[0].call_sites == 16) and (.[1:] | length == 6 and all(.sites == 12))' \
			"$tmp/cs.json" > /dev/null || return 1
	"$CB" sweep --backend user --sizes 64 --variants native,unrolled --repeat 1 \
		--rounds 40 --burst 1 -o "$tmp/cs.json" > /dev/null 2>&1 &&
		jq -s -e '.[1:] | length == 2 and all(.bursts == 40 and .sites == 16)' \
			"$tmp/cs.json" > /dev/null || return 1
	"$CB" sweep --backend user --sizes 64 --variants native,movsb --design block --repeat 1 \
		--samples 5 -o "$tmp/cs.json" > /dev/null 2>&1 &&
		jq -s -e '(.[0].call_sites == 16) and
			(.[1:] | all(.samples == 5 and .sites == 5 and (has("bursts") | not)))' \
			"$tmp/cs.json" > /dev/null || { jq -s -c '[.[0].call_sites, .[1:][] | [.samples, .sites]]' "$tmp/cs.json"; return 1; }
	# Random sizes and cold copies: native through the same loops.
	"$CB" sweep --backend user --sizes random:1-512 --variants native,movsb --repeat 1 \
		--rounds 20 --burst 1 -o "$tmp/cs.json" > /dev/null 2>&1 &&
		jq -s -e '.[1:] | all(.sites == 16 and .verified)' "$tmp/cs.json" > /dev/null &&
		"$CB" sweep --backend user --sizes 4K --variants native --cache cold --repeat 1 \
			--rounds 3 --burst 1 -o "$tmp/cs.json" > /dev/null 2>&1 &&
		jq -s -e '.[1:] | all(.sites == 3 and .verified and .cycles_min > 0)' "$tmp/cs.json" > /dev/null
}
check "call sites: the header's call_sites; each point's samples from min(bursts, 16) sites" call_sites

# By duration: with --process-ms the rounds go on until the process has
# timed its points that long (the least rounds first); --rounds alone is
# exact; --like measures as the record did.
by_duration()
{
	"$CB" sweep --backend user --sizes 64,4K --variants native,movsb --repeat 2 \
		--process-ms 300 -o "$tmp/pm.json" > /dev/null 2>&1 || return 1
	jq -s -e '(.[0] | .process_ms == 300 and .rounds == 20) and
		(.[1:] | all(.bursts > 20 and .span_ms >= 250 and .samples == .bursts * 5))' \
		"$tmp/pm.json" > /dev/null || { jq -s -c '[.[0].process_ms, (.[1:][] | [.bursts, .span_ms])]' "$tmp/pm.json"; return 1; }
	"$CB" sweep --like "$tmp/pm.json" --repeat 1 -o "$tmp/pm2.json" > /dev/null 2>&1 &&
		jq -s -e '(.[0] | .process_ms == 300 and .rounds == 20) and
			(.[1:] | all(.span_ms >= 250))' "$tmp/pm2.json" > /dev/null || return 1
	"$CB" sweep --backend user --sizes 64 --variants native --repeat 1 --rounds 7 \
		-o "$tmp/pm3.json" > /dev/null 2>&1 &&
		jq -s -e '(.[0] | has("process_ms") | not) and (.[1:] | all(.bursts == 7))' \
			"$tmp/pm3.json" > /dev/null &&
		"$CB" sweep --like "$tmp/pm3.json" -o "$tmp/pm4.json" > /dev/null 2>&1 &&
		jq -s -e '(.[0] | has("process_ms") | not) and (.[1:] | all(.bursts == 7))' \
			"$tmp/pm4.json" > /dev/null
}
check "--process-ms: rounds until the process ran that long; --rounds alone exact; --like alike" by_duration

# A slow spell of the machine made to order (--slow-spell: native twice as
# dear in the first third of each process's rounds) must not move the
# point's figure the way the same slowing for the whole process does.
slow_spell()
{
	local a=(--backend user --sizes 4K --variants 'native,movsb' --repeat 2 --rounds 30)

	"$CB" sweep "${a[@]}" -o "$tmp/sp0.json" > /dev/null 2>&1 &&
		"$CB" sweep "${a[@]}" --slow-spell 100 -o "$tmp/sp.json" > /dev/null 2>&1 &&
		"$CB" sweep "${a[@]}" --slow-native 100 -o "$tmp/sp1.json" > /dev/null 2>&1 || return 1
	head -n 1 "$tmp/sp.json" | jq -e '.slow_spell == 100' > /dev/null &&
	jq -n -e --slurpfile a "$tmp/sp0.json" --slurpfile s "$tmp/sp.json" \
		--slurpfile w "$tmp/sp1.json" '
		def fig(r): [r[1:][] | select(.variant == "native") | .control_ratio] | min;
		# the spell moves the figure by less than half of what all rounds slowed do
		(fig($s) - fig($a)) < 0.5 * (fig($w) - fig($a))' > /dev/null && return 0
	jq -s -c '[.[] | select(.variant == "native") | .control_ratio]' "$tmp/sp0.json" \
		"$tmp/sp.json" "$tmp/sp1.json"
	return 1
}
check "--slow-spell 100: a slow third of the rounds leaves the figure; the whole process slowed moves it" slow_spell

design_refusals()
{
	local bad=0 a

	# shellcheck disable=SC2089 # OPTIONS:MESSAGE, the quotes are MESSAGE's
	for a in "--rounds 0:invalid --rounds '0'" "--burst 0:invalid --burst '0'" \
		 "--burst 1001:invalid --burst '1001'" "--rounds x:invalid --rounds 'x'" \
		 "--design nosuch:invalid --design 'nosuch' (accepted: interleaved, block)" \
		 "--rounds 4 --samples 20:--rounds 4 and --samples 20" \
		 "--design block --rounds 4:--rounds, --burst, --process-ms and --slow-spell are the interleaved design's" \
		 "--rounds 10000 --burst 1000:invalid --rounds 10000 with --burst 1000" \
		 "--slow-spell 0:invalid --slow-spell '0' (accepted: a percentage" \
		 "--slow-spell x:invalid --slow-spell 'x'" \
		 "--process-ms 600001:invalid --process-ms '600001' (accepted: a decimal integer, 0..600000)" \
		 "--process-ms 1s:invalid --process-ms '1s'" \
		 "--design block --process-ms 100:--rounds, --burst, --process-ms and --slow-spell are the interleaved design's" \
		 "--sizes 0-65535 --variants native,orig,movsb --repeat 1 --rounds 80:more than the interleaved design holds at once"; do
		# shellcheck disable=SC2086,SC2090 # options and values are words
		"$CB" sweep --backend user --sizes 64 --variants native ${a%%:*} -o "$tmp/dr.json" \
			> /dev/null 2> "$tmp/err"
		if [ $? != 2 ] || [ -e "$tmp/dr.json" ] || ! grep -qF -- "${a#*:}" "$tmp/err"; then
			echo "${a%%:*}: not refused with '${a#*:}':"
			cat "$tmp/err"
			bad=1
		fi
	done
	return $bad
}
check "--design, --rounds, --burst, --process-ms, --slow-spell: bad values refused, exit 2, nothing written" design_refusals

# A worker killed under the command: the command says so and exits 128 + 9,
# with nothing written; the command killed: its worker goes with it. Each
# worker measures 4096 points, some seconds at least on any machine.
long_sweep=(sweep --backend user --sizes 1-4096 --variants movsb --samples 201 --repeat 3)

# worker_of PID: the first child of PID, waited for up to 10 s.
worker_of()
{
	local i w

	for ((i = 0; i < 500; i++)); do
		w=$(pgrep -P "$1" | head -n 1)
		[ -n "$w" ] && { echo "$w"; return 0; }
		sleep 0.02
	done
	return 1
}

worker_killed()
{
	local pid w i rc

	"$CB" "${long_sweep[@]}" -o "$tmp/k.json" > /dev/null 2> "$tmp/ke" &
	pid=$!
	w=$(worker_of $pid) || { kill $pid; wait $pid; echo "no worker seen"; return 1; }
	kill -KILL "$w" || { kill $pid; wait $pid; echo "worker $w gone before the kill"; return 1; }
	wait $pid
	rc=$?
	[ $rc = 137 ] || { echo "exit $rc, want 137"; cat "$tmp/ke"; return 1; }
	# shellcheck disable=SC2010 # names of copybench's temporary files
	grep -q "process $w was killed by signal 9" "$tmp/ke" && [ ! -e "$tmp/k.json" ] &&
		! ls -a "$tmp" | grep -q '^\.k\.json\.' || { cat "$tmp/ke"; return 1; }
	"$CB" "${long_sweep[@]}" > /dev/null 2>&1 &
	pid=$!
	w=$(worker_of $pid) || { kill $pid; wait $pid; echo "no second worker seen"; return 1; }
	kill -KILL "$pid"
	wait $pid 2> /dev/null
	for ((i = 0; i < 500; i++)); do
		[ -d "/proc/$w" ] && [ "$(awk '{ print $3 }' "/proc/$w/stat" 2> /dev/null)" != Z ] || return 0
		sleep 0.02
	done
	echo "worker $w still runs 10 s after its command was killed"
	kill -KILL "$w"
	return 1
}
check "a worker killed: exit 137, said, nothing written; the command killed: its worker ends" worker_killed

worker_hidden()
{
	"$CB" worker 1 2 > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "a worker of copybench sweep and alias, which start it themselves" "$tmp/e" &&
		! "$CB" --help | grep -q worker &&
		"$CB" nosuch 2>&1 | grep -q "accepted: sweep, alias, plot, compare, bisect-run, placement, pattern, help)"
}
check "the worker subcommand: not listed, refuses what a person would type" worker_hidden

# The worker takes its order and its points on stdin (process.h), the
# record's own point format: a whole order measures its point; an order
# that is not one, a count that does not match, a point of another process
# or a variant the backend lacks: exit 2, said, nothing measured.
worker_order() {
	local o k out
	o='{"copybench_order":1,"subcommand":"sweep","backend":"user","process":0,"src_shift":0,"dst_shift":64,"stack":32,"cpu":'$(cut -d' ' -f39 /proc/self/stat)',"tsc_khz":0,"samples":10,"loops":0,"max_run_ms":1000,"max_bytes":4096,"rounds":2,"burst":5,"process_ms":0,"cold":false,"random":false,"slow_native":0,"slow_spell":0,"perturb_controls":0,"seed":1,"points":1}'
	k='{"direction":"memcpy","variant":"movsb","size":64,"src_offset":0,"dst_offset":0,"cache":"hot","repeat":0}'
	out=$(printf '%s\n%s\n' "$o" "$k" | "$CB" worker) || { echo "a whole order failed"; return 1; }
	[ "$(printf '%s\n' "$out" | wc -l)" = 2 ] &&
		printf '%s\n' "$out" | head -n 1 | grep -q '"copybench_worker":1' &&
		printf '%s\n' "$out" | tail -n 1 | grep -q '"variant":"movsb","size":64,.*"verified":true,.*"dst_place":64,"stack_place":32' ||
		{ echo "not a hello and the point: $out"; return 1; }
	worker_refuses "not JSON" 'garbage\n' || return 1
	worker_refuses "0 point lines for an order of 1" '%s\n' "$o" || return 1
	worker_refuses "more than the order's points" '%s\n%s\n%s\n' "$o" "$k" "$k" || return 1
	worker_refuses "a last line without its newline" '%s\n%s' "$o" "$k" || return 1
	worker_refuses "0 point lines for an order of 4000000000" '%s\n' "${o/\"points\":1/\"points\":4000000000}" || return 1
	worker_refuses "an order of version 2" '%s\n%s\n' "${o/\"copybench_order\":1/\"copybench_order\":2}" "$k" || return 1
	worker_refuses "stack: not -1 or an aligned page offset" '%s\n%s\n' "${o/\"stack\":32/\"stack\":33}" "$k" || return 1
	worker_refuses "is not one the user backend measures here" '%s\n%s\n' "$o" "${k/\"repeat\":0/\"repeat\":1}" || return 1
	worker_refuses "(memcpy nosuch 64, cache hot, repeat 0)" '%s\n%s\n' "$o" "${k/movsb/nosuch}"
}

# worker_refuses WHAT FORMAT ARGS...: the worker given printf's output exits 2 saying WHAT, writes nothing.
worker_refuses() {
	local what=$1 out
	shift
	# shellcheck disable=SC2059 # the format is the caller's
	out=$(printf "$@" | "$CB" worker 2> "$tmp/we")
	[ $? = 2 ] && [ -z "$out" ] && grep -qF -- "$what" "$tmp/we" ||
		{ echo "want exit 2 and '$what', got: $out $(cat "$tmp/we")"; return 1; }
}
check "the worker measures the order on its stdin and refuses a bad one" worker_order

# --- pattern: the data file's content, for scripts ---------------------------

# Its first bytes are the ones copybench.rst's formula gives (0, 0x9e, 0x3c,
# 0xda); raw and --hex agree; --offset moves it; --size counts bytes.
pattern_bytes()
{
	local hex raw
	hex=$("$CB" pattern --size 4 --hex | tr '\n' ' ') || return 1
	[ "$hex" = "0x00 0x9e 0x3c 0xda " ] || { echo "first bytes: $hex"; return 1; }
	raw=$("$CB" pattern --offset 4096 --size 64 | od -An -v -tx1 | tr -s ' \n' ' ')
	hex=$("$CB" pattern --offset 4096 --size 64 --hex | sed 's/^0x//' | tr '\n' ' ')
	[ "$raw" = " $hex" ] || { echo "raw '$raw' against hex ' $hex'"; return 1; }
	[ "$("$CB" pattern --offset 1 --size 1 --hex)" = 0x9e ] || return 1
	[ "$("$CB" pattern --size 1M | wc -c)" = 1048576 ]
}
check "pattern: the data file's content, raw and --hex, from any offset" pattern_bytes

# Every bad option: refused with its name and value, exit 2, nothing on stdout.
pattern_refusals()
{
	local args want
	# shellcheck disable=SC2089 # OPTIONS:MESSAGE, the quotes are MESSAGE's
	for args in "--size 2G:invalid --size '2G'" "--size x:invalid --size 'x'" \
		    "--offset -1:invalid --offset '-1'" "--hex=1:takes no value" \
		    "extra:unexpected argument 'extra'" "--nosuch:unknown option '--nosuch'"; do
		want=${args#*:}
		# shellcheck disable=SC2086,SC2090 # options and values are words
		"$CB" pattern ${args%%:*} > "$tmp/o" 2> "$tmp/e"
		[ $? = 2 ] && [ ! -s "$tmp/o" ] && grep -qF -- "$want" "$tmp/e" ||
			{ echo "${args%%:*}: $(cat "$tmp/e")"; return 1; }
	done
}
check "pattern: bad options refused, exit 2, nothing written" pattern_refusals

# --- placement -----------------------------------------------------------------

# plrec FILE RULE: a record of to_user.native.512 and its control movsb
# measured by 8 placements x 3 rounds (process = round x 8 + placement, on
# CPU placement % 2), the costs as RULE says (awk: slow, cslow from
# placement pl, round r, cpu c). Time per call fast: 12.8 and 30; slow: 22
# and 40 (a loop of 4); the latency twice the time per call.
plrec()
{
	"$CB" sweep --backend user --sizes 64 --variants movsb --samples 3 --repeat 1 --json 2> /dev/null |
		head -n 1 | jq -c '.repeat = 24 | .placement = "vary"' > "$1"
	awk -v OFS= 'BEGIN { for (r = 0; r < 3; r++) for (pl = 0; pl < 8; pl++) {
		c = pl % 2; slow = 0; cslow = 0; '"$2"'
		for (k = 0; k < 2; k++) {
			v = k ? (cslow ? 40 : 30) : (slow ? 22 : 12.8)
			v += ((r * 8 + pl) % 5) * 0.01
			printf "{\"direction\":\"to_user\",\"variant\":\"%s\",\"size\":512,", k ? "movsb" : "native"
			printf "\"src_offset\":0,\"dst_offset\":0,\"cache\":\"hot\",\"repeat\":%d,", r * 8 + pl
			printf "\"run_cpu\":%d,\"loops\":64,\"samples\":101,\"samples_discarded\":0,", c
			printf "\"truncated\":false,\"cycles_min\":%.4f,\"cycles_median\":%.4f,", v - 4, v - 4
			printf "\"cycles_mean\":%.4f,\"cycles_stddev\":0.1,\"cycles_max\":%.4f,", v - 4, v - 4
			printf "\"baseline_cycles\":4,\"ns_median\":1,\"bytes_per_cycle\":1,\"verified\":true,"
			printf "\"call_min\":%.4f,\"call_median\":%.4f,", v, v
			printf "\"latency_min\":%.4f,\"latency_median\":%.4f,", 2 * v, 2 * v
			printf "\"pid\":%d,\"src_place\":%d,\"dst_place\":%d,\"stack_place\":%d}\n", \
				2000 + r * 8 + pl, 4096 * (pl + 1), 4096 * (pl + 3) + 640, 16 * pl
		}
	} }' >> "$1"
}

# Placements 2 and 5 slow in every round, their control fast: the
# placement's doing, named, with the sweep that measures one there again.
placement_named()
{
	plrec "$tmp/pl1.json" 'slow = pl == 2 || pl == 5' &&
	"$CB" placement to_user.native.512 "$tmp/pl1.json" > "$tmp/o" &&
		grep -q '^# verdict: PLACEMENT: 2 of 8 placements are slow in every round while their control is not' "$tmp/o" &&
		grep -q '^#   placement 2: src+12288 dst+21120 distance 640 stack 32 cpu 0: median 22.0[0-9] ' "$tmp/o" &&
		grep -q -- '--variants native,movsb --directions to_user --cache hot --placement 12288:21120:32 --cpu 0 --repeat 5$' "$tmp/o" &&
		[ "$(grep -c '^ *[0-9]* *[0-2] *2[0-9]* .* alone$' "$tmp/o")" = 6 ] &&
		grep -q '^ *2 *0 *2002 .* 22.0[0-9]\* *30.0[0-9] *44.[0-9]* *alone$' "$tmp/o" &&
		"$CB" placement to_user.native.512 "$tmp/pl1.json" --json |
		jq -s -e '.[-1] | .verdict == "placement" and .slow_placements == [2, 5] and
			.processes == 24 and .placements == 8 and .rounds == 3' > /dev/null &&
		"$CB" placement to_user.native.512 "$tmp/pl1.json" --json |
		jq -s -e '[.[] | select(.type == "process")] | length == 24 and
			all(.latency == 2 * .cost)' > /dev/null ||
		{ cat "$tmp/o"; return 1; }
}
check "placement RECORD: placements slow in every round, control fast: named, the placement's; latency beside" placement_named

# Slow in round 1 at every placement, the control too: the machine; every
# process on CPU 1 slow: the CPU; none slow: steady.
placement_verdicts()
{
	plrec "$tmp/pl2.json" 'slow = cslow = r == 1' &&
	"$CB" placement to_user.native.512 "$tmp/pl2.json" --json | jq -s -e '.[-1].verdict == "machine"' > /dev/null &&
	plrec "$tmp/pl3.json" 'slow = cslow = c == 1' &&
	"$CB" placement to_user.native.512 "$tmp/pl3.json" > "$tmp/o" &&
		grep -q '^# verdict: the CPU: 12 of the 12 processes on CPU 1 are slow' "$tmp/o" &&
		grep -q '^#   CPU  *cpu 0: 0/12  cpu 1: 12/12$' "$tmp/o" &&
	plrec "$tmp/pl4.json" '' &&
	"$CB" placement to_user.native.512 "$tmp/pl4.json" | grep -q '^# verdict: steady' &&
	plrec "$tmp/pl5.json" 'slow = pl == 3 && r < 2' &&
	"$CB" placement to_user.native.512 "$tmp/pl5.json" --control none --json |
		jq -s -e '.[-1] | .verdict == "machine" and .slow == 2' > /dev/null
}
check "placement RECORD: the machine, the CPU, steady, each said" placement_verdicts

# Its JSON lines on a full disk: said, exit 1 (they were lost with exit 0).
placement_write_fails()
{
	local rc

	"$CB" placement to_user.native.512 "$tmp/pl1.json" --json > /dev/full 2> "$tmp/e"
	rc=$?
	[ $rc = 1 ] &&
		grep -qx 'copybench placement: writing the JSON lines: No space left on device' "$tmp/e" ||
		{ echo "exit $rc"; cat "$tmp/e"; return 1; }
}
check "placement --json on a full disk: the failed write said, exit 1" placement_write_fails

# Measured: 3 placements x 2 rounds, six processes; the record, the plot.
placement_measured()
{
	"$CB" placement to_user.native.64 --placements 3 --rounds 2 --samples 21 \
		-o "$tmp/plm.json" --plot "$tmp/plm.svg" --json > "$tmp/o" 2> /dev/null || return 1
	record_ok "$tmp/plm.json" && [ -s "$tmp/plm.svg" ] && [ -s "$tmp/plm.dat" ] &&
		[ -s "$tmp/plm.gp" ] &&
		jq -s -e '.[-1] | .processes == 6 and .placements == 3 and .rounds == 2' "$tmp/o" > /dev/null &&
		tail -n +2 "$tmp/plm.json" | jq -s -e '(map(.pid) | unique | length) == 6 and
			(map([.src_place, .dst_place, .stack_place]) | unique | length) == 3 and
			(map(.variant) | unique) == ["movsb", "native"]' > /dev/null
}
check "placement POINT: 3 placements x 2 rounds measured: 6 processes, the record and the plot" placement_measured

placement_refusals()
{
	local a bad=0

	"$CB" sweep --backend user --sizes 512 --variants native,movsb --samples 3 --repeat 1 \
		--json 2> /dev/null | jq -c 'del(.pid, .src_place, .dst_place, .stack_place, .placement)' \
		> "$tmp/plold.json"
	# shellcheck disable=SC2089 # ARGUMENTS:MESSAGE, the quotes are MESSAGE's
	for a in ":needs a point: POINT [RECORD]" \
		 "a b c:takes a point and at most one record" \
		 "to_user.native:invalid point 'to_user.native' (accepted: a point's name" \
		 "to_user.native.512 --placements 1:invalid --placements '1' (accepted: a decimal integer, 2..1000)" \
		 "to_user.native.512 --placements 1001:invalid --placements '1001'" \
		 "to_user.native.512 --rounds 0:invalid --rounds '0' (accepted: a decimal integer, 1..100)" \
		 "to_user.native.512 --rounds x:invalid --rounds 'x'" \
		 "to_user.native.512 --control native:invalid --control 'native'" \
		 "to_user.native.512 --control movsb,orig:invalid --control 'movsb,orig'" \
		 "to_user.movsb.512 --control movsb:invalid --control 'movsb': it is the point's own variant" \
		 "to_user.native.512 --threshold -1:invalid --threshold '-1' (accepted: a percentage, 0..1000)" \
		 "to_user.native.512 --backend gpu:invalid --backend 'gpu' (accepted: auto, user, module)" \
		 "to_user.native.512 --samples 0:invalid --samples '0' (accepted: a decimal integer, 1..100000)" \
		 "to_user.native.512 --seed x:invalid --seed 'x'" \
		 "to_user.native.512 --cpu x:invalid --cpu 'x'" \
		 "to_user.native.512 --plot $tmp/x.pdf:invalid --plot '$tmp/x.pdf' (accepted: FILE.svg or FILE.png)" \
		 "to_user.native.512 $tmp/pl1.json --rounds 3:with a record, nothing is measured" \
		 "to_user.native.512 $tmp/pl1.json -o $tmp/x.json:with a record, nothing is measured" \
		 "to_user.native.4K $tmp/pl1.json:has no point to_user.native.4K" \
		 "to_user.native.512 $tmp/plold.json:is a record of one process" \
		 "to_user.native.512 $tmp/none.json:cannot read record" \
		 "to_user.nosuch.512 --samples 3 -o $tmp/x.json:invalid --variants 'nosuch,movsb'" \
		 "to_user.native.512 --bogus:unknown option '--bogus'"; do
		# shellcheck disable=SC2086,SC2090 # the arguments are words
		"$CB" placement ${a%%:*} > "$tmp/o" 2> "$tmp/e"
		if [ $? != 2 ] || [ -s "$tmp/o" ] || ! grep -qF -- "${a#*:}" "$tmp/e" ||
		   [ -e "$tmp/x.json" ] || [ -e "$tmp/x.svg" ]; then
			echo "'${a%%:*}': not refused with '${a#*:}':"
			cat "$tmp/e"
			bad=1
		fi
	done
	return $bad
}
check "placement: every bad option, point and record refused, exit 2, nothing written" placement_refusals

# --- alias -------------------------------------------------------------------

alias_record()
{
	"$CB" alias "${fast[@]}" --variants movsb --from -64 --to 64 --step 32 --repeat 1 \
		-o "$tmp/a.json" > "$tmp/a.txt" 2>/dev/null || return 1
	record_ok "$tmp/a.json" &&
		tail -n +2 "$tmp/a.json" | jq -s -c 'map(.dst_offset - .src_offset)' |
		grep -qx '\[-64,-32,0,32,64\]' &&
		tail -n +2 "$tmp/a.json" | jq -s -e 'def m: (. % 4096 + 4096) % 4096;
			all((.dst_place - .src_place | m) == (.dst_offset - .src_offset | m))' \
			> /dev/null &&
		head -n 1 "$tmp/a.json" | jq -e '.placement == "vary-pages"' > /dev/null &&
		head -n 1 "$tmp/a.json" | jq -e '.subcommand == "alias"' > /dev/null &&
		grep -qE '^ +-64 ' "$tmp/a.txt"
}
check "alias: one point per distance, dst - src as asked" alias_record

alias_plateau()
{
	"$CB" alias "${fast[@]}" --variants movsb --from -32 --to 32 --step 16 --plateau \
		> "$tmp/ap" 2>/dev/null &&
		grep -qE '^ +-32(\.\.-?[0-9]+)? +[0-9.]+ clocks per call$' "$tmp/ap" &&
		grep -qE '^ +-32(\.\.-?[0-9]+)? +[0-9.]+ clocks latency$' "$tmp/ap"
}
check "alias --plateau: ranges of distances" alias_plateau

# --- plot --------------------------------------------------------------------

plots()
{
	command -v gnuplot > /dev/null || { echo "gnuplot missing (apt-get install gnuplot-nox)"; return 1; }
	"$CB" plot "$tmp/r.json" "$tmp/c.json" -o "$tmp/plot.svg" &&
		[ -s "$tmp/plot.svg" ] && [ -s "$tmp/plot.dat" ] && [ -s "$tmp/plot.gp" ] &&
		grep -q '<svg' "$tmp/plot.svg" || return 1
	"$CB" plot "$tmp/r.json" -o "$tmp/plot.png" --plateau --clock core &&
		[ "$(head -c 4 "$tmp/plot.png" | od -An -c | tr -d ' ')" = '211PNG' ] || return 1
	"$CB" plot "$tmp/a.json" -o "$tmp/alias.svg" && [ -s "$tmp/alias.svg" ] || return 1
	# the script redraws from its directory
	(cd "$tmp" && gnuplot -e 'outfile="again.svg"' plot.gp) && [ -s "$tmp/again.svg" ]
}
check "plot: SVG and PNG written, not empty, data and script beside" plots

plot_bad_record()
{
	head -c 300 "$tmp/r.json" > "$tmp/cut.json"
	"$CB" plot "$tmp/r.json" "$tmp/cut.json" -o "$tmp/bad.svg" 2> "$tmp/e"
	[ $? = 2 ] || return 1
	grep -q "$tmp/cut.json:1: " "$tmp/e" || { cat "$tmp/e"; return 1; }
	[ ! -e "$tmp/bad.svg" ] && [ ! -e "$tmp/bad.dat" ] && [ ! -e "$tmp/bad.gp" ]
}
check "plot: a cut record is refused with file:line, exit 2, nothing written" plot_bad_record

# --- bad input: exit 2, the option, the value, the accepted ones, no -o --------

# bad NAME SUBCOMMAND WANT ARGS...: exit 2, WANT in stderr, no file at -o.
bad()
{
	local name=$1 sub=$2 want=$3 out=$tmp/bad.json rc

	shift 3
	rm -f "$out"
	if [ "$sub" = plot ]; then
		"$CB" plot "$@" > /dev/null 2> "$tmp/e"
	else
		"$CB" "$sub" "${fast[@]}" -o "$out" "$@" > /dev/null 2> "$tmp/e"
	fi
	rc=$?
	# shellcheck disable=SC2010 # names of copybench's temporary files
	if [ $rc = 2 ] && grep -qF -- "$want" "$tmp/e" && [ ! -e "$out" ] &&
	   ! ls -a "$tmp" | grep -q '^\.bad\.json\.'; then
		ktap_test_pass "bad input: $name"
	else
		ktap_test_fail "bad input: $name"
		echo "# exit $rc, want 2 and: $want"
		sed 's/^/# stderr: /' "$tmp/e"
	fi
}

bad "--sizes 12Q" sweep "invalid --sizes '12Q': bad item '12Q' (accepted: N, LO-HI" --sizes 12Q
bad "--sizes empty" sweep "invalid --sizes '': empty item (accepted:" --sizes ""
bad "--sizes above 64M" sweep "invalid --sizes '65M'" --sizes 65M
bad "--sizes too many" sweep "more than 65536 sizes" --sizes 0-64M
bad "--variants unknown" sweep "invalid --variants 'movsb,nosuch': unknown 'nosuch' (accepted: bytes, movsb," \
	--variants movsb,nosuch
bad "--variants empty item" sweep "invalid --variants 'movsb,': empty item" --variants movsb,
bad "--directions unknown" sweep "invalid --directions 'sideways': unknown 'sideways' (accepted: memcpy, to_user" \
	--directions sideways
bad "--cache" sweep "invalid --cache 'warm': unknown 'warm' (accepted: hot, cold" --cache warm
bad "--repeat 0" sweep "invalid --repeat '0' (accepted: a decimal integer, 1..1000)" --repeat 0
bad "--repeat 1001" sweep "invalid --repeat '1001'" --repeat 1001
bad "--seed -1" sweep "invalid --seed '-1' (accepted: a decimal integer" --seed -1
bad "--samples 0" sweep "invalid --samples '0' (accepted: a decimal integer, 1..100000)" --samples 0
bad "--samples x" sweep "invalid --samples 'x'" --samples x
bad "--loops 1000001" sweep "invalid --loops '1000001' (accepted: a decimal integer, 0..1000000)" \
	--loops 1000001
bad "--loops too long a sample" sweep "invalid --loops 1000000: a sample of 1000000 copies would take" \
	--loops 1000000 --sizes 64M --variants movsb
bad "--cpu 99999" sweep "invalid --cpu 99999: accepted values:" --cpu 99999
bad "--cpu x" sweep "invalid --cpu 'x'" --cpu x
bad "--max-run-ms 0" sweep "invalid --max-run-ms '0' (accepted: a decimal integer, 1..600000)" \
	--max-run-ms 0
bad "--estimator" sweep "invalid --estimator 'mean' (accepted: min, median)" --estimator mean
bad "--clock" sweep "invalid --clock 'wall' (accepted: tsc, core)" --clock wall
bad "--tolerance 101" sweep "invalid --tolerance '101' (accepted: a percentage, 0..100)" --tolerance 101
bad "--backend" sweep "invalid --backend 'gpu' (accepted: auto, user, module)" --backend gpu
bad "--src-offset 4096" sweep "invalid --src-offset '4096' (accepted: 0..4095 bytes)" --src-offset 4096
bad "--dst-offset -1" sweep "invalid --dst-offset '-1' (accepted: 0..4095 bytes)" --dst-offset -1
bad "--load=" sweep "invalid --load ''" --load=
for v in x 64:64 65:0:0 0:0:8 0:0:4096 2097152:0:0 -64:0:0 0:0:0:0 :0:0 0::0 0:0: vary,fixed; do
	bad "--placement $v" sweep "invalid --placement '$v' (accepted: vary, vary-pages, fixed, or SRC:DST:STACK" \
		--placement "$v"
done
for v in 0 -1 1001 x 5%; do
	bad "--slow-native $v" sweep "invalid --slow-native '$v' (accepted: a percentage, 0 < PCT <= 1000)" \
		--slow-native "$v"
done
bad "--slow-native, cold" sweep "--slow-native: hot, fixed-size native points only" \
	--slow-native 5 --cache cold --variants native,movsb
bad "--json --plateau" sweep "--json and --plateau exclude each other" --json --plateau
bad "unknown option" sweep "unknown option '--frobnicate' (accepted: --src-offset, --dst-offset, --backend" \
	--frobnicate
bad "missing value" sweep "option '--sizes' needs a value" --sizes
bad "missing value of -o" sweep "option '-o' (--output) needs a value: FILE (see --help)" -o
bad "a value that looks like an option" sweep \
	"option '--output' needs a value, but '--json' follows it (a FILE that starts with '-': --output=FILE)" \
	--output --json
bad "value on a flag" sweep "option '--json' takes no value (got '--json=1')" --json=1
bad "an operand" sweep "unexpected argument 'extra'" extra
bad "a direction the variants lack" sweep "to_iter" --directions to_iter --variants movsb
bad "alias --from" alias "invalid --from '-5000' (accepted: -4095..4095 bytes)" --from -5000
bad "alias --step 0" alias "invalid --step '0' (accepted: 1..4095 bytes)" --step 0
bad "alias --from > --to" alias "invalid --from 10 --to 5: accepted: FROM <= TO" --from 10 --to 5
bad "alias random sizes" alias "alias takes fixed sizes only" --sizes random:1-8
bad "plot without -o" plot "-o FILE.svg or -o FILE.png is required" "$tmp/r.json"
bad "plot -o x.pdf" plot "invalid -o '$tmp/x.pdf' (accepted: FILE.svg or FILE.png)" "$tmp/r.json" -o "$tmp/x.pdf"
bad "plot no record" plot "no record given" -o "$tmp/x.svg"
bad "plot --estimator" plot "invalid --estimator 'x' (accepted: min, median)" --estimator x
bad "plot missing record" plot "cannot read record '$tmp/none.json'" "$tmp/none.json" -o "$tmp/x.svg"

# The module backend where no module is: a runtime error, exit 1, no -o.
module_missing()
{
	"$CB" sweep --backend module --sizes 64 -o "$tmp/m.json" > /dev/null 2> "$tmp/e"
	[ $? = 1 ] || return 1
	grep -qE "copybench.ko is not loaded|needs root" "$tmp/e" && [ ! -e "$tmp/m.json" ] || return 1
	[ -d /sys/kernel/debug/copybench ] && return 0
	"$CB" sweep --backend module --load="$tmp/none.ko" --sizes 64 -o "$tmp/m.json" \
		> /dev/null 2> "$tmp/e"
	[ $? = 1 ] && [ ! -e "$tmp/m.json" ] &&
		{ [ "$(id -u)" != 0 ] || grep -qE "cannot open $tmp/none.ko|cannot load modules" "$tmp/e"; }
}
check "module backend without the module: exit 1, a clear message, no -o" module_missing

# Not root: the user backend works, the module backend says it needs root.
not_root()
{
	if [ "$(id -u)" != 0 ]; then
		"$CB" sweep --backend module --sizes 64 > /dev/null 2> "$tmp/e"
		[ $? = 1 ] && grep -q "needs root" "$tmp/e"
		return
	fi
	command -v runuser > /dev/null || { echo "runuser missing (util-linux)"; return 1; }
	chmod 755 "$tmp"
	runuser -u nobody -- "$CB" sweep --backend auto --sizes 64 --variants movsb --samples 5 \
		> "$tmp/nr.txt" 2> "$tmp/nr.err" || { cat "$tmp/nr.err"; return 1; }
	grep -q "backend user: .*(not root)\|backend user: .*does not exist" "$tmp/nr.err" &&
		grep -qE '^ +64 .* yes$' "$tmp/nr.txt" || { cat "$tmp/nr.err" "$tmp/nr.txt"; return 1; }
	runuser -u nobody -- "$CB" sweep --backend module --sizes 64 > /dev/null 2> "$tmp/e"
	[ $? = 1 ] && grep -q "the module backend needs root" "$tmp/e"
}
check "not root: the user backend measures, the module backend needs root (exit 1)" not_root

# A record is data anyone can write: nothing in it may run as gnuplot code.
plot_hostile_record()
{
	rm -f "$tmp/pwned"
	{
		head -n 1 "$tmp/r.json"
		sed -n 2p "$tmp/r.json" | jq -c --arg v "m'o\"\`touch $tmp/pwned\`\\" '.variant = $v'
		tail -n +3 "$tmp/r.json"
	} > "$tmp/evil.json"
	grep -q pwned "$tmp/evil.json" || { echo "test record not made"; return 1; }
	"$CB" plot "$tmp/evil.json" -o "$tmp/evil.svg" > /dev/null 2>&1 || return 1
	[ ! -e "$tmp/pwned" ] || { echo "gnuplot ran a command from a record"; return 1; }
	grep -q "pwned" "$tmp/evil.gp"
}
check "plot: a hostile variant name in a record runs nothing" plot_hostile_record

# -o must be a file: refused up front, not after the measurement.
output_checks()
{
	"$CB" sweep "${fast[@]}" --sizes 64 -o "$tmp" > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "invalid output file '$tmp': a file name is needed" "$tmp/e" || return 1
	"$CB" sweep "${fast[@]}" --sizes 64 -o "$tmp/no/such/dir/r.json" > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "cannot create a file beside it" "$tmp/e" || return 1
	"$CB" sweep "${fast[@]}" --sizes 0-4095 --variants all --directions all --repeat 30 \
		-o "$tmp/big.json" > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "points (sizes x variants x directions x caches x repeats): more than the 1000000" \
		"$tmp/e" && [ ! -e "$tmp/big.json" ]
}
check "-o a directory or under a missing one, too many points: exit 2 up front" output_checks

# tools/precision: its options checked; a short real run prints both spreads.
precision()
{
	local p=$cb_top/tools/precision

	"$p" --runs 1 > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "invalid --runs '1' (accepted: 2..1000)" "$tmp/e" || return 1
	"$p" --sizes 12Q > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "invalid --sizes '12Q'" "$tmp/e" || return 1
	"$p" --variants movsb,bytes > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "invalid --variants 'movsb,bytes': unknown 'bytes' (accepted: movsb, native" \
		"$tmp/e" || return 1
	command -v perf > /dev/null || { echo "perf missing (apt-get install linux-perf)"; return 1; }
	COPYBENCH='' "$p" --runs 2 --sizes 64,4K --variants movsb,native --perf-bytes 4M -- \
		--samples 21 > "$tmp/prec" 2>&1 || { cat "$tmp/prec"; return 1; }
	# Per size: perf bench's spread, then cycles_min's, cycles_median's and
	# min x ratio's (net of the loop: "hidden" where the core runs the copy
	# in the loop's shadow, as at 64 B on a Zen 5), then the time per
	# call's and the latency's, which every CPU resolves.
	grep -q '^# load before: ' "$tmp/prec" &&
		[ "$(grep -cE '^ +64 +[0-9.]+%( +([0-9.]+%|hidden)){3}( +[0-9.]+%){2} ' "$tmp/prec")" = 2 ] &&
		[ "$(grep -cE '^ +4K +[0-9.]+%( +([0-9.]+%|hidden)){3}( +[0-9.]+%){2} ' "$tmp/prec")" = 2 ] &&
		grep -q '^# native: spread' "$tmp/prec" || { cat "$tmp/prec"; return 1; }
}
check "tools/precision: bad options refused; a short run gives both tools' spreads" precision

# --- progress and signals ------------------------------------------------------

# Progress on a terminal, nothing on a pipe.
progress()
{
	local cmd=("$CB" sweep --backend user --sizes pow2:1-64K --variants all --samples 51 --repeat 2)

	"${cmd[@]}" > /dev/null 2> "$tmp/e" || return 1
	[ "$(wc -l < "$tmp/e")" = 0 ] || [ "$(grep -vc '^copybench sweep: backend' "$tmp/e")" = 0 ] ||
		{ echo "stderr not a terminal yet got:"; cat "$tmp/e"; return 1; }
	python3 -c 'import pty, sys; pty.spawn(sys.argv[1:])' "${cmd[@]}" > "$tmp/tty" 2>&1 || return 1
	grep -qE 'points \([0-9]+%\), [0-9]+ s left' "$tmp/tty" ||
		{ echo "no progress on a terminal"; tail -c 300 "$tmp/tty"; return 1; }
}
check "progress: on a terminal, silent on a pipe" progress

# SIGINT in the middle: exit 130, nothing at -o, no temporary file left.
sigint()
{
	local pid rc i

	"$CB" sweep --backend user --sizes 1M --variants movsb --repeat 1000 --samples 2001 \
		-o "$tmp/int.json" > /dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 500; i++)); do
		# shellcheck disable=SC2010 # names of copybench's temporary files
		ls -a "$tmp" | grep -q '^\.int\.json\.' && break
		sleep 0.02
	done
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc = 130 ] || { echo "exit $rc, want 130"; return 1; }
	# shellcheck disable=SC2010 # names of copybench's temporary files
	[ ! -e "$tmp/int.json" ] && ! ls -a "$tmp" | grep -q '^\.int\.json\.'
}
check "SIGINT: exit 130, no record, no temporary file" sigint

cb_finish
