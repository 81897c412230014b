#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# bisect_kernel_unit_test.py - the unit tests of tools/bisect-kernel's parts
# (tools/bisect_kernel/test_*.py: options, state, trace, report, guest,
# bisect and the command line), natively, without a kernel or a VM, in
# seconds; TAP 13 as the other suites print it, one test point a test.
#
# Usage: selftests/bisect_kernel_unit_test.py [-v]   (-v: each test's name
#        on stderr as it runs)
# Exit 0 pass, 1 fail.

import os
import sys
import unittest

TOOLS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))), 'tools')


class TapResult(unittest.TestResult):
    """Each test as a TAP line: ok N NAME, or not ok N NAME and its
    traceback as '# ' lines."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def point(self, test, ok, why=''):
        self.n += 1
        name = test.id().replace('bisect_kernel.', '', 1)
        print('%s %d %s' % ('ok' if ok else 'not ok', self.n, name))
        for line in why.rstrip('\n').split('\n') if why else []:
            print('# ' + line)
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.point(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.point(test, False, self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.point(test, False, self.errors[-1][1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.n += 1
        print('ok %d %s # SKIP %s' % (self.n, test.id(), reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.point(test, False, 'expected failure: not allowed here')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.point(test, False, 'unexpected success')


def main():
    sys.dont_write_bytecode = True
    sys.path.insert(0, TOOLS)
    os.environ.pop('COPYBENCH_TOP', None)
    suite = unittest.defaultTestLoader.discover(
        os.path.join(TOOLS, 'bisect_kernel'), pattern='test_*.py',
        top_level_dir=TOOLS)
    print('TAP version 13')
    result = TapResult()
    if '-v' in sys.argv[1:]:
        result.startTest = lambda t: (print(t.id(), file=sys.stderr),
                                      unittest.TestResult.startTest(result, t))
    suite.run(result)
    failed = len(result.failures) + len(result.errors) + len(
        result.unexpectedSuccesses) + len(result.expectedFailures)
    print('1..%d' % result.n)
    print('# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0'
          % (result.n - failed - len(result.skipped), failed,
             len(result.skipped)))
    return 1 if failed or result.n == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
