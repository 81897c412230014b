#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copybench_limits.sh - the in-VM hook (selftests/vm-tests/, run by
# vm-suite.sh with copybench.ko loaded) for build/selftests/copybench_limits_test,
# the module's bounds: time, CPUs, memory cgroups, mappings
# (selftests/copybench_limits_test.c). Its TAP is the harness's own; without
# the binary, one failing test point says to build it.
#
# Usage: selftests/vm-tests/copybench_limits.sh     (root, in the VM)

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$top/build/selftests/copybench_limits_test
CB_SELFTESTS=$top/selftests
if [ ! -x "$bin" ]; then
	# shellcheck source=SCRIPTDIR/../ktap.sh
	. "$CB_SELFTESTS/ktap.sh"
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$bin is built (run 'make selftests')"
	ktap_finished
fi
exec "$bin"
