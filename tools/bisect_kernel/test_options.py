# SPDX-License-Identifier: GPL-2.0
"""Unit tests of options.py: the checks that need no kernel, the
conversions of a field to its text and back."""

import os
import unittest
from unittest import mock

from . import common
from . import options
from . import paths
from . import trace as tracing
from .common import BadOption
from .testlib import ENTRY, ScratchTest


class ValuesTest(unittest.TestCase):
    """is_uint_in, options_from_state, check_vm, text and from_text."""

    def test_is_uint_in(self):
        self.assertTrue(options.is_uint_in('1', 1, 256))
        self.assertTrue(options.is_uint_in('0256', 1, 256))
        for v in ('0', '257', '', '-1', '1.5', '9x', '1234567890', ' 1'):
            self.assertFalse(options.is_uint_in(v, 1, 256), v)

    def test_options_from_state(self):
        given = {'dir': '/d', 'sizes': '', 'jobs': '4'}
        options.options_from_state(given, options.Options(
            tree='/t', build_dir='/o', sizes='4K', jobs=2, threshold=50.0,
            alpha=None, timeout=60, phase='bad'))
        self.assertEqual(given, {
            'dir': '/d', 'tree': '/t', 'build-dir': '/o', 'sizes': '4K',
            'jobs': '4', 'directions': 'to_user', 'variants': 'all',
            'repeat': '7', 'samples': '201', 'placement': 'fixed',
            'threshold': '50', 'timeout': '60', 'retries': '3',
            'trace': 'kcopy'})

    def test_text_and_back(self):
        for name, value, t in (('repeat', 7, '7'), ('threshold', 26.5, '26.5'),
                               ('threshold', 25.0, '25'), ('alpha', None, ''),
                               ('alpha', 1e-05, '1e-05'), ('sizes', '4K', '4K')):
            self.assertEqual(options.text(value), t)
            self.assertEqual(options.from_text(name, t), value)
        self.assertEqual(options.from_text('threshold', '0x1.8p4'), 24.0)
        for name, t in (('repeat', '7.5'), ('jobs', ''), ('threshold', 'x')):
            with self.assertRaises(ValueError, msg=t):
                options.from_text(name, t)

    def vm(self, **given):
        o = options.Options()
        o.accel = given.pop('accel', '')
        options.check_vm(given, o)
        return o

    def test_vm_defaults(self):
        o = self.vm()
        self.assertEqual((o.jobs, o.timeout), (options.nproc(), 600))
        self.assertEqual((self.vm(jobs='04').jobs, self.vm(timeout='1').timeout),
                         (4, 1))

    def test_vm_refusals(self):
        for kv, msg in ((dict(jobs='0'), "invalid --jobs '0' (accepted: an "
                         'integer from 1 to 256)'),
                        (dict(timeout='9x'), "invalid --timeout '9x' "
                         '(accepted: seconds, an integer from 1 to 86400)'),
                        (dict(accel='fast'), "invalid --accel 'fast' "
                         '(accepted: auto, kvm, tcg)')):
            with self.assertRaises(BadOption) as cm:
                self.vm(**kv)
            self.assertEqual(str(cm.exception), msg)

    def test_decide(self):
        o = options.Options(threshold=50.0)
        self.assertEqual(o.decide(), ['--threshold', '50'])
        o.threshold, o.alpha = 26.5, 0.05
        self.assertEqual(o.decide(), ['--threshold', '26.5', '--alpha', '0.05'])


class DirsTest(ScratchTest):
    """check_dirs: --dir and --build-dir made absolute, or refused."""

    def settings(self):
        o = options.Options()
        o.tree = os.path.join(self.tmp, 'linux')
        os.makedirs(o.tree)
        o.good, o.bad = 'a' * 40, 'b' * 40
        return o

    def test_new_dir_is_made_absolute(self):
        o = self.settings()
        old = os.getcwd()
        os.chdir(self.tmp)
        self.addCleanup(os.chdir, old)
        d = options.check_dirs({'dir': 'x/y', 'tree': o.tree}, None, o)
        self.assertEqual(d, os.path.join(os.path.realpath(self.tmp), 'x/y'))
        self.assertEqual(o.build_dir, os.path.join(d, 'obj'))
        self.assertFalse(os.path.exists(d))

    def test_refusals(self):
        s = self.settings()
        self.write('file', '')
        for d, msg in (
                (os.path.join(self.tmp, 'file'), 'not a writable directory'),
                (os.path.join(self.tmp, 'file', 'x'), 'cannot be created'),
                (os.path.join(self.tmp, 'a,b'), "takes no ',' or space")):
            with self.assertRaises(BadOption) as cm:
                options.check_dirs({'dir': d, 'tree': s.tree}, None, s)
            self.assertIn("invalid --dir '", str(cm.exception))
            self.assertIn(msg, str(cm.exception))

    def test_tree_with_its_own_build(self):
        s = self.settings()
        self.write('linux/.config', '')
        with self.assertRaises(BadOption) as cm:
            options.check_dirs({'dir': self.tmp + '/d', 'tree': 'T'}, None, s)
        self.assertIn("invalid --tree 'T': it has a build of its own",
                      str(cm.exception))
        options.check_dirs({'dir': self.tmp + '/d', 'tree': 'T',
                            'build-dir': s.tree}, None, s)
        self.assertEqual(s.build_dir, os.path.realpath(s.tree))


