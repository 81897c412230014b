#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree_test.sh - checks on the source tree itself, as TAP: licence headers,
# kernel style (the kernel's own checkpatch.pl), the shell scripts' style
# (shellcheck, with the tree's .shellcheckrc) and the Python scripts'
# (pyflakes3), one variant list that the
# docs follow, the README's two commands, a clean tree after a build,
# comments without history (issue numbers and the like), the selftests
# directory building as a kernel-tree kselftest target, and the commit
# rule of HACKING.md.
#
# Usage: selftests/tree_test.sh     (from anywhere; needs `make lib selftests`
#                                    to have run, which extracts the kernel files)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
ksft=$top/build/linux
. "$top/selftests/ktap.sh"

# check NAME COMMAND...: one test from a command's status; its output as
# diagnostics when it fails.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "$(printf '%s\n' "$out" | head -n 40)"
	fi
}

ktap_print_header

# Every tracked source file starts (after a shebang) with an SPDX line.
spdx_missing() {
	local f bad=0
	while IFS= read -r f; do
		case "$f" in
		*.c|*.h|*.S|*.sh|*.bt|*.rst|*.mk|Makefile|*/Makefile|Kbuild|tools/*|scripts/*|.ci/*) ;;
		*) continue ;;
		esac
		case "$f" in *_example.txt) continue ;; esac
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' ||
			{ echo "no GPL-2.0 SPDX line: $f"; bad=1; }
	done < <(git ls-files)
	return "$bad"
}
check "every source file carries a GPL-2.0 SPDX line" spdx_missing

# No build output is tracked, and a build leaves no untracked output behind
# (the .gitignore covers it).
tree_clean() {
	local bad=0 f
	while IFS= read -r f; do
		case "$f" in
		build/*|*.o|*.ko|*.a|*.cmd|*.mod|*.mod.c|Module.symvers|modules.order)
			echo "generated file not ignored or tracked: $f"; bad=1 ;;
		esac
	done < <(git ls-files; git ls-files --others --exclude-standard)
	return "$bad"
}
check "build output is neither tracked nor left unignored" tree_clean

# The variant list drives the docs: every variant has a section.
variants_documented() {
	local v bad=0
	for v in $(sed -n 's/^CB_VARIANT(\([a-z_0-9]*\),.*/\1/p' copy_variants_list.h) native; do
		grep -q "^\`\`$v\`\`\|^$v\$\|\`\`$v\`\`" Documentation/variants.rst 2>/dev/null ||
			{ echo "variant $v not described in Documentation/variants.rst"; bad=1; }
	done
	return "$bad"
}
check "every variant of copy_variants_list.h is documented" variants_documented

# README: the main job's and the tests' commands in its first lines, and
# .ci/run runs the latter.
readme_commands() {
	# shellcheck disable=SC2016 # Markdown's backquotes, not the shell's
	head -n 12 README.md | grep -q '`make bench`' || { echo "no make bench at the top"; return 1; }
	# shellcheck disable=SC2016 # Markdown's backquotes, not the shell's
	head -n 12 README.md | grep -q '`make check`' || { echo "no make check at the top"; return 1; }
	grep -q '^exec make check' .ci/run || { echo ".ci/run does not run make check"; return 1; }
}
check "README's first lines give the two commands; .ci/run runs the test one" readme_commands

# No atoi() anywhere: every value is parsed with an end pointer.
no_atoi() {
	! git grep -nE '\bato(i|l|ll)\(' -- '*.c' '*.h'
}
check "no atoi() in the sources" no_atoi

# The data pattern is written once, in copybench.h (CB_DATA_MULT): C code
# uses that, scripts ask "copybench pattern"; the docs may state it.
pattern_once() {
	local files mult=9e37'79b1'	# split: this file does not write it
	files=$(git grep -il "$mult" -- ':!Documentation' ':!README.md')
	[ "$files" = copybench.h ] || { echo "the pattern's constant is written in: $files"; return 1; }
}
check "the data pattern is defined once (copybench.h)" pattern_once

