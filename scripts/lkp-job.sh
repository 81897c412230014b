# SPDX-License-Identifier: GPL-2.0
#
# lkp-job.sh - run the test of a job lkp-tests' sbin/job2sh wrote, as its
# run_job function does but without the monitors: scripts/lkp-tests-check
# runs its short job so through a real lkp-tests tree, and
# selftests/lkp_test.sh replays the recorded one with an LKP_SRC of its own.
#
# Usage, with LKP_SRC and the variables run-test reads exported (TMP,
# RESULT_ROOT, TMP_RESULT_ROOT, BENCHMARK_ROOT):
#	. scripts/lkp-job.sh
#	lkp_job_test DIR	(DIR holds job.sh; runs there, in a subshell)

# shellcheck shell=bash
lkp_job_test()
(
	cd "$1" || exit 1
	# job.sh ends with "$@": lkp-tests runs it with the function to call
	# as its argument (bin/run-lkp: job.sh run_job). Sourced for its
	# functions, it must see no arguments, or it runs them: this
	# function's would make it run DIR ("DIR: Is a directory" on stderr).
	set --
	# shellcheck source=/dev/null # job2sh's output
	. ./job.sh
	export_top_env
	# shellcheck source=/dev/null # lkp-tests' file, not in this tree
	. "$LKP_SRC/lib/job.sh"
	# shellcheck source=/dev/null # lkp-tests' file, not in this tree
	. "$LKP_SRC/lib/env.sh"
	eval "$(grep -E '^[[:space:]]+run_test ' job.sh)"
)
