#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# man_test.sh - make man (scripts/mkman) writes a page per command and per
# subcommand of copybench, complete and warning-free, from the commands'
# own --help; a subcommand added to the table gets its page with no edit.
#
# Usage: selftests/man_test.sh      (after make copybench readers)
#
# Checks, on the pages make man writes to build/man/: copybench(1), one
# copybench-NAME(1) per line of "copybench --list-cmds", readers(1),
# copybench-bisect-kernel(1) and copybench-vm-run(1) (tools/bisect-kernel
# and tools/vm-run as installed); each
# renders with man --warnings and no warning; each has a SYNOPSIS, the
# "Usage:" line of its --help; each subcommand's page has every option its
# --help lists, as typed; copybench(1) links every subcommand's page
# (bisect-run and help too); SEE ALSO names the documentation where the
# package puts it and nothing speaks of the source tree. Then mkman on a
# copybench with one more subcommand (a wrapper script) makes that page;
# mkman refuses bad usage (exit 2) and a help without "Usage:" (exit 1)
# and writes nothing then. Needs help2man and man-db. Prints TAP; exit 0
# pass, 1 fail.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
. "$CB_SELFTESTS/ktap.sh"
cd "$top" || exit 1

CB=$top/build/copybench
man_dir=$top/build/man
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$CB_SELFTESTS/check_lib.sh"
check_logs=$tmp

ktap_print_header

# render PAGE: the page as a reader sees it; the warnings on stderr.
render() {
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$1"
}

check "make man writes the pages" make -s man

subs=()
while IFS=$'\t' read -r name _; do
	subs+=("$name")