# Comments say why; history lives in the commits: no issue or CI stop
# number, no story of what the module, a rule, a tool or the code did
# before. Searched: every tracked C, assembly, shell and Python file, the
# Makefiles and Kbuild, and the shell and Python scripts without an
# extension of scripts/ and tools/; not the docs (*.rst, *.md, where
# measured anecdotes belong) nor what selftests/lkp/ recorded.
history_sources() {
	local f
	while IFS= read -r f; do
		case "$f" in
		selftests/lkp/*|*.rst|*.md) continue ;;
		*.c|*.h|*.S|*.sh|*.py|*.mk|Makefile|*/Makefile|Kbuild) echo "$f"; continue ;;
		scripts/*.*|tools/*.*) continue ;;
		scripts/*|tools/*) ;;
		*) continue ;;
		esac
		case "$(head -n 1 "$f" 2>/dev/null)" in
		'#!/bin/sh'|'#!/bin/sh '*|'#!/bin/bash'|'#!/bin/bash '*|'#!/bin/busybox sh'|\
		'#!/usr/bin/python3'|'#!/usr/bin/python3 '*|'#!/usr/bin/env python3')
			echo "$f" ;;
		esac
	done < <(git ls-files)
}
no_history() {
	local hits
	hits=$(history_sources | xargs -d '\n' grep -HniE -- \
		'issue [0-9]|stop [0-9]|the (module|rule|tool|code) before')
	[ -z "$hits" ] && return 0
	echo "$(printf '%s\n' "$hits" | wc -l) lines carry history: say what the code or test does" \
		"and why; the history goes in the commit"
	printf '%s\n' "$hits" | sed 's/^\([^:]*:[0-9]*\):[[:space:]]*/\1: /'
	return 1
}
check "comments carry no history (issue or stop numbers, \"the module/rule before\")" no_history

# HACKING.md, the map of the tree, names only files that exist: every
# backquoted path (a word with a '/' or a source file's extension; NAME is
# a placeholder), bare names in tools/copybench/ (the paragraph that says
# so) or at the top.
map_files_exist() {
	local p bad=0 n=0
	[ -f HACKING.md ] || { echo "no HACKING.md"; return 1; }
	# shellcheck disable=SC2016 # Markdown's backquotes, not the shell's
	while IFS= read -r p; do
		case $p in *NAME*|*' '*|*'('*) continue ;; esac
		n=$((n + 1))
		[ -e "$p" ] || [ -e "tools/copybench/$p" ] ||
			{ echo "HACKING.md names $p, which does not exist"; bad=1; }
	done < <(grep -o '`[^`]*`' HACKING.md | tr -d '`' |
		 grep -E '/|\.(c|h|S|sh|rst|mk|config|md)$' | sort -u)
	echo "HACKING.md: $n paths"
	[ "$n" -gt 0 ] || { echo "HACKING.md names no file"; bad=1; }
	return "$bad"
}
check "HACKING.md (the map) names only files that exist" map_files_exist

# The other way round: every file at the top of the tree is one the map
# names, and every directory there one it names a path in (a stray record
# at the top, or a copy of files under a directory nobody meant, is caught
# before it lands).
map_names_the_top() {
	local f bad=0

	while IFS= read -r f; do
		grep -qF "\`$f\`" HACKING.md || { echo "$f: at the top, not in HACKING.md's file list"; bad=1; }
	done < <(git ls-files | awk -F/ 'NF == 1')
	while IFS= read -r f; do
		grep -qF "\`$f/" HACKING.md ||
			{ echo "$f/: a directory at the top that HACKING.md's file list does not name"; bad=1; }
	done < <(git ls-files | awk -F/ 'NF > 1 { print $1 }' | sort -u)
	return "$bad"
}
check "every file and directory at the top of the tree is named in HACKING.md" map_names_the_top

# No tracked file over 256 KiB but those listed here with why: a record, a
# capture or a build output is not source.
big_files() {
	local f size bad=0 allowed=''

	while IFS= read -r -d '' f; do
		[ -f "$f" ] || continue
		size=$(stat -c %s -- "$f")
		[ "$size" -le $((256 * 1024)) ] && continue
		case " $allowed " in *" $f "*) continue ;; esac
		echo "$f: $size bytes (at most 256 KiB, or listed in tree_test's big_files with why)"
		bad=1
	done < <(git ls-files -z)
	return "$bad"
}
check "no tracked file over 256 KiB" big_files

