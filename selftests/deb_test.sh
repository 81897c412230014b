#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb_test.sh - make deb builds copybench and copybench-dkms, lintian finds
# nothing unexplained, and both install on a clean Debian 12 chroot, where
# readers --help and copybench --help work and DKMS builds copybench.ko for
# the chroot's kernel headers; purging copybench-dkms removes the module.
#
# Usage: selftests/deb_test.sh
#
# The chroot is debootstrap --variant=minbase bookworm from apt's configured
# Debian mirror (apt-get indextargets), plus dkms and linux-headers-amd64,
# kept unpacked in /var/cache/copybench/chroot/ ($CB_CHROOT_CACHE), outside
# the tree, and made again only when missing or when what it is made of
# changes (its name carries a hash of the recipe). Making it downloads about
# 150 MB and takes minutes; a cached run takes seconds. Each step mounts the
# cache read-only as the lower layer of an overlay (the upper layer in
# build/deb-test/) inside a private mount namespace (unshare), so the cache
# never changes, and nothing stays mounted or running even when the test is
# killed (a PID namespace too, whose processes die with it).
#
# The copybench command is checked when the tree has it
# (tools/copybench/copybench.c).
# Needs root, debootstrap, lintian, dpkg-dev, debhelper, dh-dkms,
# python3-sphinx, help2man (tools/setup) and, for a first run, the network.
# Prints TAP; exit 0 pass, 1 fail.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

version=$(cat VERSION)
debs=$top/build/deb
work=$top/build/deb-test
cache=${CB_CHROOT_CACHE:-/var/cache/copybench/chroot}
suite=bookworm
# What the cached chroot holds beyond minbase: DKMS and the headers of
# Debian 12's default kernel, the kernel copybench-dkms must build for.
chroot_packages="dkms linux-headers-amd64"
has_command=0
[ -f tools/copybench/copybench.c ] && has_command=1

. "$CB_SELFTESTS/check_lib.sh"

diag() { sed 's/^/# /' "$1" | tail -n 25; }

# The Debian repositories apt uses here, as sources.list lines.
apt_sources() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Created-By: Packages' | sort -u | awk '$2 ~ /^'$suite'/ { print "deb " $0 }'
}

# in_root ROOT CMD...: CMD chrooted in ROOT with /proc and /dev, in private
# mount and PID namespaces: its mounts and every process it starts (dpkg,
# DKMS's build) go when it ends or this script is killed.
in_root() {
	unshare --mount --propagation private --pid --fork --kill-child -- /bin/sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
	' sh "$@"
}

# in_chroot CMD...: CMD in the test's chroot: the cache under an overlay.
in_chroot() {
	unshare --mount --propagation private --pid --fork --kill-child -- /bin/sh -c '
		lower=$1 work=$2; shift 2
		mount -t overlay overlay \
			-o "lowerdir=$lower,upperdir=$work/upper,workdir=$work/ovl" "$work/root" &&
		mount -t proc proc "$work/root/proc" && mount --rbind /dev "$work/root/dev" &&
		exec chroot "$work/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
	' sh "$chroot_dir" "$work" "$@"
}

# make_chroot: the cached chroot, made when missing. Sets chroot_dir.
make_chroot() {
	local key tmp sources
	sources=$(apt_sources)
	[ -n "$sources" ] || { echo "apt knows no $suite repository"; return 1; }
	key=$(printf '%s\n' "$suite minbase $chroot_packages" "$sources" | sha256sum | cut -c1-12)
	chroot_dir=$cache/$suite-amd64-$key
	chroot_how="cached in $chroot_dir"
	[ -f "$chroot_dir/.complete" ] && return 0

	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	[ -f "$chroot_dir/.complete" ] && return 0
	chroot_how="made in $chroot_dir"
	tmp=$chroot_dir.tmp
	rm -rf --one-file-system "$tmp"
	echo "making $chroot_dir from $(echo "$sources" | head -n 1)"
	# In namespaces of its own: what debootstrap mounts in the target and
	# what it starts go with it, even if it is killed.
	unshare --mount --propagation private --pid --fork --kill-child -- debootstrap --variant=minbase "$suite" "$tmp" \
		"$(echo "$sources" | awk '$3 == "'$suite'" { print $2; exit }')" || return 1
	printf '%s\n' "$sources" >"$tmp/etc/apt/sources.list"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	in_root "$tmp" apt-get update -q &&
	in_root "$tmp" apt-get install -y -q --no-install-recommends $chroot_packages &&
	in_root "$tmp" apt-get clean || return 1
	touch "$tmp/.complete"
	# Older recipes' chroots go.
	find "$cache" -mindepth 1 -maxdepth 1 -type d -name "$suite-amd64-*" \
		! -name "$(basename "$chroot_dir")*" -exec rm -rf --one-file-system {} +
	mv "$tmp" "$chroot_dir"
	exec 9>&-
}

# The chroot's kernel headers release: where DKMS must have built.
chroot_kernel() {
	ls "$chroot_dir/lib/modules" | head -n 1
}

deb_has() {
	local deb=$1 f
	shift
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's,^\./,/,' >"$work/contents"
	for f in "$@"; do
		grep -qx "$f" "$work/contents" || { echo "$(basename "$deb") lacks $f"; return 1; }
	done
}

ktap_print_header
ktap_set_plan $((11 + has_command))

[ "$(id -u)" = 0 ] || ktap_exit_fail_msg "needs root (the chroot)"

rm -rf --one-file-system "$work"
mkdir -p "$work/log" "$work/upper" "$work/ovl" "$work/root"
check_logs=$work/log

# 1. The packages build.
start=$(date +%s)
check "make deb builds the packages" make deb
ktap_print_msg "make deb took $(($(date +%s) - start)) s"
cb_deb=$debs/copybench_${version}_amd64.deb
dkms_deb=$debs/copybench-dkms_${version}_all.deb

