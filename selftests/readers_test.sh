#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# readers_test.sh - native tests of the readers harness, TAP 13.
#
# Usage: selftests/readers_test.sh
#        READERS=/path/to/readers selftests/readers_test.sh
#
# Needs: the readers binary (beside this script when installed by kselftest,
# else build/selftests/readers: 'make selftests'), the copybench command
# for the data pattern (build/copybench, or $COPYBENCH), python3, a tmpfs at
# /dev/shm (else $TMPDIR). No module, no root. Runs in about 15 s.
#
# Reads a tmpfs file (the running kernel's read path) and the memcpy source
# (the userspace copy variants) with every buffer mode and touch policy;
# proves the verifier fails on one flipped byte, that short reads are
# flagged while a partial read at end of file is not, that the JSON parses
# and holds the documented fields, that bad options are refused with a
# message naming the option, and that --repeat and --matrix report
# well-formed results. It asserts relations that always hold (bytes > 0,
# min <= mean <= max), never throughput or time.
#
# Exit: 0 all passed, 1 something failed, 4 nothing could run (skip).

set -u

. "$(dirname "$(readlink -f "$0")")/readers_lib.sh"
rd_lib_check_tools

base=/dev/shm
[ "$(stat -f -c %T "$base" 2>/dev/null)" = tmpfs ] || base=${TMPDIR:-/tmp}
rd_lib_init "$base"
echo "# readers: $READERS; files in $tmp ($(stat -f -c %T "$tmp"))"

quick=(--duration 30ms --warmup 0)

# --- the help names units and defaults ---
if "$READERS" --help > "$tmp/help.txt" &&
   grep -q "default: 65536" "$tmp/help.txt" &&
   grep -q "10^9 bytes per second" "$tmp/help.txt" &&
   grep -q -- "--touch POLICY" "$tmp/help.txt"; then
	ktap_test_pass help_states_units_and_defaults
else
	ktap_fail_why help_states_units_and_defaults "$(head -5 "$tmp/help.txt")"
fi

# --- --help answers where it stands: the options before it are checked
# (scripts/bench checks its options so), those after it are not ---
"$READERS" --help --frobnicate > "$tmp/help2.txt" 2> "$tmp/err.txt"
rc=$?
"$READERS" --frobnicate --help > "$tmp/out.txt" 2>> "$tmp/err.txt"
rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 2 ] && cmp -s "$tmp/help.txt" "$tmp/help2.txt" &&
   [ ! -s "$tmp/out.txt" ] && grep -q "^readers: unknown option '--frobnicate'" "$tmp/err.txt"; then
	ktap_test_pass help_answers_where_it_stands
else
	ktap_fail_why help_answers_where_it_stands "exit $rc and $rc2 (want 0 and 2)" \
		"$(cat "$tmp/err.txt")"
fi

# --- --fill writes the known content (copybench pattern: the same definition,
# computed byte by byte with a multiply where readers adds) ---
file=$tmp/data
if "$READERS" --fill "$file" --size 1M > /dev/null &&
   [ "$(stat -c %s "$file")" = 1048576 ] &&
   "$RD_COPYBENCH" pattern --size 1M | cmp - "$file"
then
	ktap_test_pass fill_writes_the_known_content
else
	ktap_fail_why fill_writes_the_known_content "content of $file differs from cb_data_byte() ($RD_COPYBENCH pattern)"
fi

