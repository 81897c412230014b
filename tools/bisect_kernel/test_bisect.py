# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bisect.py's decisions (GOOD against BAD, what git bisect
run said), step.py's verdict and line, and the command line (cli.py):
subcommands, exit statuses, nothing changed on a refusal."""

import io
import os
import subprocess
import unittest
from unittest import mock

from . import bisect
from . import cli
from . import guest
from . import kernel
from . import step
from .testlib import ENTRY, ScratchTest, fake_bisect

POINT = {'type': 'point', 'control': False,
         'test': {'verdict': 'regressed'}, 'net': {'verdict': 'regressed'},
         'placement': {'sensitive': False, 'base_spread': 1, 'new_spread': 2}}


class DecideTest(unittest.TestCase):
    """drift_pct, spread_side, regressed_net, remeasure."""

    def b(self, threshold=25.0):
        return fake_bisect('/nonexistent', '/nonexistent',
                           {'threshold': threshold})

    def test_drift(self):
        self.assertEqual(bisect.drift_pct([]), 0)
        self.assertEqual(bisect.drift_pct([
            {'type': 'drift', 'ratio': 1.125}, {'type': 'drift', 'ratio': 0.84},
            {'type': 'point', 'ratio': 3}]), 16)

    def test_spread(self):
        sens = dict(POINT, placement={'sensitive': True, 'base_spread': 0.6,
                                      'new_spread': 0.2})
        self.assertEqual(bisect.spread_side([POINT]), '')
        self.assertEqual(bisect.spread_side([POINT, sens]), 'good')
        sens['placement'] = dict(sens['placement'], new_spread=0.7)
        self.assertEqual(bisect.spread_side([sens]), 'bad')
        self.assertEqual(bisect.spread_side([dict(sens, control=True)]), '')

    def test_regressed_net(self):
        self.assertTrue(bisect.regressed_net([POINT]))
        self.assertFalse(bisect.regressed_net([dict(POINT, net=None)]))
        self.assertFalse(bisect.regressed_net([dict(POINT, control=True)]))

    def test_remeasure(self):
        b = self.b(25.0)
        self.assertEqual(bisect.remeasure(b, [POINT], 1, 0), (None, ''))
        drift = [{'type': 'drift', 'ratio': 1.13}]
        self.assertEqual(bisect.remeasure(b, drift, 1, 0),
                         ('bad', 'the controls moved by 13% between GOOD and BAD'))
        self.assertEqual(bisect.remeasure(b, [], 3, 1)[0], 'good')
        self.assertEqual(bisect.remeasure(self.b(26.5), drift, 1, 0)[0], None)
        sens = dict(POINT, placement={'sensitive': True, 'base_spread': 2,
                                      'new_spread': 1})
        self.assertEqual(bisect.remeasure(b, [sens], 1, 0), (
            'good', "a native point is placement-sensitive (GOOD's processes "
            'disagree beyond 25%)'))


class GitWordsTest(unittest.TestCase):
    """first_bad and stopped_by_signal on git bisect run's words."""

    def test_first_bad(self):
        c = 'ab' * 20
        self.assertEqual(bisect.first_bad('x\n%s is the first bad commit\n' % c), c)
        self.assertEqual(bisect.first_bad('%s is the first bad commit?\n' % c), '')

    def test_stopped(self):
        for out in ("bisect run failed: exit code 130 from '/x step /d' is < 0 "
                    'or >= 128\n', 'error: bisect run failed: git exited with '
                    'error code -1\n'):
            self.assertTrue(bisect.stopped_by_signal(out), out)
        self.assertFalse(bisect.stopped_by_signal(
            "bisect run failed: exit code 128 from '/x step /d'\n"))


class StepTest(ScratchTest):
    """step.verdict and step.step_line."""

    def test_verdict(self):
        b = fake_bisect(self.tmp, self.tmp, {'trace': 'none'})
        self.write('logs/step-abc.out', 'copybench bisect-run: T k c: good '
                   '(exit 0): as in GOOD (x): y\nnoise\n')
        self.assertEqual(step.verdict(b, 'abc', 0), (0, 'as in GOOD (x): y'))
        self.write('logs/step-abc.out', 'copybench bisect-run: a (exit 125): '
                   'moved\ncopybench bisect-run: a (exit 1): in BAD\n')
        self.assertEqual(step.verdict(b, 'abc', 1), (1, 'in BAD [measured 2 '
                         "times in the boot: the earlier answers were the "
                         "measurement's]"))
        self.assertEqual(step.verdict(b, 'abc', 7)[0], 125)

    def test_vm_failed(self):
        b = fake_bisect(self.tmp, self.tmp, {'trace': 'kcopy'})
        self.write('logs/step-abc.out', '')
        self.write('logs/step-abc.log', 'x\nvm-run: kernel panic\nvm-run: y\n')
        self.assertEqual(step.verdict(b, 'abc', 123), (125, (
            'the VM failed (status 123): vm-run: kernel panic (log: '
            'logs/step-abc.log)')))

    def test_trace_failed_is_said(self):
        b = fake_bisect(self.tmp, self.tmp, {'trace': 'kcopy'})
        self.write('logs/step-abc.out', 'copybench bisect-run: a (exit 0): ok\n')
        self.assertEqual(step.verdict(b, 'abc', 0), (0, (
            'ok; TRACE FAILED: kcopy.bt: no trace-abc.kcopy.err (the VM did not '
            'run the trace)')))

    def test_step_line(self):
        t = kernel.Timing()
        t.build, t.module, t.measure = 89, 3, 31
        with mock.patch('sys.stdout', io.StringIO()) as out:
            step.step_line(self.tmp, 'abc', 'skip', 125, t, 'why')
        with open(os.path.join(self.tmp, 'steps.log')) as f:
            line = f.read()
        self.assertRegex(line, r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ abc skip '
                         r'\(exit 125\) \[build 1 min 29 s, module 3 s, boot '
                         r'and measure 31 s\]: why\n$')
        self.assertEqual(out.getvalue(), 'bisect-kernel: ' + line)
        self.assertRegex(line, step.STEP_LINE_RE)


