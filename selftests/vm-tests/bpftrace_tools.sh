#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace_tools.sh - runs each bpftrace tool of tools/ on a workload of
# known shape and checks what its -f json output says about it, with jq.
#
# Usage (root, from anywhere, copybench.ko loaded; vm-suite.sh runs it in
# the VM through the selftests/vm-tests hook):
#	selftests/vm-tests/bpftrace_tools.sh
# Prints KTAP through the kernel's kselftest/ktap_helpers.sh (selftests/
# ktap.sh); each tool's JSON output and stderr follow as "# " lines. Exit 0 pass, 1 fail, 4 when
# it cannot run (no bpftrace, jq, python3, tracefs, kernel BTF, module or
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
#   readlint.bt	build/selftests/readers with shared and private buffers,
#		8-byte and 64 KiB chunks, two processes at once; two Python
#		threads of 8-byte preadv() calls into one buffer
# The module's knobs and the tmpfs mount are restored on exit. Set
# CB_BT_TOOLS to a list of some of "cbcopy kcopy copysize readlint" to test
# only those.

CB_SELFTESTS=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
# shellcheck source=SCRIPTDIR/../ktap.sh
. "$CB_SELFTESTS/ktap.sh"
top=$(cd "$CB_SELFTESTS/.." && pwd)
cd "$top" || exit 1

dbg=/sys/kernel/debug/copybench
readers=$top/build/selftests/readers

ktap_print_header

# skip_all WHY: one skipped test point, and the end (exit 4).
skip_all()
{
	ktap_skip_why bpftrace_tools_can_run "$1"
	ktap_end
}

command -v bpftrace > /dev/null || skip_all "bpftrace not installed"
command -v jq > /dev/null || skip_all "jq not installed"
command -v python3 > /dev/null || skip_all "python3 not installed"
[ -d /sys/kernel/tracing/events ] || skip_all "no tracefs at /sys/kernel/tracing"
[ -r /sys/kernel/btf/vmlinux ] || skip_all "no kernel BTF (CONFIG_DEBUG_INFO_BTF)"
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

knobs="variant direction samples data_size data_chunk"
save_knobs()
{
	local k

	for k in $knobs; do
		saved="$saved$k=$(cat "$dbg/$k") "
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
	ktap_diag "$(cut -c 1-400 "$out" "$out.err")" \
		"$name: bpftrace exit $rc after $((SECONDS - start)) s"
	if [ "$rc" -eq 0 ] && [ -f "$tmp/$name.done" ] && jq -e -s 'length > 0' "$out" > /dev/null; then
		ktap_test_pass "${name}_runs_and_prints_json"
	else
		ktap_fail_why "${name}_runs_and_prints_json" \
			"workload done: $(cat "$tmp/$name.done" 2> /dev/null || echo no)"
	fi
}