# --- every buffer mode x touch policy, file and memcpy, 2 threads ---
# Verified exactly when touch is all and no two threads share bytes.
for src in file memcpy; do
	[ $src = file ] && spec=$file || spec=memcpy
	for buf in shared private stride:0 stride:64 stride:4096 stride:65536; do
		for touch in none line page all; do
			case $buf in
			shared) kind=shared; stride=0 ;;
			private) kind=private; stride=None ;;
			stride:*) kind=stride; stride=${buf#stride:} ;;
			esac
			verified=False
			if [ $touch = all ] && { [ $buf = private ] || [ $buf = stride:65536 ]; }; then
				verified=True
			fi
			jrun "${src}_${buf/:/_}_touch_${touch}_runs" 0 \
				"len(runs) == 1 and sane(runs[0]) and runs[0]['threads'] == 2 and runs[0]['buffer'] == '$kind' and runs[0]['stride'] == $stride and runs[0]['touch'] == '$touch' and runs[0]['short_reads'] == 0 and runs[0]['verified'] == $verified" \
				-- --source "$spec" --threads 2 --buffer "$buf" --touch "$touch" "${quick[@]}"
		done
	done
done

# --- verification: every byte, both checking paths ---
jrun file_touch_all_verifies_with_chunk_checksums 0 \
	"sane(runs[0]) and runs[0]['verified'] and runs[0]['bytes'] >= 1048576" \
	-- --source "$file" --threads 1 --touch all --verify on "${quick[@]}"
jrun file_touch_all_verifies_byte_by_byte_small_chunks 0 \
	"sane(runs[0]) and runs[0]['verified'] and runs[0]['chunk'] == 100" \
	-- --source "$file" --threads 2 --chunk 100 --touch all --verify on "${quick[@]}"
jrun memcpy_touch_all_verifies_a_large_source 0 \
	"sane(runs[0]) and runs[0]['verified'] and runs[0]['size'] == 4194304" \
	-- --source memcpy --size 4M --threads 2 --touch all --verify on "${quick[@]}"

# --- a flipped byte is found, named by thread, offset, expected, got ---
bad=$tmp/corrupt
off=12345
want=$(cb_byte $off)
got=$(printf '0x%02x' $((want ^ 0xff)))
"$READERS" --fill "$bad" --size 1M --corrupt $off > /dev/null
for chunk in 65536 100; do
	"$READERS" --source "$bad" --threads 1 --chunk $chunk --touch all \
		"${quick[@]}" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	if [ $rc -eq 1 ] &&
	   grep -q "thread 0: byte mismatch at offset $off: expected $want, got $got" "$tmp/err.txt"; then
		ktap_test_pass "corrupt_file_byte_is_reported_chunk_$chunk"
	else
		ktap_fail_why "corrupt_file_byte_is_reported_chunk_$chunk" "exit $rc, expected 1" \
			"$(cat "$tmp/err.txt")" "wanted: offset $off: expected $want, got $got"
	fi
done
off=777
want=$(cb_byte $off)
got=$(printf '0x%02x' $((want ^ 0xff)))
"$READERS" --source memcpy --threads 2 --touch all --corrupt $off "${quick[@]}" \
	> "$tmp/out.txt" 2> "$tmp/err.txt"
rc=$?
if [ $rc -eq 1 ] &&
   grep -Eq "thread [01]: byte mismatch at offset $off: expected $want, got $got" "$tmp/err.txt"; then
	ktap_test_pass corrupt_memcpy_source_byte_is_reported
else
	ktap_fail_why corrupt_memcpy_source_byte_is_reported "exit $rc, expected 1" "$(cat "$tmp/err.txt")"
fi
# Without --touch all nothing reads every byte: no verification, no error.
jrun corrupt_file_unnoticed_without_touch_all 0 \
	"sane(runs[0]) and not runs[0]['verified']" \
	-- --source "$bad" --threads 1 --touch line "${quick[@]}"

# --- a file of other content runs unverified; --verify on refuses it ---
other=$tmp/other
head -c 300000 /dev/urandom > "$other"
jrun unknown_content_runs_unverified 0 \
	"sane(runs[0]) and not runs[0]['verified'] and 'not the known pattern' in runs[0]['verify_note']" \
	-- --source "$other" --threads 2 --touch all "${quick[@]}"
if "$READERS" --source "$other" --touch all --verify on "${quick[@]}" > /dev/null 2> "$tmp/err.txt"; then
	ktap_fail_why verify_on_refuses_unknown_content "exit 0"
elif [ $? -eq 2 ] && grep -q -- "--verify on" "$tmp/err.txt"; then
	ktap_test_pass verify_on_refuses_unknown_content
else
	ktap_fail_why verify_on_refuses_unknown_content "$(cat "$tmp/err.txt")"
fi

# --- end of file: a partial last chunk is not a short read ---
odd=$tmp/odd
"$READERS" --fill "$odd" --size 100000 > /dev/null
jrun partial_read_at_eof_is_not_short 0 \
	"sane(runs[0]) and runs[0]['short_reads'] == 0 and runs[0]['eof_reads'] > 0 and runs[0]['verified']" \
	-- --source "$odd" --threads 2 --touch all "${quick[@]}"
jrun memcpy_source_not_a_chunk_multiple_wraps_cleanly 0 \
	"sane(runs[0]) and runs[0]['short_reads'] == 0 and runs[0]['eof_reads'] > 0 and runs[0]['verified']" \
	-- --source memcpy --size 100000 --threads 2 --touch all "${quick[@]}"

# --- short reads are counted and flagged ---
# A pipe holds at most 64 KiB by default: every 1 MiB read comes back short.
yes | "$READERS" --json --source /dev/stdin --chunk 1M --threads 2 --touch none \
	"${quick[@]}" > "$tmp/out.json" 2> "$tmp/err.txt"
rc=${PIPESTATUS[1]}
if [ "$rc" -eq 3 ] &&
   jcheck "$tmp/out.json" \
	"runs[0]['short_reads'] > 0 and runs[0]['short_reads'] == runs[0]['reads'] and not runs[0]['failed']"; then
	ktap_test_pass pipe_short_reads_are_counted_and_exit_3
else
	ktap_fail_why pipe_short_reads_are_counted_and_exit_3 "exit $rc, expected 3" "${jwhy:-}" "$(cat "$tmp/err.txt")"
fi
yes | "$READERS" --source /dev/stdin --chunk 1M --threads 1 --touch none \
	--allow-short "${quick[@]}" > "$tmp/out.txt" 2> "$tmp/err.txt"
rc=${PIPESTATUS[1]}
if [ "$rc" -eq 0 ] && grep -q "^# WARNING: [0-9]* short reads" "$tmp/out.txt" &&
   grep -Eq "^ +1 +private .*[0-9]+! no$" "$tmp/out.txt"; then
	ktap_test_pass short_reads_flagged_in_table_and_allowed
else
	ktap_fail_why short_reads_flagged_in_table_and_allowed "exit $rc" "$(cat "$tmp/out.txt" "$tmp/err.txt")"
fi
# A thread that sits in one read through the whole window (its writer
# late: here by 0.3 s, on a loaded host by the scheduler) still measures:
# the window stays open until every thread is in it. It failed with "no
# thread reached the measured phase" (a make check run, at 30 ms).
(sleep 0.3; yes) | "$READERS" --source /dev/stdin --chunk 1M --threads 1 --touch none \
	--allow-short --duration 30ms --warmup 10ms > "$tmp/out.txt" 2> "$tmp/err.txt"
rc=${PIPESTATUS[1]}
if [ "$rc" -eq 0 ] && grep -Eq "^ +1 +private .*[0-9]+! no$" "$tmp/out.txt"; then
	ktap_test_pass late_writer_is_waited_for_not_failed
else
	ktap_fail_why late_writer_is_waited_for_not_failed "exit $rc" "$(cat "$tmp/out.txt" "$tmp/err.txt")"
fi
# A sysfs attribute claims a page (st_size 4096) and returns a few bytes.
sysf=/sys/devices/system/cpu/online
if [ -r $sysf ] && [ "$(stat -c %s $sysf)" -gt "$(wc -c < $sysf)" ]; then
	jrun sysfs_file_shorter_than_its_size_is_flagged 3 \
		"runs[0]['short_reads'] > 0 and runs[0]['bytes'] > 0 and not runs[0]['failed']" \
		-- --source $sysf --threads 1 --touch none "${quick[@]}"
else
	ktap_skip_why sysfs_file_shorter_than_its_size_is_flagged "$sysf missing or its size is its content's"
fi

# --- JSON: fields, repeat statistics, thread lists, pinning ---
jrun json_objects_hold_the_documented_fields 0 \
	"len(runs) == 1 and len(summaries) == 1 and has(runs[0], RUN_FIELDS) and has(summaries[0], SUMMARY_FIELDS) and runs[0]['source'] == 'file' and runs[0]['path'] == '$file' and runs[0]['variant'] == 'native' and runs[0]['size'] == 1048576 and runs[0]['chunk'] == 65536" \
	-- --source "$file" --threads 2 "${quick[@]}"
# A write of the JSON lines that fails is said once; readers exits 1 (it
# exited 0, the lines lost).
"$READERS" --json --source memcpy --threads 1 --repeat 2 "${quick[@]}" > /dev/full 2> "$tmp/err.txt"
rc=$?
if [ $rc -eq 1 ] &&
   [ "$(grep -c 'writing the JSON lines' "$tmp/err.txt")" = 1 ] &&
   grep -qx "readers: writing the JSON lines: No space left on device" "$tmp/err.txt"; then
	ktap_test_pass json_write_failure_is_said_once_exit_1
else
	ktap_fail_why json_write_failure_is_said_once_exit_1 "exit $rc, expected 1" "$(cat "$tmp/err.txt")"
fi
jrun repeat_reports_mean_stddev_min_max 0 \
	"len(runs) == 3 and [r['run'] for r in runs] == [1, 2, 3] and all(sane(r) for r in runs) and len(summaries) == 1 and summaries[0]['runs'] == 3 and summaries[0]['failed_runs'] == 0 and summaries[0]['gbps_min'] <= summaries[0]['gbps_mean'] <= summaries[0]['gbps_max'] and summaries[0]['gbps_stddev'] >= 0 and abs(summaries[0]['gbps_min'] - min(r['gbps'] for r in runs)) < 1e-3 and abs(summaries[0]['gbps_max'] - max(r['gbps'] for r in runs)) < 1e-3 and summaries[0]['verified']" \
	-- --source memcpy --threads 2 --repeat 3 "${quick[@]}"
ncpu=$(nproc)
want=$(printf '%s\n' 1 2 "$ncpu" | awk '!seen[$0]++' | paste -s -d,)
jrun thread_list_runs_each_count_once 0 \
	"[r['threads'] for r in runs] == [$want] and len(summaries) == len(runs) and all(sane(r) for r in runs)" \
	-- --source "$file" --threads 1,2,max "${quick[@]}"
if [ "$ncpu" -le 2 ]; then
	stderr_has max_listed_again_is_said \
		"readers: --threads '1,2,max': $ncpu listed more than once ('max' is $ncpu here): running it once"
fi
jrun thread_list_repeated_count_runs_once 0 \
	"[r['threads'] for r in runs] == [2, 1] and all(sane(r) for r in runs)" \
	-- --source memcpy --threads 2,1,2 "${quick[@]}"
stderr_has repeated_count_is_said "readers: --threads '2,1,2': 2 listed more than once: running it once"

# --- a chunk larger than the source: the real bytes per read, said ---
jrun chunk_larger_than_memcpy_source_reads_the_source 0 \
	"sane(runs[0]) and runs[0]['chunk'] == 1024 and runs[0]['bytes_per_read'] == 1024 and runs[0]['size'] == 1024 and runs[0]['verified']" \
	-- --size 1K --source memcpy:movsb --chunk 64K --threads 1 "${quick[@]}"
stderr_has chunk_larger_than_source_is_said \
	"readers: warning: --chunk 64 KiB is larger than the 1 KiB source: reading 1 KiB per read"
small=$tmp/small
"$READERS" --fill "$small" --size 1000 > /dev/null
jrun chunk_larger_than_file_reads_the_file 0 \
	"sane(runs[0]) and runs[0]['chunk'] == 1000 and runs[0]['bytes_per_read'] == 1000 and runs[0]['short_reads'] == 0 and runs[0]['verified']" \
	-- --source "$small" --threads 2 "${quick[@]}"
"$READERS" --source memcpy --size 100000 --threads 1 "${quick[@]}" > "$tmp/out.txt" 2>&1
if grep -q "^# chunk 64 KiB per read (the read at the source's end: 34464 B; 50000 B per read on average);" "$tmp/out.txt"; then
	ktap_test_pass setup_line_gives_the_real_bytes_per_read
else
	ktap_fail_why setup_line_gives_the_real_bytes_per_read "$(cat "$tmp/out.txt")"
fi
jrun no_pin_is_reported 0 \
	"sane(runs[0]) and runs[0]['pinned'] is False" \
	-- --source memcpy --no-pin --threads 2 "${quick[@]}"
# The window opens once the warm-up is over, so window and warm-up fit in
# the command's elapsed time on any machine; a window that held the warm-up
# too (230 ms) would need 430. (The window is the threads' own, from the
# first one's first read in it: on a loaded host it can be a hair shorter
# than --duration, 29.99 ms for 30 once in CI: not a bound to assert.)
readers_timed()
{
	local t0 t1 rc

	t0=$(date +%s%N)
	"$readers_bin" "$@"
	rc=$?
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000))" > "$tmp/elapsed_us"
	return "$rc"
}
readers_bin=$READERS
READERS=readers_timed
jrun warmup_is_excluded_and_runs 0 \
	"(sane(runs[0]) and runs[0]['warmup_s'] == 0.2 and
	  runs[0]['duration_s'] + runs[0]['warmup_s'] <= int(open('$tmp/elapsed_us').read()) / 1e6)" \
	-- --source memcpy --threads 2 --duration 30ms --warmup 200ms
