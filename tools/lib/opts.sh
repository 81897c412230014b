# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# opts.sh - the option loop of copybench's shell tools: long options parsed
# from a declarative table, one error for every bad option, named, with
# what is accepted. Sourced by the tools in tools/ and scripts/ that take
# options ("grep -l lib/opts.sh tools/* scripts/*" lists them); tested by
# selftests/opts_test.sh.
#
# The table, a string: one option a line, fields separated by blanks, '#'
# lines and empty lines ignored:
#   NAMES     --name, or its spellings joined by '|' (-h|--help)
#   VALUE     what the option takes, as its help says it (N, DIR), or '-'
#             for none
#   TARGET    VAR: set to the value, or to 1 for an option without one;
#             VAR=WORD: set to WORD (an option without a value: a mode);
#             VAR[]: the value appended to array VAR (a repeatable option);
#             @FUNC: FUNC OPTION [VALUE] is called instead (--help)
#   CHECK     '-' for none; FUNC or FUNC:ARG:...: FUNC OPTION VALUE ARG...
#             is called in this shell, once TARGET is set (status 0:
#             accepted; it may instead call opts_bad with words of its
#             own, or normalize TARGET);
#             anything else: the accepted values, joined by '|'
#             (auto|kvm|tcg), refused with "invalid OPTION 'VALUE'
#             (accepted: auto, kvm, tcg)"
#   SYNOPSIS  the rest of the line: the option as the list of accepted
#             options in an error names it (--jobs N); default its last
#             spelling
# Every option is given as "--name value", "--name=value" or, without a
# value, "--name"; a later one overrides an earlier one (VAR[] appends).
#
# Settings, variables the tool sets before opts_parse:
#   opts_me       the tool's name, the prefix of every message (required)
#   opts_status   the exit status of a bad option (default 2)
#   opts_hint     a line after the message (e.g. "Try 'tools/vm-run --help'.")
#   opts_operands what a word that is no option is:
#                   none   refused as an unknown option (the default)
#                   first  the first operand: options end there
#                   any    an operand, anywhere among the options
#   opts_dashdash 1: "--" ends the options (always so with "first")
#   opts_also     appended to the list of accepted options (", -- OPTIONS")
#   opts_defer    1: opts_parse checks no value; opts_check does, later
#   opts_no_dash  1: a value may not look like an option (-x, --x) when
#                 given as the next word
#   opts_needs    format of "needs a value" (default "option '%s' needs
#                 a value"); opts_needs_for[OPTION] one option's message
#   opts_from[OPTION]  where OPTION's value comes from when it is not
#                 given (COPYBENCH_VM_TIMEOUT): what opts_check names
#
# Gives (bash; set -eu safe; sourcing only sets the defaults above):
#   opts_parse TABLE ARGS...
#       sets the targets from ARGS; the operands left (after "--", or from
#       the first operand on, or collected) in array opts_args; a bad
#       option: opts_bad (no target was used yet: the tool changed nothing)
#   opts_check TABLE [OPTION...]
#       with opts_defer: each OPTION's check (default: every option's, in
#       the table's order) on its target's value now (each element of an
#       array), the option named as given or by opts_from
#   opts_given OPTION
#       status 0 when OPTION (its last spelling: --help for -h) was given
#   opts_bad MESSAGE
#       "opts_me: MESSAGE" and opts_hint on stderr, exit opts_status

opts_me=${opts_me:-}
opts_status=${opts_status:-2}
opts_hint=${opts_hint:-}
opts_operands=${opts_operands:-none}
opts_dashdash=${opts_dashdash:-0}
opts_also=${opts_also:-}
opts_defer=${opts_defer:-0}
opts_no_dash=${opts_no_dash:-0}
opts_needs=${opts_needs:-"option '%s' needs a value"}
declare -gA opts_needs_for opts_from
opts_args=()
opts_given_list=' '
_opts_names='' _opts_value='' _opts_target='' _opts_check='' _opts_synopsis=''

opts_bad() {
	echo "$opts_me: $1" >&2
	[ -z "$opts_hint" ] || echo "$opts_hint" >&2
	exit "$opts_status"
}

opts_given() {
	[[ $opts_given_list == *" $1 "* ]]
}

# _opts_find TABLE WORD: the table's line for option WORD in _opts_line
# (its fields in _opts_names ... _opts_synopsis); status 1 when none.
_opts_find() {
	local line n
	while read -r line; do
		case "$line" in '#'*|'') continue ;; esac
		read -r _opts_names _opts_value _opts_target _opts_check _opts_synopsis <<<"$line"
		for n in ${_opts_names//|/ }; do
			[ "$n" = "$2" ] && return 0
		done
	done <<<"$1"
	return 1
}

