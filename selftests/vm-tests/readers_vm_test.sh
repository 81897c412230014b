#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# readers_vm_test.sh - the readers harness against copybench.ko's data file,
# TAP 13. An in-VM suite: selftests/vm-suite.sh runs it, with the module
# loaded, in the VM of make check (6.1 and 6.12: not in the debug kernel's
# plan, selftests/vm_plan.sh); that is the
# way it runs. To run it alone, with the module loaded wherever it is:
#
# Usage: selftests/vm-tests/readers_vm_test.sh
#        READERS=/path/to/readers selftests/vm-tests/readers_vm_test.sh
#
# Needs: root, copybench.ko loaded (/sys/kernel/debug/copybench/data), the
# readers binary and python3. Without the data file every test SKIPs and
# the exit status is 4. Timings are not looked at (meaningless under TCG).
#
# For every variant the module lists as usable: reads into private buffers
# and into buffers at an odd stride and chunk, with every byte verified
# against the data file's known content and no short read allowed (the
# partial chunk at the end of the file is not one); the module's 'variant'
# knob is back to its old value after each run, after a refused variant,
# after the matrix, and after a SIGTERM in the middle of a run.
#
# Exit: 0 all passed, 1 something failed, 4 skipped.

set -u

. "$(dirname "$(readlink -f "$0")")/../readers_lib.sh"
rd_lib_check_tools

dir=/sys/kernel/debug/copybench
data=$dir/data
knob=$dir/variant
list=$dir/variants

if [ ! -r "$data" ] || [ ! -r "$list" ] || [ ! -r "$knob" ]; then
	ktap_skip_why module_data_file_present "copybench.ko not loaded or debugfs not mounted: no $data"
	ktap_end
fi
if [ ! -w "$knob" ]; then
	ktap_skip_why variant_knob_writable "$knob is read-only (not root, or kernel lockdown)"
	ktap_end
fi

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
rd_lib_init "$base"

orig=$(cat "$knob")
usable=()
unusable=()
while read -r name state _; do
	[ -n "$name" ] || continue
	case $state in
	usable) usable+=("$name") ;;
	unusable) unusable+=("$name") ;;
	esac
done < "$list"
echo "# readers: $READERS"
echo "# module variants usable: ${usable[*]}; unusable: ${unusable[*]:-none}; knob: $orig"
echo "# data_size: $(cat "$dir/data_size" 2>/dev/null)"

quick=(--duration 100ms --warmup 0)

# knob_is NAME VALUE: one test, the variant knob reads VALUE.
knob_is()
{
	local now

	now=$(cat "$knob")
	if [ "$now" = "$2" ]; then
		ktap_test_pass "$1"
	else
		ktap_fail_why "$1" "$knob is '$now', expected '$2'"
	fi
}

if [ ${#usable[@]} -eq 0 ]; then
	ktap_fail_why module_lists_usable_variants "no 'usable' line in $list:" "$(cat "$list")"
	ktap_end
fi

# --- every usable variant: every byte verified, no short read ---
for v in "${usable[@]}"; do
	jrun "data_file_${v}_private_buffers_every_byte_verified" 0 \
		"len(runs) == 1 and sane(runs[0]) and runs[0]['source'] == 'module' and runs[0]['variant'] == '$v' and runs[0]['verified'] and runs[0]['short_reads'] == 0" \
		-- --source "$data" --variant "$v" --threads 2 --buffer private \
		--touch all --verify on "${quick[@]}"
	# An odd chunk (the last one partial) into buffers an odd stride
	# apart, so the second thread's destination is not even 2-aligned.
	jrun "data_file_${v}_odd_chunk_odd_alignment_verified" 0 \
		"len(runs) == 1 and sane(runs[0]) and runs[0]['variant'] == '$v' and runs[0]['verified'] and runs[0]['short_reads'] == 0 and runs[0]['stride'] == 65537" \
		-- --source "$data" --variant "$v" --threads 2 --buffer stride:65537 \
		--chunk 65537 --touch all --verify on "${quick[@]}"
	# Small reads, verified byte by byte: the copies' short-size paths.
	jrun "data_file_${v}_small_reads_verified" 0 \
		"len(runs) == 1 and sane(runs[0]) and runs[0]['verified'] and runs[0]['short_reads'] == 0" \
		-- --source "$data" --variant "$v" --threads 1 --chunk 1000 \
		--touch all --verify on "${quick[@]}"
	knob_is "variant_knob_restored_after_$v" "$orig"
done

# --- the default source is the data file; shared untouched has no short read ---
jrun default_source_is_the_data_file 0 \
	"sane(runs[0]) and runs[0]['source'] == 'module' and runs[0]['path'] == '$data' and runs[0]['variant'] == '$orig' and runs[0]['short_reads'] == 0" \
	-- --threads 2 "${quick[@]}"
jrun data_file_shared_buffer_untouched_runs 0 \
	"sane(runs[0]) and runs[0]['buffer'] == 'shared' and runs[0]['short_reads'] == 0 and not runs[0]['verified']" \
	-- --source "$data" --threads 2 --buffer shared --touch none "${quick[@]}"

# --- refused variants leave the knob alone ---
bad_option unknown_module_variant "invalid --variant 'no_such_variant'" \
	--source "$data" --variant no_such_variant "${quick[@]}"
knob_is variant_knob_unchanged_after_unknown_variant "$orig"
for v in "${unusable[@]}"; do
	bad_option "unusable_module_variant_$v" "unusable" \
		--source "$data" --variant "$v" "${quick[@]}"
	knob_is "variant_knob_unchanged_after_unusable_$v" "$orig"
done

# --- the matrix sets the knob per row, and puts it back ---
want=
for v in movsb unrolled nocache native; do
	for u in "${usable[@]}"; do
		[ "$u" = "$v" ] && want="$want'$v',"
	done
done
jrun data_file_matrix_runs_each_usable_variant 0 \
	"len(verdicts) == 1 and {r['variant'] for r in runs} == {$want} and all(sane(r) for r in runs) and all(r['short_reads'] == 0 for r in runs) and all(s['verified'] for s in summaries if s['buffer'] == 'private' and s['touch'] == 'all')" \
	-- --matrix --source "$data" --threads 2 --duration 50ms --warmup 0
knob_is variant_knob_restored_after_matrix "$orig"

# --- SIGTERM in the middle of a run: the knob is restored ---
other=
for v in "${usable[@]}"; do
	[ "$v" != "$orig" ] && other=$v && break
done
if [ -z "$other" ]; then
	ktap_fail_why sigterm_restores_the_variant_knob "no usable variant other than '$orig' to set"
else
	# The table header comes after the knob is set and before the run.
	rd_start --source "$data" --variant "$other" --threads 2 \
		--duration 600 --warmup 0
	during=$(cat "$knob")
	rd_sigterm
	after=$(cat "$knob")
	if [ -n "$rd_started" ] && [ "$during" = "$other" ] && [ $rd_rc -eq 143 ] &&
	   [ "$after" = "$orig" ]; then
		ktap_test_pass sigterm_restores_the_variant_knob
	else
		ktap_fail_why sigterm_restores_the_variant_knob \
			"started '$rd_started', knob during '$during' (want $other), exit $rd_rc (want 143), after '$after' (want $orig)" \
			"$rd_rest"
		echo "$orig" > "$knob"
	fi
fi

ktap_end
