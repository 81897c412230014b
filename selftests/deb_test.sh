#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb_test.sh - make dsc makes a source package that builds in a clean
# Debian 12 chroot without the network (as make deb builds it on the host),
# the packages are lintian-clean,
# ship what they say (and the licences of what they ship), and install in
# another clean chroot without the network, where readers --help,
# copybench --help and copybench-vm-run --help work and DKMS builds copybench.ko for the chroot's kernel
# headers; purging copybench-dkms removes the module.
#
# Usage: selftests/deb_test.sh
#
# Two chroots, debootstrap --variant=minbase bookworm from apt's configured
# Debian mirror (apt-get indextargets), kept unpacked in
# /var/cache/copybench/chroot/ ($CB_CHROOT_CACHE), outside the tree:
#   build-KEY  build-essential and the source package's Build-Depends
#              installed (apt-get build-dep), as sbuild would;
#   run-KEY    dkms and linux-headers-amd64 installed, and the packages
#              copybench and copybench-dkms depend on downloaded into apt's
#              cache, not installed: apt installs them from there.
# KEY hashes the recipe, the mirror and the Build-Depends (build) or the
# packages' Depends (run): a chroot is made again only when what it must
# hold changes, and then older ones of its kind go. Both start from one
# debootstrap (base-KEY), kept too. Making them downloads about 300 MB and
# takes minutes; a cached run downloads nothing: the build and the install
# run in a network namespace with no network at all. Each step mounts the
# cache read-only as the lower layer of an overlay (upper layers in
# build/deb-test/) inside private mount and PID namespaces (unshare), so
# the cache never changes, and nothing stays mounted or running even when
# the test is killed.
#
# Needs root, debootstrap, lintian, dpkg-dev, debhelper, dh-dkms,
# python3-sphinx, help2man, linux-source-6.12 (scripts/setup) and, for a
# first run, the network. Builds with DEBFULLNAME and DEBEMAIL from the
# environment, or a test identity at copybench.invalid (RFC 2606: a name
# that can never be an address). Prints TAP; exit 0 pass, 1 fail.
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
# The run chroot's packages beyond minbase: DKMS and the headers of Debian
# 12's default kernel, the kernel copybench-dkms must build for.
run_packages="dkms linux-headers-amd64"
export DEBFULLNAME=${DEBFULLNAME:-copybench deb_test}
export DEBEMAIL=${DEBEMAIL:-deb-test@copybench.invalid}

. "$CB_SELFTESTS/check_lib.sh"

diag() { sed 's/^/# /' "$1" | tail -n 25; }

# The Debian repositories apt uses here, as sources.list lines.
apt_sources() {
	# shellcheck disable=SC2016 # apt's $(FIELD) placeholders
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Created-By: Packages' | sort -u | awk '$2 ~ /^'$suite'/ { print "deb " $0 }'
}

# in_root ROOT CMD...: CMD chrooted in ROOT with /proc and /dev, in private
# mount and PID namespaces: its mounts and every process it starts (dpkg,
# DKMS's build) go when it ends or this script is killed.
in_root() {
	# shellcheck disable=SC2016 # the sh -c script's own variables
	unshare --mount --propagation private --pid --fork --kill-child -- /bin/sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
	' sh "$@"
}

# in_chroot LOWER OVL CMD...: CMD in the chroot LOWER (the cache) under an
# overlay whose upper layer is OVL/upper, with no network at all (a network
# namespace of its own: only a loopback, down).
in_chroot() {
	# shellcheck disable=SC2016 # the sh -c script's own variables
	unshare --mount --propagation private --pid --net --fork --kill-child -- /bin/sh -c '
		lower=$1 ovl=$2; shift 2
		mount -t overlay overlay \
			-o "lowerdir=$lower,upperdir=$ovl/upper,workdir=$ovl/work" "$ovl/root" &&
		mount -t proc proc "$ovl/root/proc" && mount --rbind /dev "$ovl/root/dev" &&
		exec chroot "$ovl/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
	' sh "$@"
}
new_overlay() {
	rm -rf --one-file-system "$1"
	mkdir -p "$1/upper" "$1/work" "$1/root"
}

