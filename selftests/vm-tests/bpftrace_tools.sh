#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace_tools.sh - runs each bpftrace tool of tools/ while generating
# traffic and checks its JSON output for the maps and keys it documents.
#
# Usage (from the project directory, root, copybench.ko loaded; vm-suite.sh
# runs it through the selftests/vm-tests hook):
#	selftests/vm-tests/bpftrace_tools.sh
# Prints TAP; each tool's JSON output follows as "# " lines. Exit 0 pass,
# 1 fail, 4 when it cannot run (no bpftrace, tracefs or module).

dbg=/sys/kernel/debug/copybench
n=0
failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n $1"; }
skip_all() { echo "1..0 # SKIP $1"; exit 4; }

command -v bpftrace > /dev/null || skip_all "bpftrace not installed"
command -v jq > /dev/null || skip_all "jq not installed"
[ -d /sys/kernel/tracing/events ] || skip_all "no tracefs at /sys/kernel/tracing"
[ -d $dbg ] || skip_all "copybench.ko not loaded"
[ -d /sys/kernel/tracing/events/copybench ] || skip_all "no copybench tracepoints"

# start TOOL: run it in the background until stopped; waits (up to 300 s,
# first attach under emulation takes seconds) for its banner.
start() {
	out=$tmp/$(basename "$1").json
	bpftrace -f json "$1" < /dev/null > "$out" 2> "$out.err" &
	bt=$!
	i=0
	until grep -q '"type": "printf"' "$out"; do
		if ! kill -0 $bt 2> /dev/null || [ $i -ge 1500 ]; then
			sed 's/^/# /' "$out.err"
			return 1
		fi
		i=$((i + 1))
		sleep 0.2
	done
}

# stop: Ctrl-C the tool, wait for its maps.
stop() {
	kill -INT $bt
	wait $bt
}

# has_key MAP KEY: the JSON output holds map MAP with key KEY ("" any key).
has_key() {
	jq -e -s --arg m "$1" --arg k "$2" \
		'[.[] | select(.type == "hist" or .type == "map") | .data | select(has($m)) | .[$m]
		  | if $k == "" then (length > 0) else has($k) end] | any' "$out" > /dev/null
}

check() {
	if has_key "$1" "$2"; then ok "$3: $1[$2]"; else not_ok "$3: $1[$2]"; fi
}

# cbcopy.bt: data reads and writes with two variants, one run.
if start tools/cbcopy.bt; then
	saved_variant=$(cat $dbg/variant)
	for v in native bytes; do
		echo $v > $dbg/variant
		dd if=$dbg/data of=/dev/null bs=65536 2> /dev/null
		head -c 100000 /dev/zero | dd of=$dbg/data bs=4096 conv=notrunc 2> /dev/null
	done
	echo native > $dbg/variant
	echo 3 > $dbg/samples
	echo 1 > $dbg/run
	echo "$saved_variant" > $dbg/variant
	echo 1048576 > $dbg/data_size
	# printf output comes through a perf buffer: let it arrive before
	# Ctrl-C, which stops reading it (up to 60 s).
	i=0
	until grep -q '"data": "run native' "$out" || [ $i -ge 300 ]; do
		i=$((i + 1))
		sleep 0.2
	done
	stop
	sed 's/^/# /' "$out"
	for v in native bytes; do
		check @read_cycles $v cbcopy.bt
		check @read_bytes $v cbcopy.bt
		check @write_cycles $v cbcopy.bt
		check @read_calls $v cbcopy.bt
	done
	check @run_median_cycles "" cbcopy.bt
	if grep -q '"data": "run native' "$out"; then
		ok "cbcopy.bt: run printed"
	else
		not_ok "cbcopy.bt: run printed"
	fi
else
	not_ok "cbcopy.bt starts"
fi

# kcopy.bt: buffered reads and writes of a tmpfs file.
if start tools/kcopy.bt; then
	mnt=$tmp/tmpfs
	mkdir "$mnt" && mount -t tmpfs none "$mnt"
	head -c 8388608 /dev/zero > "$mnt/f"
	# dd, not cat: cat may splice or copy_file_range instead of read().
	for i in 1 2 3 4; do
		dd if="$mnt/f" of=/dev/null bs=65536 2> /dev/null
	done
	umount "$mnt"
	stop
	sed 's/^/# /' "$out"
	check @read_ns shmem_file_read_iter kcopy.bt
	check @read_bytes shmem_file_read_iter kcopy.bt
	check @write_ns generic_perform_write kcopy.bt
	check @write_bytes generic_perform_write kcopy.bt
	check @oncpu_frame "" kcopy.bt
else
	not_ok "kcopy.bt starts"
fi

echo "1..$n"
exit $failed
