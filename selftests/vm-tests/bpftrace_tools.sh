#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace_tools.sh - runs each bpftrace tool of tools/ on a workload of
# known shape and checks what its -f json output says about it, with jq.
#
# Usage (root, from anywhere, copybench.ko loaded; vm-suite.sh runs it in
# the VM through the selftests/vm-tests hook):
#	selftests/vm-tests/bpftrace_tools.sh
# Prints KTAP through the kernel's kselftest/ktap_helpers.sh; each tool's
# JSON output and stderr follow as "# " lines. Exit 0 pass, 1 fail, 4 when
# it cannot run (no bpftrace, jq, tracefs, syscall tracepoints, module or
# readers binary).
#
# Each tool runs once, as "bpftrace -f json -c '/bin/sh WORKLOAD' TOOL ARGS":
# bpftrace starts the workload once its probes are attached and prints its
# maps when the workload ends, so nothing waits on a timer. The workloads:
#   cbcopy.bt	data file reads and writes with two variants, one timed run
#   kcopy.bt	PID filter: one dd (the target, released through a FIFO so its
#		PID is known before bpftrace starts) reads and writes 64 KiB
#		blocks on tmpfs, another dd 4 KiB blocks: only the first shows
#   copysize.bt	COMM filter "dd": tmpfs reads of 64 KiB and 512 bytes, data
#		file reads and writes of 64 KiB with data_chunk 4096 (16 copies
#		of 4 KiB each), a /proc read (a checked copy), and "head"
#		reading the same files, which must not show
#   readlint.bt	COMM filter "readers": build/selftests/readers with shared
#		and private buffers, 8-byte and 64 KiB chunks, two processes
#		at once, and a dd of 8-byte reads that must not show
# The module's knobs and the tmpfs mount are restored on exit. Set
# CB_BT_TOOLS to a list of some of "cbcopy kcopy copysize readlint" to test
# only those.

CB_SELFTESTS=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
. "$CB_SELFTESTS/ktap.sh"
top=$(cd "$CB_SELFTESTS/.." && pwd)
cd "$top" || exit 1

dbg=/sys/kernel/debug/copybench
readers=$top/build/selftests/readers

ktap_print_header

skip_all()
{
	ktap_skip_all "$1"
	exit "$KSFT_SKIP"
}

command -v bpftrace > /dev/null || skip_all "bpftrace not installed"
command -v jq > /dev/null || skip_all "jq not installed"
[ -d /sys/kernel/tracing/events ] || skip_all "no tracefs at /sys/kernel/tracing"
[ -d /sys/kernel/tracing/events/syscalls ] ||
	skip_all "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)"
[ -d $dbg ] || skip_all "copybench.ko not loaded"
[ -d /sys/kernel/tracing/events/copybench ] || skip_all "no copybench tracepoints"
[ -x "$readers" ] || skip_all "no $readers: run 'make selftests'"

