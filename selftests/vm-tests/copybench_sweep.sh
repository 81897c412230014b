#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# copybench_sweep.sh - the copybench command's module backend, in the VM of
# make check (6.1 and 6.12), TAP 13 through the kernel's ktap_helpers.sh.
#
# Usage (as vm-suite.sh runs it, root, copybench.ko loaded, COPYBENCH_KO
# set): selftests/vm-tests/copybench_sweep.sh
#
# Unloads the module vm-suite loaded, then: `copybench sweep --backend
# module --load=$COPYBENCH_KO` over a few sizes, every variant and every
# direction (record well-formed, every point verified, every variant and
# direction the module has, the module unloaded afterwards); a refused
# option unloads it too; with the module already loaded the knobs a sweep
# changes are back afterwards and auto picks the module; cold cache and
# offsets. Leaves the module loaded, as it found it. Timings are not looked
# at (TCG). Exit 0 pass, 1 fail, 4 skip (not root, no COPYBENCH_KO).
set -u

CB_SELFTESTS=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
# shellcheck source=SCRIPTDIR/../ktap.sh
. "$CB_SELFTESTS/ktap.sh"
# shellcheck source=SCRIPTDIR/../copybench_cmd_lib.sh
. "$CB_SELFTESTS/copybench_cmd_lib.sh"

dir=/sys/kernel/debug/copybench
ko=${COPYBENCH_KO:-}

if [ "$(id -u)" != 0 ] || [ -z "$ko" ] || [ ! -r "$ko" ]; then
	ktap_test_skip "module backend: needs root and COPYBENCH_KO (run by selftests/vm-suite.sh)"
	ktap_set_plan 1
	exit "$KSFT_SKIP"
fi

unloaded() { [ ! -d /sys/module/copybench ]; }

check "rmmod the module vm-suite loaded" rmmod copybench

# The variants and directions copybench.h and copy_variants_list.h name.
variants=$(sed -n 's/^CB_VARIANT(\([a-z_0-9]*\),.*/\1/p' "$cb_top/copy_variants_list.h")
directions=$(sed -n 's/^CB_DIRECTION(\([a-z_0-9]*\))/\1/p' "$cb_top/copybench.h")

sweep_all()
{
	"$CB" sweep --backend module --load="$ko" --sizes 0,64,4K --variants all \
		--directions all --samples 5 --repeat 2 -o "$tmp/m.json" \
		> "$tmp/m.txt" 2> "$tmp/m.err" || { cat "$tmp/m.err"; return 1; }
	record_ok "$tmp/m.json" || return 1
	# One jq: what is missing, or nothing.
	# shellcheck disable=SC2086 # lists of C identifiers, split on purpose
	jq -s -r --argjson v "$(as_json native $variants)" --argjson d "$(as_json $directions)" '
		[if .[0].backend != "module" or .[0].buffers != "kernel" then "not the module backend"
		 else empty end,
		 (.[1:] | if all(.verified) then empty else "a point failed verification" end),
		 (.[1:] | if all(.call_min > 0 and .latency_min > 0 and .latency_median >= .latency_min and
				 (has("latency_chain") | not))
			  then empty else "a hot point without its time per call and latency" end),
		 (.[1:] as $p | $v[] | select(. as $n | $p | any(.variant == $n) | not) |
		  "no point of variant \(.)"),
		 (.[1:] as $p | $d[] | select(. as $n | $p |
		  any(.variant == "native" and .direction == $n) | not) | "no native \(.) point"),
		 (.[1:] | if (map(.size) | unique) == [0, 64, 4096] then empty else "sizes" end)]
		| join("; ")' "$tmp/m.json" > "$tmp/why" || return 1
	[ -z "$(cat "$tmp/why")" ] || { cat "$tmp/why"; return 1; }
}
check "sweep --backend module --load: every variant and direction, verified" sweep_all
check "the module is unloaded after a sweep that loaded it" unloaded

refused_unloads()
{
	"$CB" sweep --backend module --load="$ko" --variants nosuch -o "$tmp/x.json" \
		> /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "invalid --variants 'nosuch'" "$tmp/e" && [ ! -e "$tmp/x.json" ]
}
check "a refused option: exit 2, no record" refused_unloads
check "... and the module unloaded again" unloaded

check "insmod for the loaded-module cases" insmod "$ko"

