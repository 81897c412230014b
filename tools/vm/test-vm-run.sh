#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-vm-run.sh - behaviour tests of tools/vm-run, booting real kernels
#
# Usage: tools/vm/test-vm-run.sh
#
# Prints TAP 13 and exits 0 when every case passes, 1 when one fails, 4 when
# nothing could run (no qemu or no kernel). Needs what tools/vm-run needs.
# Sixteen boots under TCG, one of them the debug kernel of
# scripts/debug-kernel and two the bisect kernel of "scripts/kernel-cache
# bisect" (each built first when not cached: that can take long): 2 to
# 5 minutes on this 2-CPU host with the kernels cached, depending on its
# load, 30 s of it the --timeout case, which waits by design. Scratch files
# go to build/vm-test/ (removed at the end).
# shellcheck disable=SC2016 # guest commands are single-quoted on purpose
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd -P)
vmrun=$top/tools/vm-run
work=$top/build/vm-test
rm -rf "$work"
mkdir -p "$work/tmp"
trap 'rm -rf "$work"' EXIT
# Run directories under work/tmp: after a run, no qemu may still use one.
export TMPDIR=$work/tmp

# TAP through the kernel's kselftest/ktap_helpers.sh (selftests/ktap.sh).
CB_SELFTESTS=$top/selftests
# shellcheck source=SCRIPTDIR/../../selftests/ktap.sh
. "$CB_SELFTESTS/ktap.sh"
NTESTS=27
ktap_print_header
ktap_set_plan "$NTESTS"

# check STATUS NAME [NOTE...]: one TAP line from the status of the
# assertions just run; a failure shows the last run's output and the notes.
check() {
	local st=$1 name=$2
	shift 2
	if [ "$st" -eq 0 ]; then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "$(diag)" "$@"
	fi
}

# vm ARGS...: run tools/vm-run in directory $vm_cwd (default: here); sets
# rc, and out/err to the files holding its stdout and stderr; slowest_ok
# is the longest a successful run took so far, in seconds (the boot, on
# this machine at its present load).
vm_cwd=.
slowest_ok=0
vm() {
	local start=$SECONDS
	out=$work/out.$KTAP_TESTNO
	err=$work/err.$KTAP_TESTNO
	(cd "$vm_cwd" && exec "$vmrun" "$@") >"$out" 2>"$err"
	rc=$?
	[ $rc -ne 0 ] || [ $((SECONDS - start)) -le $slowest_ok ] || slowest_ok=$((SECONDS - start))
}

# What the last run did: status and the head of both streams.
diag() {
	echo "status $rc"
	echo "stdout: $(head -c 300 "$out" | od -An -c | head -4 | tr -s ' ')"
	sed -n '1,12s/^/stderr: /p' "$err"
}

