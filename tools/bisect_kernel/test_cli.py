# SPDX-License-Identifier: GPL-2.0
"""Unit tests of cli.py: argparse's parse of each subcommand, its
refusals in the command's words, --help and the parser agreeing."""

import re
import unittest
from unittest import mock

from . import cli
from . import options
from . import trace as tracing
from .common import BadOption, Die


def given(argv):
    """run's options in ARGV, as given."""
    return cli.given_options(cli.parse(argv))


class RunParseTest(unittest.TestCase):
    """run's options as given: both spellings, the last one wins."""

    def test_both_spellings_and_last_wins(self):
        self.assertEqual(given(['--tree', '/t', '--sizes=4K', '--sizes', '64']),
                         {'tree': '/t', 'sizes': '64'})
        self.assertEqual(given(['run', '--build-dir', '/o']),
                         {'build-dir': '/o'})
        self.assertEqual(given([]), {})

    def test_value_with_equals_and_empty(self):
        self.assertEqual(given(['--append=a=b c', '--alpha=']),
                         {'append': 'a=b c', 'alpha': ''})
        self.assertEqual(given(['--alpha', '-1']), {'alpha': '-1'})

    def test_help(self):
        for argv in (['--tree', '/t', '-h'], ['--help'], ['run', '--help'],
                     ['-h', '--frobnicate']):
            with self.assertRaises(cli.Help, msg=argv) as cm:
                cli.parse(argv)
            self.assertIn(cm.exception.name, ('run', 'bisect-kernel'))

    def bad(self, argv):
        with self.assertRaises(BadOption) as cm:
            given(argv)
        return str(cm.exception)

    def test_unknown_option_lists_the_accepted(self):
        msg = self.bad(['--frobnicate', '1'])
        self.assertTrue(msg.startswith("unknown option '--frobnicate' (accepted: "
                                       '--tree --good --bad --dir '), msg)
        self.assertTrue(msg.endswith('--timeout --help)'), msg)
        self.assertIn("unknown option '--nope'", self.bad(['--nope=1']))
        # No abbreviation: argparse's own would take --tre for --tree.
        self.assertIn("unknown option '--tre'", self.bad(['--tre', '/t']))

    def test_missing_value(self):
        self.assertEqual(self.bad(['--tree']), "option '--tree' needs a value")
        self.assertEqual(self.bad(['--append', '--x']), (
            "option '--append' needs a value, but '--x' follows it (a value "
            "that starts with '-': --append=ARGS)"))

    def test_not_an_option(self):
        self.assertEqual(self.bad(['run', 'foo']),
                         "unexpected argument 'foo' (options only; see --help)")
        self.assertIn("unexpected argument '-x'", self.bad(['-x']))

    def test_unknown_subcommand(self):
        self.assertEqual(self.bad(['foo']), (
            "unknown subcommand 'foo' (accepted: run, step, guest; OPTIONS "
            "alone are run's)"))

    def test_the_shell_versions_spellings(self):
        want = ("option '%s' is the shell version's, and no longer taken: "
                "give the subcommand, 'bisect-kernel %s'")
        step = want % ('--step', 'step DIR')
        guest = want % ('--guest', 'guest PREFIX [--trace LIST] [--retries N] '
                        '-- COMMAND...')
        self.assertEqual(self.bad(['--step', '/d']), step)
        self.assertEqual(self.bad(['--tree', '/t', '--step=/d']), step)
        self.assertEqual(self.bad(['--guest', 'p', '--', 'c']), guest)
        self.assertEqual(self.bad(['guest', 'p', '--guest', 'q', '--', 'c']),
                         guest)
        # After '--', the words are guest's command's.
        self.assertEqual(cli.parse(['guest', 'p', '--', 'c', '--step']).command,
                         ['c', '--step'])

    def test_newline(self):
        self.assertEqual(self.bad(['--append', 'a\nb']),
                         'invalid --append: contains a newline')


class InternalParseTest(unittest.TestCase):
    """step's and guest's arguments, and their refusals (usage, exit 1)."""

    def test_step(self):
        self.assertEqual(cli.parse(['step', '/d']).dir, '/d')

    def test_guest(self):
        ns = cli.parse(['guest', '/d/trace-abc', '--trace', 'kcopy,copysize',
                        '--retries', '3', '--', 'cb', '--x', '--', 'y'])
        self.assertEqual((ns.subcommand, ns.prefix, ns.trace, ns.retries,
                          ns.command),
                         ('guest', '/d/trace-abc', 'kcopy,copysize', '3',
                          ['cb', '--x', '--', 'y']))

    def test_guest_defaults(self):
        ns = cli.parse(['guest', 'p', '--', 'c'])
        self.assertEqual((ns.prefix, ns.trace, ns.retries, ns.command),
                         ('p', tracing.DEFAULT, '0', ['c']))

    def refused(self, argv):
        with mock.patch.object(cli, 'say') as say, self.assertRaises(Die):
            cli.subcommand(None, argv)
        return say.call_args[0][0]

    def test_refusals(self):
        for argv in (['step'], ['step', 'a', 'b']):
            self.assertEqual(self.refused(argv), 'usage: bisect-kernel step DIR')
        for argv in (['guest'], ['guest', 'p'], ['guest', 'p', '--'],
                     ['guest', '--trace', 'x', '--', 'c'],
                     ['guest', 'p', '--retries', '--', 'c']):
            self.assertTrue(self.refused(argv).startswith(
                'usage: bisect-kernel guest PREFIX '), argv)
        self.assertEqual(self.refused(['guest', 'p', '--bogus', '--', 'c']),
                         "guest: unexpected '--bogus'")
        self.assertEqual(self.refused(['guest', 'p', '--retries', 'x', '--',
                                       'c']),
                         "guest: invalid --retries 'x' (accepted: an integer)")


class HelpTest(unittest.TestCase):
    """run's --help and its parser name the same options."""

    def test_help_and_parser_agree(self):
        text = options.USAGE
        in_help = set(re.findall(r'^  (?:-h, )?--([a-z-]+)', text, re.M))
        in_help |= set(re.findall(r'^  --[a-z-]+ [A-Z]+, --([a-z-]+)', text,
                                  re.M))
        parsed = {o for o, _ in options.OPTIONS}
        self.assertEqual(in_help - {'help'}, parsed)
        for name, metavar in options.OPTIONS:
            self.assertIn('--%s %s' % (name, metavar), text)


if __name__ == '__main__':
    unittest.main()