knobs_restored()
{
	echo movsb > "$dir/variant" && echo 12345 > "$dir/size" &&
		echo 7 > "$dir/src_offset" && echo cold > "$dir/cache" || return 1
	"$CB" sweep --sizes 64 --variants native,unrolled --samples 3 --repeat 2 > /dev/null 2> "$tmp/e" ||
		{ cat "$tmp/e"; return 1; }
	grep -q "backend module: $dir exists" "$tmp/e" ||
		{ echo "auto did not pick the module:"; cat "$tmp/e"; return 1; }
	[ "$(cat "$dir/variant")" = movsb ] && [ "$(cat "$dir/size")" = 12345 ] &&
		[ "$(cat "$dir/src_offset")" = 7 ] && [ "$(cat "$dir/cache")" = cold ] ||
		{ echo "knobs not restored: $(cat "$dir/variant") $(cat "$dir/size")"; return 1; }
	[ -d /sys/module/copybench ] || { echo "a module it did not load was unloaded"; return 1; }
}
check "auto picks the loaded module; its knobs are back afterwards" knobs_restored

cold_offsets()
{
	"$CB" sweep --backend module --sizes 100 --variants movsb,native --directions memcpy,to_user \
		--cache cold --src-offset 3 --dst-offset 4093 --samples 3 --repeat 1 --json \
		> "$tmp/c.json" 2> /dev/null || return 1
	tail -n +2 "$tmp/c.json" | jq -s -e 'length == 4 and all(.verified and .cache == "cold" and
		.src_offset == 3 and .dst_offset == 4093 and .src_place == 3 and .dst_place == 4093)' \
		> /dev/null
}
check "module backend: cold cache and offsets, verified" cold_offsets

# Every repeat a process of its own, each run at its placement: the
# offsets the module got moved by whole lines, the distance out of the
# 4K-aliasing band, the record saying which.
placed_runs()
{
	"$CB" sweep --backend module --sizes 256 --variants movsb --samples 3 --repeat 3 \
		--json > "$tmp/p.json" 2> /dev/null || return 1
	tail -n +2 "$tmp/p.json" | jq -s -e 'def m: (. % 4096 + 4096) % 4096;
		length == 3 and (map(.pid) | unique | length) == 3 and all(.verified) and
		all(.src_place % 64 == 0 and .dst_place % 64 == 0 and .src_place < 4096 and
		    .dst_place < 4096 and (.dst_place - .src_place | m) as $d |
		    ($d == 0 or ($d > 256 and $d < 3840))) and
		(map([.src_place, .dst_place]) | unique | length) > 1' > /dev/null ||
		{ jq -c '{pid, src_place, dst_place, run_cpu}' "$tmp/p.json"; return 1; }
}
check "module backend: three processes, each run at its placement (src_place, dst_place)" placed_runs

# The interleaved design on the module backend: each burst a run of its
# own, every point one a round; a native point paired with its size
# class's control (orig at 64 bytes, movsb at 4 KiB), timed beside it.
# The control's figures are net of the empty loop: under TCG a 64-byte
# copy's fastest burst can be no slower than the loop (0), never below it.
interleaved_runs()
{
	"$CB" sweep --backend module --sizes 64,4K --variants native,movsb --directions to_user \
		--rounds 3 --burst 2 --repeat 1 -o "$tmp/i.json" > /dev/null 2> "$tmp/e" ||
		{ cat "$tmp/e"; return 1; }
	jq -s -e '(.[0] | .design == "interleaved" and .rounds == 3 and .burst == 2) and
		(.[1:] | length == 4 and all(.verified and .bursts == 3 and .samples == 6 and
			.latency_min > 0)) and
		(.[1:] | map(select(.variant == "native")) | length == 2 and
			all(.control_ratio > 0 and .control_min >= 0 and
			    .control_min <= .control_median and .latency_paired > 0) and
			all(if .size == 64 then .control == "orig" else .control == "movsb" end))' \
		"$tmp/i.json" > /dev/null || { jq -c . "$tmp/i.json"; return 1; }
}
check "module backend: interleaved, a burst a run, natives paired with their class's control" interleaved_runs

# Random sizes named are refused; the default's random bands are left out.
random_refused()
{
	"$CB" sweep --backend module --sizes random:1-64 --variants movsb > /dev/null 2> "$tmp/e"
	[ $? = 2 ] && grep -q "random sizes need --backend user" "$tmp/e" || return 1
	"$CB" sweep --backend module --variants movsb --dry-run 2> "$tmp/e" > "$tmp/d" &&
		! grep -q random "$tmp/d" && grep -q ' 1M ' "$tmp/d"
}
check "module backend refuses random sizes (exit 2), leaves the default's bands out" random_refused

alias_module()
{
	"$CB" alias --backend module --variants movsb --from -16 --to 16 --step 16 --samples 3 \
		--repeat 1 --json 2> /dev/null | tail -n +2 | jq -s -e 'map(.dst_offset - .src_offset) ==
		[-16, 0, 16] and all(.verified)' > /dev/null
}
check "alias on the module backend" alias_module

cb_finish
