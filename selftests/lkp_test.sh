#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lkp_test.sh - copybench's LKP test program (contrib/lkp/): parse turns
# recorded output of real runs into exactly the keys meta.yaml documents,
# with numbers; run works in LKP's environment, simulated here, and rejects
# bad parameters; meta.yaml, run and the job agree on the parameters.
#
# Usage: selftests/lkp_test.sh
#
# LKP itself is not installed here. The simulation: the job's parameters as
# environment variables, TMP_RESULT_ROOT, and LKP_SRC pointing at a
# directory holding the LKP functions run uses (die from lib/debug.sh,
# log_echo from lib/reproduce-log.sh, written as lkp-tests defines them).
# The recorded inputs are in selftests/lkp/ (README there). The copybench
# command's sweep is run live when the tree has it
# (tools/copybench/copybench.c).
# Needs python3 with yaml (python3-yaml) and build/selftests/readers (make
# selftests). Prints TAP; exit 0 pass, 1 fail. About a minute.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

prog=$top/contrib/lkp/programs/copybench
job=$top/contrib/lkp/jobs/copybench.yaml
data=$top/selftests/lkp
readers=$top/build/selftests/readers
has_command=0
[ -f tools/copybench/copybench.c ] && has_command=1

tmp=$(mktemp -d) || exit 1
bg=
trap '[ -z "$bg" ] || kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT

# LKP's environment: LKP_SRC with the functions run uses.
mkdir -p "$tmp/lkp/lib" "$tmp/result"
cat >"$tmp/lkp/lib/debug.sh" <<'EOF'
die()
{
	echo "$@" 1>&2
	exit 99
}
EOF
cat >"$tmp/lkp/lib/reproduce-log.sh" <<'EOF'
. $LKP_SRC/lib/debug.sh

log_echo()
{
	date=$(date +'%F %T')
	echo "$date $@"
	echo "$@" >>$TMP_RESULT_ROOT/reproduce.sh
}

log_cmd()
{
	log_echo "$@"
	"$@"
}
EOF

# lkp_run VAR=VALUE...: run as LKP starts it, output in $tmp/out, $tmp/err.
lkp_run() {
	rm -rf "$tmp/result"
	mkdir -p "$tmp/result"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LKP_SRC="$tmp/lkp" \
		TMP_RESULT_ROOT="$tmp/result" READERS_BIN="$readers" \
		COPYBENCH_BIN="$top/build/copybench" "$@" \
		"$prog/run" >"$tmp/out" 2>"$tmp/err"
}

# The key templates of meta.yaml as regular expressions, one a line:
# SIZE and BYTES are numbers, the other capitals one key component.
key_patterns() {
	python3 - "$prog/meta.yaml" <<'EOF'
import re, sys, yaml
for key in yaml.safe_load(open(sys.argv[1]))["results"]:
    key = re.escape(key[len("copybench."):])
    key = key.replace("SIZE", "[0-9]+").replace("stride\\-BYTES", "stride-[0-9]+")
    print("^" + re.sub("[A-Z]+", "[a-z0-9_-]+", key) + "$")
EOF
}

# keys_ok OUTPUT: every line is "key: number" and every key is documented.
keys_ok() {
	local line key bad=0
	[ -s "$1" ] || { echo "no output"; return 1; }
	while IFS= read -r line; do
		if ! [[ $line =~ ^([A-Za-z0-9_.-]+):\ (-?[0-9]+(\.[0-9]+)?)$ ]]; then
			echo "not 'key: number': $line"
			bad=1
			continue
		fi
		key=${BASH_REMATCH[1]}
		if ! echo "$key" | grep -qEf "$tmp/patterns"; then
			echo "undocumented key: $key"
			bad=1
		fi
	done <"$1"
	return $bad
}

# readers_keys INPUT: the readers keys a recording must give, from its
# summaries, computed with jq apart from parse.
readers_keys() {
	grep '^{' "$1" | jq -r 'select(.type == "summary" and .runs > 0)
		| "readers.\(.variant).\(if .buffer == "stride" then "stride-\(.stride)" else .buffer end).\(.touch).gbps"'
	echo readers.failed_runs
}

. "$CB_SELFTESTS/check_lib.sh"
mkdir -p "$tmp/logs"
check_logs=$tmp/logs

recordings=("$data"/readers-*.out)
sweep_recordings=()
for f in "$data"/sweep-*.out; do
	[ "$f" = "$data/sweep-synthetic.out" ] || sweep_recordings+=("$f")
done