READERS=$readers_bin

# --- bad options: exit 2, the message names the option ---
m=(--source memcpy "${quick[@]}")
bad_option chunk_with_bad_suffix "invalid --chunk '12Q'" "${m[@]}" --chunk 12Q
bad_option chunk_zero "invalid --chunk '0': must be" "${m[@]}" --chunk 0
bad_option chunk_negative "invalid --chunk '-5'" "${m[@]}" --chunk -5
bad_option threads_zero "invalid --threads '0'" "${m[@]}" --threads 0
bad_option threads_word "invalid --threads 'two'" "${m[@]}" --threads two
bad_option threads_empty_item "invalid --threads '1,,2'" "${m[@]}" --threads 1,,2
bad_option buffer_unknown "invalid --buffer 'common': accepted values: shared, private, stride:BYTES" \
	"${m[@]}" --buffer common
bad_option buffer_bad_stride "invalid --buffer 'stride:x'" "${m[@]}" --buffer stride:x
bad_option touch_unknown "invalid --touch 'some': accepted values: none, line, page, all" \
	"${m[@]}" --touch some
bad_option duration_garbage "invalid --duration '2x'" "${m[@]}" --duration 2x
bad_option duration_zero "invalid --duration '0'" --source memcpy --duration 0
bad_option warmup_negative "invalid --warmup '-1'" "${m[@]}" --warmup -1
bad_option repeat_zero "invalid --repeat '0'" "${m[@]}" --repeat 0
bad_option verify_unknown "invalid --verify 'yes'" "${m[@]}" --verify yes
bad_option unknown_variant "invalid --source 'memcpy:nosuch': no such variant (accepted:" \
	--source memcpy:nosuch