# _opts_accepted TABLE: the list of accepted options, for an error.
_opts_accepted() {
	local line names value target check synopsis list=
	while read -r line; do
		case "$line" in '#'*|'') continue ;; esac
		read -r names value target check synopsis <<<"$line"
		[ -n "$synopsis" ] || synopsis=${names##*|}
		list+="${list:+, }$synopsis"
	done <<<"$1"
	echo "$list$opts_also"
}

# _opts_check_value OPTION NAMED CHECK VALUE: CHECK (a table's field) on
# VALUE; errors name NAMED.
_opts_check_value() {
	local opt=$1 named=$2 check=$3 value=$4 fn args a
	[ "$check" != - ] || return 0
	IFS=: read -r -a args <<<"$check"
	fn=${args[0]}
	if declare -F "$fn" >/dev/null; then
		"$fn" "$named" "$value" "${args[@]:1}" && return 0
		opts_bad "invalid $named '$value'"
	fi
	IFS='|' read -r -a args <<<"$check"
	for a in "${args[@]}"; do
		[ "$value" != "$a" ] || return 0
	done
	opts_bad "invalid $named '$value' (accepted: ${check//|/, })"
}

# _opts_set TARGET OPTION [VALUE]: what the table's TARGET does.
_opts_set() {
	local target=$1 opt=$2
	case "$target" in
	@*) "${target#@}" "$opt" "${@:3}" ;;
	*'[]') eval "${target%'[]'}+=(\"\$3\")" ;;
	*=*) printf -v "${target%%=*}" '%s' "${target#*=}" ;;
	*) if [ $# -ge 3 ]; then printf -v "$target" '%s' "$3"; else printf -v "$target" 1; fi ;;
	esac
}

opts_parse() {
	local table=$1 word opt value has_value
	shift
	opts_args=()
	opts_given_list=' '
	while [ $# -gt 0 ]; do
		word=$1
		if [ "$word" = -- ] && { [ "$opts_dashdash" = 1 ] || [ "$opts_operands" = first ]; }; then
			shift
			opts_args+=("$@")
			return 0
		fi
		case "$word" in
		-*) ;;
		*)
			case "$opts_operands" in
			first) opts_args+=("$@"); return 0 ;;
			any) opts_args+=("$word"); shift; continue ;;
			esac ;;
		esac
		opt=$word
		has_value=0
		case "$word" in
		--?*=*) opt=${word%%=*}; value=${word#*=}; has_value=1 ;;
		esac
		_opts_find "$table" "$opt" ||
			opts_bad "unknown option '$word' (accepted: $(_opts_accepted "$table"))"
		shift
		if [ "$_opts_value" = - ]; then
			[ $has_value = 0 ] || opts_bad "option '$opt' takes no value"
			opts_given_list+="${_opts_names##*|} "
			_opts_set "$_opts_target" "$opt"
			continue
		fi
		if [ $has_value = 0 ]; then
			if [ $# -eq 0 ]; then
				# shellcheck disable=SC2059 # the format is the tool's
				opts_bad "${opts_needs_for[$opt]:-$(printf "$opts_needs" "$opt")}"
			fi
			value=$1
			shift
			if [ "$opts_no_dash" = 1 ]; then
				case "$value" in
				-[a-zA-Z-]*) opts_bad "option '$opt' needs a value, but '$value' follows it" ;;
				esac
			fi
		fi
		opts_given_list+="${_opts_names##*|} "
		_opts_set "$_opts_target" "$opt" "$value"
		[ "$opts_defer" = 1 ] || _opts_check_value "$opt" "$opt" "$_opts_check" "$value"
	done
}

opts_check() {
	local table=$1 opt named target line names value check synopsis v
	local -a opts=() values
	shift
	if [ $# -gt 0 ]; then
		opts=("$@")
	else
		while read -r line; do
			case "$line" in '#'*|'') continue ;; esac
			read -r names value target check synopsis <<<"$line"
			[ "$check" = - ] || opts+=("${names##*|}")
		done <<<"$table"
	fi
	for opt in "${opts[@]}"; do
		_opts_find "$table" "$opt" || opts_bad "opts_check: no option $opt in the table"
		case "$_opts_target" in @*|*=*) continue ;; esac
		target=${_opts_target%'[]'}
		named=$opt
		opts_given "$opt" || named=${opts_from[$opt]:-$opt}
		[ -n "${!target+set}" ] || continue
		if [ "$target" != "$_opts_target" ]; then
			eval "values=(\${${target}[@]+\"\${${target}[@]}\"})"
		else
			values=("${!target}")
		fi
		for v in ${values[@]+"${values[@]}"}; do
			_opts_check_value "$opt" "$named" "$_opts_check" "$v"
		done
	done
}
