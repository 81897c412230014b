# SPDX-License-Identifier: GPL-2.0
"""Unit tests of options.py: parsing, the checks that need no kernel."""

import os
import unittest

from . import options
from . import paths
from .common import BadOption
from .testlib import ENTRY, ScratchTest


class ParseTest(unittest.TestCase):
    """parse_options: the command line as given."""

    def test_both_spellings_and_last_wins(self):
        o = options.parse_options(['--tree', '/t', '--sizes=4K', '--sizes', '64'])
        self.assertEqual(o, {'tree': '/t', 'sizes': '64'})

    def test_value_with_equals_and_empty(self):
        o = options.parse_options(['--append=a=b c', '--alpha='])
        self.assertEqual(o, {'append': 'a=b c', 'alpha': ''})

    def test_help(self):
        for a in ('-h', '--help'):
            with self.assertRaises(options.Help):
                options.parse_options(['--tree', '/t', a])

    def bad(self, argv):
        with self.assertRaises(BadOption) as cm:
            options.parse_options(argv)
        return str(cm.exception)

    def test_unknown_option_lists_the_accepted(self):
        msg = self.bad(['--frobnicate', '1'])
        self.assertTrue(msg.startswith("unknown option '--frobnicate' (accepted: "
                                       '--tree --good --bad --dir '), msg)
        self.assertTrue(msg.endswith('--timeout --help)'), msg)
        self.assertIn("unknown option '--nope'", self.bad(['--nope=1']))

    def test_missing_value(self):
        self.assertEqual(self.bad(['--tree']), "option '--tree' needs a value")

    def test_not_an_option(self):
        self.assertEqual(self.bad(['foo']),
                         "unexpected argument 'foo' (options only; see --help)")
        self.assertIn("unexpected argument '-x'", self.bad(['-x']))

    def test_newline(self):
        self.assertEqual(self.bad(['--append', 'a\nb']),
                         'invalid --append: contains a newline')


class ValuesTest(unittest.TestCase):
    """is_uint_in, options_from_state, check_vm."""

    def test_is_uint_in(self):
        self.assertTrue(options.is_uint_in('1', 1, 256))
        self.assertTrue(options.is_uint_in('0256', 1, 256))
        for v in ('0', '257', '', '-1', '1.5', '9x', '1234567890', ' 1'):
            self.assertFalse(options.is_uint_in(v, 1, 256), v)

    def test_options_from_state(self):
        o = {'dir': '/d', 'sizes': '', 'jobs': '4'}
        options.options_from_state(o, {'tree': '/t', 'build_dir': '/o',
                                        'sizes': '4K', 'jobs': '2',
                                        'alpha': '', 'phase': 'bad'})
        self.assertEqual(o, {'dir': '/d', 'tree': '/t', 'build-dir': '/o',
                             'sizes': '4K', 'jobs': '4'})

    def vm(self, **given):
        s = options.Settings()
        s.accel = given.pop('accel', '')
        options.check_vm(given, s)
        return s

    def test_vm_defaults(self):
        s = self.vm()
        self.assertEqual((s.jobs, s.timeout), (str(options.nproc()), '600'))

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
        s = options.Settings()
        s.threshold, s.alpha = '50', ''
        self.assertEqual(s.decide(), ['--threshold', '50'])
        s.alpha = '0.05'
        self.assertEqual(s.decide(), ['--threshold', '50', '--alpha', '0.05'])


class DirsTest(ScratchTest):
    """check_dirs: --dir and --build-dir made absolute, or refused."""

    def settings(self):
        s = options.Settings()
        s.tree = os.path.join(self.tmp, 'linux')
        os.makedirs(s.tree)
        s.good, s.bad = 'a' * 40, 'b' * 40
        return s

    def test_new_dir_is_made_absolute(self):
        s = self.settings()
        old = os.getcwd()
        os.chdir(self.tmp)
        self.addCleanup(os.chdir, old)
        options.check_dirs({'dir': 'x/y', 'tree': s.tree}, None, s)
        self.assertEqual(s.dir, os.path.join(os.path.realpath(self.tmp), 'x/y'))
        self.assertEqual(s.obj, os.path.join(s.dir, 'obj'))
        self.assertFalse(os.path.exists(s.dir))

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
        self.assertEqual(s.obj, os.path.realpath(s.tree))


class TracePreflightTest(ScratchTest):
    """trace_preflight: refused when given, a warning by default."""

    def settings(self, trace, config_text):
        s = options.Settings()
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
