# SPDX-License-Identifier: GPL-2.0
"""bisect-kernel: find the commit of a kernel tree that slowed its copies.

The parts, top to bottom (tools/bisect-kernel runs cli.main):
  cli        the command line (argparse) and its subcommands: run (the
             bisect), step, guest
  bisect     the bisect: checks, config, GOOD and BAD, git bisect run
  options    the bisect's options, one typed object (Options): the
             command line parsed, checked, completed with defaults
  state      DIR/state.json: the Options saved and loaded
  step       one kernel measured: a bisect step, or GOOD's/BAD's record
  guest      in the VM: the measurement, measured again, the traces
  kernel     a kernel built (tools/lib/kernel.sh), its module, its boot
  report     DIR/report.txt
  trace      the traces: what they need, why one failed, their summary
  paths      where the project's files are (source tree or installed)
  common     messages, exit statuses, formats, running a command
The unit tests (test_*.py beside them) run with
selftests/bisect_kernel_unit_test.py."""
