# SPDX-License-Identifier: GPL-2.0
#
# readers_lib.sh - what the readers test scripts share; sourced by
# readers_test.sh (native) and vm-tests/readers_vm_test.sh (the module's
# data file).
#
# Gives: $READERS, the readers binary (beside the scripts when kselftest
# installed them, else build/selftests/readers; or set READERS); TAP through
# the kernel's ktap_helpers.sh (selftests/ktap.sh: ktap_test_pass,
# ktap_fail_why, ktap_diag, ktap_skip_why, ktap_end); rd_lib_init DIR, which
# makes $tmp under DIR and starts one python3 that checks readers' JSON
# lines for the whole suite (its start-up is the slow part, minutes under
# TCG if run per check); jcheck and jrun on top of it; rd_start and
# rd_sigterm, to stop a run in the middle; $RD_COPYBENCH, the copybench
# command ($COPYBENCH, else the tree's build/copybench, else the one on
# PATH), and cb_byte, copybench.h's cb_data_byte() as "copybench pattern"
# gives it (the one way scripts get the data pattern).

# shellcheck shell=bash
rd_here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
if [ -z "${READERS:-}" ]; then
	for c in "$rd_here/readers" "$rd_here/../build/selftests/readers"; do
		[ -x "$c" ] && READERS=$c && break
	done
fi

RD_COPYBENCH=${COPYBENCH:-$rd_here/../build/copybench}
[ -x "$RD_COPYBENCH" ] || RD_COPYBENCH=$(command -v copybench || echo copybench)

CB_SELFTESTS=$rd_here
. "$rd_here/ktap.sh"
ktap_print_header

# rd_lib_check_tools: the binary and python3, or a SKIP and the end.
rd_lib_check_tools()
{
	if [ -z "${READERS:-}" ] || [ ! -x "$READERS" ]; then
		ktap_skip_why readers_binary_present "no readers binary: run 'make selftests' or set READERS"
		ktap_end
	fi
	if ! command -v python3 > /dev/null; then
		ktap_skip_why python3_present "python3 is needed to check the JSON output"
		ktap_end
	fi
}