# objects_no_circle NAME DIR: the objects in DIR, one per source file, call
# each other top to bottom (HACKING.md, "Which way the dependencies go"): a
# file that calls or reads what another defines depends on it; tsort finds
# any circle among them and names its files.
objects_no_circle() {
	local name=$1 d=$2 f
	for f in "$d"/*.o; do
		nm "$f" | awk -v m="$(basename "$f" .o)" '
			NF == 3 && $2 ~ /^[TDBR]$/ { print "D", $3, m }
			$1 == "U" { print "U", $2, m }'
	done | awk '$1 == "D" { def[$2] = $3; next }
		    { use[++n] = $3 " " $2 }
		    END {
			for (i = 1; i <= n; i++) {
				split(use[i], a, " ")
				if ((a[2] in def) && def[a[2]] != a[1])
					print a[1], def[a[2]]
			}
		    }' | sort -u > "$d/edges"
	echo "$name: $(wc -l < "$d/edges") dependencies between $(find "$d" -maxdepth 1 -name "*.o" | wc -l) files"
	tsort "$d/edges" > /dev/null 2> "$d/loop" && return 0
	sed -e 's/^tsort: .*: input contains a loop:$/a circle:/' -e 's/^tsort: /  /' "$d/loop"
	return 1
}

# no_circle DIR: DIR's C files (its unit tests, *_test.c, aside), each
# compiled alone (-I. and -IDIR), without a circle.
no_circle() {
	local dir=$1 d f bad=0
	d=$(mktemp -d) || return 1
	for f in "$dir"/*.c; do
		case $f in *_test.c) continue ;; esac
		gcc -c -O0 -w -I. -I"$dir" -o "$d/$(basename "$f" .c).o" "$f" ||
			{ rm -rf "$d"; echo "$f does not compile"; return 1; }
	done
	objects_no_circle "$dir" "$d" || bad=1
	rm -rf "$d"
	return "$bad"
}

# module_no_circle: copybench.ko's parts, built by kbuild (Debian's 6.12
# headers) from a copy of the tracked sources, without a circle.
module_no_circle() {
	local kdir d bad=0
	# shellcheck disable=SC2012 # kernel releases: no odd characters
	kdir=$(ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | head -n 1)
	[ -n "$kdir" ] || { echo "no /usr/src/linux-headers-6.12*-amd64: run scripts/setup"; return 1; }
	d=$(mktemp -d) || return 1
	git ls-files Kbuild VERSION '*.c' '*.h' '*.S' | grep -v / | xargs cp -t "$d" &&
		make -s -C "$kdir" M="$d" modules > "$d/build.log" 2>&1 ||
		{ cat "$d/build.log"; rm -rf "$d"; echo "copybench.ko does not build against $kdir"; return 1; }
	objects_no_circle "copybench.ko" "$d" || bad=1
	rm -rf "$d"
	return "$bad"
}

# The check can fail: two files that call each other are a circle.
no_circle_sees_one() {
	local d out status
	d=$(mktemp -d) || return 1
	printf 'int pong(int n);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n' > "$d/ping.c"
	printf 'int ping(int n);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n' > "$d/pong.c"
	out=$(no_circle "$d")
	status=$?
	rm -rf "$d"
	[ "$status" != 0 ] && [[ $out == *"a circle:"* && $out == *ping* && $out == *pong* ]] ||
		{ echo "ping.c <-> pong.c, status $status: $out"; return 1; }
}
check "the circle check finds two files that call each other" no_circle_sees_one
check "tools/copybench's files depend on each other without a circle" no_circle tools/copybench
check "selftests/readers_src's files depend on each other without a circle" no_circle selftests/readers_src
check "copybench.ko's files depend on each other without a circle" module_no_circle

# helpers_no_circle: the module tests' library (selftests/cb_test_*.c).
helpers_no_circle() {
	local d f bad=0
	d=$(mktemp -d) || return 1
	for f in selftests/cb_test_*.c; do
		gcc -c -O0 -w -I. -Iselftests -o "$d/$(basename "$f" .c).o" "$f" ||
			{ rm -rf "$d"; echo "$f does not compile"; return 1; }
	done
	objects_no_circle "selftests/cb_test_*.c" "$d" || bad=1
	rm -rf "$d"
	return "$bad"
}
check "the module tests' library depends on itself without a circle" helpers_no_circle

# The debug kernel's plan (selftests/vm_plan.sh) names what exists: its
# LOCALVERSION is scripts/debug-kernel.config's, the suites it leaves out are
# in vm-tests/.
debug_plan_exists() {
	local t bad=0
	CB_SELFTESTS=$top/selftests
	. "$CB_SELFTESTS/vm_plan.sh"
	[ -n "$cb_plan_localversion" ] || { echo "no CONFIG_LOCALVERSION in scripts/debug-kernel.config"; bad=1; }
	for t in $CB_DEBUG_NOT_SUITES; do
		[ -x "selftests/vm-tests/$t" ] || { echo "no suite selftests/vm-tests/$t"; bad=1; }
	done
	return "$bad"
}
check "the debug kernel's plan names suites and tests that exist" debug_plan_exists

# A name means one thing across the tree: no C identifier (function,
# variable, macro, struct, union, enum, enumerator, typedef) is defined both
# in the module (the top directory's C files but the headers it shares with
# userspace: copybench.h, copy_variants.h, copy_variants_list.h) and in
# userspace (tools/, lib/, selftests/). Exempt: the X-macro names of
# copybench.h's lists (CB_FILE, CB_KNOB, ...), which each user defines to
# expand the list: that is the lists' protocol.
names_once() {
	local shared='copybench.h|copy_variants.h|copy_variants_list.h' both
	local xmacros='CB_CACHE|CB_DIRECTION|CB_FILE|CB_KNOB|CB_RESULT_KEY|CB_VARIANT'
	command -v ctags > /dev/null || { echo "ctags missing: scripts/setup installs universal-ctags"; return 1; }
	both=$(comm -12 \
		<(git ls-files '*.c' '*.h' | grep -v / | grep -Ev "^($shared)\$" |
		  xargs ctags -x --kinds-C=fvdstegu --_xformat='%N' -o - | sort -u) \
		<(git ls-files 'tools/*.[ch]' 'lib/*.[ch]' 'selftests/*.[ch]' |
		  xargs ctags -x --kinds-C=fvdstegu --_xformat='%N' -o - | sort -u) |
		grep -Ev "^($xmacros)\$")
	# shellcheck disable=SC2086 # the names, on one line
	[ -z "$both" ] || { echo "defined in both the module and userspace:" $both; return 1; }
}
check "no C identifier is defined in both the module and userspace" names_once

# Kernel style, judged by the kernel's own checkpatch.pl (extracted from
# linux-source with the kselftest headers). Each C, header and asm file must
# come out with no error and no warning, except these types:
#   EMBEDDED_FILENAME	every file opens with "name - one line" on purpose
#   MACRO_ARG_UNUSED,	the CB_VARIANT() X-macro expansions each use some
#   TRAILING_SEMICOLON	columns of the list and expand to declarations
# lib/cb_asm_user.h is assembler macros for cpp, which checkpatch reads as C.
checkpatch() {
	local f=$1 ignore=EMBEDDED_FILENAME,MACRO_ARG_UNUSED,TRAILING_SEMICOLON
	# variants_test.c's CB_VARIANT() expands to FIXTURE_VARIANT_ADD()
	# declarations for each listed variant, which checkpatch reads as
	# statements.
	[ "$f" = selftests/variants_test.c ] &&
		ignore=$ignore,MULTISTATEMENT_MACRO_USE_DO_WHILE
	perl "$ksft/scripts/checkpatch.pl" --no-tree --quiet --show-types \
		--ignore "$ignore" -f "$f"
}
# One point per file. The files are judged first in one checkpatch run
# (one perl start instead of one a file: 26 s of CPU instead of 38 s for
# 120 files): when that run is clean, so is each file; otherwise each file
# is judged alone, which names the ones at fault.
checkpatch_all() {
	local f out files=()
	for f in "$@"; do
		[ "$f" = selftests/variants_test.c ] || files+=("$f")
	done
	out=$(perl "$ksft/scripts/checkpatch.pl" --no-tree --quiet --show-types \
		--ignore EMBEDDED_FILENAME,MACRO_ARG_UNUSED,TRAILING_SEMICOLON \
		-f "${files[@]}" 2>&1) && [ -z "$out" ]
}
if [ -f "$ksft/scripts/checkpatch.pl" ]; then
	mapfile -t c_files < <(git ls-files '*.c' '*.h' '*.S' | grep -v '^lib/cb_asm_user\.h$')
	all_clean=0
	checkpatch_all "${c_files[@]}" && all_clean=1
	for f in "${c_files[@]}"; do
		if [ $all_clean -eq 1 ] && [ "$f" != selftests/variants_test.c ]; then
			ktap_test_pass "checkpatch: $f"
		else
			check "checkpatch: $f" checkpatch "$f"
		fi
	done
else
	ktap_test_fail "checkpatch: $ksft/scripts/checkpatch.pl missing (run make ksft-headers)"
fi

# Shell style, judged by shellcheck -x (it follows what a script sources)
# from the top of the tree, with .shellcheckrc's settings: each shell script
# must come out with nothing to say. A shell script is a tracked *.sh file
# or one whose first line is #!/bin/sh, #!/bin/bash or #!/bin/busybox sh.
# Not the recorded job2sh scripts of selftests/lkp/lkp-tests/: lkp-tests'
# job2sh wrote them, and they are kept as it wrote them.
shell_scripts() {
	local f
	while IFS= read -r f; do
		case "$f" in
		selftests/lkp/lkp-tests/*.job2sh) continue ;;
		*.sh) echo "$f"; continue ;;
		esac
		case "$(head -n 1 "$f" 2>/dev/null)" in
		'#!/bin/sh'|'#!/bin/sh '*|'#!/bin/bash'|'#!/bin/bash '*|'#!/bin/busybox sh')
			echo "$f" ;;
		esac
	done < <(git ls-files)
}
shell_style() {
	shellcheck -x -f gcc "$1"
}
if command -v shellcheck >/dev/null; then
	while IFS= read -r f; do
		check "shellcheck: $f" shell_style "$f"
	done < <(shell_scripts)
else
	ktap_test_fail "shellcheck: shellcheck missing (scripts/setup installs it)"
fi

# Python style, judged by pyflakes3 (which parses the file first): each
# Python file must come out with nothing to say. A Python file is a
# tracked *.py file or one whose first line is #!/usr/bin/python3.
python_scripts() {
	local f
	while IFS= read -r f; do
		case "$f" in
		*.py) echo "$f"; continue ;;
		esac
		[ "$(head -n 1 "$f" 2>/dev/null)" != '#!/usr/bin/python3' ] || echo "$f"
	done < <(git ls-files)
}
if command -v pyflakes3 >/dev/null; then
	while IFS= read -r f; do
		check "pyflakes3: $f" pyflakes3 "$f"
	done < <(python_scripts)
else
	ktap_test_fail "pyflakes3: pyflakes3 missing (scripts/setup installs it)"
fi

# The selftests directory also builds as tools/testing/selftests/copybench
# inside a kernel tree, with the kernel's own selftests Makefile.
in_tree_build() {
	local dst=$ksft/tools/testing/selftests/copybench out
	rm -rf "$dst" "$top/build/intree"
	cp -r "$top/selftests" "$dst" || return 1
	out=$top/build/intree
	make -C "$ksft/tools/testing/selftests" TARGETS=copybench CB_TOP="$top" \
		KBUILD_OUTPUT="$out" >"$top/build/intree.log" 2>&1 ||
		{ tail -n 20 "$top/build/intree.log"; return 1; }
	# shellcheck disable=SC2012 # a listing for the log
	[ -x "$out/kselftest/copybench/copybench_test" ] ||
		{ echo "no copybench_test built"; ls -R "$out" | head; return 1; }
}
check "selftests/ builds as a kernel-tree kselftest target" in_tree_build

# make module says which kernel it builds for and why: without headers for
# the running kernel the default is the newest in /lib/modules, a module
# insmod refuses ("Invalid module format") on the running one. The build
# runs in a copy of the tree (its files, as make deb-source copies them):
# kbuild's M= build writes its objects beside the sources, and make check
# builds the module in the tree itself, once per kernel, while this suite
# runs.
module_says_its_kernel() {
	local running want why out log=$top/build/kdir-test.log src=$top/build/kdir-test/src
	running=$(uname -r)
	if [ -d "/lib/modules/$running/build" ]; then
		want=$running why="the running kernel"
	else
		# shellcheck disable=SC2012 # kernel releases: no odd characters
		want=$(basename "$(dirname "$(ls -d /lib/modules/*/build | sort -V | tail -n 1)")")
		why="no headers for the running kernel $running, so the newest in /lib/modules"
	fi
	rm -rf "$top/build/kdir-test"
	mkdir -p "$src" || return 1
	git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$src" || return 1
	make -C "$src" module KO_OUT="$top/build/kdir-test/copybench.ko" >"$log" 2>&1 ||
		{ tail -n 20 "$log"; return 1; }
	[ -s "$top/build/kdir-test/copybench.ko" ] || { echo "no copybench.ko built"; return 1; }
	rm -rf "$top/build/kdir-test"
	grep -Fqx "copybench: building copybench.ko for $want ($why): it loads only on that kernel" "$log" ||
		{ echo "no line naming $want and why in:"; head -n 5 "$log"; return 1; }
	if [ "$want" != "$running" ]; then
		grep -Fq "copybench: not for the running kernel $running: insmod there fails with 'Invalid module format'" "$log" ||
			{ echo "no line saying it is not for $running in:"; head -n 5 "$log"; return 1; }
	fi
	# KDIR given: that kernel, said so (a dry run: the line is the same).
	out=$(make -n -C "$top" module KDIR="/lib/modules/$want/build" 2>&1 | grep '^echo "copybench: building')
	[ "$out" = "echo \"copybench: building copybench.ko for $want (KDIR was given): it loads only on that kernel\"" ] ||
		{ echo "KDIR given: '$out'"; return 1; }
}
check "make module names the kernel it builds for and why" module_says_its_kernel

