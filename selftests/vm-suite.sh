#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vm-suite.sh - copybench's in-VM test suite, one TAP stream.
#
# Usage (inside the VM, from the project directory):
#	selftests/vm-suite.sh build/ko/<release>/copybench.ko
#
# Steps, each one TAP test point:
#   1. load the given copybench.ko (unloading an old one first);
#   2. run build/selftests/copybench_test with COPYBENCH_KO set;
#   3. run every executable selftests/vm-tests/* in name order, the hook
#      for other in-VM suites: each is called with no arguments, from the
#      project directory, with COPYBENCH_KO set and the module loaded; it
#      prints TAP (nested here behind "# ") and exits 0 pass, 4 skip,
#      anything else fail;
#   4. unload the module;
#   5. check the kernel log written since step 1 for WARNING, BUG, Oops,
#      "Call Trace", leak reports and the like.
# Everything on stdout is TAP; the sub-suites' own TAP is nested as "# "
# lines, the kselftest way. Exit status 0 when every step passed or
# skipped, 1 otherwise. Needs root.

ko=${1:?usage: selftests/vm-suite.sh <copybench.ko>}
top=$(cd "$(dirname "$0")/.." && pwd)
suite_timeout=${CB_SUITE_TIMEOUT:-3000}
n=0
npass=0
nfail=0
nskip=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"

# ok NAME / not_ok NAME / skip NAME REASON
ok() {
	n=$((n + 1)); npass=$((npass + 1)); echo "ok $n $1"
}
not_ok() {
	n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n $1"
}
skip() {
	n=$((n + 1)); nskip=$((nskip + 1)); echo "ok $n $1 # SKIP $2"
}

# run_nested NAME CMD...: CMD's output as "# " lines, its status as a test point.
run_nested() {
	name=$1
	shift
	start=$(date +%s)
	# stdin from /dev/null: timeout(1) runs the suite in a process group of
	# its own, where touching the console would stop it (SIGTTIN/SIGTTOU).
	{ COPYBENCH_KO=$ko timeout "$suite_timeout" "$@" < /dev/null 2>&1
	  echo $? > "$tmp/rc"; } |
		sed -u 's/^/# /'
	rc=$(cat "$tmp/rc")
	echo "# $name: exit $rc after $(( $(date +%s) - start )) s"
	case $rc in
	0) ok "$name" ;;
	4) skip "$name" "exit 4" ;;
	*) not_ok "$name" ;;
	esac
}

case $ko in /*) ;; *) ko=$top/$ko ;; esac
cd "$top" || exit 1

if [ "$(id -u)" != 0 ]; then
	skip vm-suite "not root"
	echo "1..$n"
	exit 0
fi

# Mark the kernel log so step 5 reads only what this suite caused.
marker="copybench-vm-suite-$$-$(date +%s)"
echo "$marker" > /dev/kmsg

if [ -d /sys/module/copybench ]; then
	rmmod copybench 2>/dev/null
fi
if [ -r "$ko" ] && out=$(insmod "$ko" 2>&1); then
	ok "insmod $(basename "$ko") ($(uname -r))"
	loaded=1
else
	echo "# insmod $ko: ${out:-not readable}"
	not_ok "insmod $(basename "$ko") ($(uname -r))"
	loaded=0
fi

if [ "$loaded" = 1 ]; then
	if [ -x build/selftests/copybench_test ]; then
		run_nested copybench_test build/selftests/copybench_test
	else
		echo "# build/selftests/copybench_test missing: run 'make selftests'"
		not_ok copybench_test
	fi

	for t in selftests/vm-tests/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		run_nested "$(basename "$t")" "$t"
	done

	if out=$(rmmod copybench 2>&1); then
		ok "rmmod copybench"
	else
		echo "# rmmod: $out"
		not_ok "rmmod copybench"
	fi
fi

# Step 5: the kernel log since the marker.
dmesg | sed -n "/$marker/,\$p" > "$tmp/dmesg"
if grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|kernel BUG|UBSAN|KASAN|leak|refcount_t:|list_(add|del) corruption|copybench: .*byte .* want' \
	"$tmp/dmesg" > "$tmp/bad"; then
	sed 's/^/# dmesg: /' "$tmp/bad" | head -50
	not_ok "kernel log clean (no WARN, BUG, Oops, leak or verify messages)"
else
	ok "kernel log clean (no WARN, BUG, Oops, leak or verify messages)"
fi

echo "1..$n"
echo "# vm-suite: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