# make_base: the debootstrap both chroots start from, cached. Sets base.
make_base() {
	local key tmp
	key=$(printf '%s\n' "$suite minbase" "$sources" | sha256sum | cut -c1-12)
	base=$cache/$suite-amd64-base-$key
	[ -f "$base/.complete" ] && return 0
	tmp=$base.tmp
	rm -rf --one-file-system "$tmp"
	echo "making $base from $(echo "$sources" | head -n 1)"
	# In namespaces of its own: what debootstrap mounts in the target and
	# what it starts go with it, even if it is killed.
	unshare --mount --propagation private --pid --fork --kill-child -- \
		debootstrap --variant=minbase "$suite" "$tmp" \
		"$(echo "$sources" | awk '$3 == "'$suite'" { print $2; exit }')" || return 1
	printf '%s\n' "$sources" >"$tmp/etc/apt/sources.list"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	in_root "$tmp" apt-get update -q || return 1
	touch "$tmp/.complete"
	clean_kind base "$base"
	mv "$tmp" "$base"
}

# clean_kind KIND KEEP: older recipes' chroots of KIND go (and those of the
# one-chroot recipe before, bookworm-amd64-HASH).
clean_kind() {
	find "$cache" -mindepth 1 -maxdepth 1 -type d \
		\( -name "$suite-amd64-$1-*" -o -regex ".*/$suite-amd64-[0-9a-f]*" \) \
		! -name "$(basename "$2")" ! -name "$(basename "$2").tmp" \
		-exec rm -rf --one-file-system {} +
}

# make_chroot KIND RECIPE SETUP: the cached chroot KIND-KEY, KEY a hash of
# RECIPE and the mirror; made from the base by SETUP DIR when missing.
# Sets chroot_dir and chroot_how.
make_chroot() {
	local kind=$1 recipe=$2 setup=$3 key tmp
	key=$(printf '%s\n' "$suite $kind" "$recipe" "$sources" | sha256sum | cut -c1-12)
	chroot_dir=$cache/$suite-amd64-$kind-$key
	chroot_how="cached in $chroot_dir"
	[ -f "$chroot_dir/.complete" ] && return 0

	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -f "$chroot_dir/.complete" ]; then
		chroot_how="made in $chroot_dir"
		make_base || return 1
		tmp=$chroot_dir.tmp
		rm -rf --one-file-system "$tmp"
		cp -a "$base" "$tmp" && rm -f "$tmp/.complete" &&
		"$setup" "$tmp" || return 1
		touch "$tmp/.complete"
		clean_kind "$kind" "$chroot_dir"
		mv "$tmp" "$chroot_dir"
	fi
	exec 9>&-
}

# The build chroot: build-essential, the .dsc's Build-Depends, a user to
# build as (Rules-Requires-Root: no).
setup_build() {
	cp "$debs"/copybench_*.dsc "$debs"/copybench_*.tar.xz "$1/tmp/" &&
	in_root "$1" apt-get install -y -q --no-install-recommends build-essential &&
	in_root "$1" apt-get build-dep -y -q --no-install-recommends "/tmp/$(basename "$dsc")" &&
	in_root "$1" useradd --create-home --home-dir /build builder &&
	in_root "$1" apt-get clean && rm -f "$1"/tmp/copybench_*
}

# The run chroot: DKMS and the headers installed; what the packages need
# downloaded only, so that installing them is the test of their Depends.
setup_run() {
	# shellcheck disable=SC2086 # run_packages: package names, split on purpose
	cp "$cb_deb" "$dkms_deb" "$1/tmp/" &&
	in_root "$1" apt-get install -y -q --no-install-recommends $run_packages &&
	in_root "$1" apt-get clean &&
	in_root "$1" apt-get install -y -q --no-install-recommends --download-only \
		"/tmp/$(basename "$cb_deb")" "/tmp/$(basename "$dkms_deb")" &&
	rm -f "$1/tmp/$(basename "$cb_deb")" "$1/tmp/$(basename "$dkms_deb")"
}