done < <("$CB" --list-cmds)
ktap_print_msg "subcommands: ${subs[*]}"
[ ${#subs[@]} -gt 0 ] || ktap_test_fail "copybench --list-cmds lists the subcommands"

pages_all() {
	local p want=(copybench readers copybench-bisect-kernel copybench-vm-run)
	for p in "${subs[@]}"; do
		want+=("copybench-$p")
	done
	for p in "${want[@]}"; do
		[ -s "$man_dir/$p.1" ] || { echo "no $p.1"; return 1; }
	done
	# shellcheck disable=SC2012 # the pages' names: NAME.1
	[ "$(ls "$man_dir" | wc -l)" = ${#want[@]} ] ||
		{ echo "pages: $(ls "$man_dir" | tr '\n' ' '), want ${want[*]}"; return 1; }
}
check "a page per command and per subcommand (${#subs[@]})" pages_all

no_warnings() {
	local p bad=0
	for p in "$man_dir"/*.1; do
		render "$p" >"$tmp/$(basename "$p").txt" 2>"$tmp/warn" || { echo "$p: man failed"; bad=1; }
		[ -s "$tmp/warn" ] && { echo "$(basename "$p"):"; cat "$tmp/warn"; bad=1; }
	done
	return "$bad"
}
check "every page renders with man --warnings and no warning" no_warnings

# synopsis PAGE HELP...: the page's SYNOPSIS is the help's "Usage:" line
# (and its "or:" lines).
synopsis_ok() {
	local page=$1 usage got
	shift
	usage=$("$@" | sed -n 's/^Usage: //p; s/^ *or: //p' | tr -s ' \n' ' ' | sed 's/ $//')
	got=$(awk '/^SYNOPSIS/ { s = 1; next } s && /^[A-Z]/ { exit } s' \
		"$tmp/$page.1.txt" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
	[ -n "$usage" ] && [ "$got" = "$usage" ] && return 0
	echo "$page: SYNOPSIS '$got', Usage: '$usage'"
	return 1
}
synopses() {
	local s bad=0
	synopsis_ok copybench "$CB" --help || bad=1
	synopsis_ok readers build/readers --help || bad=1
	synopsis_ok copybench-bisect-kernel build/copybench-bisect-kernel --help || bad=1
	synopsis_ok copybench-vm-run build/copybench-vm-run --help || bad=1
	for s in "${subs[@]}"; do
		synopsis_ok "copybench-$s" "$CB" "$s" --help || bad=1
	done
	return "$bad"
}
check "every page's SYNOPSIS is its --help's Usage: line" synopses

options_all() {
	local s opt n=0 bad=0
	for s in "${subs[@]}"; do
		for opt in $("$CB" "$s" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
			     grep -oE -- '--[a-z][a-z0-9-]*'); do
			n=$((n + 1))
			grep -qF -- "$opt" "$tmp/copybench-$s.1.txt" ||
				{ echo "copybench-$s(1) lacks $opt"; bad=1; }
		done
	done
	for s in readers copybench-bisect-kernel copybench-vm-run; do
		for opt in $("build/$s" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
			     grep -oE -- '--[a-z][a-z0-9-]*'); do
			n=$((n + 1))
			grep -qF -- "$opt" "$tmp/$s.1.txt" || { echo "$s(1) lacks $opt"; bad=1; }
		done
	done
	echo "$n options"
	[ "$n" -gt 0 ] && return "$bad"
}
check "every option of every --help is in its page, as typed" options_all

links_all() {
	local s bad=0
	for s in "${subs[@]}"; do
		grep -q "^ *copybench-$s(1)\$" "$tmp/copybench.1.txt" ||
			{ echo "copybench(1) has no entry copybench-$s(1)"; bad=1; }
	done
	return "$bad"
}
check "copybench(1) has an entry linking each subcommand's page, bisect-run and help included" \
	links_all

see_also() {
	local p
	for p in "$tmp"/*.1.txt; do
		awk '/^SEE ALSO/ { s = 1 } s' "$p" | tr -s ' \n' ' ' >"$tmp/see"
		grep -q "/share/doc/copybench/html/index.html" "$tmp/see" ||
			{ echo "$(basename "$p" .txt): SEE ALSO without the HTML"; return 1; }
		case $(basename "$p") in
		copybench-*) grep -q "copybench(1)" "$tmp/see" ||
				{ echo "$(basename "$p" .txt): SEE ALSO without copybench(1)"; return 1; } ;;
		esac
	done
	if grep -n -i -e 'make check' -e 'Documentation/' -e 'the tree' "$tmp"/*.1.txt; then
		echo "a page speaks of the source tree"
		return 1
	fi
}
check "SEE ALSO names the installed docs; no page speaks of the tree" see_also

# A subcommand added to the table: a copybench whose table has one more
# entry, "bisect-kernel", with its own --help.
cat >"$tmp/copybench" <<EOF
#!/bin/bash
case "\$1 \${2:-}" in
"--list-cmds ") "$CB" --list-cmds; printf 'bisect-kernel\tbuild, boot and measure one kernel\n' ;;
"--help ") "$CB" --help | sed 's/^  help  /  bisect-kernel  build, boot and measure one kernel\n  help  /' ;;
"bisect-kernel --help") printf 'Usage: copybench bisect-kernel --tree DIR [OPTIONS]\n\nBuilds.\n\nOptions:\n      --tree DIR    the kernel tree\n      --jobs N      make -j\n' ;;
*) exec "$CB" "\$@" ;;
esac
EOF
chmod +x "$tmp/copybench"
new_subcommand() {
	scripts/mkman --out "$tmp/new" --version 1 "$tmp/copybench" "x" || return 1
	ls "$tmp/new"
	render "$tmp/new/copybench-bisect-kernel.1" >"$tmp/bk.txt" 2>&1 &&
	grep -q -- "--tree DIR" "$tmp/bk.txt" && grep -q -- "--jobs N" "$tmp/bk.txt" &&
	grep -q "copybench bisect-kernel --tree DIR" "$tmp/bk.txt" &&
	render "$tmp/new/copybench.1" | grep -q "^ *copybench-bisect-kernel(1)\$"
}
check "a subcommand added to the table gets its page and its entry, no edit" new_subcommand

bad_usage() {
	local rc
	mkdir -p "$tmp/keep" && echo old >"$tmp/keep/x.1"
	scripts/mkman --out "$tmp/keep" --bogus 2>"$tmp/err"; rc=$?
	cat "$tmp/err"
	[ "$rc" = 2 ] && grep -q -- "--bogus" "$tmp/err" || return 1
	scripts/mkman --out "$tmp/keep" "$CB" 2>"$tmp/err"; rc=$?
	cat "$tmp/err"
	[ "$rc" = 2 ] || return 1
	# A help without "Usage:" (its SYNOPSIS would be missing): exit 1, and
	# the page of the good command before it is not written either.
	printf '#!/bin/sh\necho "usage: lower case"\n' >"$tmp/nousage" && chmod +x "$tmp/nousage"
	scripts/mkman --out "$tmp/keep" --version 1 "$CB" x "$tmp/nousage" y 2>"$tmp/err"; rc=$?
	cat "$tmp/err"
	[ "$rc" = 1 ] && grep -q "Usage:" "$tmp/err" || return 1
	[ "$(ls "$tmp/keep")" = x.1 ] || { echo "written: $(ls "$tmp/keep")"; return 1; }
}
check "mkman: bad usage exit 2, a help without Usage: exit 1, nothing written" bad_usage

help_help() {
	"$CB" help --help | grep -q "^Usage: copybench help \[SUBCOMMAND\]" &&
	"$CB" help help | grep -q "^Usage: copybench help" || return 1
	"$CB" help sweep plot 2>"$tmp/err"
	[ $? = 2 ] && grep -q "'plot'" "$tmp/err"
}
check "copybench help --help is help's own; help with two subcommands: exit 2" help_help

ktap_end