# sweep_expected INPUT: the sweep keys a record must give, with the median
# and the lowest over the repeats, computed with jq apart from parse:
# "key value" lines.
sweep_expected() {
	grep '^{' "$1" | jq -s -r '
		def median: sort | if length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		[.[] | select(has("cycles_median") and has("direction"))]
		| group_by([.direction, .variant, .size])[]
		| "\(.[0].direction).\(.[0].variant).\(.[0].size)" as $k
		| "\($k).cycles_median \([.[].cycles_median] | median)",
		  "\($k).cycles_min \([.[].cycles_min] | min)",
		  "\($k).ns_median \([.[].ns_median] | median)",
		  "\($k).bytes_per_cycle \([.[].bytes_per_cycle] | median)",
		  "\($k).spread_pct -"'
	echo "sweep.unverified 0"
}

# sweep_ok INPUT STATS: STATS has exactly the keys of INPUT's points, and the
# values jq computed, to parse's four decimals.
sweep_ok() {
	keys_ok "$2" || return 1
	diff <(sweep_expected "$1" | cut -d' ' -f1 | sort) <(cut -d: -f1 "$2" | sort) ||
		return 1
	awk 'NR == FNR { want[$1] = $2; next }
	     { key = $1; sub(/:$/, "", key); got = $2 + 0; w = want[key]
	       if (w == "-") next
	       d = got - w; if (d < 0) d = -d
	       if (d > 0.00006 * (w < 1 ? 1 : w)) { print key ": " got ", jq says " w; bad = 1 } }
	     END { exit bad }' <(sweep_expected "$1") "$2"
}

