# SPDX-License-Identifier: GPL-2.0
#
# check_lib.sh - one TAP test point from one command, for the shell tests
# of builds and tools (dkms_test.sh, deb_test.sh, lkp_test.sh).
#
# Usage, after sourcing selftests/ktap.sh:
#	. "$CB_SELFTESTS/check_lib.sh"
#	check_logs=DIR				(where outputs go; set it first)
#	check "what it checks" command args...
# The command's stdout and stderr go to $check_logs/<test number>.log; it
# passes when the command exits 0, else the log's last 25 lines become "# "
# diagnostics. check returns the command's status. (ktap_test_result would
# split the arguments and let the command's output into the TAP stream.)

# shellcheck shell=bash
check() {
	# shellcheck disable=SC2154 # check_logs: the sourcing script sets it
	local name=$1 log=$check_logs/$KTAP_TESTNO.log
	shift
	if "$@" >"$log" 2>&1; then
		ktap_test_pass "$name"
		return 0
	fi
	tail -n 25 "$log" | sed 's/^/# /'
	ktap_test_fail "$name"
	return 1
}
