# SPDX-License-Identifier: GPL-2.0
"""Unit tests of guest.py: what is measured again, the measurement's
status passed on (its arguments: test_cli.py)."""

import io
import os
import unittest
from unittest import mock

from . import guest
from .testlib import ScratchTest

LINE = ('copybench bisect-run: 2026-12-01T00:00:00Z 6.12 abc: skip (exit '
        '125): %s; record /d/bisect-x.json')


class RetryTest(ScratchTest):
    """answer, retryable, measure."""

    def test_answer_takes_the_last_exit(self):
        self.assertEqual(guest.answer('x\n' + LINE % 'a (exit 3): b' + '\n'),
                         'b; record /d/bisect-x.json')
        self.assertEqual(guest.answer('no line\n'), '')

    def test_retryable(self):
        for why in ('the machine moved: x', 'inconclusive: x',
                    'placement-sensitive: x', '2 points like neither GOOD nor BAD'):
            self.assertTrue(guest.retryable(why), why)
        for why in ('', 'cannot load the module', 'x inconclusive: y'):
            self.assertFalse(guest.retryable(why), why)

    def measure(self, script, retries):
        out = io.StringIO()
        with mock.patch('sys.stdout', out), \
                mock.patch.object(guest, 'say') as say:
            rc = guest.measure(['sh', '-c', script], retries)
        return rc, out.getvalue(), [c[0][0] for c in say.call_args_list]

    def test_measured_again_up_to_retries(self):
        rc, out, said = self.measure(
            'echo "%s"; exit 125' % (LINE % 'inconclusive: p<0.2'), 2)
        self.assertEqual(rc, 125)
        self.assertEqual(out.count('copybench bisect-run: '), 3)
        self.assertEqual(said, [
            'inconclusive: p<0.2: measuring again in this boot (1 of 2)',
            'inconclusive: p<0.2: measuring again in this boot (2 of 2)'])

    def test_until_an_answer(self):
        n = os.path.join(self.tmp, 'n')
        script = ('if [ -e %s ]; then echo ok; exit 1; fi; touch %s; echo "%s"; '
                  'exit 125' % (n, n, LINE % 'the machine moved'))
        rc, out, said = self.measure(script, 3)
        self.assertEqual((rc, len(said)), (1, 1))
        self.assertTrue(out.endswith('ok\n'))

    def test_a_failure_is_not_measured_again(self):
        rc, _, said = self.measure('echo "%s"; exit 125'
                                   % (LINE % 'no module'), 3)
        self.assertEqual((rc, said), (125, []))
        rc, _, said = self.measure('exit 7', 3)
        self.assertEqual((rc, said), (7, []))

    def test_main_without_trace(self):
        with mock.patch('sys.stdout', io.StringIO()):
            rc = guest.main(None, os.path.join(self.tmp, 'p'), 'none', 0,
                            ['sh', '-c', 'exit 1'])
        self.assertEqual(rc, 1)
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == '__main__':
    unittest.main()
