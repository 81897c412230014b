#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# opts_test.sh - tests of tools/lib/opts.sh, the option loop the shell
# tools share: what a table accepts and how each bad option is refused
# (unknown, a value missing or given to an option that takes none, a value
# not accepted, refused by a check), --opt=value beside --opt value, "--",
# operands, repeated options, deferred checks; then the words of the tools
# that use it, for bad options (no VM boots, nothing runs).
#
# Usage: selftests/opts_test.sh
#
# TAP through the kernel's ktap_helpers.sh ('make ksft-headers' first). No
# root, no VM; a few seconds.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CB_SELFTESTS=$top/selftests
# shellcheck source=SCRIPTDIR/ktap.sh
. "$CB_SELFTESTS/ktap.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# A tool of the library's own: its table, settings from $SETTINGS (shell
# text), then its options parsed and its variables printed.
cat >"$tmp/tool" <<'EOF'
#!/bin/bash
set -u
. "$OPTS_LIB"
table='
# NAMES		VALUE	TARGET		CHECK			SYNOPSIS
--name		NAME	name		-
--count		N	count		is_count:1:9		--count N
--mode		MODE	mode		fast|slow|auto
--share		DIR	shares[]	-
--flag		-	flag		-
--quiet		-	level=quiet	-
--even		N	even		is_even
-h|--help	-	@show_help	-
'
is_count() { [[ $2 =~ ^[0-9]$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; }
is_even() { [[ $2 =~ ^[0-9]*[02468]$ ]] || opts_bad "invalid $1 '$2': odd (accepted: an even number)"; }
show_help() { echo "help called as $1"; exit 0; }
name=default count=1 mode=auto flag=0 level=loud even=2
shares=()
opts_me=tool
eval "${SETTINGS:-}"
opts_parse "$table" "$@"
[ "$opts_defer" = 1 ] && opts_check "$table" ${CHECK_ORDER:-}
echo "name=$name count=$count mode=$mode flag=$flag level=$level even=$even"
echo "shares=${shares[*]+${shares[*]}} (${#shares[@]})"
echo "args=${opts_args[*]+${opts_args[*]}} (${#opts_args[@]})"
for o in --name --count --flag --help; do opts_given "$o" && echo "given $o"; done
echo "ran on"
EOF
chmod +x "$tmp/tool"
export OPTS_LIB=$top/tools/lib/opts.sh

# case NAME STATUS WANT [SETTINGS] -- ARGS...: the tool run with ARGS (and
# SETTINGS) exits STATUS and prints WANT, stdout then stderr, exactly.
case_() {
	local name=$1 want_status=$2 want=$3 settings='' got status
	shift 3
	if [ "$1" != -- ]; then
		settings=$1
		shift
	fi
	shift
	got=$(SETTINGS=$settings "$tmp/tool" "$@" 2>&1)
	status=$?
	if [ "$status" = "$want_status" ] && [ "$got" = "$want" ]; then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "args: $*" "status $status, want $want_status; got:" "$got" \
			"want:" "$want"
	fi
}

defaults_out() {
	printf '%s\n' "name=${1:-default} count=${2:-1} mode=auto flag=0 level=loud even=2" \
		"shares= (0)" "args=${3:-} (${4:-0})"
}

ktap_print_header

accepted="--name, --count N, --mode, --share, --flag, --quiet, --even, --help"
case_ unknown_option_is_named_with_the_accepted_ones 2 \
	"tool: unknown option '--bogus' (accepted: $accepted)" -- --name x --bogus
case_ unknown_option_after_a_good_one_changes_nothing 2 \
	"tool: unknown option '-x' (accepted: $accepted)" -- --flag -x
case_ a_lone_dash_is_an_unknown_option 2 \
	"tool: unknown option '-' (accepted: $accepted)" -- -
case_ an_operand_is_refused_by_default 2 \
	"tool: unknown option 'word' (accepted: $accepted)" -- word
case_ double_dash_is_unknown_unless_the_tool_takes_it 2 \
	"tool: unknown option '--' (accepted: $accepted, -- ARGS)" "opts_also=', -- ARGS'" -- --
case_ missing_value_is_named 2 "tool: option '--count' needs a value" -- --flag --count
case_ missing_value_in_the_tools_words 2 "tool: option '--name' needs a value (see --help)" \
	"opts_needs=\"option '%s' needs a value (see --help)\"" -- --name
case_ missing_value_in_the_options_own_words 2 "tool: --mode needs fast, slow or auto" \
	"opts_needs_for[--mode]='--mode needs fast, slow or auto'" -- --mode
case_ value_given_to_an_option_without_one 2 "tool: option '--flag' takes no value" -- --flag=1
case_ value_not_among_the_accepted 2 \
	"tool: invalid --mode 'quick' (accepted: fast, slow, auto)" -- --mode quick
case_ value_not_among_the_accepted_with_equals 2 \
	"tool: invalid --mode '' (accepted: fast, slow, auto)" -- --mode=
case_ value_is_one_accepted_value_whole 2 \
	"tool: invalid --mode 'fast|slow' (accepted: fast, slow, auto)" -- --mode 'fast|slow'
case_ value_refused_by_its_check 2 "tool: invalid --count '10'" -- --count 10
case_ value_refused_by_its_check_in_its_own_words 2 \
	"tool: invalid --even '3': odd (accepted: an even number)" -- --even 3
case_ status_and_hint_are_the_tools 125 \
	"$(printf '%s\n' "tool: option '--count' needs a value" "Try 'tool --help'.")" \
	"opts_status=125 opts_hint=\"Try 'tool --help'.\"" -- --count
case_ a_value_that_looks_like_an_option_is_refused_when_asked 2 \
	"tool: option '--name' needs a value, but '--flag' follows it" "opts_no_dash=1" -- --name --flag
case_ a_value_that_looks_like_an_option_is_taken_by_default 0 \
	"$(defaults_out --flag; echo "given --name"; echo "ran on")" -- --name --flag

case_ opt_value_and_opt_equals_value_are_the_same 0 \
	"$(printf '%s\n' "name=a=b count=3 mode=slow flag=1 level=quiet even=2" "shares= (0)" "args= (0)" \
		"given --name" "given --count" "given --flag" "ran on")" \
	-- --name=a=b --count 3 --mode=slow --flag --quiet
case_ repeated_options_the_last_wins_arrays_append 0 \
	"$(printf '%s\n' "name=two count=1 mode=fast flag=0 level=loud even=2" "shares=/a /b /a (3)" \
		"args= (0)" "given --name" "ran on")" \
	-- --name one --share /a --mode slow --share=/b --name two --mode fast --share /a
case_ repeated_options_each_value_is_checked 2 \
	"tool: invalid --mode 'x' (accepted: fast, slow, auto)" -- --mode fast --mode x --mode slow
case_ double_dash_ends_the_options 0 "$(defaults_out x 1 "--count 0 y" 3; echo "given --name"; echo "ran on")" \
	"opts_dashdash=1" -- --name x -- --count 0 y
case_ the_first_operand_ends_the_options 0 \
	"$(defaults_out default 1 "cmd --count 0" 3; echo "ran on")" "opts_operands=first" -- cmd --count 0
case_ double_dash_ends_them_too_with_first 0 \
	"$(defaults_out default 1 "-- x" 2; echo "ran on")" "opts_operands=first" -- -- -- x
case_ operands_anywhere_with_any 0 \
	"$(defaults_out n 1 "a b" 2; echo "given --name"; echo "ran on")" "opts_operands=any" -- a --name n b
case_ a_function_target_is_called_with_the_spelling 0 "help called as -h" -- --flag -h --bogus

case_ deferred_checks_run_in_the_table_order 2 \
	"tool: invalid --count '0'" "opts_defer=1" -- --mode x --count 0
case_ deferred_checks_in_the_order_asked 2 \
	"tool: invalid --mode 'x' (accepted: fast, slow, auto)" "opts_defer=1 CHECK_ORDER='--mode --count'" \
	-- --count 0 --mode x
case_ deferred_checks_name_where_a_default_came_from 2 \
	"tool: invalid TOOL_MODE 'x' (accepted: fast, slow, auto)" \
	"opts_defer=1 mode=x; opts_from[--mode]=TOOL_MODE" --
case_ deferred_checks_name_the_option_once_given 2 \
	"tool: invalid --mode 'y' (accepted: fast, slow, auto)" \
	"opts_defer=1 mode=x; opts_from[--mode]=TOOL_MODE" -- --mode y
case_ deferred_parse_still_refuses_unknown_options_first 2 \
	"tool: unknown option '--bogus' (accepted: $accepted)" "opts_defer=1" -- --count 0 --bogus

# The tools that parse their options with the library: their words for bad
# options, and their status. No VM boots, nothing is built or measured.
# tool_case NAME STATUS WANT-STDERR COMMAND...
tool_case() {
	local name=$1 want_status=$2 want=$3 got status
	shift 3
	got=$(cd "$tmp" && "$@" 2>&1 >/dev/null </dev/null)
	status=$?
	if [ "$status" = "$want_status" ] && [ "$got" = "$want" ]; then
		ktap_test_pass "$name"
	else
		ktap_fail_why "$name" "command: $*" "status $status, want $want_status; got:" "$got" \
			"want:" "$want"
	fi
}
vmrun=$top/tools/vm-run
try="Try 'tools/vm-run --help'."
tool_case vm-run_unknown_option 125 \
	"vm-run: unknown option '--frobnicate' (accepted: --kernel, --modules, --kernel-tree, --cpus, --mem, --timeout, --accel, --append, --share, --keep-log, --resolve, --help)
$try" "$vmrun" --frobnicate -- true
tool_case vm-run_missing_value 125 "vm-run: option '--kernel' needs a value
$try" "$vmrun" --kernel
tool_case vm-run_flag_with_a_value 125 "vm-run: option '--keep-log' takes no value
$try" "$vmrun" --keep-log=1 true
tool_case vm-run_bad_accel_from_the_environment 125 \
	"vm-run: invalid COPYBENCH_VM_ACCEL 'xen' (accepted: auto, kvm, tcg)
$try" env COPYBENCH_VM_ACCEL=xen "$vmrun" true
tool_case vm-run_bad_cpus_before_bad_mem 125 \
	"vm-run: invalid --cpus '0' (accepted: an integer from 1 to 64)
$try" "$vmrun" --mem 1M --cpus=0 true
tool_case vm-run_no_command 125 \
	"vm-run: no command given (tools/vm-run [OPTIONS] [--] COMMAND [ARGS...])
$try" "$vmrun" --cpus 2 --
tool_case kernel-cache_bad_jobs 2 "kernel-cache: invalid --jobs '0' (accepted: an integer from 1 to 256)
Try 'scripts/kernel-cache --help'." "$top/scripts/kernel-cache" debug --jobs=0 --path
tool_case compare-validate_missing_value 2 \
	"compare-validate: option '--pairs' needs a value (see --help)" \
	env COPYBENCH=/nonexistent "$top/tools/compare-validate" --pairs
tool_case precision_bad_variants 2 \
	"precision: invalid --variants 'movsb,x': unknown 'x' (accepted: movsb, native, comma-separated)" \
	"$top/tools/precision" --variants movsb,x
tool_case bench_value_that_is_an_option 2 \
	"bench: option '--repeat' needs a value, but '--json' follows it
Try 'scripts/bench --help' for the options." "$top/scripts/bench" --repeat --json
tool_case setup_unknown_profile 2 "setup: unknown profile 'x' (accepted: check, bench)" \
	"$top/scripts/setup" --for=x --check
tool_case lkp-tests-check_missing_commit 2 "lkp-tests-check: --commit needs a SHA" \
	"$top/scripts/lkp-tests-check" --record --commit
ktap_end