# The selftests compile without a warning under the hardening flags a
# Debian package build adds (dpkg-buildflags: _FORTIFY_SOURCE, whose
# warn_unused_result read() and write() the plain build never sees). The
# commands, the library and the unit tests are compiled so by the package
# build itself, which deb_test checks.
hardened_no_warning() {
	local f flags out=0
	flags="$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)
	       $(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)"
	echo "flags: $flags"
	for f in $(git ls-files 'selftests/*.c'); do	# selftests/readers_src/ too
		# shellcheck disable=SC2086
		gcc $flags -Wall -Wextra -Wno-unused-parameter -I"$ksft/tools/testing/selftests" \
			-I"$top" -I"$top/tools/copybench" -I"$top/selftests" \
			-I"$top/selftests/readers_src" -pthread \
			-c -o /dev/null "$f" 2>&1 | grep -A3 'warning:' && out=1
	done
	return "$out"
}
if command -v dpkg-buildflags >/dev/null; then
	check "the selftests compile without a warning under Debian's hardening flags" \
		hardened_no_warning
else
	ktap_test_fail "dpkg-buildflags missing (dpkg-dev): hardening flags not checked"
fi

# The commit rule of HACKING.md ("Commits") for every commit made after
# 1df543c (committed 2026-12-06 16:59:01 UTC), the last before it was
# written: a subject of at most 72 characters, "area: summary", and a body.
# By date, so a shallow clone checks what it holds.
commits_follow_the_rule() {
	local h subject bad=0
	while IFS= read -r h; do
		subject=$(git log -1 --format=%s "$h")
		if [ ${#subject} -gt 72 ]; then
			echo "$h: subject of ${#subject} characters (at most 72): $subject"
			bad=1
		fi
		if ! [[ $subject =~ ^[A-Za-z0-9_./+-]+(,\ [A-Za-z0-9_./+-]+)*:\ [^\ ] ]]; then
			echo "$h: subject not \"area: summary\": $subject"
			bad=1
		fi
		if [ -z "$(git log -1 --format=%b "$h" | tr -d '[:space:]')" ]; then
			echo "$h: no body (why, what was measured, the failure it fixes)"
			bad=1
		fi
	done < <(git rev-list --no-merges --since=@1796576342 HEAD)
	return "$bad"
}
check "commits since the rule follow HACKING.md's: area: summary, <= 72, a body" \
	commits_follow_the_rule

# The areas of HACKING.md's list ("Commits"), for every commit since it
# was made (2026-12-07 21:30 UTC): each area of a subject is one of them.
commit_areas_are_listed() {
	local h subject area bad=0 areas
	# shellcheck disable=SC2016 # Markdown's backquotes, not the shell's
	areas=$(sed -n '/^## Commits/,$p' HACKING.md | sed -n 's/^- `\([^`]*\)`: .*/\1/p')
	[ -n "$areas" ] || { echo "HACKING.md's \"Commits\" lists no area"; return 1; }
	while IFS= read -r h; do
		subject=$(git log -1 --format=%s "$h")
		while IFS= read -r area; do
			grep -qxF -- "$area" <<<"$areas" ||
				{ echo "$h: area '$area' is not in HACKING.md's list: $subject"; bad=1; }
		done < <(sed -e 's/: .*//' -e 's/, /\n/g' <<<"$subject")
	done < <(git rev-list --no-merges --since=@1796679000 HEAD)
	echo "$(wc -l <<<"$areas") areas"
	return "$bad"
}
check "commits since the list of areas use an area of HACKING.md's" commit_areas_are_listed

ktap_end
