#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms_test.sh - DKMS builds copybench.ko from this tree for each kernel of
# the matrix, installs it where modprobe finds it, and the module loads.
#
# Usage: selftests/dkms_test.sh [KERNEL...]
#	KERNEL: a release or an alias tools/vm-run --kernel accepts;
#	default: 6.1 6.12
#
# Everything happens in a throwaway root, build/dkms-test/: the sources go
# where the copybench-dkms package puts them (make dkms-source DESTDIR=...),
# dkms runs with --sourcetree, --dkmstree and --installtree inside it, the
# module signing key dkms generates lands there too (mok_signing_key and
# mok_certificate in the environment), and depmod runs only with -b. The
# machine's /var/lib/dkms, /usr/src and /lib/modules are left alone: the
# last test checks.
#
# Per kernel: dkms build (make.log without a warning), dkms install, depmod
# -b, modprobe -d resolves copybench to the installed file, modinfo shows
# VERSION and the kernel's vermagic; then in a VM (tools/vm-run) modprobe -d
# loads it, /sys/module/copybench/version is VERSION, its debugfs directory
# lists the variants, rmmod unloads it; dkms remove deletes it again.
#
# Needs root (dkms add insists), dkms, kmod, the kernels' headers and images
# (scripts/setup). Prints TAP; exit 0 pass, 1 fail. Takes about 30 s a kernel.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

root=$top/build/dkms-test
version=$(cat VERSION)
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)

export mok_signing_key=$root/mok.key mok_certificate=$root/mok.pub
dkms_opts=(--sourcetree "$root/usr/src" --dkmstree "$root/var/lib/dkms"
	   --installtree "$root/lib/modules")
mv=(-m copybench -v "$version")

. "$CB_SELFTESTS/check_lib.sh"
check_logs=$root/log

# diag FILE: the last lines of FILE as diagnostics.
diag() { tail -n 20 "$1" | sed 's/^/# /'; }

