#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lkp_test.sh - tests of the LKP (0-day) test program in contrib/lkp: its
# parameters, parse on recorded and synthetic output, run under LKP's
# environment, the failure and pass stats and the index-perf lines as
# lkp-tests classes them, the package layout of pkg/PKGBUILD, and a replay
# of the job lkp-tests' own job2sh wrote (selftests/lkp/lkp-tests/, made by
# scripts/lkp-tests-check --record against a real lkp-tests tree).
#
# Usage: selftests/lkp_test.sh   (needs build/selftests/readers and
#        build/copybench: make userspace; ruby, jq, shfmt: scripts/setup)
# Prints TAP; exit 0 pass, 1 fail. About 95 s on a 2-vCPU machine with a
# load average of 8 (40 s of CPU): copybench.ko built against the 6.12
# headers (27 s), the replayed job (15 s) and run's other measured commands.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

prog=$top/contrib/lkp/programs/copybench
job=$top/contrib/lkp/jobs/copybench.yaml
etc=$top/contrib/lkp/etc
fixture=$top/contrib/lkp/spec/fixtures/stats/copybench
data=$top/selftests/lkp
lkp_rec=$data/lkp-tests
version=$(cat "$top/VERSION")

tmp=$(mktemp -d) || exit 1
bg=
trap '[ -z "$bg" ] || kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT

# LKP's environment: LKP_SRC with the functions run uses, written as
# lkp-tests defines them (lib/debug.sh, lib/reproduce-log.sh,
# lib/common.sh); scripts/lkp-tests-check runs run with the real ones.
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
	echo "$date" "$@"
	echo "$@" >>$TMP_RESULT_ROOT/reproduce.sh
}

log_cmd()
{
	log_echo "$@"
	"$@"
}
EOF
cat >"$tmp/lkp/lib/common.sh" <<'EOF'
. $LKP_SRC/lib/debug.sh

get_linux_headers_dir()
{
	local pattern="${1:-linux-headers*}"
	local linux_headers_dir="${LINUX_HEADERS_DIR:-}"

	if [[ -z "$linux_headers_dir" ]]; then
		linux_headers_dir=$(ls -d /usr/src/${pattern} 2>/dev/null | head -1)
		if [[ -z "$linux_headers_dir" ]]; then
			local kbuild_dir="/lib/modules/$(uname -r)/build"
			[[ -d "$kbuild_dir" ]] && linux_headers_dir="$kbuild_dir"
		fi
	fi
	echo "$linux_headers_dir"
}
EOF

# What pkg/PKGBUILD installs, made by its own package() from this tree's
# build (test 21 checks it against the recorded package of lkp-tests'
# makepkg): the BENCHMARK_ROOT run finds its commands in.
bench=$tmp/pkg/lkp/benchmarks

# lkp_run VAR=VALUE...: run as LKP starts it, output in $tmp/out, $tmp/err.
lkp_run() {
	rm -rf "$tmp/result"
	mkdir -p "$tmp/result"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LKP_SRC="$tmp/lkp" \
		TMP_RESULT_ROOT="$tmp/result" BENCHMARK_ROOT="$bench" "$@" \
		"$prog/run" >"$tmp/out" 2>"$tmp/err"
}

# quiet_ok: run said nothing on stderr (LKP makes every stderr line a
# failure stat: programs/stderr/parse, etc/failure's "stderr.*").
quiet_ok() {
	[ ! -s "$tmp/err" ] || { echo "stderr:"; cat "$tmp/err"; return 1; }
}

# The key templates of meta.yaml as regular expressions, one a line:
# SIZE and BYTES are numbers, the other capitals one key component.
key_patterns() {
	ruby -ryaml -e 'YAML.load_file(ARGV[0])["results"].each_key do |key|
		key = Regexp.escape(key.delete_prefix("copybench."))
		key = key.sub("SIZE", "[0-9]+").sub("stride-BYTES", "stride-[0-9]+")
		puts "^" + key.gsub(/[A-Z]+/, "[a-z0-9_-]+") + "$"
	end' "$prog/meta.yaml"
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
	echo readers.pass
}

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
	echo "sweep.pass 1"
	echo "sweep.verify.pass 1"
}