releases=$(for k in /boot/vmlinuz-*; do
		r=${k#/boot/vmlinuz-}
		[ -d "/lib/modules/$r" ] && echo "$r"
	   done)
missing=
command -v "${COPYBENCH_VM_QEMU:-qemu-system-x86_64}" >/dev/null || missing="no qemu"
[ -n "$releases" ] || missing="no kernel in /boot with modules in /lib/modules"
if [ -n "$missing" ]; then
	ktap_diag "$missing; run scripts/setup"
	while [ "$KTAP_TESTNO" -le $NTESTS ]; do
		ktap_skip_why "vm-run case $KTAP_TESTNO" "$missing"
	done
	ktap_print_totals
	exit "$KSFT_SKIP"
fi
ktap_diag "installed kernels: $(tr '\n' ' ' <<<"$releases")"

# 1-2: the exit status comes back whole, without isa-debug-exit's loss of
# the low bit.
vm -- sh -c 'exit 3'
[ $rc -eq 3 ] && [ ! -s "$out" ]
check $? "exit status 3 of the command is vm-run's status"
vm -- sh -c 'exit 255'
[ $rc -eq 255 ]
check $? "exit status 255 of the command is vm-run's status"

# 3-4: series aliases; 6.1 must not pick a 6.12 kernel.
for series in 6.12 6.1; do
	if ! grep -q "^${series//./\\.}\." <<<"$releases"; then
		ktap_skip_why "--kernel $series boots a $series kernel" "no $series kernel installed"
		continue
	fi
	vm --kernel "$series" -- uname -r
	got=$(cat "$out")
	[ $rc -eq 0 ] && [[ $got == "$series".* ]] && grep -Fqx "$got" <<<"$releases"
	check $? "--kernel $series boots a $series kernel ($got)"
done

# 5-6: stdout is byte-exact (all 256 byte values, CR, tabs, a blank line,
# then 100 KiB of random bytes through the serial line) and stdout and
# stderr stay apart.
fmt=
for i in $(seq 0 255); do
	fmt+=$(printf '\\%03o' "$i")
done
fmt+='a\tb\r\n\n\nend'
head -c 102400 /dev/urandom >"$work/blob"
# shellcheck disable=SC2059 # the format is the test data
{ printf "$fmt"; cat "$work/blob"; } >"$work/expected"
vm -- sh -c 'printf "$1" && cat "$2" && printf "to stderr\n" >&2' sh "$fmt" "$work/blob"
[ $rc -eq 0 ] && cmp "$out" "$work/expected" >"$work/cmp" 2>&1
check $? "stdout is byte-exact ($(stat -c %s "$work/expected") bytes: every byte value, CR, LF, tab, random)" \
	"$(cat "$work/cmp")"
[ "$(cat "$err")" = "to stderr" ] && ! grep -q 'to stderr' "$out"
check $? "stderr carries only what the command wrote to stderr"

# 7-8: the working directory and arguments arrive unchanged.
dir="$work/dir with spaces"
mkdir -p "$dir"
args=('a b' "it's" '' '$HOME `id` *' $'new\nline' '--')
printf '%s\n' "$dir" >"$work/expected"
printf '<%s>\n' "${args[@]}" >>"$work/expected"
vm_cwd=$dir
vm -- sh -c 'pwd; printf "<%s>\n" "$@"' sh "${args[@]}"
vm_cwd=.
[ $rc -eq 0 ] && [ "$(head -n 1 "$out")" = "$dir" ]
check $? "cwd is the caller's, with a space in its name"
[ $rc -eq 0 ] && cmp -s "$out" "$work/expected"
check $? "arguments with spaces, quotes, newlines, globs and empty ones survive"

# 9-11: the project directory is shared read-write, and so is a --share
# directory outside it; the rest of the host root takes writes that stay
# in the guest.
marker=/etc/vm-run-test-$$
outside=$(mktemp -d /tmp/vm-run-share.XXXXXX)
vm --share "$outside" -- sh -c 'echo "$COPYBENCH_VM_KERNEL" > "$1/written" && echo x > "$2" &&
	echo y > "$3/shared" && cat "$2"' sh "$work" "$marker" "$outside"
[ $rc -eq 0 ] && [ -s "$work/written" ] &&
	grep -Fqx "$(cat "$work/written")" <<<"$releases"
check $? "a file the guest writes into the project directory is on the host"
[ $rc -eq 0 ] && [ "$(cat "$out")" = x ] && [ ! -e "$marker" ]
check $? "a write outside the project works in the guest, not on the host"
[ $rc -eq 0 ] && [ "$(cat "$outside/shared" 2>/dev/null)" = y ]
check $? "a file the guest writes into a --share directory outside the project is on the host"
rm -rf "$outside"

# 12: debugfs and tracefs where the kernel tools expect them.
vm -- sh -c 'awk "\$2 ~ /^\/sys\/kernel\/(debug|tracing)$/ { print \$2, \$3 }" /proc/mounts;
	test -r /sys/kernel/tracing/trace && echo trace-readable'
[ $rc -eq 0 ] && grep -qx '/sys/kernel/debug debugfs' "$out" &&
	grep -qx '/sys/kernel/tracing tracefs' "$out" &&
	grep -qx trace-readable "$out"
check $? "debugfs is on /sys/kernel/debug, tracefs on /sys/kernel/tracing"

# 13: a guest panic is status 123, with the panic line on stderr.
vm -- sh -c 'echo 1 > /proc/sys/kernel/sysrq && echo c > /proc/sysrq-trigger; echo survived'
[ $rc -eq 123 ] && ! grep -q survived "$out" &&
	grep -q 'Kernel panic - not syncing: sysrq triggered crash' "$err"
check $? "a guest kernel panic gives 123 and the panic reason on stderr"

# 14-15: a command that hangs past --timeout is status 124, and the VM is
# gone when vm-run returns. The timeout is 30 s, or twice the slowest
# boot above when the machine is loaded: the guest must reach the command
# before it (under a load of 8 a boot took more than 30 s).
hang_timeout=$((2 * slowest_ok > 30 ? 2 * slowest_ok : 30))
vm --timeout "$hang_timeout" -- sleep 1000
[ $rc -eq 124 ] && grep -q '^vm-run: timeout' "$err" &&
	grep -q 'running the command' "$err"
check $? "a hang past --timeout ($hang_timeout s) gives 124 and says timeout"
! pgrep -f "$work/tmp" >/dev/null
check $? "no qemu is left running after a timeout" "$(pgrep -af "$work/tmp")"

# 16-18: bad options are refused by name, before any boot.
vm --frobnicate -- true
[ $rc -eq 125 ] && grep -q "'--frobnicate'" "$err" && [ ! -s "$out" ]
check $? "an unknown option is refused by name with status 125"
vm --accel xen -- true
[ $rc -eq 125 ] && grep -q "'xen'.*auto, kvm, tcg" "$err"
check $? "a bad --accel value is refused, listing auto, kvm, tcg"
vm --kernel 6.3.999 -- true
[ $rc -eq 125 ] && grep -q "'6.3.999'" "$err" &&
	grep -qF "$(head -n 1 <<<"$releases")" "$err"
check $? "an unknown --kernel is refused, listing the installed releases"

# 19: --resolve names the release without booting: the newest of a series
# for an alias, 6.1 never meaning 6.12.
notes=()
for series in 6.1 6.12; do
	want=$(grep "^${series//./\\.}\." <<<"$releases" | sort -V | tail -n 1)
	got=$("$vmrun" --kernel "$series" --resolve 2>&1)
	[ -z "$want" ] || [ "$got" = "$want" ] ||
		notes+=("--kernel $series --resolve: '$got', expected '$want'")
done
name="--resolve picks the newest release of a series, 6.1 never 6.12"
if [ ${#notes[@]} -eq 0 ]; then ktap_test_pass "$name"; else ktap_fail_why "$name" "${notes[@]}"; fi

# 20: a kernel given by path, with its modules directory: it boots, the
# guest sees its release and its modules as /lib/modules/<release>.
rel612=$(grep '^6\.12\.' <<<"$releases" | sort -V | tail -n 1)
rel612=${rel612:-$(head -n 1 <<<"$releases")}
vm --kernel "/boot/vmlinuz-$rel612" --modules "/lib/modules/$rel612" -- \
	sh -c 'echo "$(uname -r) $COPYBENCH_VM_KERNEL"; test -r "/lib/modules/$(uname -r)/modules.dep" && echo modules'
[ $rc -eq 0 ] && [ "$(head -n 1 "$out")" = "$rel612 $rel612" ] && grep -qx modules "$out"
check $? "--kernel PATH --modules DIR boots that image with those modules ($rel612)"

# 21-22: bad paths and combinations are refused by name, before any boot.
notes=()
for bad in "--kernel ./no/such/bzImage" "--kernel /etc/hostname" "--modules /lib/modules" \
	   "--kernel-tree /nonexistent" "--kernel-tree $work --kernel 6.1" \
	   "--share /nonexistent" "--share /"; do
	# shellcheck disable=SC2086 # the words are the options
	got=$("$vmrun" $bad -- true 2>&1)
	st=$?
	[ $st -eq 125 ] && grep -qF -- "${bad%% *}" <<<"$got" ||
		notes+=("$bad: status $st: $got")
done
name="a bad --kernel PATH, --modules, --kernel-tree or --share is refused by name with 125"
if [ ${#notes[@]} -eq 0 ]; then ktap_test_pass "$name"; else ktap_fail_why "$name" "${notes[@]}"; fi
vm --kernel "/boot/vmlinuz-$rel612" -- true
[ $rc -eq 125 ] && grep -q 'needs its modules: vm-run --modules DIR' "$err"
check $? "a modular kernel given without --modules stops in the guest init, saying why"

# 23-24: kernel reports are listed whatever the exit status, by kind, with
# the report's lines; a clean run lists none. The lines come through
# /dev/kmsg, as the kernel's own would reach the console.
kinds="WARN KASAN UBSAN LOCKDEP BUG OOPS STALL KMEMLEAK"
vm --append printk.devkmsg=on -- sh -c '
	for l in "WARNING: CPU: 1 PID: 7 at fake.c:1 fake_warn+0x1/0x2" \
		 "BUG: KASAN: slab-use-after-free in fake_read+0x1/0x2" \
		 "UBSAN: shift-out-of-bounds in fake.c:2:3" \
		 "WARNING: possible circular locking dependency detected" \
		 "BUG: sleeping function called from invalid context at fake.c:4" \
		 "Oops: general protection fault, probably for non-canonical address" \
		 "rcu: INFO: rcu_preempt self-detected stall on CPU" \
		 "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"; do
		echo "$l" > /dev/kmsg
	done
	echo "fake report detail line" > /dev/kmsg
	exit 3'
notes=()
for k in $kinds; do
	grep -q "^vm-run: kernel report: $k: " "$err" || notes+=("no $k report listed")
done
[ $rc -eq 3 ] || notes+=("status $rc, want 3")
grep -q '^  | fake report detail line' "$err" || notes+=("no report lines shown")
grep -q '^vm-run: 8 kernel report(s)' "$err" || notes+=("no count of 8")
name="kernel reports of each kind are listed, with their lines, and the status stays 3"
if [ ${#notes[@]} -eq 0 ]; then ktap_test_pass "$name"; else ktap_fail_why "$name" "${notes[@]}" "$(head -20 "$err")"; fi
! grep -q 'kernel report' "$work/err.1" "$work/err.2"
check $? "a clean run lists no kernel report"

# 25: the debug kernel's tree (scripts/debug-kernel, built when not cached):
# boots with everything built in, KASAN and kmemleak on, the tree as
# /lib/modules/<release>/build, and (an in-tree build, no "source" link)
# as its source, and the kmemleak scan after the command.
if tree=$("$top/scripts/debug-kernel" 2>"$work/debug-kernel.err"); then
	vm --kernel-tree "$tree" --keep-log -- sh -c '
		uname -r; readlink "/lib/modules/$(uname -r)/build"
		echo "source $(readlink "/lib/modules/$(uname -r)/source")"
		test -e /sys/kernel/debug/kmemleak && echo kmemleak
		dmesg | grep -q "KernelAddressSanitizer initialized" && echo kasan'
	kept=$(sed -n 's/^vm-run: serial console log: //p' "$err")
	[ $rc -eq 0 ] && grep -q -- '-copybench-debug$' "$out" && grep -qxF "$tree" "$out" &&
		grep -qxF "source $tree" "$out" &&
		grep -qx kmemleak "$out" && grep -qx kasan "$out" &&
		grep -q 'vm-run-init: kmemleak: scan done' "$kept"
	check $? "--kernel-tree boots the debug kernel (KASAN, kmemleak scanned after the command; in-tree: build and source the tree)"
else
	ktap_fail_why "--kernel-tree boots the debug kernel" "scripts/debug-kernel failed:" \
		"$(tail -n 5 "$work/debug-kernel.err")"
fi

# 26-27: a tree built out of its source (make O=), as users lay it out:
# the bisect kernel of "scripts/kernel-cache bisect" (built when not cached),
# whose build directory, beside the tree, links its source absolutely.
# 26: given through a symbolic link (the path only the host resolves), its
# /lib/modules/<release>/source is the source tree, and bpftrace runs a
# script that needs the kernel's headers (a struct from linux/fs.h, and
# kconfig.h, which bpftrace includes first: without "source", bpftrace
# without BTF takes "build" for both and says "kconfig.h file not found").
# 27: the same build directory as a subdirectory of its source with a
# relative link ("source -> .."): a layout made of symbolic links to the
# cached tree's files, nothing rebuilt.
if bobj=$("$top/scripts/kernel-cache" bisect 2>"$work/bisect-kernel.err"); then
	# Shared with other readers; bisect_kernel_test (beside it in make
	# check's pool) rebuilds the tree under the same lock, exclusive.
	exec 8>"$("$top/scripts/kernel-cache" bisect --lock-file)"
	flock -s 8
	bsrc=$(readlink -f "$bobj/source")
	ln -s "$bobj" "$work/bisect-obj"
	printf '%s\n' '#include <linux/fs.h>' \
		'kprobe:vfs_read { $f = (struct file *)arg0; printf("headers: f_mode read %d\n", $f->f_mode & 1); exit(); }' \
		>"$work/fs.bt"
	vm --kernel-tree "$work/bisect-obj" -- sh -c '
		m=/lib/modules/$(uname -r)
		echo "build $(readlink -f "$m/build")"; echo "source $(readlink -f "$m/source")"
		bpftrace "$1" -c "/bin/cat /proc/version" 2>&1' sh "$work/fs.bt"
	case "$(readlink "$bobj/source")" in /*) abs=1 ;; *) abs=0 ;; esac
	[ $rc -eq 0 ] && [ $abs = 1 ] && grep -qxF "build $bobj" "$out" && grep -qxF "source $bsrc" "$out" &&
		grep -qx 'headers: f_mode read 1' "$out"
	check $? "--kernel-tree DIR (make O= beside the source, an absolute source link, DIR a symbolic link): the source linked, bpftrace reads the headers" \
		"$bobj/source -> $(readlink "$bobj/source")" "$(tail -n 5 "$out")"
	mkdir -p "$work/rel/obj"
	for f in "$bsrc"/* "$bsrc"/.[!.]*; do [ -e "$f" ] && ln -s "$f" "$work/rel/"; done
	for f in "$bobj"/* "$bobj"/.[!.]*; do
		[ -e "$f" ] && [ "${f##*/}" != source ] && ln -s "$f" "$work/rel/obj/"
	done
	ln -s .. "$work/rel/obj/source"
	vm --kernel-tree "$work/rel/obj" -- sh -c '
		m=/lib/modules/$(uname -r)
		echo "source $(readlink -f "$m/source")"
		test -r "$m/source/include/linux/kconfig.h" && echo kconfig.h'
	[ $rc -eq 0 ] && grep -qxF "source $work/rel" "$out" && grep -qx kconfig.h "$out"
	check $? "--kernel-tree DIR (make O= in a subdirectory of the source, a relative source link): the source linked"
	exec 8>&-
else
	for n in 26 27; do
		ktap_fail_why "--kernel-tree boots a tree built with make O= (case $n)" \
			"scripts/kernel-cache bisect failed:" "$(tail -n 5 "$work/bisect-kernel.err")"
	done
fi

# Every planned case ran (else a failure); 4 when none could pass.
[ $((KTAP_TESTNO - 1)) -eq $NTESTS ] ||
	ktap_diag "ran $((KTAP_TESTNO - 1)) cases, planned $NTESTS"
if [ "$KTAP_CNT_PASS" -eq 0 ] && [ "$KTAP_CNT_FAIL" -eq 0 ]; then
	ktap_print_totals
	exit "$KSFT_SKIP"
fi
ktap_finished