# dsc_field NAME: the .dsc's field NAME, continuation lines included.
dsc_field() {
	awk -v f="$1:" '$1 == f { on = 1; print; next } on && /^ / { print; next } { on = 0 }' "$dsc"
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

[ "$(id -u)" = 0 ] || ktap_exit_fail_msg "needs root (the chroots)"

rm -rf --one-file-system "$work"
mkdir -p "$work/log"
check_logs=$work/log

# 1. make deb and make dsc refuse to invent a maintainer, and changes nothing then.
no_maintainer() {
	local before
	before=$(ls -l --time-style=full-iso "$debs" 2>/dev/null)
	env -u DEBFULLNAME -u DEBEMAIL make -s deb >"$work/nomaint.log" 2>&1 &&
		{ echo "make deb without DEBFULLNAME/DEBEMAIL succeeded"; return 1; }
	env -u DEBFULLNAME -u DEBEMAIL make -s dsc >>"$work/nomaint.log" 2>&1
	[ $? = 2 ] || { echo "make deb without DEBFULLNAME/DEBEMAIL did not exit 2"; return 1; }
	cat "$work/nomaint.log"
	grep -q "DEBFULLNAME" "$work/nomaint.log" && grep -q "DEBEMAIL" "$work/nomaint.log" ||
		{ echo "the message does not name DEBFULLNAME and DEBEMAIL"; return 1; }
	[ "$(ls -l --time-style=full-iso "$debs" 2>/dev/null)" = "$before" ] ||
		{ echo "build/deb changed"; return 1; }
	DEBEMAIL=nobody make -s deb >"$work/nomaint2.log" 2>&1
	[ $? = 2 ] && grep -q "DEBEMAIL='nobody'" "$work/nomaint2.log" ||
		{ echo "an address without a domain was accepted"; return 1; }
}
check "make deb, make dsc without DEBFULLNAME and DEBEMAIL: exit 2, say so, change nothing" no_maintainer

# 2. The source package.
start=$(date +%s)
check "make dsc makes the source package" make dsc
ktap_print_msg "make dsc took $(($(date +%s) - start)) s"
dversion=$version-$(sed -n 's/^DEB_REVISION[[:space:]]*:= *//p' Makefile)
dsc=$debs/copybench_$dversion.dsc
built=$work/build/upper/build
cb_deb=$built/copybench_${dversion}_amd64.deb
dkms_deb=$built/copybench-dkms_${dversion}_all.deb

source_ok() {
	local f
	for f in "copybench_$version.orig.tar.xz" "copybench_$version.orig-kselftest.tar.xz" \
		 "copybench_$dversion.debian.tar.xz"; do
		grep -q " $f\$" "$dsc" || { echo "$dsc lists no $f"; return 1; }
	done
	dsc_field Build-Depends | grep -i 'linux-source' &&
		{ echo "Build-Depends pulls linux-source"; return 1; }
	tar -tJf "$debs/copybench_$version.orig.tar.xz" | grep '^[^/]*/debian/' &&
		{ echo "the orig tarball holds debian/"; return 1; }
	grep "^Maintainer: $DEBFULLNAME <$DEBEMAIL>\$" "$dsc" ||
		{ echo "the Maintainer is not DEBFULLNAME <DEBEMAIL>"; return 1; }
	# Reproducible: the same tree makes the same orig tarball.
	sha256sum "$debs/copybench_$version.orig.tar.xz" "$debs/copybench_$version.orig-kselftest.tar.xz"
}
check "the .dsc: orig, kselftest and debian tarballs, Maintainer from DEBEMAIL, no linux-source" source_ok

# 3. The .dsc builds in a clean chroot with its Build-Depends only, offline,
# as a user, with the unit tests of dh_auto_test, to the same files.
sources=$(apt_sources)
[ -n "$sources" ] || ktap_exit_fail_msg "apt knows no $suite repository"
start=$(date +%s)
chroot_how=
build_recipe=$(printf '%s\n' "build-essential" "$(dsc_field Build-Depends)")
if make_chroot build "$build_recipe" setup_build >"$work/chroot-build.log" 2>&1; then
	ktap_test_pass "a Debian 12 chroot with build-essential and the Build-Depends"
else
	diag "$work/chroot-build.log"
	ktap_test_fail "a Debian 12 chroot with build-essential and the Build-Depends"
fi
build_root=$chroot_dir
ktap_print_msg "build chroot ${chroot_how:-not made} in $(($(date +%s) - start)) s"

ovl=$work/build
new_overlay "$ovl"
mkdir -p "$ovl/upper/build/src"
cp "$dsc" "$debs"/copybench_*.tar.xz scripts/deb-build "$ovl/upper/build/src/"
chmod -R a+rX "$ovl/upper/build/src"
# scripts/deb-build, which make deb runs on the host.
build_in_chroot() {
	in_chroot "$build_root" "$ovl" chown -R builder: /build &&
	in_chroot "$build_root" "$ovl" setpriv --reuid=builder --regid=builder --init-groups \
		env HOME=/build sh /build/src/deb-build "/build/src/$(basename "$dsc")" /build
}
start=$(date +%s)
check "the .dsc builds in the chroot: offline, as a user" build_in_chroot
ktap_print_msg "the chroot build took $(($(date +%s) - start)) s"

unit_tests_ran() {
	local log=$check_logs/$((KTAP_TESTNO - 1)).log t
	for t in stats_test points_test json_test record_test sweep_test infer_test infer_checks_test \
		 infer_input_test readers_unit_test \
		 variants_test variants_signal_test; do
		grep -q "^== .*/$t\$" "$log" || { echo "dh_auto_test did not run $t"; return 1; }
	done
	grep -E '^# (Totals|[0-9]+ passed)' "$log"
	! grep -E '^not ok' "$log"
}
check "dh_auto_test ran the unit tests, and they passed" unit_tests_ran

# With the hardening flags of a package build (dpkg-buildflags), no
# compiler warning: the commands, the library, the unit tests.
build_log=$check_logs/$((KTAP_TESTNO - 2)).log
if grep -E ':[0-9]+:[0-9]+: (warning|error):' "$build_log" >"$work/cc-warnings"; then
	sed 's/^/# /' "$work/cc-warnings" | head -n 20
	ktap_test_fail "the package build has no compiler warning"
else
	ktap_test_pass "the package build has no compiler warning"
fi

versions_ok() {
	local d v
	for d in "$cb_deb" "$dkms_deb" "$dsc"; do
		case $d in
		*.dsc) v=$(sed -n 's/^Version: //p' "$d") ;;
		*) v=$(dpkg-deb -f "$d" Version) || return 1 ;;
		esac
		[ "$v" = "$dversion" ] && [ "${v%-*}" = "$version" ] ||
			{ echo "$d: version $v, VERSION says $version"; return 1; }
	done
}
check "the source package and both packages carry VERSION ($version) upstream" versions_ok

