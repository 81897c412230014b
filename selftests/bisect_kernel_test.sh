#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect_kernel_test.sh - tools/bisect-kernel on a real kernel tree, TAP 13
# through the kernel's ktap_helpers.sh.
#
# Usage: selftests/bisect_kernel_test.sh      (root; what tools/vm-run needs)
#
# First the refusals: bad options and inputs exit 2, name the option and
# change nothing. Then a real bisect, on the cached bisect kernel of
# "scripts/kernel-cache bisect" (built when not cached: minutes), whose tree
# is a git repository at commit "base" (Debian's linux-source-6.12) built in
# obj/ beside it, as a user builds with make O=: its "source" link is
# absolute, and the test gives the tree through a symbolic link in a
# directory of its own outside the checkout and the cache (the guest must
# resolve both on the host's side: an absolute link read in the guest
# resolves against its own root, where a relative one, kbuild's for a build
# inside its source, resolves anywhere and would hide that). On top
# of base the test commits a throwaway history of 8
# commits (a branch, removed at the end, the tree put back at base):
#   - one slows the kernel's user copies for real: rep_movs_alternative
#     sends copies of 64 bytes and more to its byte loop (the commit is
#     drawn at random: CB_BISECT_SEED=N repeats a draw, and the seed is
#     printed);
#   - commit 4, where git bisect looks first, does not build (an #error
#     in init/version.c) and commit 5 mends it, so the bisect meets it;
#   - the others change a text file nothing builds.
# bisect-kernel runs from base (GOOD) to commit 8 (BAD) at 4 KiB with
# --append clearcpuid=erms: the kernel's copies of 64 bytes and more then
# take rep_movs_alternative's movsq loop, about 12 times faster than its
# byte loop under TCG (3,300 clocks against 43,000 to 52,000), where
# rep movsb is only 1.5 times faster, and its processes' spread on a busy
# host (two modes, 28,700 and 36,000) leaves the byte loop within the
# range compare calls placement-sensitive. --threshold 50 (the planted
# change is +1,100%): a side whose processes disagree beyond the threshold
# is measured again, in a kernel rebuilt and booted anew (about 80 s), and
# on a host at load 4 GOOD's seven processes were 25% to 60% apart: with
# the default 25% one run measured GOOD four times (13.5 min in all); at
# 50% two runs at load 4 to 5 measured each side once (5.7 min) and twice
# (6.4 min). It is stopped by
# SIGINT (Ctrl-C) once its first step has its line, and run again: it must
# resume without measuring GOOD, BAD or a step again (but the one stopped),
# name the planted commit, skip
# the broken one with the compiler's error in the step's line, tell each
# step's kernel apart by its release, say that the CPU is emulated, say at
# the start that the trace can work, and attach the trace: kcopy.bt's
# samples for the parent and the first bad commit, rep_movs_alternative's
# in the latter, and no "TRACE FAILED" anywhere. The
# tree's lock (scripts/kernel-cache bisect --lock-file) is held throughout.
# Exit 0 pass, 1 fail, 4 skip.
set -u

CB_SELFTESTS=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$CB_SELFTESTS/ktap.sh"
top=$(cd "$CB_SELFTESTS/.." && pwd)
bk=$top/tools/bisect-kernel
# shellcheck source=tools/lib/kernel.sh
. "$top/tools/lib/kernel.sh"
ktap_print_header

tmp=$(mktemp -d "$top/build/bisect-test.XXXXXX") || exit 1
# The tree as a user has it: its own directory, outside the checkout.
outside=$(mktemp -d "${TMPDIR:-/tmp}/copybench-bisect-tree.XXXXXX") || exit 1
tree=
# After a failure the bisect's directory stays, for its logs.
cleanup() {
	[ -n "$tree" ] && restore_tree
	if [ "${KTAP_CNT_FAIL:-0}" -gt 0 ] && [ -d "$tmp/bisect" ]; then
		echo "# the bisect's directory is kept: $tmp/bisect"
	else
		rm -rf "$tmp"
	fi
	rm -rf "$outside"
}
trap cleanup EXIT