bad_option missing_file "invalid --source '$tmp/none'" --source "$tmp/none"
bad_option unknown_option "unknown option '--frobnicate' (accepted: --source, --variant, --threads," \
	"${m[@]}" --frobnicate
bad_option missing_value "option '--chunk' needs a value" --source memcpy --chunk
bad_option missing_value_of_a_short_option "option '-c' (--chunk) needs a value: BYTES (see --help)" \
	--source memcpy -c
bad_option value_given_to_a_flag "option '--json' takes no value (got '--json=1')" "${m[@]}" --json=1
bad_option value_looks_like_an_option \
	"option '--source' needs a value, but '--duration' follows it (a SPEC that starts with '-': --source=SPEC)" \
	--source --duration 0.1
bad_option short_option_value_looks_like_an_option \
	"option '-t' needs a value, but '--buffer' follows it" --source memcpy -t --buffer shared
bad_option dash_value_given_with_equals_is_taken "invalid --source '--duration'" --source=--duration
bad_option negative_infinity_is_a_number_for_its_option "invalid --warmup '-inf': expected seconds" \
	"${m[@]}" --warmup -inf
bad_option variant_without_module "--variant needs the module's data file" \
	--source "$file" --variant native
bad_option verify_on_shared_buffer "buffers overlap" "${m[@]}" --buffer shared --verify on
bad_option matrix_with_touch "--matrix runs buffer" "${m[@]}" --matrix --touch all
bad_option corrupt_past_the_source "invalid --corrupt '70000'" "${m[@]}" --corrupt 70000