# 4. lintian, pedantic, info tags included: any tag fails unless it is
# overridden (and explained beside the override). It reads for half a
# minute: it runs beside the checks and the install below, and is judged
# after them.
lintian -I --pedantic --show-overrides --fail-on none \
	"$debs/copybench_${dversion}_source.changes" \
	"$built/copybench_${dversion}_amd64.changes" >"$work/lintian.log" 2>&1 &
lintian_pid=$!
lintian_clean() {
	wait "$lintian_pid" || { cat "$work/lintian.log"; return 1; }
	! grep -E '^(E|W|I|P): ' "$work/lintian.log"
}

# 5. What each package holds: the commands, a man page per command and per
# subcommand, the docs where the man pages say; the HTML's own files are
# licensed in debian/copyright and used.
x=$work/x
rm -rf "$x" && dpkg-deb -x "$cb_deb" "$x"
cb_files=(/usr/bin/readers /usr/bin/copybench /usr/share/man/man1/readers.1.gz
	  /usr/share/man/man1/copybench.1.gz
	  /usr/share/doc/copybench/html/index.html
	  /usr/share/doc/copybench/README.md.gz
	  /usr/bin/copybench-bisect-kernel /usr/share/man/man1/copybench-bisect-kernel.1.gz
	  /usr/share/copybench/bisect-kernel.config /usr/share/copybench/lib/kernel.sh
	  /usr/bin/copybench-vm-run /usr/share/man/man1/copybench-vm-run.1.gz
	  /usr/share/copybench/vm/init /usr/share/copybench/vm/prepare
	  /usr/share/copybench/lib/opts.sh)
for f in tools/bisect_kernel/*.py; do
	case $f in */test_*|*/testlib.py) continue ;; esac
	cb_files+=("/usr/share/copybench/bisect_kernel/$(basename "$f")")