# sweep_ok INPUT STATS [EXTRA_KEY...]: STATS has exactly the keys of INPUT's
# points (and the EXTRA_KEYs), and the values jq computed, to parse's four
# decimals.
sweep_ok() {
	local input=$1 stats=$2
	shift 2
	keys_ok "$stats" || return 1
	diff <({ sweep_expected "$input" | cut -d' ' -f1; [ $# = 0 ] || printf '%s\n' "$@"; } | sort) \
		<(cut -d: -f1 "$stats" | sort) || return 1
	awk 'NR == FNR { want[$1] = $2; next }
	     { key = $1; sub(/:$/, "", key); got = $2 + 0; w = want[key]
	       if (w == "-" || w == "") next
	       d = got - w; if (d < 0) d = -d
	       if (d > 0.00006 * (w < 1 ? 1 : w)) { print key ": " got ", jq says " w; bad = 1 } }
	     END { exit bad }' <(sweep_expected "$input") "$stats"
}

# lkp_class KEY: how lkp-tests' lib/stats.rb classed KEY's form when
# scripts/lkp-tests-check recorded it (failure, pass, higher-is-better,
# lower-is-better, no-direction).
lkp_class() {
	local key=$1 line form re
	while IFS= read -r line; do
		form=${line%%: *}
		re=$(echo "${form#copybench.}" | sed -e 's/\./\\./g' -e 's/[A-Z][A-Z]*/[a-z0-9_-]+/g')
		if [[ $key =~ ^$re$ ]]; then
			echo "${line##*: }"
			return 0
		fi
	done <"$lkp_rec/classes.txt"
	echo "unclassed"
}

. "$CB_SELFTESTS/check_lib.sh"
mkdir -p "$tmp/logs"
check_logs=$tmp/logs

recordings=("$data"/readers-*.out)
sweep_recordings=()
for f in "$data"/sweep-*.out; do
	[ "$f" = "$data/sweep-synthetic.out" ] || sweep_recordings+=("$f")
done

ktap_print_header
ktap_set_plan $((24 + ${#recordings[@]} + ${#sweep_recordings[@]}))

for need in ruby jq shfmt; do
	command -v $need >/dev/null || ktap_exit_fail_msg "$need missing: run scripts/setup"
done
for f in build/selftests/readers build/copybench build/readers; do
	[ -x "$f" ] || ktap_exit_fail_msg "$f missing: run make userspace"
done
key_patterns >"$tmp/patterns" || ktap_exit_fail_msg "meta.yaml does not parse"

# The package's layout, as pkg/PKGBUILD's own prepare() and package() make
# it from this tree's build (srcdir holds the tree; lib/tests/pkgbuild.sh's
# helpers written as lkp-tests defines them).
package() {
	mkdir -p "$tmp/lkp/lib/tests" "$tmp/src"
	cat >"$tmp/lkp/lib/tests/pkgbuild.sh" <<'EOF'
prepare_benchmark_path()
{
	export benchmark_path="${pkgdir}/lkp/benchmarks/${pkgname}"
}

rename_versioned_src_pkg_dir()
{
	mv "$srcdir/$pkgname-$pkgver" "$srcdir/$pkgname"
}

cd_src_pkg_dir()
{
	cd "${srcdir}/${1:-$pkgname}"
}
EOF
	ln -s "$top" "$tmp/src/copybench-$version"
	(
		# shellcheck disable=SC2030 # for this subshell only, on purpose
		export LKP_SRC=$tmp/lkp srcdir=$tmp/src pkgdir=$tmp/pkg
		# shellcheck source=SCRIPTDIR/../contrib/lkp/programs/copybench/pkg/PKGBUILD
		. "$prog/pkg/PKGBUILD" &&
			prepare && package >/dev/null
	)
}
package >"$tmp/package.log" 2>&1 || { cat "$tmp/package.log"; ktap_exit_fail_msg "pkg/PKGBUILD's package() failed"; }

# One list of parameters: run's header, run's defaults, meta.yaml.
params_agree() {
	local header defaults meta
	header=$(sed -n 's/^# - \([a-z_]*\)$/\1/p' "$prog/run" | sort)
	defaults=$(sed -n 's/^: "\${\([a-z_]*\):=.*/\1/p' "$prog/run" | sort)
	meta=$(ruby -ryaml -e 'puts YAML.load_file(ARGV[0])["parameters"].keys.sort' "$prog/meta.yaml")
	[ -n "$header" ] && [ "$header" = "$defaults" ] && [ "$header" = "$meta" ] && return 0
	diff <(echo "$header") <(echo "$defaults")
	diff <(echo "$header") <(echo "$meta")
	return 1
}
check "run's header, its defaults and meta.yaml list the same parameters" params_agree

# The job: LKP's keys, and only parameters meta.yaml knows.
job_ok() {
	ruby -ryaml - "$job" "$prog/meta.yaml" <<'EOF'
job = YAML.load_file(ARGV[0])
params = YAML.load_file(ARGV[1])['parameters']
lkp = %w[suite testcase category copybench]
abort 'suite/testcase' unless job['suite'] == 'copybench' && job['testcase'] == 'copybench'
abort 'category' unless job['category'] == 'benchmark'
keys = job['copybench'].keys | (job.keys - lkp)
unknown = keys - params.keys
abort "keys meta.yaml does not list: #{unknown}" unless unknown.empty?
params.each do |k, v|
  next unless v.is_a?(Array) && keys.include?(k)

  vals = job.fetch(k) { job['copybench'][k] }
  Array(vals).each { |x| abort "#{k}: #{x.inspect} not in #{v}" unless v.include?(x) }
end
EOF
}
check "jobs/copybench.yaml: suite, testcase, category, known parameters" job_ok

# parse on recorded real runs: exactly the expected keys, numbers,
# all documented.
for rec in "${recordings[@]}"; do
	name=$(basename "$rec" .out)
	parse_readers_ok() {
		"$prog/parse" <"$1" >"$tmp/$name.stats" &&
			keys_ok "$tmp/$name.stats" &&
			diff <(readers_keys "$1" | sort) <(cut -d: -f1 "$tmp/$name.stats" | sort)
	}
	check "parse $name: every summary's key, readers.pass, numbers, all in meta.yaml" \
		parse_readers_ok "$rec"
done

# parse on recorded real sweeps: every point's keys, jq's medians.
for rec in "${sweep_recordings[@]}"; do
	name=$(basename "$rec" .out)
	"$prog/parse" <"$rec" >"$tmp/$name.stats" 2>&1
	check "parse $name: every point's keys, the medians and lowest jq computes" \
		sweep_ok "$rec" "$tmp/$name.stats"
done

# parse's arithmetic on a sweep record: medians and lowest over the
# repeats, spread, fields it does not know ignored.
parse_synthetic() {
	"$prog/parse" <"$data/sweep-synthetic.out" >"$tmp/sweep.stats" &&
		diff "$data/sweep-synthetic.expected" "$tmp/sweep.stats" &&
		keys_ok "$tmp/sweep.stats"
}
check "parse sweep record: medians over repeats, lowest, spread, documented keys" parse_synthetic

# parse refuses bad input with the line, and prints nothing then.
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
summary='{"type":"summary","variant":"movsb","buffer":"shared","touch":"none","runs":2,"failed_runs":0,"gbps_mean":1.5}'
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
			"$(printf '%s\n%s' "$point" "${point/hot/cold}")" &&
		parse_refuses "summary without its mean" "line 1: a readers summary without gbps_mean" \
			"${summary/,\"gbps_mean\":1.5/}"
}
check "parse refuses empty, truncated, incomplete, non-numeric, NaN and mixed input" \
	parse_bad_inputs

# Failure stats: LKP's function stats in pairs, as
# lkp-tests' lib/stats.rb classes them (recorded): a failure gives X.fail
# or X.warn, never 0 (dump-stat drops a key that is 0 in every run); a
# clean run gives X.pass and no failure stat (LKP's compare weighs X.fail
# of one kernel only against X.pass of the other).
failure_stats() {
	local input stats key value class
	input=$(printf '%s\n' "${point/true/false}" "$point" \
		"copybench: failed: sweep: exit status 1" \
		"copybench: backend auto fell back to user: no copybench.ko" \
		"$summary" "copybench: failed: readers movsb shared none: exit status 1" \
		"copybench: failed: readers movsb shared all: exit status 3")
	stats=$(printf '%s\n' "$input" | "$prog/parse") || return 1
	diff <(echo "$stats" | grep -E '\.(pass|fail|warn):') - <<'EOF' || return 1
sweep.fail: 1
sweep.verify.fail: 1
sweep.module.warn: 1
readers.fail: 2
EOF
	while IFS=': ' read -r key value; do
		class=$(lkp_class "$key")
		case $key in
		*.fail | *.warn) [ "$class" = failure ] && [ "$value" != 0 ] ;;
		*.pass) [ "$class" = pass ] && [ "$value" = 1 ] ;;
		*) [ "$class" != failure ] && [ "$class" != pass ] ;;
		esac || { echo "$key: $value, lkp-tests classes it $class"; return 1; }
	done <<<"$stats"
	# Clean recorded runs: X.pass, and no key lkp-tests calls a failure but
	# the fallback's warning where run fell back (the recorded lkp-tests
	# run: this machine has no copybench.ko).
	for f in "$data"/*.out "$fixture/01"; do
		"$prog/parse" <"$f" >"$tmp/clean.stats" || return 1
		grep -q '\.pass: 1$' "$tmp/clean.stats" || { echo "$f: no X.pass"; return 1; }
		while IFS=': ' read -r key value; do
			[ "$key" = sweep.module.warn ] &&
				grep -q '^copybench: backend auto fell back to user: ' "$f" && continue
			class=$(lkp_class "$key")
			[ "$class" != failure ] && [ "$class" != unclassed ] ||
				{ echo "$f: $key is $class"; return 1; }
		done <"$tmp/clean.stats"
	done
}
check "failure stats: X.fail/X.warn when it failed, X.pass when not, as lkp-tests classes them" \
	failure_stats

# run in LKP's environment, readers on userspace copies: exit 0, nothing
# on stderr, the commands in reproduce.sh, stdout that parses into the
# expected keys.
run_readers_ok() {
	lkp_run mode=readers readers_source=memcpy readers_variants=movsb,native \
		nr_threads=2 buffers=shared,private touch=none,all duration=0.1 repeat=1 ||
		{ cat "$tmp/err"; return 1; }
	quiet_ok || return 1
	[ "$(grep -c -- '--source memcpy:' "$tmp/result/reproduce.sh")" = 8 ] ||
		{ echo "reproduce.sh:"; cat "$tmp/result/reproduce.sh"; return 1; }
	"$prog/parse" <"$tmp/out" >"$tmp/run.stats" || return 1
	keys_ok "$tmp/run.stats" &&
		diff <(readers_keys "$tmp/out" | sort) <(cut -d: -f1 "$tmp/run.stats" | sort) &&
		[ "$(wc -l <"$tmp/run.stats")" = 9 ]
}
check "run (readers, memcpy) under LKP: 8 configurations parsed, nothing on stderr" run_readers_ok

# run on a tmpfs file: the kernel's read path; readers --fill's line on
# stdout (not stderr: its file name would make a new LKP failure stat each
# run); the file goes afterwards.
run_tmpfs_ok() {
	ls /dev/shm/copybench-readers.* >/dev/null 2>&1 &&
		{ echo "stale /dev/shm/copybench-readers.* before the test"; return 1; }
	lkp_run mode=readers readers_source=tmpfs nr_threads=2 buffers=private \
		touch=all duration=0.1 repeat=1 || { cat "$tmp/err"; return 1; }
	quiet_ok || return 1
	grep -q '^# wrote 67108864 bytes of the known content to /dev/shm/copybench-readers\.' "$tmp/out" ||
		{ echo "no --fill line on stdout"; return 1; }
	"$prog/parse" <"$tmp/out" >"$tmp/run.stats" &&
		grep -qx 'readers\.native\.private\.all\.gbps: [0-9.]*' "$tmp/run.stats" &&
		! ls /dev/shm/copybench-readers.* 2>/dev/null
}
check "run (readers, tmpfs) reads the kernel's read path, says so on stdout, removes its file" \
	run_tmpfs_ok

# Killed mid-run as LKP's timeout would: readers stops, the file goes.
run_killed_cleans() {
	rm -rf "$tmp/result" && mkdir -p "$tmp/result"
	env -i PATH=/usr/bin:/bin LKP_SRC="$tmp/lkp" TMP_RESULT_ROOT="$tmp/result" \
		BENCHMARK_ROOT="$bench" mode=readers readers_source=tmpfs nr_threads=1 \
		buffers=private touch=none duration=120 repeat=1 "$prog/run" >/dev/null 2>&1 &
	bg=$!
	# Until readers reads the file (bounded: 60 s).
	local i=0
	until pgrep -f -- '--source /dev/shm/copybench-readers\.' >/dev/null; do
		[ $i -lt 600 ] && kill -0 $bg 2>/dev/null || { echo "run never started readers"; return 1; }
		i=$((i + 1))
		sleep 0.1
	done
	# A 120 s read stopped: run must end long before (bound: 60 s).
	local start
	start=$(date +%s)
	kill -TERM $bg
	wait $bg
	bg=
	[ $(($(date +%s) - start)) -lt 60 ] || { echo "run took 60 s or more to stop"; return 1; }
	! ls /dev/shm/copybench-readers.* 2>/dev/null || return 1
	! pgrep -a -f 'copybench-readers\.' || { echo "readers still runs"; return 1; }
}
check "run killed with SIGTERM mid-run stops readers and removes its tmpfs file" \
	run_killed_cleans

# Bad parameters: a clear message naming the parameter and what it
# accepts, and a failing status. nr_threads is a number: LKP's
# params/nr_threads makes a job's N% one before run starts, and "max" is
# none of LKP's (filters/nr_threads drops such a job: "nr_threads becomes 0").
run_refuses() {
	local want=$1
	shift
	lkp_run "$@" && { echo "$*: accepted"; return 1; }
	grep -qF -- "$want" "$tmp/err" || { echo "$*: $(cat "$tmp/err")"; return 1; }
	[ ! -s "$tmp/out" ] || { echo "$*: printed output"; return 1; }
}
nr_msg="(accepted: a number of threads; a job's N% is made one by LKP)"
check "run refuses mode=fast, naming sweep|readers|both" \
	run_refuses "bad parameter mode='fast' (accepted: sweep|readers|both)" mode=fast
nr_threads_refused() {
	local v
	for v in lots 100% max 0; do
		run_refuses "bad parameter nr_threads='$v' $nr_msg" nr_threads=$v || return 1
	done
}
check "run refuses nr_threads=lots, 100%, max and 0: LKP gives it a number" nr_threads_refused
check "run refuses backend=kernel, naming auto|module|user" \
	run_refuses "bad parameter backend='kernel' (accepted: auto|module|user)" backend=kernel
check "run refuses cache=hot,cold: one cache a job" \
	run_refuses "bad parameter cache='hot,cold' (accepted: hot|cold)" cache=hot,cold
check "run refuses readers_source=disk, naming auto|module|tmpfs|memcpy" \
	run_refuses "bad parameter readers_source='disk' (accepted: auto|module|tmpfs|memcpy)" \
	readers_source=disk

# Outside LKP (no TMP_RESULT_ROOT) it says so instead of writing to /.
no_lkp() {
	env -i PATH=/usr/bin:/bin LKP_SRC="$tmp/lkp" mode=readers "$prog/run" \
		>"$tmp/out" 2>"$tmp/err" && return 1
	grep -q "TMP_RESULT_ROOT is not set" "$tmp/err" && [ ! -e /reproduce.sh ]
}
check "run outside LKP (no TMP_RESULT_ROOT) refuses to start" no_lkp

# Without the commands (no package, none in PATH): a clear message.
no_command() {
	lkp_run mode=sweep BENCHMARK_ROOT=/nonexistent && return 1
	grep -q "the copybench command is in neither /nonexistent/copybench/bin nor PATH" "$tmp/err"
}
check "run mode=sweep without the copybench command says where it looked" no_command

# The real sweep from the package's bin/: nothing on stderr (the
# sweep's tables on stdout), the record kept, every point's keys.
run_sweep_ok() {
	lkp_run mode=sweep backend=user sizes=64,4K variants=movsb,native \
		directions=memcpy repeat=3 || { cat "$tmp/err"; return 1; }
	quiet_ok || return 1
	grep -q "^[0-9-]* [0-9:]* $bench/copybench/bin/copybench sweep " "$tmp/out" ||
		{ echo "not the package's copybench:"; head -n 3 "$tmp/out"; return 1; }
	grep -q '^# memcpy movsb, cache hot' "$tmp/out" || { echo "no table on stdout"; return 1; }
	[ -s "$tmp/result/copybench.record.json" ] || { echo "no record kept"; return 1; }
	"$prog/parse" <"$tmp/out" >"$tmp/sweep.stats" &&
		[ "$(wc -l <"$tmp/sweep.stats")" = 22 ] &&
		sweep_ok "$tmp/out" "$tmp/sweep.stats"
}
check "run mode=sweep (user backend): tables on stdout, record kept, every point, verified" \
	run_sweep_ok

# backend=auto without copybench.ko: the module is built from the
# package's sources against kernel headers (Debian's 6.12 here, as the
# linux_headers initrd gives the booted kernel's in 0-day); this host loads
# no module (or not one for another kernel), so run says loudly on stdout
# that it fell back, and LKP's stats say sweep.module.warn. Nothing on
# stderr; the build directory goes.
run_auto_builds_module() {
	local kdir
	# shellcheck disable=SC2012 # kernel releases: no odd characters
	kdir=$(ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | head -n 1)
	[ -n "$kdir" ] || { echo "no /usr/src/linux-headers-6.12*-amd64: run scripts/setup"; return 1; }
	lkp_run mode=sweep backend=auto sizes=64 variants=movsb directions=memcpy repeat=1 \
		LINUX_HEADERS_DIR="$kdir" || { cat "$tmp/err"; return 1; }
	quiet_ok || return 1
	grep -q "^copybench: copybench.ko: built from $bench/copybench/usr/src/copybench-$version against $kdir$" \
		"$tmp/out" || { echo "not built:"; cat "$tmp/out" "$tmp/result/copybench.kbuild.log"; return 1; }
	"$prog/parse" <"$tmp/out" >"$tmp/auto.stats" || return 1
	if grep -q '^copybench: copybench.ko: loaded$' "$tmp/out"; then
		# A host that loads it: the sweep ran on the module.
		grep -qx 'sweep.module.pass: 1' "$tmp/auto.stats" && [ ! -d /sys/module/copybench ]
	else
		grep -q "^copybench: backend auto fell back to user: insmod .*/build/module/copybench.ko failed: .*; the sweep times the userspace build of the variants, not the booted kernel's copy$" \
			"$tmp/out" || { echo "no fallback line:"; grep '^copybench:' "$tmp/out"; return 1; }
		grep -qx 'sweep.module.warn: 1' "$tmp/auto.stats" ||
			{ echo "no sweep.module.warn:"; cat "$tmp/auto.stats"; return 1; }
	fi || return 1
	! ls -d /tmp/copybench-kbuild.* 2>/dev/null
}
check "run backend=auto builds copybench.ko from the package against the headers; a fallback is loud" \
	run_auto_builds_module

# pkg/PKGBUILD: the version is VERSION, the package's files are
# those lkp-tests' makepkg made (recorded), its Debian packages exist, and
# Documentation/lkp.rst says lkp install.
pkgbuild_ok() {
	local v
	v=$(sed -n 's/^pkgver=//p' "$prog/pkg/PKGBUILD")
	[ "$v" = "$version" ] || { echo "pkgver $v, VERSION $version"; return 1; }
	diff "$lkp_rec/package.txt" \
		<(cd "$tmp/pkg" && find lkp -type f | sort | sed "s|/copybench-$version/|/copybench-VERSION/|") ||
		return 1
	# shellcheck disable=SC2013 # package names, one word each
	for p in $(cat "$prog/pkg/depends" "$prog/pkg/depends-dev"); do
		case $p in copybench*) echo "pkg/depends names $p"; return 1 ;; esac
		apt-cache show "$p" >/dev/null 2>&1 || { echo "$p: not a Debian package"; return 1; }
	done
	grep -q '^ *lkp install ' "$top/Documentation/lkp.rst" || { echo "lkp.rst: no lkp install"; return 1; }
}
check "pkg/PKGBUILD: VERSION, makepkg's files, Debian packages only; lkp.rst says lkp install" \
	pkgbuild_ok

# parse is Ruby (as 176 of lkp-tests' 201 parse scripts) and nothing in
# contrib/lkp needs python.
ruby_parse() {
	[ "$(head -n 1 "$prog/parse")" = '#!/usr/bin/env ruby' ] || { head -n 1 "$prog/parse"; return 1; }
	ruby -c "$prog/parse" >/dev/null || return 1
	! grep -rn python "$top/contrib/lkp"
}
check "parse is Ruby; no python in contrib/lkp" ruby_parse

# run passes lkp-tests' own formatting check (its Rakefile's shfmt task).
check "run passes lkp-tests' shfmt -ln bash -i 0 -fn" shfmt -d -ln bash -i 0 -fn "$prog/run"

# The index-perf lines an upstream submission adds give every
# measured key form a direction, the one lkp-tests' kpi_stat_direction
# gave with them (recorded); spread_pct (noise) has none; and the stats
# fixture is parse's output on the recorded run (spec/unit/lib/stats_spec.rb).
index_perf_ok() {
	ruby -ryaml - "$prog/meta.yaml" "$etc/index-perf-all.yaml" "$etc/index-perf.yaml" \
		"$lkp_rec/classes.txt" <<'EOF' || return 1
sample = { 'DIRECTION' => 'to_user', 'VARIANT' => 'movsb', 'SIZE' => '64',
           'BUFFER' => 'shared', 'TOUCH' => 'none' }
all = YAML.load_file(ARGV[1])
head = YAML.load_file(ARGV[2])
recorded = File.readlines(ARGV[3]).to_h { |l| l.chomp.split(': ', 2) }
bad = false
YAML.load_file(ARGV[0])['results'].each_key do |t|
  next if t =~ /\.(pass|fail|warn)$/

  k = t.gsub(/[A-Z]+/) { |w| sample.fetch(w, w) }
  hits = all.select { |re, _| k =~ /^#{re}$/ }
  want = t.end_with?('.spread_pct') ? 0 : 1
  dir = { 1 => 'higher-is-better', -1 => 'lower-is-better' }.fetch(hits.values.first, 'no-direction')
  if hits.size != want || recorded[t] != dir
    puts "#{t}: #{hits.size} index-perf-all lines, #{dir}; lkp-tests said #{recorded[t].inspect}"
    bad = true
  end
end
head.each { |re, d| (puts "index-perf.yaml #{re} not in index-perf-all"; bad = true) unless all[re] == d }
exit 1 if bad
EOF
	diff "$fixture/01.yaml" <("$prog/parse" <"$fixture/01")
}
check "index-perf lines: a direction for every measured key, as lkp-tests read them; stats fixture" \
	index_perf_ok

# programs/copybench/include as job2sh expanded it (recorded): the
# linux_headers initrd and need_kconfig DEBUG_FS and MODULES; and job2sh
# turned nr_threads: 100% into a number.
recorded_job_ok() {
	grep -q "^	export initrds='linux_headers'$" "$lkp_rec/copybench.job2sh" &&
		grep -q 'DEBUG_FS' "$lkp_rec/copybench.job2sh" && grep -q 'MODULES' "$lkp_rec/copybench.job2sh" ||
		{ echo "no linux_headers initrd or need_kconfig in job.sh"; return 1; }
	grep -q "^	export nr_threads=[1-9][0-9]*$" "$lkp_rec/copybench.job2sh" ||
		{ echo "nr_threads is no number in job.sh"; return 1; }
	grep -q '^#! programs/copybench/include$' "$lkp_rec/copybench.yaml"
}
check "recorded job2sh: the include's initrd and kconfig, nr_threads a number" recorded_job_ok

# The job lkp-tests' job2sh wrote (recorded), replayed as
# scripts/lkp-tests-check runs its job, by the same function (lkp_job_test
# of scripts/lkp-job.sh): job.sh, which ends with "$@", sourced in a
# function called with an argument, then its export_top_env and its
# run_test command line. This LKP_SRC's run_test (lib/job.sh) does
# run-test's part: the program's stdout to TMP_RESULT_ROOT/copybench. Exit
# 0, nothing on stderr (sourced with the argument left set, job.sh runs it:
# "DIR: Is a directory"), and the keys of the stats lkp-tests' run-stats
# and dump-stat made from the recorded run (a key 0 in the run dropped).
cat >"$tmp/lkp/lib/job.sh" <<'EOF'
run_test()
{
	local a vars=()
	for a; do
		case $a in
		*=*) vars+=("$a") ;;
		*/bin/run-test) ;;
		copybench) env "${vars[@]}" "$LKP_SRC/programs/copybench/run" >"$TMP_RESULT_ROOT/copybench" ;;
		*) echo "run_test: unexpected '$a'" >&2; return 1 ;;
		esac
	done
}
EOF
echo '# nothing of lkp-tests lib/env.sh that run uses' >"$tmp/lkp/lib/env.sh"
mkdir -p "$tmp/lkp/programs"
ln -s "$prog" "$tmp/lkp/programs/copybench"
# shellcheck source=scripts/lkp-job.sh
. "$top/scripts/lkp-job.sh"
replay_job() {
	local rr=$tmp/replay
	rm -rf "$rr" && mkdir -p "$rr"
	cp "$lkp_rec/copybench-check.job2sh" "$rr/job.sh"
	(
		# shellcheck disable=SC2031 # LKP_SRC: this subshell sets its own
		export LKP_SRC=$tmp/lkp TMP_RESULT_ROOT=$rr BENCHMARK_ROOT=$bench
		lkp_job_test "$rr"
	) 2>"$tmp/err" || { cat "$tmp/err"; return 1; }
	quiet_ok || return 1
	# dump-stat drops a key that is 0 in every run: a recorded key may be
	# 0 in the replay (a spread_pct of three processes with one median),
	# and a key the recording dropped must be 0 in the replay.
	"$prog/parse" <"$rr/copybench" >"$tmp/replay.stats"
	awk -F': ' '{ print "copybench." $1 }' "$tmp/replay.stats" | sort >"$tmp/replay.keys"
	awk -F': ' '$2 != 0 { print "copybench." $1 }' "$tmp/replay.stats" | sort >"$tmp/replay.nonzero"
	cut -d: -f1 "$lkp_rec/copybench.stats" | sort >"$tmp/recorded.keys"
	comm -23 "$tmp/recorded.keys" "$tmp/replay.keys" | sed 's/^/recorded, not in the replay: /' >"$tmp/keys.diff"
	comm -13 "$tmp/recorded.keys" "$tmp/replay.nonzero" | sed 's/^/in the replay (not 0), not recorded: /' >>"$tmp/keys.diff"
	[ ! -s "$tmp/keys.diff" ] || { cat "$tmp/keys.diff"; return 1; }
}
check "the recorded job2sh job, run as lkp-tests-check runs it: exit 0, no stderr, dump-stat's keys" \
	replay_job

# meta.yaml names a homepage, and pkg/PKGBUILD's url is the same.
homepage_ok() {
	local meta pkg
	meta=$(ruby -ryaml -e 'y = YAML.load_file(ARGV[0]); exit 1 unless y.key?("homepage"); puts y["homepage"]' \
		"$prog/meta.yaml") || { echo "meta.yaml has no homepage key"; return 1; }
	pkg=$(sed -n 's/^url=//p' "$prog/pkg/PKGBUILD")
	[ "$meta" = "$pkg" ] || { echo "meta.yaml homepage '$meta', PKGBUILD url '$pkg'"; return 1; }
}
check "meta.yaml's homepage is pkg/PKGBUILD's url" homepage_ok

ktap_finished
