# SPDX-License-Identifier: GPL-2.0
"""bisect-kernel's command line: its subcommands, as kunit.py has them.

  run [OPTIONS]                 the bisect (the default: OPTIONS alone)
  step DIR                      git bisect run's step, in the tree
  guest PREFIX [--trace LIST] [--retries N] -- COMMAND...
                                in the VM: the measurement, then the traces

The shell version's spellings of the internal modes, --step DIR and
--guest PREFIX ..., are the same subcommands."""

from . import bisect
from . import guest


def subcommand(argv):
    """The subcommand ARGV names and its arguments."""
    first = argv[0] if argv else ''
    if first in ('step', '--step'):
        return bisect.step_main, argv[1:]
    if first == 'guest':
        return guest.main, argv[1:]
    if first == '--guest':
        return guest.main, argv
    if first == 'run':
        return bisect.run, argv[1:]
    return bisect.run, argv


def main(paths, argv):
    """The command: its exit status."""
    func, args = subcommand(argv)
    return bisect.guard(func, paths, args)