versions_ok() {
	local d v
	for d in "$cb_deb" "$dkms_deb"; do
		v=$(dpkg-deb -f "$d" Version) || return 1
		[ "$v" = "$version" ] || { echo "$d: version $v, VERSION says $version"; return 1; }
	done
}
check "both packages carry VERSION ($version)" versions_ok

# 2. lintian: errors and warnings fail unless overridden (and explained
# beside the override); every other tag is shown.
# (--fail-on counts overridden tags when --show-overrides shows them: the
# E: and W: lines decide.)
lintian_clean() {
	lintian -I -E --pedantic --show-overrides --fail-on none \
		"$debs/copybench_${version}_amd64.changes" >"$work/lintian.log" 2>&1 || return 1
	! grep -E '^(E|W): ' "$work/lintian.log"
}
check "lintian: no error or warning that is not explained" lintian_clean
grep -v -e '^N:' -e 'root privileges' "$work/lintian.log" | sed 's/^/# lintian: /'

# 3. What each package holds.
cb_files=(/usr/bin/readers /usr/share/man/man1/readers.1.gz
	  /usr/share/doc/copybench/html/index.html
	  /usr/share/doc/copybench/README.md.gz)
for f in tools/*.bt; do
	cb_files+=("/usr/share/copybench/bpftrace/$(basename "$f")")
done
[ $has_command = 1 ] &&
	cb_files+=(/usr/bin/copybench /usr/share/man/man1/copybench.1.gz)
check "copybench holds the commands, man pages, bpftrace tools and docs" \
	deb_has "$cb_deb" "${cb_files[@]}"
dkms_files=()
for f in Kbuild dkms.conf VERSION *.c *.h *.S; do
	dkms_files+=("/usr/src/copybench-$version/$f")
done
check "copybench-dkms holds dkms.conf and every module source" \
	deb_has "$dkms_deb" "${dkms_files[@]}"

# 4. A clean Debian 12.
start=$(date +%s)
chroot_how=
make_chroot >"$work/chroot.log" 2>&1
if [ -n "${chroot_dir:-}" ] && [ -f "$chroot_dir/.complete" ]; then
	ktap_test_pass "a Debian 12 chroot with dkms and kernel headers"
else
	diag "$work/chroot.log"
	ktap_test_fail "a Debian 12 chroot with dkms and kernel headers"
fi
ktap_print_msg "chroot ${chroot_how:-not made} in $(($(date +%s) - start)) s"
if [ -z "${chroot_dir:-}" ] || [ ! -f "$chroot_dir/.complete" ]; then
	ktap_exit_fail_msg "no chroot: the install tests cannot run"
fi
rel=$(chroot_kernel)
ktap_print_msg "the chroot's kernel headers: $rel"

# 5. Install both, as a user would (apt resolves dependencies; the chroot
# has them, so a cached run downloads nothing).
cp "$cb_deb" "$dkms_deb" "$work/upper/tmp/" 2>/dev/null ||
	{ mkdir -p "$work/upper/tmp" && cp "$cb_deb" "$dkms_deb" "$work/upper/tmp/"; }
install_debs() {
	in_chroot apt-get install -y -q --no-install-recommends --no-download \
		"/tmp/$(basename "$cb_deb")" "/tmp/$(basename "$dkms_deb")" && return 0
	echo "-- retrying with fresh package lists"
	in_chroot apt-get update -q &&
	in_chroot apt-get install -y -q --no-install-recommends \
		"/tmp/$(basename "$cb_deb")" "/tmp/$(basename "$dkms_deb")"
}
start=$(date +%s)
check "apt installs copybench and copybench-dkms in the chroot" install_debs
ktap_print_msg "install (DKMS build included) took $(($(date +%s) - start)) s"

help_ok() {
	in_chroot "$1" --help >"$work/help.$1" 2>&1 || return 1
	grep -qi "usage" "$work/help.$1" || { cat "$work/help.$1"; return 1; }
}
check "readers --help in the chroot" help_ok readers
if [ $has_command = 1 ]; then
	check "copybench --help in the chroot" help_ok copybench
else
	ktap_print_msg "this tree has no copybench command yet (tools/copybench/copybench.c): not checked"
fi
check "man pages installed in the chroot" \
	in_chroot test -s /usr/share/man/man1/readers.1.gz

module_built() {
	local ko got
	in_chroot dkms status copybench
	in_chroot dkms status copybench | grep -q "^copybench/$version, $rel, x86_64: installed" ||
		return 1
	ko=$(in_chroot modprobe -S "$rel" --show-depends copybench | awk '/^insmod/ { print $2 }')
	echo "modprobe: $ko"
	case $ko in /lib/modules/"$rel"/updates/dkms/copybench.ko*) ;; *) return 1 ;; esac
	got=$(in_chroot modinfo -F version "$ko")
	[ "$got" = "$version" ] || { echo "modinfo version '$got'"; return 1; }
	got=$(in_chroot modinfo -F vermagic "$ko")
	[ "${got%% *}" = "$rel" ] || { echo "vermagic '$got'"; return 1; }
}
check "DKMS built and installed copybench.ko for the chroot's $rel" module_built

purge_ok() {
	in_chroot apt-get purge -y -q copybench-dkms copybench || return 1
	if in_chroot sh -c 'ls -d /usr/src/copybench-* /lib/modules/*/updates/dkms/copybench.ko* \
			/var/lib/dkms/copybench 2>/dev/null' | grep .; then
		echo "left behind after purge"
		return 1
	fi
}
check "apt purge removes the module, its sources and DKMS state" purge_ok

ktap_finished
