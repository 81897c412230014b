# SPDX-License-Identifier: GPL-2.0
"""bisect-kernel's command line, parsed by argparse: its subcommands, as
kunit.py has them.

  run [OPTIONS]                 the bisect (the default: OPTIONS alone)
  step DIR                      git bisect run's step, in the tree
  guest PREFIX [--trace LIST] [--retries N] -- COMMAND...
                                in the VM: the measurement, then the traces

argparse's refusals are said in the command's words: a bad option of
run's exits 2 naming it, its value and what is accepted (BadOption); a
bad use of step or guest, which the bisect runs itself, exits 1 with
its usage. The shell version's spellings of those two, --step DIR and
--guest PREFIX ..., are refused (exit 2), naming the subcommand."""

import argparse
import re
from typing import Callable, NoReturn, Optional

from . import bisect
from . import common
from . import guest
from . import options
from . import trace as tracing
from .common import BadOption, Die, say

SUBCOMMANDS = ('run', 'step', 'guest')
STEP_USAGE = 'usage: %s step DIR' % common.ME

# The shell version's spellings, and the subcommand that took their
# place.
LEGACY = {'--step': 'step DIR',
          '--guest': 'guest PREFIX [--trace LIST] [--retries N] -- COMMAND...'}


class Help(Exception):
    """-h or --help, for the subcommand NAME."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


class HelpAction(argparse.Action):
    """-h, --help: Help, raised where it is met."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0,
                         default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        raise Help(parser.prog.split()[-1])


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that neither prints nor exits: every refusal is
    an argparse.ArgumentError, said by refuse() in the command's words.
    No abbreviated option: --tre is unknown, as it always was."""

    def __init__(self, **kwargs):
        super().__init__(add_help=False, allow_abbrev=False,
                         exit_on_error=False, **kwargs)
        self.add_argument('-h', '--help', action=HelpAction)

    def error(self, message: str) -> NoReturn:
        raise argparse.ArgumentError(None, message)


def make_parser() -> Parser:
    """The command's parser: run with every option of options.OPTIONS (a
    string each, None when not given), step and guest."""
    top = Parser(prog=common.ME)
    sub = top.add_subparsers(dest='subcommand', metavar='SUBCOMMAND')
    run = sub.add_parser('run')
    for name, metavar in options.OPTIONS:
        run.add_argument('--' + name, metavar=metavar)
    step = sub.add_parser('step')
    step.add_argument('dir', metavar='DIR')
    g = sub.add_parser('guest')
    g.add_argument('prefix', metavar='PREFIX')
    g.add_argument('--trace', metavar='LIST', default=tracing.DEFAULT)
    g.add_argument('--retries', metavar='N', default='0')
    return top


PARSER = make_parser()


def looks_like_option(word: str) -> bool:
    """WORD is meant as an option, not a value: '--x', '-x', not '-5'."""
    return bool(re.match(r'-[A-Za-z-]', word))


def needs_value(args: list[str], name: str) -> str:
    """The message for option NAME given without its value in ARGS."""
    metavar = dict(options.OPTIONS).get(name[2:], 'VALUE')
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args) and looks_like_option(args[i + 1]):
            return ("option '%s' needs a value, but '%s' follows it (a "
                    "value that starts with '-': %s=%s)"
                    % (name, args[i + 1], name, metavar))
    return "option '%s' needs a value" % name


def run_refusal(args: list[str], err: Optional[argparse.ArgumentError],
                extra: list[str]) -> BadOption:
    """What run says of argparse's ERR, or of the words EXTRA it did not
    take: the option, the value, what is accepted."""
    if err is not None:
        if err.argument_name and err.message == 'expected one argument':
            return BadOption(needs_value(args, err.argument_name))
        return BadOption('invalid %s: %s' % (err.argument_name or 'command '
                                             'line', err.message))
    word = extra[0]
    if word.startswith('--'):
        return BadOption("unknown option '%s' (accepted: %s)"
                         % (word.split('=', 1)[0], options.accepted_list()))
    return BadOption("unexpected argument '%s' (options only; see --help)"
                     % word)


def internal_refusal(sub: str, err: Optional[argparse.ArgumentError],
                     extra: list[str]) -> NoReturn:
    """step's or guest's refusal: its usage, exit 1."""
    if sub == 'guest' and err is None:
        say("guest: unexpected '%s'" % extra[0])
    else:
        say(STEP_USAGE if sub == 'step' else guest.USAGE)
    raise Die()


def legacy(args: list[str]) -> None:
    """A BadOption naming the subcommand in place of the shell version's
    spelling, when ARGS (up to a '--') has one."""
    for a in args[:args.index('--') if '--' in args else len(args)]:
        word = a.split('=', 1)[0]
        if word in LEGACY:
            raise BadOption("option '%s' is the shell version's, and no longer "
                            "taken: give the subcommand, '%s %s'"
                            % (word, common.ME, LEGACY[word]))


def parse(argv: list[str]) -> argparse.Namespace:
    """ARGV parsed: the namespace of its subcommand (run's when it names
    none), guest's COMMAND as 'command'. Raises Help, BadOption, or Die
    after step's and guest's usage."""
    args = list(argv)
    legacy(args)
    if not args or args[0].startswith('-'):
        args.insert(0, 'run')
    command: list[str] = []
    if args[0] == 'guest' and '--' in args:
        i = args.index('--')
        args, command = args[:i], args[i + 1:]
    sub = args[0]
    err, extra = None, []
    try:
        ns, extra = PARSER.parse_known_args(args)
    except argparse.ArgumentError as e:
        err = e
    if sub not in SUBCOMMANDS:
        raise BadOption("unknown subcommand '%s' (accepted: %s; OPTIONS "
                        'alone are run\'s)' % (sub, ', '.join(SUBCOMMANDS)))
    if err is not None or extra:
        if sub == 'run':
            raise run_refusal(args, err, extra)
        internal_refusal(sub, err, extra)
    ns.command = command
    return ns


def given_options(ns: argparse.Namespace) -> dict[str, str]:
    """run's options as given, by name (build-dir, not build_dir); a
    value with a newline is refused."""
    given = {}
    for name, _ in options.OPTIONS:
        v = getattr(ns, name.replace('-', '_'))
        if v is None:
            continue
        if '\n' in v:
            raise BadOption('invalid --%s: contains a newline' % name)
        given[name] = v
    return given


def subcommand(paths, argv: list[str]) -> Callable[[], int]:
    """The subcommand ARGV names, ready to run: its status when called."""
    try:
        ns = parse(argv)
    except Help as h:
        name = h.name
        return lambda: show_help(paths, name)
    if ns.subcommand == 'step':
        return lambda: bisect.step_main(paths, ns.dir)
    if ns.subcommand == 'guest':
        if not re.fullmatch(r'[0-9]{1,9}', ns.retries):
            say("guest: invalid --retries '%s' (accepted: an integer)"
                % ns.retries)
            raise Die()
        if not ns.command:
            say(guest.USAGE)
            raise Die()
        return lambda: guest.main(paths, ns.prefix, ns.trace,
                                  int(ns.retries), ns.command)
    given = given_options(ns)
    return lambda: bisect.run(paths, given)


def show_help(paths, name: str) -> int:
    """--help of subcommand NAME (run's is the command's): 0."""
    if name == 'step':
        print(STEP_USAGE)
    elif name == 'guest':
        print(guest.USAGE)
    else:
        print(options.usage(paths), end='')
    return 0


def main(paths, argv: list[str]) -> int:
    """The command: its exit status."""
    return bisect.guard(paths, lambda: subcommand(paths, argv)())
