# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the subcommand run up to the bisect's first change
(bisect.run with its phases stood in for): a new bisect's state, a
resumed one (its own options, --dir alone, the shell version's state),
and the refusals that change nothing."""

import dataclasses
import io
import json
import os
import subprocess
import unittest
from unittest import mock

from . import bisect
from . import cli
from . import common
from . import options
from . import paths
from . import state
from .testlib import ENTRY, ScratchTest, git_tree


def fake_linux(d):
    """A git tree that passes for Linux: its base and top commits."""
    os.makedirs(os.path.join(d, 'arch', 'x86'))
    os.makedirs(os.path.join(d, 'include', 'linux'))
    with open(os.path.join(d, 'Makefile'), 'w') as f:
        f.write('VERSION = 6\n')
    open(os.path.join(d, 'include', 'linux', 'kconfig.h'), 'w').close()
    subprocess.run(['git', 'init', '-q', d], check=True)
    subprocess.run(['git', '-C', d, 'add', '-A'], check=True)
    return git_tree(d, ['base', 'slow'])


class RunTest(ScratchTest):
    """bisect.run on a fake tree, a stand-in copybench, no kernel."""

    def setUp(self):
        super().setUp()
        self.tree = os.path.join(self.tmp, 'linux')
        self.c = fake_linux(self.tree)
        cb = self.write('bin/copybench', '#!/bin/sh\nexit 0\n')
        os.chmod(cb, 0o755)
        self.paths = paths.Paths(ENTRY)
        self.paths.copybench = cb
        self.paths.vmrun = '/bin/true'
        self.dir = os.path.join(self.tmp, 'bisect')
        self.argv = ['--tree', self.tree, '--good', self.c[0], '--bad',
                     self.c[1], '--dir', self.dir, '--sizes', '4K',
                     '--trace', 'none']
        self.phases = []

    def run_it(self, argv):
        """bisect.run(ARGV) through guard, its phases recorded: status,
        stderr."""
        err = io.StringIO()
        with mock.patch.object(bisect, 'phases',
                               lambda b, o, t: self.phases.append(b.opts)
                               or 0), \
                mock.patch('sys.stderr', err):
            rc = cli.main(self.paths, argv)
        return rc, err.getvalue()

    def state_text(self):
        return common.read_text(os.path.join(self.dir, state.FILE))

    def test_new_bisect(self):
        rc, err = self.run_it(self.argv)
        self.assertEqual(rc, 0, err)
        o = state.load(self.dir)
        self.assertEqual((o.good, o.bad, o.sizes, o.phase, o.trace,
                          o.build_dir, o.repeat, o.threshold, o.alpha),
                         (self.c[0], self.c[1], '4K', 'new', 'none',
                          os.path.join(self.dir, 'obj'), 7, 25.0, None))
        self.assertEqual(self.phases[0], o)
        self.assertEqual(self.phases[0].good_ref, self.c[0])
        self.assertIn('bisect-kernel: trace: none (--trace none)', err)
        self.assertTrue(os.path.isdir(os.path.join(self.dir, 'logs')))

    def test_resume_with_dir_alone(self):
        self.run_it(self.argv + ['--threshold', '50', '--alpha', '0.05',
                                 '--repeat', '9'])
        state.save(self.dir, dataclasses.replace(state.load(self.dir),
                                                 phase='bad', jobs=3))
        rc, err = self.run_it(['--dir', self.dir])
        self.assertEqual(rc, 0, err)
        self.assertIn('resuming the bisect in %s (phase: bad)' % self.dir, err)
        o = self.phases[-1]
        self.assertEqual((o.sizes, o.phase, o.jobs, o.repeat, o.threshold,
                          o.alpha), ('4K', 'bad', 3, 9, 50.0, 0.05))

    def test_resume_a_state_of_format_1(self):
        """A state.json of format 1, every value a string (as the
        version before this one wrote it), resumes, and is written again
        as format 2."""
        self.run_it(self.argv + ['--alpha', '0.05'])
        o = dataclasses.replace(state.load(self.dir), phase='good')
        strings = {k: options.text(v) for k, v in dataclasses.asdict(o).items()}
        self.write('bisect/state.json', json.dumps(
            {'format': 1, 'state': strings}))
        rc, err = self.run_it(self.argv + ['--alpha', '0.05'])
        self.assertEqual(rc, 0, err)
        self.assertIn('(phase: good)', err)
        self.assertEqual(self.phases[-1], o)
        with open(os.path.join(self.dir, state.FILE)) as f:
            self.assertEqual(json.load(f)['format'], 2)

    def test_resume_the_shell_versions_state(self):
        self.run_it(self.argv)
        o = dataclasses.replace(state.load(self.dir), phase='good')
        os.unlink(os.path.join(self.dir, state.FILE))
        self.write('bisect/state', ''.join(
            '%s=%s\n' % (k, options.text(v))
            for k, v in dataclasses.asdict(o).items()))
        rc, err = self.run_it(self.argv)
        self.assertEqual(rc, 0, err)
        self.assertIn('(phase: good)', err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, 'state')))
        self.assertEqual(state.load(self.dir), o)

    def test_another_bisect_is_refused_and_nothing_changes(self):
        self.run_it(self.argv)
        before = self.state_text()
        rc, err = self.run_it(self.argv + ['--sizes', '64', '--alpha', '0.05'])
        self.assertEqual(rc, 2)
        self.assertIn("'%s' holds another bisect (sizes: '4K' there, '64' now; "
                      "alpha: '' there, '0.05' now; resume it with its own "
                      'options' % self.dir, err)
        self.assertTrue(err.endswith("Try 'tools/bisect-kernel --help'.\n"))
        self.assertEqual(self.state_text(), before)
        self.assertEqual(len(self.phases), 1)

    def test_a_broken_state_is_refused(self):
        self.write('bisect/state.json', '{"format": 1, "sta')
        rc, err = self.run_it(self.argv)
        self.assertEqual(rc, 2)
        self.assertIn("invalid --dir '%s': " % self.dir, err)
        self.assertIn("(not a bisect's state)", err)
        self.assertEqual(self.phases, [])

    def test_uncommitted_changes_change_nothing(self):
        with open(os.path.join(self.tree, 'f'), 'a') as f:
            f.write('x\n')
        rc, err = self.run_it(self.argv)
        self.assertEqual(rc, 2)
        self.assertIn('it has uncommitted changes', err)
        self.assertFalse(os.path.exists(self.dir))

    def test_bad_measurement_names_copybench_words(self):
        with open(self.paths.copybench, 'w') as f:
            f.write("#!/bin/sh\necho \"copybench sweep: invalid --sizes '4Q'\""
                    ' >&2\nexit 2\n')
        rc, err = self.run_it(self.argv)
        self.assertEqual(rc, 2)
        self.assertIn("bisect-kernel: invalid measurement: copybench sweep: "
                      "invalid --sizes '4Q'\n", err)
        self.assertFalse(os.path.exists(self.dir))


if __name__ == '__main__':
    unittest.main()