# check NAME COMMAND...: one test point from a command's status (run in
# this shell), its output as diagnostics when it fails.
check() {
	local name=$1
	shift
	if "$@" >"$tmp/check.out" 2>&1; then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "$(tail -n 40 "$tmp/check.out")"
	fi
}

# The cached tree back at base, with no bisect, branch or stray file.
restore_tree() {
	kernel_tree_reset "$tree" base
}

# --- the cached bisect kernel ---------------------------------------------------

if [ "$(id -u)" != 0 ]; then
	ktap_skip_why "bisect-kernel on the cached bisect kernel" "needs root (tools/vm-run's guest runs the module)"
	ktap_end
fi
if ! obj=$("$top/scripts/kernel-cache" bisect 2>"$tmp/cache.err"); then
	ktap_fail_why "the cached bisect kernel (scripts/kernel-cache bisect)" "$(tail -n 20 "$tmp/cache.err")"
	ktap_end
fi
ktap_test_pass "the cached bisect kernel (scripts/kernel-cache bisect): $obj"
exec 9>"$("$top/scripts/kernel-cache" bisect --lock-file)"
flock 9
# kbuild's link from the build directory to its source: absolute, the layout
# of a user's make O=, which only the host can resolve.
tree=$(readlink -f "$obj/source")
link=$(readlink "$obj/source")
if [ "${link#/}" = "$link" ] || [ ! -d "$tree/.git" ]; then
	ktap_fail_why "the cached bisect kernel's build directory links its source absolutely" \
		"$obj/source -> $link"
	ktap_end
fi
ln -s "$tree" "$outside/linux"
# kernel-cache put it back at base (after a test killed while it held the
# tree); between its exit and the flock above nobody may have moved it.
if ! restore_tree; then
	ktap_fail_why "the cached bisect tree back at base" "$(git -C "$tree" status 2>&1 | tail -n 5)"
	ktap_end
fi


# --- the throwaway history --------------------------------------------------------

seed=${CB_BISECT_SEED:-$RANDOM}
RANDOM=$seed
broken=4
# The planted commit: any but the broken one and the one after it (the
# broken one untested, git could not tell those two apart).
while planted=$((RANDOM % 8 + 1)); [ $planted = $broken ] || [ $planted = $((broken + 1)) ]; do :; done
ktap_print_msg "seed $seed: the slowdown at commit $planted, commit $broken does not build"

export GIT_AUTHOR_NAME=copybench-test GIT_AUTHOR_EMAIL=test@localhost
export GIT_COMMITTER_NAME=copybench-test GIT_COMMITTER_EMAIL=test@localhost

history() {
	local i note=Documentation/copybench-bisect-test.txt
	git -C "$tree" checkout -q -b bisect-test base || return 1
	for i in 1 2 3 4 5 6 7 8; do
		if [ "$i" = "$planted" ]; then
			# Copies of 64 bytes and more go to the byte loop.
			sed -i 's/^\tjae \.Llarge$/\tjae .Lcopy_user_tail/' \
				"$tree/arch/x86/lib/copy_user_64.S"
			grep -q '^	jae .Lcopy_user_tail$' "$tree/arch/x86/lib/copy_user_64.S" ||
				{ echo "the planted change did not apply"; return 1; }
			msg="x86/lib: rep_movs_alternative: copy 64 bytes and more a byte at a time"
		elif [ "$i" = "$broken" ]; then
			{
				cat "$tree/init/version.c"
				echo '#error "copybench bisect test: this commit does not build"'
			} >"$tree/init/version.c.tmp"
			mv -f "$tree/init/version.c.tmp" "$tree/init/version.c"
			msg="init: a commit that does not build"
		elif [ "$i" = $((broken + 1)) ]; then
			git -C "$tree" show "base:init/version.c" >"$tree/init/version.c.tmp" &&
				mv -f "$tree/init/version.c.tmp" "$tree/init/version.c"
			msg="init: build again"
		else
			# A new file each time (git replaces files; the tree's
			# sources are hard links to the cache's extraction).
			{ cat "$tree/$note" 2>/dev/null; echo "commit $i"; } >"$tree/$note.tmp"
			mv -f "$tree/$note.tmp" "$tree/$note"
			msg="Documentation: note $i"
		fi
		git -C "$tree" add -A && git -C "$tree" commit -q -m "$msg" || return 1
		commits[i]=$(git -C "$tree" rev-parse HEAD)
	done
}
declare -a commits
check "a throwaway history of 8 commits on base: the slowdown at $planted, $broken does not build" history