tmp=$(mktemp -d) || exit 1
mnt=$tmp/tmpfs
saved=
target=
cleanup()
{
	[ -n "$target" ] && kill "$target" 2> /dev/null
	[ -n "$saved" ] && restore_knobs
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$mnt" && mount -t tmpfs none "$mnt" || skip_all "cannot mount tmpfs"

knobs="variant samples data_size data_chunk"
save_knobs()
{
	local k

	for k in $knobs; do
		saved="$saved$k=$(cat $dbg/$k) "
	done
}
restore_knobs()
{
	local kv

	for kv in $saved; do
		echo "${kv#*=}" > "$dbg/${kv%%=*}"
	done
}
save_knobs

# bt_run NAME TOOL WORKLOAD [ARG...]: TOOL with -f json on the workload
# script WORKLOAD, ARG... its positional parameters; the JSON goes to
# $out, everything shown as "# " lines. One test point: bpftrace exited 0,
# the workload ran to its end (it writes $tmp/NAME.done last) and every
# line of the output is JSON.
bt_run()
{
	local name=$1 tool=$2 work=$3 rc start=$SECONDS

	shift 3
	out=$tmp/$name.json
	timeout 600 bpftrace -f json -c "/bin/sh $work" "$tool" "$@" \
		> "$out" 2> "$out.err" < /dev/null
	rc=$?
	sed 's/^/# /' "$out" "$out.err" | cut -c 1-400
	ktap_print_msg "$name: bpftrace exit $rc after $((SECONDS - start)) s"
	if [ $rc -eq 0 ] && [ -f "$tmp/$name.done" ] && jq -e -s 'length > 0' "$out" > /dev/null; then
		ktap_test_pass "${name}_runs_and_prints_json"
	else
		ktap_print_msg "workload done: $(cat "$tmp/$name.done" 2> /dev/null || echo no)"
		ktap_test_fail "${name}_runs_and_prints_json"
	fi
}

# map NAME: map or hist NAME of $out as one JSON object, {} if absent.
map()
{
	jq -s --arg m "$1" \
		'[.[] | select(.type == "map" or .type == "hist") | .data | select(has($m)) | .[$m]] | add // {}' \
		"$out" 2> /dev/null || echo '{}'
}

# bucket MAP KEY MIN: the count of KEY's hist bucket starting at MIN (0 if none).
bucket()
{
	map "$1" | jq --arg k "$2" --argjson min "$3" \
		'[.[$k] // [] | .[] | select(.min == $min) | .count] | add // 0'
}

# nonzero_buckets MAP KEY: the MINs of KEY's buckets that count something.
nonzero_buckets()
{
	map "$1" | jq -c --arg k "$2" '[.[$k] // [] | .[] | select(.count > 0) | .min]'
}

# value MAP KEY: the value at KEY, "" if none.
value()
{
	map "$1" | jq -r --arg k "$2" '.[$k] // "" | tostring'
}

# keys_with MAP PREFIX: how many keys of MAP start with PREFIX.
keys_with()
{
	map "$1" | jq --arg p "$2" '[keys[] | select(startswith($p))] | length'
}

# expect NAME GOT WANT: one test point, GOT = WANT.
expect()
{
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_print_msg "$1: got '$2', want '$3'"
		ktap_test_fail "$1"
	fi
}

# --- cbcopy.bt: the module's tracepoints, per variant ----------------------
test_cbcopy()
{
	cat > "$tmp/cbcopy.sh" <<- EOF
	set -e
	for v in native bytes; do
		echo \$v > $dbg/variant
		dd if=$dbg/data of=/dev/null bs=65536 2> /dev/null
		head -c 100000 /dev/zero | dd of=$dbg/data bs=4096 conv=notrunc 2> /dev/null
	done
	echo native > $dbg/variant
	echo 3 > $dbg/samples
	echo 1 > $dbg/run
	echo 1048576 > $dbg/data_size
	echo done > $tmp/cbcopy.done
	EOF
	bt_run cbcopy tools/cbcopy.bt "$tmp/cbcopy.sh"
	restore_knobs
	for v in native bytes; do
		for m in @read_cycles @read_bytes @write_cycles @read_calls; do
			expect "cbcopy_${m#@}_has_$v" "$(map $m | jq --arg v $v 'has($v)')" true
		done
	done
	expect cbcopy_run_median_cycles_recorded "$(map @run_median_cycles | jq 'length > 0')" true
	expect cbcopy_run_printed \
		"$(jq -s '[.[] | select(.type == "printf" and (.data | startswith("run native")))] | length' "$out")" 1
}

# --- kcopy.bt: the PID filter keeps a process with the same comm out ------
test_kcopy()
{
	mkfifo "$tmp/go" "$tmp/end"
	( read -r _ < "$tmp/go"; exec dd if="$mnt/f" of="$mnt/g" bs=65536 2> "$tmp/end" ) &
	target=$!
	cat > "$tmp/kcopy.sh" <<- EOF
	set -e
	dd if=$mnt/f of=$mnt/h bs=4096 2> /dev/null
	echo go > $tmp/go
	cat $tmp/end > /dev/null
	echo done > $tmp/kcopy.done
	EOF
	bt_run kcopy tools/kcopy.bt "$tmp/kcopy.sh" 0 "$target"
	wait "$target"
	target=
	# 8 MiB in 64 KiB blocks: 128 reads and writes of 64 KiB, and the read at the end.
	expect kcopy_target_reads_seen "$(bucket @read_bytes shmem_file_read_iter 65536)" 128
	expect kcopy_target_writes_seen "$(bucket @write_bytes generic_perform_write 65536)" 128
	expect kcopy_other_dd_reads_kept_out "$(bucket @read_bytes shmem_file_read_iter 4096)" 0
	expect kcopy_other_dd_writes_kept_out "$(bucket @write_bytes generic_perform_write 4096)" 0
	expect kcopy_cpu_samples_taken "$(map @oncpu_frame | jq 'length > 0')" true
}

# --- copysize.bt: reads of known sizes, by path -----------------------------
test_copysize()
{
	cat > "$tmp/copysize.sh" <<- EOF
	set -e
	dd if=$mnt/f of=/dev/null bs=65536 2> /dev/null
	dd if=$mnt/f of=/dev/null bs=512 count=300 2> /dev/null
	echo 1048576 > $dbg/data_size
	echo 4096 > $dbg/data_chunk
	echo native > $dbg/variant
	dd if=$dbg/data of=/dev/null bs=65536 2> /dev/null
	dd if=/dev/zero of=$dbg/data bs=65536 count=4 conv=notrunc 2> /dev/null
	dd if=/proc/self/maps of=/dev/null bs=4096 2> /dev/null
	head -c 1000000 $mnt/f > /dev/null
	head -c 100000 $dbg/data > /dev/null
	echo done > $tmp/copysize.done
	EOF
	bt_run copysize tools/copysize.bt "$tmp/copysize.sh" 0 0 dd
	restore_knobs
	expect copysize_tmpfs_64k_reads "$(bucket @call_bytes dd,tmpfs 65536)" 128
	expect copysize_tmpfs_512_byte_reads "$(bucket @call_bytes dd,tmpfs 512)" 300
	expect copysize_tmpfs_no_other_sizes "$(nonzero_buckets @call_bytes dd,tmpfs)" '[512,65536]'
	# 1 MiB in 64 KiB reads with data_chunk 4096: 16 calls, 256 copies of 4 KiB.
	expect copysize_data_file_read_calls "$(nonzero_buckets @call_bytes dd,copybench_data)" '[65536]'
	expect copysize_data_file_64k_reads "$(bucket @call_bytes dd,copybench_data 65536)" 16
	expect copysize_data_file_copies_are_chunks \
		"$(nonzero_buckets @copy_bytes dd,copybench_data,to_user)" '[4096]'
	expect copysize_data_file_4k_copies "$(bucket @copy_bytes dd,copybench_data,to_user 4096)" 256
	expect copysize_data_file_write_copies \
		"$(bucket @copy_bytes dd,copybench_data_write,from_user 4096)" 64
	expect copysize_data_file_64k_writes "$(bucket @call_bytes dd,copybench_data_write 65536)" 4
	n=0
	for m in @call_bytes @copy_bytes @call_errors @routine; do
		n=$((n + $(keys_with $m head,)))
	done
	expect copysize_comm_filter_keeps_head_out $n 0
	expect copysize_routines_sampled_in_paths \
		"$(map @routine | jq '[keys[] | select(test("^dd,(tmpfs|copybench_data),"))] | length > 0')" true
	# /proc/self/maps is a seq_file: copy_to_iter(), checked when the kernel has
	# hardened usercopy, so seen exactly then.
	if grep -qw __check_object_size /proc/kallsyms; then want=true; else want=false; fi
	expect copysize_checked_copies_seen_when_the_kernel_checks \
		"$(map @copy_bytes | jq 'has("dd,other,to_user")')" $want
}

# --- readlint.bt: blogbench's two mistakes, per process ---------------------
test_readlint()
{
	"$readers" --fill "$mnt/r" --size 1M > /dev/null || ktap_exit_fail_msg "readers --fill failed"
	rd="$readers --source $mnt/r --duration 0.3 --warmup 0"
	cat > "$tmp/readlint.sh" <<- EOF
	set -e
	$rd --buffer shared --touch none --threads 2 > $tmp/A.out & echo \$! > $tmp/A.pid; wait \$!
	$rd --buffer private --threads 2 > $tmp/B.out & echo \$! > $tmp/B.pid; wait \$!
	$rd --chunk 8 --threads 1 > $tmp/C.out & echo \$! > $tmp/C.pid; wait \$!
	$rd --buffer shared --touch none --chunk 8 --threads 2 > $tmp/D.out & echo \$! > $tmp/D.pid
	$rd --buffer private --threads 2 > $tmp/E.out & echo \$! > $tmp/E.pid
	wait \$(cat $tmp/D.pid) \$(cat $tmp/E.pid)
	dd if=$mnt/r of=/dev/null bs=8 count=500 2> /dev/null & echo \$! > $tmp/dd.pid; wait \$!
	echo done > $tmp/readlint.done
	EOF
	bt_run readlint tools/readlint.bt "$tmp/readlint.sh" 0 0 readers
	for p in A B C D E dd; do
		eval "pid_$p=\$(cat $tmp/$p.pid 2> /dev/null)"
	done
	verdict() { value @verdict "$1,readers"; }
	expect readlint_shared_untouched_flagged_shared "$(verdict "$pid_A")" shared-destination
	expect readlint_shared_buffer_two_threads "$(map @shared_buf_threads |
		jq --arg p "$pid_A," '[to_entries[] | select(.key | startswith($p)) | .value] | max')" 2
	expect readlint_private_64k_not_flagged "$(verdict "$pid_B")" ok
	expect readlint_private_no_shared_buffer "$(keys_with @shared_buf_threads "$pid_B,")" 0
	expect readlint_chunk_8_flagged_tiny "$(verdict "$pid_C")" tiny-reads
	ino=$(stat -c %i "$mnt/r")
	expect readlint_tiny_reads_name_the_file "$(map @tiny_reads |
		jq -r --arg p "$pid_C,readers," '[to_entries[] | select(.key | startswith($p)) | select(.value > 100)
			| .key | split(",") | .[4:] | join(",")] | join(" ")')" "$ino,r"
	expect readlint_chunk_64k_no_tiny_reads "$(keys_with @tiny_reads "$pid_B,readers,")" 0
	# Two processes at once: each keeps its own verdict and buffers.
	expect readlint_two_processes_first_flagged_both "$(verdict "$pid_D")" shared-destination,tiny-reads
	expect readlint_two_processes_second_clean "$(verdict "$pid_E")" ok
	expect readlint_two_processes_second_no_shared_buffer "$(keys_with @shared_buf_threads "$pid_E,")" 0
	expect readlint_comm_filter_keeps_dd_out "$(keys_with @reads "$pid_dd,")" 0
	for p in A B C D E; do
		sed "s/^/# readers $p: /" "$tmp/$p.out"
	done
}

tools=${CB_BT_TOOLS:-cbcopy kcopy copysize readlint}
for t in $tools; do
	case $t in
	cbcopy|kcopy|copysize|readlint) ;;
	*) ktap_exit_fail_msg "CB_BT_TOOLS: unknown tool '$t' (cbcopy, kcopy, copysize, readlint)" ;;
	esac
done
head -c 8388608 /dev/zero > "$mnt/f"
for t in $tools; do
	"test_$t"
done

ktap_set_plan $((KTAP_TESTNO - 1))
ktap_finished
