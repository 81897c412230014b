# SPDX-License-Identifier: GPL-2.0
"""What the unit tests share: a scratch directory, a git tree, a fake
copybench command and a Bisect on them, all without a kernel or a VM."""

import os
import shutil
import subprocess
import tempfile
import unittest

from . import bisect
from . import options
from . import paths

HERE = os.path.dirname(os.path.abspath(__file__))
ENTRY = os.path.join(os.path.dirname(HERE), 'bisect-kernel')


class ScratchTest(unittest.TestCase):
    """A test with a scratch directory, self.tmp, removed after it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='bisect-kernel-test.')
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text):
        """TEXT into the scratch file NAME: its path."""
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path


def git_tree(d, subjects):
    """A git tree in D with one commit per subject: their full commits."""
    env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@localhost',
               GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@localhost',
               GIT_AUTHOR_DATE='2026-12-01T00:00:00Z',
               GIT_COMMITTER_DATE='2026-12-01T00:00:00Z')
    os.makedirs(d, exist_ok=True)
    subprocess.run(['git', 'init', '-q', d], check=True, env=env)
    commits = []
    for i, s in enumerate(subjects):
        with open(os.path.join(d, 'f'), 'w') as f:
            f.write('%d\n' % i)
        subprocess.run(['git', '-C', d, 'add', 'f'], check=True, env=env)
        subprocess.run(['git', '-C', d, 'commit', '-q', '-m', s], check=True,
                       env=env)
        commits.append(subprocess.run(
            ['git', '-C', d, 'rev-parse', 'HEAD'], check=True, text=True,
            stdout=subprocess.PIPE).stdout.strip())
    return commits


def fake_copybench(d, compare_json):
    """An executable D/copybench whose 'compare' prints COMPARE_JSON (and
    exits 1); its path."""
    path = os.path.join(d, 'copybench')
    data = os.path.join(d, 'compare.json')
    with open(data, 'w') as f:
        f.write(compare_json)
    with open(path, 'w') as f:
        f.write('#!/bin/sh\ncat %s\nexit 1\n' % data)
    os.chmod(path, 0o755)
    return path


def fake_bisect(d, tree, fields, copybench=''):
    """A Bisect kept in D on TREE with the options' FIELDS (a dict), the
    project's paths but COPYBENCH."""
    p = paths.Paths(ENTRY)
    if copybench:
        p.copybench = copybench
    o = options.Options(**dict({'tree': tree, 'trace': 'kcopy'}, **fields))
    return bisect.Bisect(p, d, o)