done
for f in tools/bpftrace/*.bt; do
	cb_files+=("/usr/share/copybench/bpftrace/$(basename "$f")")
done
while IFS=$'\t' read -r sub _; do
	cb_files+=("/usr/share/man/man1/copybench-$sub.1.gz")
done < <("$x/usr/bin/copybench" --list-cmds)
check "copybench holds the commands, a man page per (sub)command, bpftrace tools, docs" \
	deb_has "$cb_deb" "${cb_files[@]}"
dkms_files=()
for f in Kbuild dkms.conf VERSION *.c *.h *.S; do
	dkms_files+=("/usr/src/copybench-$version/$f")
done
check "copybench-dkms holds dkms.conf and every module source" \
	deb_has "$dkms_deb" "${dkms_files[@]}"

# What apt shows a user: no word of the source tree.
descriptions_ok() {
	local d
	for d in "$cb_deb" "$dkms_deb"; do
		dpkg-deb -f "$d" Description | grep -n -i -e 'tree' -e 'make ' &&
			{ echo "$(basename "$d"): the description speaks of the tree"; return 1; }
	done
	return 0
}
check "the packages' descriptions do not speak of the source tree" descriptions_ok

see_also_ok() {
	local p paths
	paths=$(zcat "$x"/usr/share/man/man1/*.1.gz | grep -o '/usr/share/doc/copybench[^ ),]*' |
		sed 's/\.$//' | sort -u)
	[ -n "$paths" ] || { echo "no page names the documentation"; return 1; }
	for p in $paths; do
		echo "SEE ALSO: $p"
		[ -e "$x$p" ] || { echo "$p is not in the package"; return 1; }
	done
	zcat "$x"/usr/share/man/man1/*.1.gz | grep -n -i -e 'make check' -e 'Documentation/' \
		-e 'the tree' && { echo "a page speaks of the source tree"; return 1; }
	return 0
}
check "the man pages' SEE ALSO names docs the package has, and nothing of the tree" see_also_ok

# Every file of html/_static/ that is not a link to a Debian package is named
# in debian/copyright, and is used by a page, a stylesheet or a script.
static_ok() {
	local s f name refs bad=0
	s=$x/usr/share/doc/copybench/html/_static
	# The scripts are links to Debian's packages: read them where they
	# point on this machine (python3-sphinx brings libjs-sphinxdoc).
	refs=$(cat "$s"/../*.html "$s"/*.css
	       for f in "$s"/*.js; do
		       if [ -L "$f" ]; then
			       cat "$(realpath -m "/usr/share/doc/copybench/html/_static/$(readlink "$f")")"
		       else
			       cat "$f"
		       fi
	       done)
	for f in "$s"/*; do
		name=$(basename "$f")
		[ -L "$f" ] && { echo "$name -> $(readlink "$f")"; continue; }
		grep -q "_static/$name" "$x/usr/share/doc/copybench/copyright" ||
			{ echo "$name: not in debian/copyright"; bad=1; }
		grep -qF "$name" <<<"$refs" || { echo "$name: used by nothing"; bad=1; }
	done
	return "$bad"
}
check "the HTML's own files are licensed in debian/copyright, and used" static_ok

# 6. A clean Debian 12: install, as a user would, without the network.
start=$(date +%s)
chroot_how=
run_recipe=$(printf '%s\n' "$run_packages" "$(dpkg-deb -f "$cb_deb" Depends Pre-Depends)" \
	"$(dpkg-deb -f "$dkms_deb" Depends Pre-Depends)")
if make_chroot run "$run_recipe" setup_run >"$work/chroot-run.log" 2>&1; then
	ktap_test_pass "a Debian 12 chroot with dkms and kernel headers"
else
	diag "$work/chroot-run.log"
	ktap_test_fail "a Debian 12 chroot with dkms and kernel headers"
fi
run_root=$chroot_dir
ktap_print_msg "run chroot ${chroot_how:-not made} in $(($(date +%s) - start)) s"
if [ -z "$run_root" ] || [ ! -f "$run_root/.complete" ]; then
	ktap_exit_fail_msg "no chroot: the install tests cannot run"
fi
# shellcheck disable=SC2012 # kernel releases: no odd characters
rel=$(ls "$run_root/lib/modules" | head -n 1)
ktap_print_msg "the chroot's kernel headers: $rel"

ovl=$work/run
new_overlay "$ovl"
mkdir -p "$ovl/upper/tmp"
cp "$cb_deb" "$dkms_deb" "$ovl/upper/tmp/" 2>/dev/null
# (No --no-download: apt refuses local .debs with it. The network namespace
# is what keeps it offline: a package missing from the cache fails.)
install_debs() {
	in_chroot "$run_root" "$ovl" apt-get install -y -q --no-install-recommends \
		"/tmp/$(basename "$cb_deb")" "/tmp/$(basename "$dkms_deb")"
}
start=$(date +%s)
check "apt installs copybench and copybench-dkms in the chroot, offline" install_debs
ktap_print_msg "install (DKMS build included) took $(($(date +%s) - start)) s"

# The chroots' steps had no network to reach: their namespace has a
# loopback and nothing else.
no_network() {
	in_chroot "$run_root" "$ovl" cat /proc/net/dev >"$work/netdev" || return 1
	cat "$work/netdev"
	[ "$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' "$work/netdev")" = lo ]
}
check "the chroot steps run with no network: a loopback only" no_network

help_ok() {
	in_chroot "$run_root" "$ovl" "$1" --help >"$work/help.$1" 2>&1 || return 1
	grep -q "^Usage: $1" "$work/help.$1" || { cat "$work/help.$1"; return 1; }
}
check "readers --help in the chroot" help_ok readers
check "copybench --help in the chroot" help_ok copybench
check "copybench-vm-run --help in the chroot" help_ok copybench-vm-run
# Installed, vm-run finds its files in /usr/share/copybench: a bad option is
# refused as in a checkout, under its installed name.
vm_run_bad_option() {
	local rc
	in_chroot "$run_root" "$ovl" copybench-vm-run --bogus >"$work/vm-run.err" 2>&1
	rc=$?
	cat "$work/vm-run.err"
	[ "$rc" = 125 ] && grep -q "^vm-run: unknown option '--bogus'" "$work/vm-run.err" &&
		grep -qx "Try 'copybench-vm-run --help'." "$work/vm-run.err"
}
check "copybench-vm-run --bogus in the chroot: exit 125, its installed name" vm_run_bad_option
check "man pages installed in the chroot" \
	in_chroot "$run_root" "$ovl" test -s /usr/share/man/man1/copybench-sweep.1.gz

module_built() {
	local ko got
	in_chroot "$run_root" "$ovl" dkms status copybench
	in_chroot "$run_root" "$ovl" dkms status copybench |
		grep -q "^copybench/$version, $rel, x86_64: installed" || return 1
	ko=$(in_chroot "$run_root" "$ovl" modprobe -S "$rel" --show-depends copybench |
		awk '/^insmod/ { print $2 }')
	echo "modprobe: $ko"
	case $ko in /lib/modules/"$rel"/updates/dkms/copybench.ko*) ;; *) return 1 ;; esac
	got=$(in_chroot "$run_root" "$ovl" modinfo -F version "$ko")
	[ "$got" = "$version" ] || { echo "modinfo version '$got'"; return 1; }
	got=$(in_chroot "$run_root" "$ovl" modinfo -F vermagic "$ko")
	[ "${got%% *}" = "$rel" ] || { echo "vermagic '$got'"; return 1; }
}
check "DKMS built and installed copybench.ko for the chroot's $rel" module_built

check "lintian -I --pedantic: no tag that is not overridden and explained" lintian_clean
grep -v -e '^N:' -e 'root privileges' "$work/lintian.log" | sed 's/^/# lintian: /'

purge_ok() {
	in_chroot "$run_root" "$ovl" apt-get purge -y -q copybench-dkms copybench || return 1
	if in_chroot "$run_root" "$ovl" sh -c 'ls -d /usr/src/copybench-* \
			/lib/modules/*/updates/dkms/copybench.ko* /var/lib/dkms/copybench 2>/dev/null' |
			grep .; then
		echo "left behind after purge"
		return 1
	fi
}
check "apt purge removes the module, its sources and DKMS state" purge_ok

ktap_end