# rd_lib_init DIR: $tmp under DIR, removed on exit, and the JSON checker.
# Each request to the checker names a file of readers --json output and a
# file holding a Python expression over objs, runs, summaries and
# verdicts; the answer is "OK" or, on one line, what was found instead.
rd_lib_init()
{
	tmp=$(mktemp -d "$1/readers_test.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
	cat > "$tmp/check.py" <<'PYEOF'
import json, sys
RUN_FIELDS = """type source path variant threads pinned buffer stride touch chunk
    size warmup_s repeat run duration_s bytes reads bytes_per_read gbps reads_per_s
    thread_gbps_min thread_gbps_max spread short_reads eof_reads verified
    verify_note failed error""".split()
SUMMARY_FIELDS = """type source path variant threads pinned buffer stride touch
    chunk size warmup_s repeat runs failed_runs gbps_mean gbps_stddev
    gbps_min gbps_max reads_per_s_mean short_reads verified""".split()
def has(o, fields):
    return all(f in o for f in fields)
# spread is (fastest - slowest) / fastest: 1 when a thread read nothing in
# the run (a 20 ms run on a loaded host can start a thread after its end).
def sane(r):
    return (r["bytes"] > 0 and r["reads"] > 0 and r["gbps"] > 0 and
            r["reads_per_s"] > 0 and r["duration_s"] > 0 and
            0 <= r["thread_gbps_min"] <= r["thread_gbps_max"] and
            0 <= r["spread"] <= 1 and not r["failed"] and r["error"] is None)
def contradicts(ratio, summaries):
    # Documentation/readers.rst: shared/private above 1 + 10%, beyond the
    # runs' noise (ranges apart, or one run per cell).
    cell = {s["buffer"]: s for s in summaries
            if s["variant"] == ratio["variant"] and s["touch"] == ratio["touch"]}
    sh, pr = cell["shared"], cell["private"]
    if not sh["runs"] or not pr["runs"] or sh["gbps_mean"] / pr["gbps_mean"] <= 1.10:
        return False
    return sh["runs"] == 1 or pr["runs"] == 1 or sh["gbps_min"] > pr["gbps_max"]
def check(path, expr):
    objs = []
    for n, line in enumerate(open(path), 1):
        try:
            objs.append(json.loads(line))
        except ValueError as e:
            return "line %d is not JSON (%s): %r" % (n, e, line[:200])
    names = dict(objs=objs, has=has, sane=sane, contradicts=contradicts,
                 RUN_FIELDS=RUN_FIELDS,
                 SUMMARY_FIELDS=SUMMARY_FIELDS,
                 runs=[o for o in objs if o.get("type") == "run"],
                 summaries=[o for o in objs if o.get("type") == "summary"],
                 verdicts=[o for o in objs if o.get("type") == "verdict"])
    seen = " | ".join(json.dumps(o)[:300] for o in objs[:4])
    try:
        if eval(expr, names):
            return "OK"
    except Exception as e:
        return "error %r in: %s | %s" % (e, expr, seen)
    return "false: %s | %s" % (expr, seen)
for req in sys.stdin:
    path, exprfile = req.rstrip("\n").split("\t")
    print(check(path, open(exprfile).read()).replace("\n", " "), flush=True)
PYEOF
	coproc PY { exec python3 "$tmp/check.py"; }
}

# jcheck FILE EXPR: 0 if EXPR holds over FILE's JSON lines, else 1 with
# the reason in $jwhy. (Not in $(...): the checker belongs to this shell.)
jcheck()
{
	printf '%s' "$2" > "$tmp/expr.txt"
	printf '%s\t%s\n' "$1" "$tmp/expr.txt" >&"${PY[1]}"
	IFS= read -r jwhy <&"${PY[0]}"
	[ "$jwhy" = OK ]
}

# jrun NAME STATUS EXPR -- ARGS: run readers --json ARGS; one test that
# passes when it exits with STATUS and EXPR holds over its output.
jrun()
{
	local name=$1 want=$2 expr=$3 rc
	shift 4
	"$READERS" --json "$@" > "$tmp/out.json" 2> "$tmp/err.txt"
	rc=$?
	if [ $rc -ne "$want" ]; then
		ktap_fail_why "$name" "exit status $rc, expected $want: readers $*" \
			"$(head -c 600 "$tmp/err.txt")"
		return
	fi
	if jcheck "$tmp/out.json" "$expr"; then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "readers $*" "$jwhy"
	fi
}

# stderr_has NAME TEXT: one test, the last jrun's stderr holds TEXT.
stderr_has()
{
	if grep -qF -- "$2" "$tmp/err.txt"; then
		ktap_test_pass "$1"
	else
		ktap_fail_why "$1" "wanted on stderr: $2" "$(cat "$tmp/err.txt")"
	fi
}

# bad_option NAME PATTERN ARGS...: readers ARGS exits 2, prints nothing on
# stdout, and its message contains PATTERN.
bad_option()
{
	local name=$1 pattern=$2 rc
	shift 2
	"$READERS" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$pattern" "$tmp/err.txt" && [ ! -s "$tmp/out.txt" ]; then
		ktap_test_pass "rejects_$name"
	else
		ktap_fail_why "rejects_$name" "readers $*: exit $rc (want 2), wanted '$pattern' in:" \
			"$(cat "$tmp/err.txt" "$tmp/out.txt")"
	fi
}

# rd_start ARGS...: readers ARGS in the background, its output (stdout and
# stderr) into a FIFO, read up to its table header, which readers prints
# once it is set up and before it runs: the wait is for that line, not for
# a time. Sets rd_pid, and rd_started to 1 when the header came (empty when
# the output ended first). Follow with rd_sigterm.
rd_start()
{
	local line

	mkfifo "$tmp/sig.fifo"
	"$READERS" "$@" > "$tmp/sig.fifo" 2>&1 &
	rd_pid=$!
	exec 7< "$tmp/sig.fifo"
	rd_started=
	while IFS= read -r -u 7 line; do
		# shellcheck disable=SC2034 # rd_started: for the caller
		case $line in threads*buffer*) rd_started=1; break ;; esac
	done
}

# rd_sigterm: SIGTERM to the readers of rd_start; sets rd_rest to the rest
# of its output and rd_rc to its exit status.
rd_sigterm()
{
	kill -TERM "$rd_pid" 2>/dev/null
	# shellcheck disable=SC2034 # rd_rest: for the caller
	rd_rest=$(cat <&7)
	exec 7<&-
	wait "$rd_pid"
	# shellcheck disable=SC2034 # rd_rc: for the caller
	rd_rc=$?
	rm -f "$tmp/sig.fifo"
}

# cb_byte P: cb_data_byte(P) of copybench.h, as 0xNN.
cb_byte()
{
	"$RD_COPYBENCH" pattern --offset "$1" --size 1 --hex
}