ktap_print_header
ktap_set_plan $((14 + ${#recordings[@]} + ${#sweep_recordings[@]} + has_command))

for need in python3 jq; do
	command -v $need >/dev/null || ktap_exit_fail_msg "$need missing: run tools/setup"
done
python3 -c 'import yaml' 2>/dev/null || ktap_exit_fail_msg "python3-yaml missing: run tools/setup"
[ -x "$readers" ] || ktap_exit_fail_msg "$readers missing: run make selftests"
key_patterns >"$tmp/patterns" || ktap_exit_fail_msg "meta.yaml does not parse"

# 1. One list of parameters: run's header, run's defaults, meta.yaml.
params_agree() {
	local header defaults meta
	header=$(sed -n 's/^# - \([a-z_]*\)$/\1/p' "$prog/run" | sort)
	defaults=$(sed -n 's/^: "\${\([a-z_]*\):=.*/\1/p' "$prog/run" | sort)
	meta=$(python3 -c 'import sys, yaml
print("\n".join(sorted(yaml.safe_load(open(sys.argv[1]))["parameters"])))' "$prog/meta.yaml")
	[ -n "$header" ] && [ "$header" = "$defaults" ] && [ "$header" = "$meta" ] && return 0
	diff <(echo "$header") <(echo "$defaults")
	diff <(echo "$header") <(echo "$meta")
	return 1
}
check "run's header, its defaults and meta.yaml list the same parameters" params_agree

# 2. The job: LKP's keys, and only parameters meta.yaml knows.
job_ok() {
	python3 - "$job" "$prog/meta.yaml" <<'EOF'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
params = yaml.safe_load(open(sys.argv[2]))["parameters"]
lkp = {"suite", "testcase", "category", "copybench"}
assert job["suite"] == "copybench" and job["testcase"] == "copybench", "suite/testcase"
assert job["category"] == "benchmark", "category"
keys = set(job["copybench"]) | (set(job) - lkp)
unknown = keys - set(params)
assert not unknown, "keys meta.yaml does not list: %s" % sorted(unknown)
for k, v in params.items():
    if isinstance(v, list) and k in keys:
        vals = job.get(k, job["copybench"].get(k))
        for x in vals if isinstance(vals, list) else [vals]:
            assert x in v, "%s: %r not in %r" % (k, x, v)
EOF
}
check "jobs/copybench.yaml: suite, testcase, category, known parameters" job_ok

# 3-5. parse on recorded real runs: exactly the expected keys, numbers,
# all documented.
for rec in "${recordings[@]}"; do
	name=$(basename "$rec" .out)
	if "$prog/parse" <"$rec" >"$tmp/$name.stats" 2>"$tmp/$name.err" &&
	   keys_ok "$tmp/$name.stats" >"$tmp/$name.why" &&
	   diff <(readers_keys "$rec" | sort) <(cut -d: -f1 "$tmp/$name.stats" | sort) \
		>>"$tmp/$name.why"; then
		ktap_test_pass "parse $name: every summary's key, numbers, all in meta.yaml"
	else
		cat "$tmp/$name.err" "$tmp/$name.why" | sed 's/^/# /' | head -n 20
		ktap_test_fail "parse $name: every summary's key, numbers, all in meta.yaml"
	fi
done

# parse on recorded real sweeps: every point's keys, jq's medians.
for rec in "${sweep_recordings[@]}"; do
	name=$(basename "$rec" .out)
	"$prog/parse" <"$rec" >"$tmp/$name.stats" 2>&1
	check "parse $name: every point's keys, the medians and lowest jq computes" \
		sweep_ok "$rec" "$tmp/$name.stats"
done

# 6. parse's arithmetic on a sweep record: medians and lowest over the
# repeats, spread, fields it does not know ignored.
if "$prog/parse" <"$data/sweep-synthetic.out" >"$tmp/sweep.stats" 2>&1 &&
   diff "$data/sweep-synthetic.expected" "$tmp/sweep.stats" >"$tmp/sweep.diff" &&
   keys_ok "$tmp/sweep.stats" >>"$tmp/sweep.diff"; then
	ktap_test_pass "parse sweep record: medians over repeats, lowest, spread, documented keys"
else
	sed 's/^/# /' "$tmp/sweep.diff" "$tmp/sweep.stats" | head -n 20
	ktap_test_fail "parse sweep record: medians over repeats, lowest, spread, documented keys"
fi

# 7. parse refuses bad input with the line, and prints nothing then.
parse_refuses() {
	local what=$1 want=$2 input=$3
	if printf '%s\n' "$input" | "$prog/parse" >"$tmp/bad.out" 2>"$tmp/bad.err"; then
		echo "$what: accepted"
		return 1
	fi
	[ -s "$tmp/bad.out" ] && { echo "$what: printed stats"; return 1; }
	grep -q "$want" "$tmp/bad.err" || { echo "$what: $(cat "$tmp/bad.err")"; return 1; }
}
point='{"direction":"to_user","variant":"movsb","size":64,"cache":"hot","src_offset":0,"dst_offset":0,"cycles_min":1,"cycles_median":2,"ns_median":1,"bytes_per_cycle":3,"verified":true}'
parse_bad_inputs() {
	parse_refuses "empty input" "no copybench" "" &&
	parse_refuses "log lines only" "no copybench" "2026-11-30 12:00:00 readers --json" &&
	parse_refuses "truncated JSON" "line 2: broken JSON" "$(printf '%s\n%s' "$point" "${point:0:40}")" &&
	parse_refuses "missing field" "line 1: a sweep point without cycles_median" \
		"${point/\"cycles_median\":2,/}" &&
	parse_refuses "non-number" "line 1: cycles_min is not a number" \
		"${point/\"cycles_min\":1/\"cycles_min\":\"fast\"}" &&
	parse_refuses "NaN" "line 1: cycles_median is not a number" \
		"${point/\"cycles_median\":2/\"cycles_median\":NaN}" &&
	parse_refuses "two caches" "line 2: the record mixes" \
		"$(printf '%s\n%s' "$point" "${point/hot/cold}")"
}
check "parse refuses empty, truncated, incomplete, non-numeric, NaN and mixed input" \
	parse_bad_inputs

# 8. run in LKP's environment, readers on userspace copies: exit 0, the
# commands in reproduce.sh, stdout that parses into the expected keys.
run_readers_ok() {
	lkp_run mode=readers readers_source=memcpy readers_variants=movsb,native \
		nr_threads=2 buffers=shared,private touch=none,all duration=0.1 repeat=1 ||
		{ cat "$tmp/err"; return 1; }
	[ "$(grep -c -- '--source memcpy:' "$tmp/result/reproduce.sh")" = 8 ] ||
		{ echo "reproduce.sh:"; cat "$tmp/result/reproduce.sh"; return 1; }
	"$prog/parse" <"$tmp/out" >"$tmp/run.stats" || return 1
	keys_ok "$tmp/run.stats" &&
	diff <(readers_keys "$tmp/out" | sort) <(cut -d: -f1 "$tmp/run.stats" | sort) &&
	[ "$(wc -l <"$tmp/run.stats")" = 9 ]
}
check "run (readers, memcpy) under simulated LKP: 8 configurations parsed" run_readers_ok

# 9. run on a tmpfs file: the kernel's read path; the file goes afterwards.
run_tmpfs_ok() {
	ls /dev/shm/copybench-readers.* >/dev/null 2>&1 &&
		{ echo "stale /dev/shm/copybench-readers.* before the test"; return 1; }
	lkp_run mode=readers readers_source=tmpfs nr_threads=100% buffers=private \
		touch=all duration=0.1 repeat=1 || { cat "$tmp/err"; return 1; }
	"$prog/parse" <"$tmp/out" >"$tmp/run.stats" &&
	grep -qx 'readers\.native\.private\.all\.gbps: [0-9.]*' "$tmp/run.stats" &&
	! ls /dev/shm/copybench-readers.* 2>/dev/null
}
check "run (readers, tmpfs) reads the kernel's read path and removes its file" \
	run_tmpfs_ok

# 10. Killed mid-run as LKP's timeout would: readers stops, the file goes.
run_killed_cleans() {
	rm -rf "$tmp/result" && mkdir -p "$tmp/result"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LKP_SRC="$tmp/lkp" \
		TMP_RESULT_ROOT="$tmp/result" READERS_BIN="$readers" mode=readers \
		readers_source=tmpfs nr_threads=1 buffers=private touch=none duration=120 \
		repeat=1 "$prog/run" >/dev/null 2>&1 &
	bg=$!
	# Until readers reads the file (bounded: 60 s).
	local i=0
	until pgrep -f -- '--source /dev/shm/copybench-readers\.' >/dev/null; do
		[ $i -lt 600 ] && kill -0 $bg 2>/dev/null || { echo "run never started readers"; return 1; }
		i=$((i + 1))
		sleep 0.1
	done
	# A 120 s read stopped: run must end long before (bound: 60 s).
	local start=$(date +%s)
	kill -TERM $bg
	wait $bg
	bg=
	[ $(($(date +%s) - start)) -lt 60 ] || { echo "run took 60 s or more to stop"; return 1; }
	! ls /dev/shm/copybench-readers.* 2>/dev/null || return 1
	! pgrep -a -f 'copybench-readers\.' || { echo "readers still runs"; return 1; }
}
check "run killed with SIGTERM mid-run stops readers and removes its tmpfs file" \
	run_killed_cleans

# 11-15. Bad parameters: a clear message naming the parameter and what it
# accepts, and a failing status.
run_refuses() {
	local want=$1
	shift
	lkp_run "$@" && { echo "$*: accepted"; return 1; }
	grep -qF -- "$want" "$tmp/err" || { echo "$*: $(cat "$tmp/err")"; return 1; }
	[ ! -s "$tmp/out" ] || { echo "$*: printed output"; return 1; }
}
check "run refuses mode=fast, naming sweep|readers|both" \
	run_refuses "bad parameter mode='fast' (accepted: sweep|readers|both)" mode=fast
check "run refuses nr_threads=lots" \
	run_refuses "bad parameter nr_threads='lots' (accepted: N, N% of the CPUs, or max)" \
	nr_threads=lots
check "run refuses backend=kernel, naming auto|module|user" \
	run_refuses "bad parameter backend='kernel' (accepted: auto|module|user)" backend=kernel
check "run refuses cache=hot,cold: one cache a job" \
	run_refuses "bad parameter cache='hot,cold' (accepted: hot|cold)" cache=hot,cold
check "run refuses readers_source=disk, naming auto|module|tmpfs|memcpy" \
	run_refuses "bad parameter readers_source='disk' (accepted: auto|module|tmpfs|memcpy)" \
	readers_source=disk

# 16. Outside LKP (no TMP_RESULT_ROOT) it says so instead of writing to /.
no_lkp() {
	env -i PATH=/usr/bin:/bin LKP_SRC="$tmp/lkp" mode=readers "$prog/run" \
		>"$tmp/out" 2>"$tmp/err" && return 1
	grep -q "TMP_RESULT_ROOT is not set" "$tmp/err" && [ ! -e /reproduce.sh ]
}
check "run outside LKP (no TMP_RESULT_ROOT) refuses to start" no_lkp

# 17. A sweep without the copybench command: a clear message.
no_command() {
	lkp_run mode=sweep COPYBENCH_BIN=/nonexistent/copybench && return 1
	grep -q "the copybench command is not installed" "$tmp/err"
}
check "run mode=sweep without the copybench command says so" no_command

# 18. The real sweep, when the tree has the command.
if [ $has_command = 1 ]; then
	run_sweep_ok() {
		lkp_run mode=sweep backend=user sizes=64,4K variants=movsb,native \
			directions=memcpy repeat=3 || { cat "$tmp/err"; return 1; }
		[ -s "$tmp/result/copybench.record.json" ] || { echo "no record kept"; return 1; }
		"$prog/parse" <"$tmp/out" >"$tmp/sweep.stats" &&
		[ "$(wc -l <"$tmp/sweep.stats")" = 21 ] &&
		sweep_ok "$tmp/out" "$tmp/sweep.stats"
	}
	check "run mode=sweep (user backend): record kept, every point's keys, verified" \
		run_sweep_ok
else
	ktap_print_msg "this tree has no copybench command yet (tools/copybench/copybench.c): the live sweep is not run"
fi

ktap_finished