class CommandTest(ScratchTest):
    """The command as a user runs it: --help, refusals (2, nothing
    written), the subcommands' spellings."""

    def run_cmd(self, *args):
        p = subprocess.run([ENTRY] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=self.tmp)
        return p.returncode, p.stdout, p.stderr

    def test_subcommands(self):
        for argv in (['--tree', 't'], ['run', '--tree', 't']):
            with mock.patch.object(bisect, 'run', return_value=7) as run:
                self.assertEqual(cli.main('P', argv), 7)
            run.assert_called_once_with('P', {'tree': 't'})
        with mock.patch.object(bisect, 'step_main',
                               return_value=7) as step_main:
            self.assertEqual(cli.main('P', ['step', 'd']), 7)
        step_main.assert_called_once_with('P', 'd')
        with mock.patch.object(guest, 'main', return_value=7) as main:
            self.assertEqual(cli.main('P', ['guest', 'p', '--', 'c']), 7)
        main.assert_called_once_with('P', 'p', 'kcopy', 0, ['c'])

    def test_help(self):
        rc, out, err = self.run_cmd('--help')
        self.assertEqual((rc, err), (0, ''))
        self.assertTrue(out.startswith('Usage: tools/bisect-kernel [run] --tree '
                                       'DIR --good REF --bad REF [OPTIONS]\n'))
        self.assertIn('\n  --trace LIST      bpftrace tools run after each '
                      'measurement, on dd\n                    reading a 16 '
                      'MiB tmpfs file 4K at a time', out)
        self.assertEqual(self.run_cmd('run', '-h')[1], out)

    def test_refusals_change_nothing(self):
        for args, msg in ((['--frobnicate', '1'], "unknown option '--frobnicate'"),
                          (['--tree', self.tmp + '/no'], "invalid --tree '"),
                          (['--tree', self.tmp], 'not the top of a git work tree'),
                          (['--tree'], "option '--tree' needs a value")):
            rc, out, err = self.run_cmd(*args)
            self.assertEqual(rc, 2, err)
            self.assertIn(msg, err)
            self.assertTrue(err.endswith("Try 'tools/bisect-kernel --help'.\n"))
            self.assertEqual(os.listdir(self.tmp), [])

    def test_internal_modes_usage(self):
        for args in (['step'], ['step', 'a', 'b'], ['guest'], ['guest', 'p']):
            rc, _, err = self.run_cmd(*args)
            self.assertEqual(rc, 1, args)
            self.assertIn('usage: bisect-kernel ', err)
        rc, _, err = self.run_cmd('step', self.tmp)
        self.assertEqual(rc, 1)
        self.assertIn("step: no bisect state in '%s'" % self.tmp, err)

    def test_the_shell_versions_spellings_name_the_subcommand(self):
        for args, sub in ((['--step', self.tmp], 'step DIR'),
                          (['--guest', self.tmp + '/p', '--', 'true'],
                           'guest PREFIX [--trace LIST] [--retries N] -- '
                           'COMMAND...')):
            rc, out, err = self.run_cmd(*args)
            self.assertEqual((rc, out), (2, ''), err)
            self.assertIn("bisect-kernel: option '%s' is the shell version's, "
                          "and no longer taken: give the subcommand, "
                          "'bisect-kernel %s'\n" % (args[0], sub), err)
            self.assertTrue(err.endswith("Try 'tools/bisect-kernel --help'.\n"))
            self.assertEqual(os.listdir(self.tmp), [])

    def test_guest_passes_the_status(self):
        rc, out, _ = self.run_cmd('guest', self.tmp + '/p', '--trace', 'none',
                                  '--', 'sh', '-c', 'echo hi; exit 125')
        self.assertEqual((rc, out), (125, 'hi\n'))


if __name__ == '__main__':
    unittest.main()