class TracePreflightTest(ScratchTest):
    """trace_preflight: refused when given, a warning by default."""

    def settings(self, trace, config_text):
        s = options.Options()
        s.tree = self.tmp
        s.trace = trace
        s.config = self.write('config', config_text)
        return s

    def test_none(self):
        s = self.settings('none', '')
        self.assertEqual(options.trace_preflight(s, 'none'),
                         'trace: none (--trace none)')

    def test_given_and_cannot_work(self):
        s = self.settings('kcopy', 'CONFIG_KPROBES=y\n')
        with self.assertRaises(BadOption) as cm:
            options.trace_preflight(s, 'kcopy')
        msg = str(cm.exception)
        self.assertTrue(msg.startswith("invalid --trace 'kcopy': the trace "
                                       'cannot work with this tree: '), msg)
        self.assertIn("no include/linux/kconfig.h in --tree '%s'" % self.tmp,
                      msg)
        self.assertIn('does not set CONFIG_BPF_SYSCALL CONFIG_BPF_EVENTS '
                      'CONFIG_PERF_EVENTS CONFIG_KPROBE_EVENTS (', msg)
        self.assertTrue(msg.endswith('; bisect without it with --trace none'))

    def test_default_warns_and_turns_it_off(self):
        s = self.settings('kcopy', '')
        note = options.trace_preflight(s, '')
        self.assertTrue(note.startswith('WARNING: the trace cannot work with '
                                        'this tree: '), note)
        self.assertTrue(note.endswith('bisecting without it (--trace none)'))
        self.assertEqual(s.trace, 'none')

    def test_can_work(self):
        s = self.settings('kcopy,copysize',
                          ''.join(n + '\n' for n in tracing.NEEDS_CONFIG))
        self.write('include/linux/kconfig.h', '')
        with mock.patch('shutil.which', return_value='/usr/bin/bpftrace'), \
                mock.patch.object(common, 'output',
                                  return_value=('bpftrace v0.17.0\n', 0)):
            note = options.trace_preflight(s, '')
        self.assertEqual(note, (
            'trace: kcopy.bt, copysize.bt after each measurement can work: '
            'bpftrace v0.17.0, the headers in %s, CONFIG_BPF_SYSCALL '
            'CONFIG_BPF_EVENTS CONFIG_PERF_EVENTS CONFIG_KPROBES '
            'CONFIG_KPROBE_EVENTS in the config' % self.tmp))
        self.assertEqual(s.trace, 'kcopy,copysize')


class PathsTest(unittest.TestCase):
    """paths.Paths: the checkout's files, or the installed ones."""

    def test_tree(self):
        p = paths.Paths(ENTRY, {})
        top = os.path.dirname(os.path.dirname(ENTRY))
        self.assertFalse(p.installed)
        self.assertEqual(p.vmrun, os.path.join(top, 'tools', 'vm-run'))
        self.assertEqual(p.project, top)

    def test_installed_uses_the_installed_vm_run(self):
        p = paths.Paths('/opt/cb/bin/copybench-bisect-kernel', {})
        self.assertTrue(p.installed)
        self.assertEqual(p.vmrun, '/opt/cb/bin/copybench-vm-run')
        self.assertEqual(p.project, '')
        self.assertEqual(p.config,
                         '/opt/cb/share/copybench/bisect-kernel.config')
        # COPYBENCH_TOP: the checkout for the module's sources only
        p = paths.Paths('/opt/cb/bin/copybench-bisect-kernel',
                        {'COPYBENCH_TOP': '/'})
        self.assertEqual(p.project, '/')
        self.assertEqual(p.vmrun, '/opt/cb/bin/copybench-vm-run')

    def test_installed_words(self):
        p = paths.Paths('/opt/cb/bin/copybench-bisect-kernel', {})
        text = options.usage(p)
        self.assertIn('The VM (copybench-vm-run):', text)
        self.assertNotIn('tools/', text)
        self.assertNotIn('COPYBENCH_TOP', text)


if __name__ == '__main__':
    unittest.main()