# --- the matrix ---
"$READERS" --matrix --source memcpy --threads 2 --duration 20ms --warmup 0 \
	> "$tmp/matrix.txt" 2> "$tmp/err.txt"
rc=$?
missing=
for v in movsb unrolled nocache native; do
	grep -Eq "^$v +none .*[0-9]|^# variant $v: skipped, " "$tmp/matrix.txt" || missing="$missing $v"
done
if [ $rc -eq 0 ] && [ -z "$missing" ] &&
   grep -q "^# verdict: shared buffer, untouched (blogbench 1.1): [a-z_]* wins, [0-9.]* GB/s" "$tmp/matrix.txt" &&
   grep -q "^# verdict: private buffers, every byte touched: [a-z_]* wins, [0-9.]* GB/s" "$tmp/matrix.txt" &&
   grep -q "^# \* every byte verified   ! short reads   ? a ratio sharing cannot explain$" "$tmp/matrix.txt" &&
   grep -Eq "^native +all +[0-9.]+ +[0-9.]+\* +[0-9.]+\??$" "$tmp/matrix.txt" &&
   ! grep -q "# matrix: cell" "$tmp/err.txt"; then
	ktap_test_pass matrix_memcpy_prints_every_variant_and_the_verdict
else
	ktap_fail_why matrix_memcpy_prints_every_variant_and_the_verdict "exit $rc; not accounted for:$missing" \
		"$(cat "$tmp/matrix.txt" "$tmp/err.txt")"
