# SPDX-License-Identifier: GPL-2.0
"""Unit tests of report.py: the table of compare's points, the records
found, and the report whole on a git tree, a fake copybench and sample
traces."""

import json
import os
import unittest

from . import report
from .test_trace import KCOPY, lines
from .testlib import ScratchTest, fake_bisect, fake_copybench, git_tree

POINT = {'type': 'point', 'control': False, 'name': 'to_user.native.4K',
         'base': {'median': 5243.4}, 'new': {'median': 61275.5},
         'test': {'change_pct': 1180.24, 'verdict': 'regressed'},
         'net': {'ratio': 13.584, 'verdict': 'regressed'},
         'verdict': 'regressed'}
COMPARE = ''.join(json.dumps(o) + '\n' for o in (
    {'type': 'header'}, POINT,
    dict(POINT, name='to_user.movsb.4K', control=True),
    dict(POINT, name='to_user.native.64', net=None, verdict='unchanged',
         base={'median': 100}, new={'median': 99.5},
         test={'change_pct': -0.04}),
    {'type': 'drift', 'ratio': 1.02}))

HEADER = {'kernel': '6.12.117-copybench-bisect-g%s', 'repeat': 7,
          'cpu_model': 'QEMU TCG CPU version 2.5+', 'cpu_flags': ['erms'],
          'kernel_cmdline': 'console=ttyS0 tsc=reliable clearcpuid=erms'}


class FormatTest(unittest.TestCase):
    """pct, columns, points_table."""

    def test_pct(self):
        self.assertEqual(report.pct(1180.24), '+1180.2%')
        self.assertEqual(report.pct(1258.4), '+1258.4%')
        self.assertEqual(report.pct(-0.04), '0%')
        self.assertEqual(report.pct(-0.06), '-0.1%')
        self.assertEqual(report.pct(5.0), '+5%')
        self.assertEqual(report.pct(0.25), '+0.3%')

    def test_points_table(self):
        self.assertEqual(report.points_table(COMPARE), [
            '  point              parent  first bad  change    net       verdict',
            '  to_user.native.4K  5243    61276      +1180.2%  +1258.4%  regressed',
            '  to_user.native.64  100     100        0%        -         unchanged'])

    def test_points_table_refuses_what_is_not_json(self):
        with self.assertRaises(ValueError):
            report.points_table('copybench compare: cannot read x.json\n')


class ReportTest(ScratchTest):
    """record_of, steps_lines, compose."""

    def setUp(self):
        super().setUp()
        self.tree = os.path.join(self.tmp, 'linux')
        self.c = git_tree(self.tree, ['base', 'note 1', 'slow copies',
                                      'note 3'])
        self.d = os.path.join(self.tmp, 'bisect')
        os.makedirs(self.d)
        self.b = fake_bisect(self.d, self.tree, {
            'good': self.c[0], 'bad': self.c[3], 'good_ref': 'base',
            'bad_ref': 'top', 'threshold': 50.0},
            fake_copybench(self.tmp, COMPARE))

    def record(self, name, commit):
        h = dict(HEADER, kernel=HEADER['kernel'] % commit[:12])
        return self.write('bisect/' + name, json.dumps(h) + '\n{}\n')

    def test_record_of(self):
        good = self.record('good.json', self.c[0])
        step = self.record('bisect-6.12.117-copybench-bisect-g%s.json'
                           % self.c[2][:12], self.c[2])
        o = self.b.opts
        self.assertEqual(report.record_of(self.d, o, self.c[0]), good)
        self.assertEqual(report.record_of(self.d, o, self.c[2]), step)
        self.assertEqual(report.record_of(self.d, o, self.c[1]), '')
        self.assertEqual(report.record_of(self.d, o, self.c[3]), '')

    def test_steps_lines(self):
        self.write('bisect/steps.log', 'T a good (exit 0) [x]: as in GOOD; '
                   "emulated CPU: the emulator's timings; record /d/r.json\n"
                   'T b skip (exit 125) [x]: no build\n')
        self.assertEqual(report.steps_lines(self.d), [
            '  T a good (exit 0) [x]: as in GOOD',
            '  T b skip (exit 125) [x]: no build'])

    def test_compose(self):
        c = self.c
        self.record('good.json', c[0])
        self.record('bad.json', c[3])
        self.record('bisect-6.12.117-copybench-bisect-g%s.json' % c[1][:12],
                    c[1])
        self.record('bisect-6.12.117-copybench-bisect-g%s.json' % c[2][:12],
                    c[2])
        for x in (1, 2):
            self.write('bisect/trace-%s.kcopy.json' % c[x][:12], lines(KCOPY))
        self.write('bisect/steps.log', ''.join(
            'T %s %s (exit 0) [build 1 s, module 1 s, boot and measure 1 s]: '
            'w\n' % (c[i][:12], a) for i, a in ((0, 'GOOD'), (3, 'BAD'))) +
            'T %s skip (exit 125) [b]: x\nT %s good (exit 0) [b]: y\n'
            'T %s bad (exit 1) [b]: z\n' % (c[1][:12], c[1][:12], c[2][:12]))
        self.write('bisect/seconds', '60\n5\n')
        out = report.compose(self.b, c[2], 10)
        self.assertEqual(out[:3], [
            'copybench bisect-kernel: first bad commit ' + c[2],
            '  slow copies', '  t <t@localhost>, 2026-12-01'])
        self.assertIn('Native copies at the first bad commit against its '
                      'parent %s, clocks per copy (the median of 7 repeats\' '
                      'fastest), and the change net of the controls (the '
                      'fixed copies, timed beside them):' % c[1][:12], out)
        self.assertIn('  to_user.native.4K  5243    61276      +1180.2%  '
                      '+1258.4%  regressed', out)
        self.assertNotIn('TRACE FAILED', '\n'.join(out))
        at = out.index('  first bad %s:' % c[2][:12])
        self.assertTrue(out[at + 1].startswith(
            '    kcopy.bt, dd on the CPU: 211 samples: rep_movs_alternative+19 '))
        self.assertIn('Bisected 3 commits of %s, GOOD base (%s) to BAD top '
                      '(%s): 3 steps, 1 skipped, 1 min 15 s in all.'
                      % (self.tree, c[0][:12], c[3][:12]), out)
        self.assertIn('Kernel 6.12.117-copybench-bisect-g%s on QEMU TCG CPU '
                      'version 2.5+, command line: console=ttyS0 tsc=reliable '
                      'clearcpuid=erms' % c[2][:12], out)
        self.assertEqual(out[-4], 'EMULATED CPU: these kernels ran under '
                         "QEMU's TCG, which emulates every")

    def test_compose_unmeasured_and_trace_failed(self):
        self.record('good.json', self.c[0])
        self.write('bisect/steps.log', '')
        out = report.compose(self.b, self.c[2], 0)
        self.assertIn('(no record of the first bad commit: it was not '
                      'measured)', out)
        self.assertIn('TRACE FAILED: the trace of the parent or the first bad '
                      'commit is missing; why, below.', out)
        self.assertIn('  parent %s:' % self.c[0][:12], out)
        self.assertNotIn('EMULATED CPU', '\n'.join(out))


if __name__ == '__main__':
    unittest.main()