# Checks are jq expressions over one object that holds every map and hist
# of the run by name ("@read_bytes": {KEY: VALUE}) and "printf", the list of
# printed lines; each tool's checks run in one jq (a process start costs
# about a second under emulation). check NAME EXPR WANT queues one test
# point: EXPR, printed compact, must equal WANT (JSON: 128, "ok", [4096],
# true); checks_run runs the queue.
jq_lib='
def m(name): .[name] // {};
# bucket(MAP; KEY; MIN): the count of the hist bucket starting at MIN.
def bucket(name; k; min): [m(name)[k] // [] | .[] | select(.min == min) | .count] | add // 0;
# nonzero(MAP; KEY): the MINs of the buckets that count something.
def nonzero(name; k): [m(name)[k] // [] | .[] | select(.count > 0) | .min];
# value(MAP; KEY): the value at KEY, "" when there is none.
def value(name; k): m(name)[k] // "";
# keys_with(MAP; PREFIX): the keys that start with PREFIX.
def keys_with(name; p): [m(name) | keys[] | select(startswith(p))];
'
checks=()
check()
{
	checks+=("$1" "$2" "$3")
}
checks_run()
{
	local all=$out.all prog='' i got

	jq -s '(map(select(.type == "map" or .type == "hist") | .data) | add // {}) +
		{printf: map(select(.type == "printf") | .data)}' "$out" > "$all" 2> /dev/null ||
		echo '{}' > "$all"
	for ((i = 0; i < ${#checks[@]}; i += 3)); do
		prog="$prog(try (${checks[i + 1]}) catch \"jq error\" | tojson),"
	done
	# A here-string, not <(...): the VM's /dev has no /dev/fd.
	mapfile -t got <<< "$(jq -r "$jq_lib ${prog%,}" "$all")"
	for ((i = 0; i < ${#checks[@]}; i += 3)); do
		if [ "${got[i / 3]-}" = "${checks[i + 2]}" ]; then
			ktap_test_pass "${checks[i]}"
		else
			ktap_fail_why "${checks[i]}" \
				"${checks[i + 1]} is '${got[i / 3]-}', want '${checks[i + 2]}'"
		fi
	done
	checks=()
}

# example_jq TOOL: every "# jq ... TOOL.json" command of tools/bpftrace/TOOL_example.txt
# (a command may span lines), run on this run's JSON: each must exit 0 and
# print something. The examples' lines are what a reader copies.
example_jq()
{
	local tool=$1 n=0 cmd

	mkdir -p "$tmp/ex" && cp "$out" "$tmp/ex/$tool.json" || return
	# A file, not <(...): the VM's /dev has no /dev/fd.
	awk -v f="$tool.json" '
		/^# jq / { cmd = substr($0, 3); in_cmd = 1 }
		in_cmd && !/^# jq / { cmd = cmd "\n" $0 }
		in_cmd && index($0, "\047 " f) { printf "%s%c", cmd, 0; in_cmd = 0 }
		' "tools/bpftrace/${tool}_example.txt" > "$tmp/ex/cmds"
	while IFS= read -r -d '' cmd; do
		n=$((n + 1))
		if (cd "$tmp/ex" && bash -c "$cmd") > "$tmp/ex/out" 2>&1 && [ -s "$tmp/ex/out" ]; then
			ktap_test_pass "${tool}_example_jq_line_${n}_works"
		else
			ktap_fail_why "${tool}_example_jq_line_${n}_works" "$cmd" "$(cat "$tmp/ex/out")"
		fi
	done < "$tmp/ex/cmds"
	[ "$n" -gt 0 ] || ktap_fail_why "${tool}_example_has_jq_lines" "no '# jq' line in tools/bpftrace/${tool}_example.txt"
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
	echo memcpy > $dbg/direction
	echo 3 > $dbg/samples
	echo 1 > $dbg/run
	echo 1048576 > $dbg/data_size
	echo done > $tmp/cbcopy.done
	EOF
	bt_run cbcopy tools/bpftrace/cbcopy.bt "$tmp/cbcopy.sh"
	restore_knobs
	for v in native bytes; do
		for m in read_cycles read_bytes write_cycles read_calls; do
			check "cbcopy_${m}_has_$v" "m(\"@$m\") | has(\"$v\")" true
		done
	done
	check cbcopy_run_median_cycles_recorded 'm("@run_median_cycles") | length > 0' true
	check cbcopy_run_printed '[.printf[] | select(startswith("run native"))] | length' 1
	checks_run
	example_jq cbcopy
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
	bt_run kcopy tools/bpftrace/kcopy.bt "$tmp/kcopy.sh" 0 "$target"
	# Gone when the workload ran; still waiting on a FIFO when it did not.
	kill "$target" 2> /dev/null
	wait "$target" 2> /dev/null
	target=
	# 8 MiB in 64 KiB blocks: 128 reads and writes of 64 KiB, and the read at the end.
	check kcopy_target_reads_seen 'bucket("@read_bytes"; "shmem_file_read_iter"; 65536)' 128
	check kcopy_target_writes_seen 'bucket("@write_bytes"; "generic_perform_write"; 65536)' 128
	check kcopy_other_dd_reads_kept_out 'bucket("@read_bytes"; "shmem_file_read_iter"; 4096)' 0
	check kcopy_other_dd_writes_kept_out 'bucket("@write_bytes"; "generic_perform_write"; 4096)' 0
	check kcopy_cpu_samples_taken 'm("@oncpu_frame") | length > 0' true
	checks_run
	example_jq kcopy
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
	bt_run copysize tools/bpftrace/copysize.bt "$tmp/copysize.sh" 0 0 dd
	restore_knobs
	check copysize_tmpfs_64k_reads 'bucket("@call_bytes"; "dd,tmpfs"; 65536)' 128
	check copysize_tmpfs_512_byte_reads 'bucket("@call_bytes"; "dd,tmpfs"; 512)' 300
	check copysize_tmpfs_no_other_sizes 'nonzero("@call_bytes"; "dd,tmpfs")' '[512,65536]'
	# 1 MiB in 64 KiB reads with data_chunk 4096: 16 calls, 256 copies of 4 KiB.
	check copysize_data_file_read_calls 'nonzero("@call_bytes"; "dd,copybench_data")' '[65536]'
	check copysize_data_file_64k_reads 'bucket("@call_bytes"; "dd,copybench_data"; 65536)' 16
	check copysize_data_file_copies_are_chunks \
		'nonzero("@copy_bytes"; "dd,copybench_data,to_user")' '[4096]'
	check copysize_data_file_4k_copies \
		'bucket("@copy_bytes"; "dd,copybench_data,to_user"; 4096)' 256
	check copysize_data_file_write_copies \
		'bucket("@copy_bytes"; "dd,copybench_data_write,from_user"; 4096)' 64
	check copysize_data_file_64k_writes \
		'bucket("@call_bytes"; "dd,copybench_data_write"; 65536)' 4
	check copysize_comm_filter_keeps_head_out \
		'[keys_with("@call_bytes", "@copy_bytes", "@call_errors", "@routine"; "head,")[]] | length' 0
	check copysize_routines_sampled_in_paths \
		'[m("@routine") | keys[] | select(test("^dd,(tmpfs|copybench_data),"))] | length > 0' true
	# /proc/self/maps is a seq_file: copy_to_iter(), checked when the kernel
	# has hardened usercopy, so seen exactly then.
	if grep -qw __check_object_size /proc/kallsyms; then want=true; else want=false; fi
	check copysize_checked_copies_seen_when_the_kernel_checks \
		'm("@copy_bytes") | has("dd,other,to_user")' "$want"
	checks_run
	example_jq copysize
}

# --- readlint.bt: blogbench's two mistakes, per process ---------------------
# shellcheck disable=SC2154 # pid_A ... pid_py: the eval of each NAME.pid sets them
test_readlint()
{
	if ! "$readers" --fill "$mnt/r" --size 1M > /dev/null; then
		ktap_fail_why readlint_workload_file "readers --fill $mnt/r failed"
		return
	fi
	rd="$readers --source $mnt/r --duration 0.3 --warmup 0"
	# readv(): two Python threads, 8-byte reads into one bytearray.
	cat > "$tmp/readv.py" <<- EOF
	import os, threading
	fd = os.open("$mnt/r", os.O_RDONLY)
	buf = bytearray(8)
	def work():
	    for _ in range(1000):
	        os.preadv(fd, [buf], 0)
	threads = [threading.Thread(target=work) for _ in range(2)]
	for t in threads:
	    t.start()
	for t in threads:
	    t.join()
	EOF
	cat > "$tmp/readlint.sh" <<- EOF
	set -e
	$rd --buffer shared --touch none --threads 2 > $tmp/A.out & echo \$! > $tmp/A.pid; wait \$!
	$rd --buffer private --threads 2 --duration 0.5 > $tmp/B.out & echo \$! > $tmp/B.pid; wait \$!
	$rd --chunk 8 --threads 1 > $tmp/C.out & echo \$! > $tmp/C.pid; wait \$!
	$rd --buffer shared --touch none --chunk 8 --threads 2 > $tmp/D.out & echo \$! > $tmp/D.pid
	$rd --buffer private --touch none --threads 2 > $tmp/E.out & echo \$! > $tmp/E.pid
	wait \$(cat $tmp/D.pid) \$(cat $tmp/E.pid)
	python3 $tmp/readv.py & echo \$! > $tmp/py.pid; wait \$!
	echo done > $tmp/readlint.done
	EOF
	bt_run readlint tools/bpftrace/readlint.bt "$tmp/readlint.sh"
	for p in A B C D E py; do
		eval "pid_$p=\$(cat $tmp/$p.pid 2> /dev/null)"
	done
	# Keys start with "PID,COMM,".
	check readlint_shared_untouched_flagged_shared "value(\"@verdict\"; \"$pid_A,readers\")" \
		'"shared-destination"'
	check readlint_shared_buffer_two_threads \
		"[keys_with(\"@shared_buf_threads\"; \"$pid_A,\")[] as \$k | m(\"@shared_buf_threads\")[\$k]] | max" 2
	check readlint_private_64k_not_flagged "value(\"@verdict\"; \"$pid_B,readers\")" '"ok"'
	check readlint_private_no_shared_buffer "keys_with(\"@shared_buf_threads\"; \"$pid_B,\") | length" 0
	check readlint_chunk_8_flagged_tiny "value(\"@verdict\"; \"$pid_C,readers\")" '"tiny-reads"'
	# The file: "PID,COMM,MAJOR,MINOR,INODE,NAME"; the few tiny reads of
	# start-up (sysfs, /proc) stay under 100.
	ino=$(stat -c %i "$mnt/r")
	check readlint_tiny_reads_name_the_file \
		"[m(\"@tiny_reads\") | to_entries[] | select(.key | startswith(\"$pid_C,readers,\"))
		  | select(.value > 100) | .key | split(\",\") | .[4:] | join(\",\")]" "[\"$ino,r\"]"
	check readlint_chunk_64k_no_tiny_reads \
		"[keys_with(\"@tiny_reads\"; \"$pid_B,\")[] | select(endswith(\",$ino,r\"))] | length" 0
	# Two processes at once: each keeps its own verdict and buffers.
	check readlint_two_processes_first_flagged_both "value(\"@verdict\"; \"$pid_D,readers\")" \
		'"shared-destination,tiny-reads"'
	check readlint_two_processes_second_clean "value(\"@verdict\"; \"$pid_E,readers\")" '"ok"'
	check readlint_two_processes_second_no_shared_buffer \
		"keys_with(\"@shared_buf_threads\"; \"$pid_E,\") | length" 0
	check readlint_readv_shared_and_tiny "value(\"@verdict\"; \"$pid_py,python3\")" \
		'"shared-destination,tiny-reads"'
	checks_run
	example_jq readlint
	for p in A B C D E; do
		ktap_diag "$(sed "s/^/readers $p: /" "$tmp/$p.out")"
	done
}

tools=${CB_BT_TOOLS:-cbcopy kcopy copysize readlint}
for t in $tools; do
	case $t in
	cbcopy|kcopy|copysize|readlint) ;;
	*)
		ktap_fail_why CB_BT_TOOLS "unknown tool '$t' (cbcopy, kcopy, copysize, readlint)"
		ktap_end ;;
	esac
done
head -c 8388608 /dev/zero > "$mnt/f"
for t in $tools; do
	"test_$t"
done

ktap_end