# What the machine's own DKMS state looks like; must not change.
machine_state() {
	ls -la /var/lib/dkms
	ls -d /usr/src/copybench-* 2>/dev/null
	ls -la --time-style=full-iso /lib/modules/*/modules.dep
	find /lib/modules -path '*/updates/*' -name 'copybench.ko*' 2>/dev/null
}

ktap_print_header
ktap_set_plan $((3 + 7 * ${#kernels[@]}))

if [ "$(id -u)" != 0 ]; then
	ktap_exit_fail_msg "dkms add needs root"
fi
command -v dkms >/dev/null || ktap_exit_fail_msg "dkms is not installed: run scripts/setup"

before=$(machine_state)
rm -rf --one-file-system "$root"
mkdir -p "$root/var/lib/dkms" "$root/log"

check "make dkms-source installs the module's sources" \
	make -s dkms-source DESTDIR="$root"
check "dkms add copybench/$version from $root/usr/src" \
	dkms "${dkms_opts[@]}" add "${mv[@]}"

for k in "${kernels[@]}"; do
	rel=$(tools/vm-run --kernel "$k" --resolve 2>/dev/null)
	if [ -z "$rel" ] || [ ! -d "/lib/modules/$rel/build" ]; then
		ktap_print_msg "kernel $k: no installed release with headers"
		for i in 1 2 3 4 5 6 7; do
			ktap_test_fail "$k: kernel installed (step $i)"
		done
		continue
	fi
	log=$root/log/$rel
	mkdir -p "$root/lib/modules/$rel"

	built=0
	start=$(date +%s)
	if check "$rel: dkms build" dkms "${dkms_opts[@]}" build "${mv[@]}" -k "$rel"; then
		built=1
	fi
	ktap_print_msg "$rel: dkms build took $(($(date +%s) - start)) s"
	make_log=$root/var/lib/dkms/copybench/$version/$rel/x86_64/log/make.log
	if [ $built = 1 ] && ! grep -qi 'warning' "$make_log"; then
		ktap_test_pass "$rel: make.log has no warning"
	else
		[ -r "$make_log" ] && grep -i 'warning' "$make_log" | head -n 20 | sed 's/^/# /'
		ktap_test_fail "$rel: make.log has no warning"
	fi

	# Installed where modprobe looks: <installtree>/<rel>/updates/dkms/.
	# modprobe -d needs the kernel's modules.builtin* beside it.
	installed=
	if dkms "${dkms_opts[@]}" install "${mv[@]}" -k "$rel" --no-depmod >"$log.install" 2>&1; then
		installed=$(ls "$root/lib/modules/$rel"/updates/dkms/copybench.ko* 2>/dev/null)
	fi
	cp /lib/modules/"$rel"/modules.builtin* "$root/lib/modules/$rel/" 2>/dev/null
	: >"$root/lib/modules/$rel/modules.order"
	if [ -n "$installed" ] && depmod -b "$root" "$rel" >>"$log.install" 2>&1 &&
	   [ "$(modprobe -d "$root" -S "$rel" --show-depends copybench 2>>"$log.install")" = \
	     "insmod $installed " ]; then
		ktap_test_pass "$rel: dkms install puts it where modprobe finds it"
	else
		diag "$log.install"
		ktap_test_fail "$rel: dkms install puts it where modprobe finds it"
	fi

	got_version=$(modinfo -F version "$installed" 2>/dev/null)
	vermagic=$(modinfo -F vermagic "$installed" 2>/dev/null)
	if [ "$got_version" = "$version" ] && [ "${vermagic%% *}" = "$rel" ]; then
		ktap_test_pass "$rel: modinfo: version $version, vermagic $rel"
	else
		ktap_print_msg "version '$got_version' (want $version), vermagic '$vermagic'"
		ktap_test_fail "$rel: modinfo: version $version, vermagic $rel"
	fi

	# In the VM: the steps print "step:ok" or "step:fail" lines.
	# shellcheck disable=SC2016 # the sh -c script's own variables
	timeout 900 tools/vm-run --kernel "$rel" --cpus 2 -- sh -c '
		if modprobe -d "$1" copybench; then echo load:ok; else echo load:fail; fi
		v=$(cat /sys/module/copybench/version 2>&1)
		if [ "$v" = "$2" ]; then echo version:ok; else echo "version:fail $v"; fi
		if grep -q "^native usable" /sys/kernel/debug/copybench/variants; then
			echo debugfs:ok
		else
			echo debugfs:fail
		fi
		if rmmod copybench; then echo unload:ok; else echo unload:fail; fi
	' sh "$root" "$version" >"$log.vm" 2>&1
	ktap_print_msg "$rel: vm-run exit $?"
	if grep -q '^load:ok' "$log.vm" && grep -q '^version:ok' "$log.vm" &&
	   grep -q '^debugfs:ok' "$log.vm"; then
		ktap_test_pass "$rel: modprobe loads it in the VM, version $version, debugfs answers"
	else
		diag "$log.vm"
		ktap_test_fail "$rel: modprobe loads it in the VM, version $version, debugfs answers"
	fi
	if grep -q '^unload:ok' "$log.vm"; then
		ktap_test_pass "$rel: rmmod unloads it"
	else
		ktap_test_fail "$rel: rmmod unloads it"
	fi

	if dkms "${dkms_opts[@]}" remove "${mv[@]}" -k "$rel" --no-depmod >"$log.remove" 2>&1 &&
	   ! ls "$root/lib/modules/$rel"/updates/dkms/copybench.ko* >/dev/null 2>&1; then
		ktap_test_pass "$rel: dkms remove deletes it"
	else
		diag "$log.remove"
		ktap_test_fail "$rel: dkms remove deletes it"
	fi
done

after=$(machine_state)
if [ "$before" = "$after" ]; then
	ktap_test_pass "the machine's /var/lib/dkms, /usr/src and /lib/modules are untouched"
else
	diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
	ktap_test_fail "the machine's /var/lib/dkms, /usr/src and /lib/modules are untouched"
fi

ktap_finished