fi
jrun matrix_json_has_cells_ratios_and_verdict 0 \
	"len(verdicts) == 1 and len(summaries) == 4 * len(verdicts[0]['ratios']) // 2 and len(runs) == 2 * len(summaries) and all(sane(r) for r in runs) and verdicts[0]['shared_none_winner'] in {r['variant'] for r in runs} and verdicts[0]['private_all_winner'] in {r['variant'] for r in runs} and all(x['shared_private'] > 0 for x in verdicts[0]['ratios']) and {s['variant'] for s in verdicts[0]['skipped']}.isdisjoint({r['variant'] for r in runs}) and all(x['contradicts_mechanism'] == contradicts(x, summaries) for x in verdicts[0]['ratios'])" \
	-- --matrix --source memcpy --threads 2 --repeat 2 --duration 20ms --warmup 0
jrun matrix_on_a_file_is_the_kernel_copy_only 0 \
	"len(verdicts) == 1 and {r['variant'] for r in runs} == {'native'} and len(runs) == 4 and verdicts[0]['shared_none_winner'] == 'native' and all(sane(r) for r in runs) and [s['verified'] for s in summaries] == [False, False, False, True]" \
	-- --matrix --source "$file" --threads 2 --duration 20ms --warmup 0

# On a terminal the matrix shows which cell runs, on stderr; not on one
# that cannot erase a line.
for term in xterm dumb; do
	TERM=$term script -qfec "$(printf '%q ' "$READERS" --matrix --source memcpy \
		--threads 2 --variants movsb,nocache --duration 20ms --warmup 0)" \
		/dev/null 2>&1 | tr -d '\r' > "$tmp/tty.txt"
	if [ $term = xterm ] &&
	   grep -q "# matrix: cell 1 of 8: movsb, 2 threads, shared, touch none; about [0-9]* s left" "$tmp/tty.txt" &&
	   grep -q "# matrix: cell 8 of 8: nocache, 2 threads, private, touch all" "$tmp/tty.txt" &&
	   grep -q "^# verdict: they" "$tmp/tty.txt"; then
		ktap_test_pass matrix_shows_progress_on_a_terminal
	elif [ $term = dumb ] && ! grep -q "# matrix: cell" "$tmp/tty.txt" &&
	     grep -q "^# verdict: they" "$tmp/tty.txt"; then
		ktap_test_pass matrix_shows_no_progress_on_a_dumb_terminal
	else
		ktap_fail_why "matrix_progress_on_a_${term}_terminal" "$(cat -v "$tmp/tty.txt")"
	fi
done

# --- scripts/bench names itself in its errors ---
bench=$rd_here/../scripts/bench
if [ -x "$bench" ]; then
	# shellcheck disable=SC2089 # OPTIONS:MESSAGE, the quotes are MESSAGE's
	for bad in "--repeat abc:invalid --repeat 'abc'" "--duration 0:invalid --duration '0'" \
		   "--threads 0:invalid --threads '0'"; do
		opt=${bad%% *}
		# shellcheck disable=SC2086,SC2090 # OPTIONS, split on purpose
		"$bench" ${bad%%:*} > "$tmp/out.txt" 2> "$tmp/err.txt"
		rc=$?
		if [ $rc -eq 2 ] && grep -q "^bench: ${bad#*:}" "$tmp/err.txt" &&
		   ! grep -q "readers" "$tmp/err.txt" && [ ! -s "$tmp/out.txt" ]; then
			ktap_test_pass "bench_names_itself_for_${opt#--}"
		else
			ktap_fail_why "bench_names_itself_for_${opt#--}" "scripts/bench ${bad%%:*}: exit $rc (want 2)" \
				"$(cat "$tmp/err.txt" "$tmp/out.txt")"
		fi
	done
else
	ktap_skip_why bench_names_itself "no scripts/bench beside the selftests (an installed copy)"
fi

# --- a signal stops the run and says so ---
# SIGTERM once readers has printed its table header (rd_start waits for it).
rd_start --source memcpy --threads 2 --duration 600 --warmup 0
rd_sigterm
if [ -n "$rd_started" ] && [ $rd_rc -eq 143 ] && grep -q "stopped by signal 15" <<< "$rd_rest"; then
	ktap_test_pass sigterm_stops_the_run_with_status_143
else
	ktap_fail_why sigterm_stops_the_run_with_status_143 "exit $rd_rc" "$rd_rest"
fi

ktap_end