c8=${commits[8]:-}
c_planted=${commits[$planted]:-}
c_broken=${commits[$broken]:-}
dir=$tmp/bisect
# --accel tcg: what the test measures is TCG's (the byte loop 12 times
# slower, "EMULATED CPU"); the default, vm-run's auto, takes KVM on a host
# whose KVM boots the kernel, where a CPU with FSRM copies user memory
# with an inline rep movsb and never calls rep_movs_alternative: BAD
# shows no regression for the bisect to find.
run=(--tree "$outside/linux" --build-dir "$obj" --good base --bad "$c8" --dir "$dir" --sizes 4K
     --append clearcpuid=erms --threshold 50 --accel tcg)

# --- refusals: exit 2, the option named, nothing changed ----------------------

refusals() {
	local head bad=0 rc a want
	head=$(git -C "$tree" rev-parse HEAD)
	local -a cases=(
		"--good nope|--good 'nope': not a commit"
		"--good $c8 --bad base|not an ancestor"
		"--bad base|the same commit as --good"
		"--sizes 4Q|--sizes '4Q'"
		"--variants movsb,movsq|native is not among them"
		"--threshold abc|--threshold 'abc'"
		"--placement bogus|--placement 'bogus'"
		"--trace perf|no tool 'perf'"
		"--config $tmp/nonexistent|--config"
		"--good-record $tmp/nonexistent|--good-record"
		"--jobs 0|--jobs '0'"
		"--timeout 9x|--timeout '9x'"
		"--accel fast|--accel 'fast'"
		"--frobnicate 1|unknown option '--frobnicate'"
	)
	for a in "${cases[@]}"; do
		want=${a#*|}
		# shellcheck disable=SC2086 # the case's words
		"$bk" "${run[@]}" ${a%%|*} >"$tmp/o" 2>"$tmp/e"
		rc=$?
		if [ "$rc" != 2 ] || ! grep -qF -- "$want" "$tmp/e"; then
			echo "${a%%|*}: exit $rc, want 2 and '$want':"
			cat "$tmp/e"
			bad=1
		fi
	done
	# Uncommitted changes in the tree.
	echo "/* uncommitted */" >"$tree/init/version.c.tmp"
	cat "$tree/init/version.c" >>"$tree/init/version.c.tmp"
	mv -f "$tree/init/version.c.tmp" "$tree/init/version.c"
	"$bk" "${run[@]}" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	git -C "$tree" checkout -q -f HEAD -- init/version.c
	[ "$rc" = 2 ] && grep -q "uncommitted changes" "$tmp/e" ||
		{ echo "uncommitted changes: exit $rc:"; cat "$tmp/e"; bad=1; }
	[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] ||
		{ echo "HEAD moved"; bad=1; }
	[ -z "$(git -C "$tree" status --porcelain -uno)" ] ||
		{ echo "the tree changed:"; git -C "$tree" status --short; bad=1; }
	[ ! -e "$dir" ] || { echo "$dir was created"; bad=1; }
	! git -C "$tree" bisect log >/dev/null 2>&1 || { echo "a bisect was started"; bad=1; }
	return "$bad"
}
check "bad options and inputs: exit 2, the option named, nothing changed" refusals

# --- the bisect, stopped once and resumed -----------------------------------------

step_re=' (good|bad|skip) \(exit [0-9]+\) '
good_stamp=
records_run1=
first_step=

# The first run, stopped by SIGINT (Ctrl-C, to its process group) once the
# first bisect step has its line in steps.log (made first, so that tail -f
# follows it from the start), or once the command ended (a line the test
# writes then to a file of its own, which tail follows too: steps.log is
# the command's): tail and the command's own end wait, nothing else does. The
# step that had the line may not have been taken by git yet: then it runs
# again, once. (Job control on: a job started with '&' without it ignores
# SIGINT, as bash's background jobs do.)
first_run() {
	local pid ended follow
	mkdir -p "$dir" && : >"$dir/steps.log" && : >"$tmp/ended" || return 1
	set -m
	"$bk" "${run[@]}" >"$tmp/run1.out" 2>"$tmp/run1.err" &
	pid=$!
	set +m
	# The watchers close the tree's lock (fd 9): killed with the test,
	# a "tail -f" left behind held it, and every later run waited.
	(tail --pid="$pid" -f /dev/null; echo "# test: the command ended" >>"$tmp/ended") 9>&- &
	ended=$!
	grep -q -m1 -E "$step_re|^# test: the command ended" 9>&- \
		< <(tail -q -n +1 -f "$dir/steps.log" "$tmp/ended" 2>/dev/null 9>&-)
	follow=$!
	kill -INT -- -"$pid" 2>/dev/null
	wait "$pid"
	rc1=$?
	wait "$ended"
	kill "$follow" 2>/dev/null
	cat "$tmp/run1.out" "$tmp/run1.err"
	[ "$rc1" = 130 ] && jq -e '.state.phase == "bisecting"' "$dir/state.json" >/dev/null &&
		[ -s "$dir/good.json" ] && [ -s "$dir/bad.json" ] &&
		git -C "$tree" bisect log >/dev/null 2>&1 || { echo "exit $rc1"; return 1; }
	good_stamp=$(stat -c '%i %Y' "$dir/good.json" "$dir/bad.json")
	records_run1=$(grep -c ' \(GOOD\|BAD\) (exit 0) ' "$dir/steps.log")
	first_step=$(grep -m1 -E "$step_re" "$dir/steps.log" | cut -d' ' -f2)
}
check "bisect-kernel records GOOD and BAD, bisects, stops on SIGINT after its first step (130)" first_run

second_run() {
	"$bk" "${run[@]}" >"$tmp/run2.out" 2>"$tmp/run2.err"
	rc2=$?
	cat "$tmp/run2.out" "$tmp/run2.err"
	[ "$rc2" = 0 ]
}
check "run again: it resumes and finishes (exit 0)" second_run

names_planted() {
	head -n 1 "$dir/report.txt" | grep -qx "copybench bisect-kernel: first bad commit $c_planted" &&
		sed -n 2p "$dir/report.txt" | grep -q 'rep_movs_alternative: copy 64 bytes and more a byte at a time' &&
		! grep -n '# test:' "$dir/report.txt" "$dir/steps.log" ||
		{ cat "$dir/report.txt"; return 1; }
}
check "the report names the planted commit ($planted) and its subject, and holds none of the test's lines" names_planted

resumed() {
	local records dup
	records=$(grep -c ' \(GOOD\|BAD\) (exit 0) ' "$dir/steps.log")
	dup=$(grep -E "$step_re" "$dir/steps.log" | cut -d' ' -f2 | sort | uniq -d)
	[ "$records" = "$records_run1" ] && { [ -z "$dup" ] || [ "$dup" = "$first_step" ]; } &&
		[ "$(stat -c '%i %Y' "$dir/good.json" "$dir/bad.json")" = "$good_stamp" ] &&
		! git -C "$tree" bisect log >/dev/null 2>&1 ||
		{ echo "GOOD and BAD lines $records (first run $records_run1), steps twice: $dup"
		  cat "$dir/steps.log"; return 1; }
}
check "resumed where it was: GOOD and BAD not measured again, no step twice but the interrupted one, the tree's bisect reset" resumed

skipped_broken() {
	grep -q "^[^ ]* ${c_broken:0:12} skip (exit 125) .*: the kernel did not build: [^ ]*init/version.c:[0-9:]* error: #error \"copybench bisect test: this commit does not build\"" \
		"$dir/steps.log" &&
		grep -qx "git bisect skip $c_broken" "$dir/bisect.log" ||
		{ cat "$dir/steps.log" "$dir/bisect.log"; return 1; }
}
check "the commit that does not build is skipped (125), its step line has the compiler's error" skipped_broken

releases() {
	local f c k n=0
	for f in "$dir"/bisect-*.json; do
		[ -e "$f" ] || continue
		c=${f%.json}
		c=${c##*-}
		k=$(head -n 1 "$f" | jq -r .kernel)
		[[ $k == *-copybench-bisect-g$c ]] || { echo "$f: kernel '$k' does not name $c"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || { echo "$n step records"; ls "$dir"; return 1; }
}
check "each step's kernel names its commit in its release (LOCALVERSION_AUTO)" releases

emulated() {
	grep -q '^EMULATED CPU: ' "$dir/report.txt" &&
		grep -q '; emulated CPU: ' "$dir/bisect-run.log" &&
		grep -q 'EMULATED CPU' "$tmp/run1.err" ||
		{ cat "$dir/report.txt" "$dir/bisect-run.log"; return 1; }
}
check "the emulated CPU is said: at the start, in each step's line, in the report" emulated

# kcopy.bt (the default trace), said to work at the start, on the parent's
# and the first bad commit's kernels: dd's samples, the latter's most of
# them in rep_movs_alternative, beside their records; no trace failed.
traced() {
	local p=${c_planted:0:12} parent
	parent=$(git -C "$tree" rev-parse "$c_planted^")
	parent=${parent:0:12}
	grep -q '^bisect-kernel: trace: kcopy.bt after each measurement can work: ' "$tmp/run1.err" &&
		[ -s "$dir/trace-$p.kcopy.json" ] && [ -s "$dir/trace-$parent.kcopy.json" ] &&
		sed -n "/^  parent $parent:/,/^  first bad/p" "$dir/report.txt" |
			grep -q '^    kcopy.bt, dd on the CPU: [0-9]* samples: [^ ]*+[0-9]* ' &&
		sed -n "/^  first bad $p:/,/^\$/p" "$dir/report.txt" |
			grep -q '^    kcopy.bt, dd on the CPU: [0-9]* samples: rep_movs_alternative+[0-9]* ' &&
		! grep -n 'TRACE FAILED' "$dir/report.txt" "$dir/steps.log" ||
		{ grep 'trace' "$tmp/run1.err"; cat "$dir/report.txt"; ls "$dir"
		  tail -n 5 "$dir/trace-$p".*.err "$dir/trace-$parent".*.err 2>/dev/null; return 1; }
}
check "the trace works and is said to at the start: kcopy.bt's samples for the parent and the first bad commit (rep_movs_alternative)" traced

again() {
	local rc
	"$bk" --dir "$dir" >"$tmp/o" 2>"$tmp/e" && cmp -s "$tmp/o" "$dir/report.txt" ||
		{ echo "--dir alone:"; cat "$tmp/o" "$tmp/e"; return 1; }
	"$bk" "${run[@]}" --sizes 64 >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ "$rc" = 2 ] && grep -q "holds another bisect (sizes: '4K' there, '64' now; " "$tmp/e" ||
		{ echo "another bisect's options: exit $rc"; cat "$tmp/e"; return 1; }
}
check "--dir alone prints the report again; other options on the same --dir are refused (2)" again

ktap_end
