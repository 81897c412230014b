# SPDX-License-Identifier: GPL-2.0
"""A bisect's options, one typed object (Options) kept in DIR/state.json
with how far the bisect got: run's options (OPTIONS, as cli.py's parser
gives them), checked and completed with their defaults (validate), and
run's --help. A bad one raises BadOption naming it, its value and what
is accepted, before anything is changed."""

import dataclasses
import os
import re
import shutil
import subprocess
from typing import NamedTuple, Optional, Union

from . import common
from .common import BadOption, Die, say, short
from . import trace as tracing
from .paths import INSTALLED_NAME, Paths

# run's options, each with the word --help gives its value, in the order
# the unknown-option message lists them (cli.py parses them).
OPTIONS = (('tree', 'DIR'), ('good', 'REF'), ('bad', 'REF'), ('dir', 'DIR'),
           ('good-record', 'FILE'), ('bad-record', 'FILE'),
           ('config', 'FILE'), ('build-dir', 'DIR'), ('jobs', 'N'),
           ('sizes', 'LIST'), ('directions', 'LIST'), ('variants', 'LIST'),
           ('repeat', 'N'), ('samples', 'N'), ('placement', 'P'),
           ('threshold', 'PCT'), ('alpha', 'A'), ('retries', 'N'),
           ('trace', 'LIST'), ('append', 'ARGS'), ('accel', 'MODE'),
           ('timeout', 'SEC'))

USAGE = """\
Usage: {prog} [run] --tree DIR --good REF --bad REF [OPTIONS]
       {prog} [run] --dir DIR

Find the commit between GOOD and BAD of a kernel tree that made its copies
slower: git bisect, each step built (incrementally), booted in QEMU by
tools/vm-run and measured by copybench.ko and "copybench bisect-run" (0
good, 1 bad, 125 skip: a commit that does not build, a machine that
moved), with the bpftrace tools' trace beside each step's record. Ends with
a report to paste into a reply: the first bad commit, its subject, its
change to native per point net of the controls, where the time went.
Interrupted, the same command (or --dir DIR alone) resumes.

The bisect:
  --tree DIR        the kernel tree: a git work tree of Linux for x86-64,
                    without uncommitted changes to tracked files
  --good REF        a commit (any git revision) without the regression
  --bad REF         a commit with it, a descendant of GOOD
  --dir DIR         where the bisect keeps everything: its state, records,
                    traces, logs and report (default:
                    {default_dir}, TREE the
                    tree's name, GOOD and BAD 12-digit commits)
  --good-record FILE, --bad-record FILE
                    GOOD's (BAD's) record, from anywhere (copybench sweep
                    --backend module on that kernel, 5 repeats or more):
                    copied into DIR, and that kernel is not measured

The kernels:
  --config FILE     a .config or a fragment, merged onto "make tinyconfig"
                    at GOOD; every step builds with it (make olddefconfig)
                    (default: tools/bisect-kernel.config, a fast kernel
                    with what vm-run, copybench.ko and bpftrace need);
                    CONFIG_LOCALVERSION_AUTO=y is added, so that each
                    step's release names its commit
  --build-dir DIR   kbuild's output directory (make O=DIR; default:
                    DIR/obj of --dir); the tree itself builds in place
                    (its .config is replaced)
  --jobs N          make -jN, 1..256 (default: the number of CPUs, {nproc})

The measurement (what GOOD and BAD are recorded with, and each step
measures again, copybench sweep's options):
  --sizes LIST      (default 64,4K,64K)
  --directions LIST (default to_user)
  --variants LIST   native and the controls, fixed copies that never change
                    (default all: every control narrows the machine's drift)
  --repeat N        (default 7; alpha 0.01 needs 5)
  --samples N       (default 201)
  --placement P     where each process puts its buffers (copybench sweep
                    --placement): fixed (the default: every process alike;
                    under TCG one placement in a few makes a copy 4 to 8
                    times slower, which reads as placement-sensitive and
                    skips every step), vary, or SRC:DST:STACK; each step
                    measures with GOOD's (sweep --like)
  --threshold PCT   the least change that counts, percent (default 25: a
                    kernel bisect hunts a large step, and under TCG a copy
                    moves by up to about 20% between boots, net of the
                    controls; on hardware or KVM 5 finds smaller ones)
  --alpha A         copybench bisect-run's (default: its own, 0.01)
  --retries N       when a step's skip is the measurement's (the machine
                    moved: a busy host slows an emulated CPU, and not all
                    copies alike; a point like neither GOOD nor BAD; an
                    inconclusive verdict), measure again in the same boot
                    (seconds), up to N times, 0..9 (default 3); when the
                    machine moved between GOOD and BAD, BAD, then GOOD, is
                    measured again in a new boot
  --trace LIST      bpftrace tools run after each measurement, on dd
                    reading a {mib} MiB tmpfs file {bs} at a time: kcopy
                    (the routine on the CPU, bytes and time per read;
                    the default), copysize (copy sizes by path), both
                    (kcopy,copysize), or none

The VM (tools/vm-run):
  --append ARGS     more kernel command line (e.g. clearcpuid=fsrm: on a CPU
                    with FSRM the kernel inlines rep movsb and never calls
                    rep_movs_alternative)
  --accel MODE      auto, kvm or tcg (default: vm-run's)
  --timeout SEC     each boot's limit, 1..86400 (default 600)
  -h, --help        this text

Under QEMU's TCG (no KVM here) every instruction is emulated: 'rep movsb'
costs about 10 times the unrolled loop, so a bisect finds the commit of a
large change, and its size is no figure. Documentation/bisect.rst has a
worked example and what TCG can and cannot tell.

Subcommands: run, the bisect (the default: the options alone are run's);
step DIR and guest PREFIX [--trace LIST] [--retries N] -- COMMAND...,
which the bisect runs itself (git bisect run's step, in the kernel tree;
the measurement and the traces, in the VM).

Exit status: 0 found (DIR/report.txt), 1 not found (why on stderr),
2 bad option or input (nothing changed), 130 interrupted (run it again).
"""


# --help's words for the installed command (and its man page), which
# speak of no source tree.
INSTALLED_WORDS = (
    ('\n       %s [run] --dir DIR' % INSTALLED_NAME,
     '\n   or: %s [run] --dir DIR' % INSTALLED_NAME),
    ('build/bisect/TREE-GOOD-BAD in this checkout',
     '~/.cache/copybench/bisect/TREE-GOOD-BAD'),
    ("TREE the\n                    tree's name",
     "TREE the\n                    kernel tree's name"),
    ('tools/bisect-kernel.config', 'share/copybench/bisect-kernel.config'),
    ('the tree itself builds', 'the kernel tree itself builds'),
    ('The VM (tools/vm-run):', 'The VM (copybench-vm-run):'),
    ('tools/vm-run and', 'copybench-vm-run and'),
    ('Documentation/bisect.rst has', "The documentation's bisect.rst has"),
)


def usage(paths: Paths) -> str:
    """--help's text, for the command as it was called."""
    text = USAGE.format(prog=paths.prog, nproc=nproc(), mib=tracing.FILE_MIB,
                        bs=tracing.BS,
                        default_dir='build/bisect/TREE-GOOD-BAD in this checkout')
    if paths.prog == INSTALLED_NAME:
        for tree_words, words in INSTALLED_WORDS:
            text = text.replace(tree_words, words)
    return text


def nproc() -> int:
    """The CPUs this process may run on, as nproc(1) counts them."""
    return len(os.sched_getaffinity(0))


def accepted_list() -> str:
    """The accepted options, as the unknown-option message lists them."""
    return ' '.join('--' + o for o, _ in OPTIONS) + ' --help'


def is_uint_in(value: str, lo: int, hi: int) -> bool:
    """VALUE is a decimal integer of at most 9 digits from LO to HI."""
    return bool(re.fullmatch(r'[0-9]{1,9}', value)) and lo <= int(value) <= hi


# The phases of a bisect, in order: a phase is done when the bisect is at
# it or past it.
PHASES = ('new', 'configured', 'good', 'bad', 'bisecting', 'done')


@dataclasses.dataclass
class Options:
    """A bisect, typed: what it is (IDENTITY: a resumed run must give the
    same, or none), the rest of its options, and how far it got (phase:
    one of PHASES; first_bad). Checked and completed with its defaults by
    validate; kept in DIR/state.json (state.py). Where copybench takes a
    value in its own syntax (the sizes, a placement), it is kept as
    copybench's text."""

    tree: str = ''
    good: str = ''
    bad: str = ''
    config_sha: str = ''
    build_dir: str = ''
    sizes: str = '64,4K,64K'
    directions: str = 'to_user'
    variants: str = 'all'
    repeat: int = 7
    samples: int = 201
    placement: str = 'fixed'
    threshold: float = 25.0
    alpha: Optional[float] = None
    append: str = ''
    accel: str = ''
    config: str = ''
    good_ref: str = ''
    bad_ref: str = ''
    orig_head: str = ''
    jobs: int = dataclasses.field(default_factory=nproc)
    timeout: int = 600
    retries: int = 3
    trace: str = tracing.DEFAULT
    phase: str = 'new'
    first_bad: str = ''

    def decide(self) -> list[str]:
        """The decision's options, as bisect-run and compare take them."""
        d = ['--threshold', text(self.threshold)]
        if self.alpha is not None:
            d += ['--alpha', text(self.alpha)]
        return d

    def phase_done(self, phase: str) -> bool:
        """Whether the bisect got to PHASE (or past it). Once bisecting,
        every phase before is done."""
        return PHASES.index(self.phase) >= PHASES.index(phase)

    def changed(self, other: 'Options') -> list[str]:
        """How OTHER's identity differs from this bisect's: "KEY: 'THERE'
        there, 'NOW' now" for each key of IDENTITY."""
        return ["%s: '%s' there, '%s' now"
                % (k, text(getattr(self, k)), text(getattr(other, k)))
                for k in IDENTITY if getattr(self, k) != getattr(other, k)]


# The fields that are what the bisect is, in state.json's order.
IDENTITY = ('tree good bad config_sha build_dir sizes directions variants '
            'repeat samples placement threshold alpha append accel').split()

FIELDS = {f.name: f.type for f in dataclasses.fields(Options)}

# A field's value.
Value = Union[str, int, float, None]


def text(value: Value) -> str:
    """A field's value as the command line gives it and the messages say
    it: '' for none, a number without a '.0' when it is whole."""
    if value is None:
        return ''
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def number(value: str) -> float:
    """A number as copybench reads it (strtod: decimal or hexadecimal);
    ValueError when it is not one."""
    try:
        return float(value)
    except ValueError:
        return float.fromhex(value)


def from_text(name: str, value: str) -> Value:
    """Field NAME's value from its text (VALUE as the command line gives
    it, or a state.json of format 1 keeps it); ValueError when it is not
    of the field's type."""
    kind = FIELDS[name]
    if kind is int:
        if not re.fullmatch(r'[0-9]{1,9}', value):
            raise ValueError('not an integer')
        return int(value)
    if kind is float:
        return number(value)
    if kind == Optional[float]:
        return number(value) if value else None
    return value


def typed(name: str, value: str, accepted: str) -> Value:
    """Option --NAME's VALUE as its field's type, or a BadOption."""
    try:
        return from_text(name, value)
    except ValueError:
        raise BadOption("invalid --%s '%s' (accepted: %s)"
                        % (name, value, accepted)) from None


# The options a resumed bisect takes from its state when not given again,
# the option's name and the field.
FROM_STATE = [('tree', 'tree'), ('good', 'good'), ('bad', 'bad'),
              ('build-dir', 'build_dir'), ('config', 'config')] + [
    (k, k) for k in ('sizes directions variants repeat samples placement '
                     'threshold alpha append accel jobs timeout retries '
                     'trace').split()]


def options_from_state(given: dict[str, str], o: Options) -> None:
    """GIVEN (the options as given, by name) completed with a resumed
    bisect's O: what was not given, or given empty."""
    for name, field in FROM_STATE:
        if not given.get(name) and text(getattr(o, field)):
            given[name] = text(getattr(o, field))


class Checked(NamedTuple):
    """What validate made of a command line: the bisect's options, its
    directory, and the line said at the start about the traces."""
    options: Options
    dir: str
    trace_note: str


def validate(given: dict[str, str], paths: Paths,
             trace_given: str) -> Checked:
    """GIVEN (the options as given, by name) checked against the tree and
    the tools, with their defaults. TRACE_GIVEN: --trace was on this
    command line."""
    o = Options()
    check_tools(paths)
    check_tree(given, o)
    check_commits(given, o)
    d = check_dirs(given, paths, o)
    check_config(given, paths, o)
    check_measurement(given, paths, o)
    note = trace_preflight(o, trace_given)
    check_vm(given, o)
    for name in ('good-record', 'bad-record'):
        if given.get(name):
            check_record(paths, name, given[name])
    return Checked(o, d, note)


def check_tools(paths: Paths) -> None:
    """The commands a bisect runs, and the copybench command (built from
    the checkout when missing)."""
    for v in ('git', 'make', 'gcc', 'flex', 'bison', 'bc'):
        if not shutil.which(v):
            say("'%s' not found; run scripts/setup" % v)
            raise Die()
    if not os.access(paths.vmrun, os.X_OK):
        say('no %s: it boots the kernels; install it with this command '
            '(make install, the copybench package)' % paths.vmrun)
        raise Die()
    if os.access(paths.copybench, os.X_OK):
        return
    if paths.installed:
        say('no %s: install the copybench package' % paths.copybench)
        raise Die()
    say('building the copybench command (make copybench)')
    if common.call(['make', '-s', '-C', paths.project, 'copybench'],
                   stdout=2) != 0:
        say('make copybench failed')
        raise Die()


def git(tree: str, *args: str) -> tuple[str, int]:
    """git -C TREE ARGS: its output and status."""
    return common.output(['git', '-C', tree] + list(args))


def check_tree(given: dict[str, str], o: Options) -> None:
    """--tree: the top of a git work tree holding an x86 Linux source."""
    t = given.get('tree', '')
    if not t:
        raise BadOption('--tree DIR is required (the kernel tree to bisect)')
    if not os.path.isdir(t):
        raise BadOption("invalid --tree '%s': not a directory (accepted: a "
                        'git work tree of Linux)' % t)
    o.tree = os.path.realpath(t)
    top, _ = git(o.tree, 'rev-parse', '--show-toplevel')
    if top != o.tree:
        raise BadOption("invalid --tree '%s': not the top of a git work tree "
                        '(accepted: a git work tree of Linux)' % t)
    makefile = common.read_text(os.path.join(o.tree, 'Makefile'))
    if (not re.search(r'^VERSION = ', makefile, re.M)
            or not os.path.isdir(os.path.join(o.tree, 'arch', 'x86'))):
        raise BadOption("invalid --tree '%s': no Linux source there "
                        '(Makefile with VERSION, arch/x86)' % t)


def commit_of(tree: str, name: str, ref: str) -> str:
    """The full commit REF names in TREE, or a BadOption for --NAME."""
    c, rc = git(tree, 'rev-parse', '-q', '--verify', ref + '^{commit}')
    if rc != 0 or not c:
        raise BadOption("invalid --%s '%s': not a commit of %s (accepted: a "
                        'commit, branch, tag or other git revision)'
                        % (name, ref, tree))
    return c


def check_commits(given: dict[str, str], o: Options) -> None:
    """--good and --bad: commits, GOOD an ancestor of BAD."""
    for name in ('good', 'bad'):
        if not given.get(name):
            raise BadOption('--%s REF is required' % name)
    o.good = commit_of(o.tree, 'good', given['good'])
    o.bad = commit_of(o.tree, 'bad', given['bad'])
    if o.good == o.bad:
        raise BadOption("invalid --bad '%s': the same commit as --good"
                        % given['bad'])
    _, rc = git(o.tree, 'merge-base', '--is-ancestor', o.good, o.bad)
    if rc != 0:
        raise BadOption("invalid --good '%s': not an ancestor of --bad '%s' "
                        '(a bisect goes from GOOD forwards to BAD)'
                        % (given['good'], given['bad']))


def writable_dir(path: str) -> bool:
    """PATH is a directory this process may write into."""
    return os.path.isdir(path) and os.access(path, os.W_OK)


def resolve_new_dir(d: str) -> str:
    """D, which does not exist yet, made absolute from its nearest
    existing ancestor (which must be a writable directory)."""
    up = os.path.dirname(d) or '.'
    while not os.path.lexists(up):
        up = os.path.dirname(up) or '.'
    if not writable_dir(up):
        raise BadOption("invalid --dir '%s': cannot be created ('%s' is not "
                        'a writable directory)' % (d, up))
    return os.path.join(os.path.realpath(up), os.path.relpath(d, up))


def check_dirs(given: dict[str, str], paths: Paths, o: Options) -> str:
    """--dir (made absolute; vm-run shares it, and it is returned) and
    --build-dir."""
    name = '%s-%s-%s' % (os.path.basename(o.tree), short(o.good),
                         short(o.bad))
    d = given.get('dir') or paths.default_dir(name)
    if os.path.lexists(d):
        if not writable_dir(d):
            raise BadOption("invalid --dir '%s': not a writable directory" % d)
        d = os.path.realpath(d)
    else:
        d = resolve_new_dir(d)
    if ',' in d or ' ' in d:
        raise BadOption("invalid --dir '%s': vm-run shares it with QEMU, "
                        "which takes no ',' or space in it" % d)
    obj = given.get('build-dir') or os.path.join(d, 'obj')
    if os.path.lexists(obj):
        if not writable_dir(obj):
            raise BadOption("invalid --build-dir '%s': not a writable "
                            'directory' % obj)
        obj = os.path.realpath(obj)
    elif not obj.startswith('/'):
        obj = os.path.join(os.getcwd(), obj)
    o.build_dir = obj
    own_build = (os.path.lexists(os.path.join(o.tree, '.config'))
                 or os.path.isdir(os.path.join(o.tree, 'include', 'config')))
    if obj != o.tree and own_build:
        raise BadOption(
            "invalid --tree '%s': it has a build of its own (.config, "
            "include/config), so kbuild will not build it in --build-dir "
            "'%s'; run 'make mrproper' there, or --build-dir '%s' to build "
            'in it (its .config is replaced)' % (given['tree'], obj, o.tree))
    return d


def check_config(given: dict[str, str], paths: Paths, o: Options) -> None:
    """--config: a readable file."""
    c = given.get('config') or paths.config
    if not (os.path.isfile(c) and os.access(c, os.R_OK)):
        raise BadOption("invalid --config '%s': not a readable file "
                        '(accepted: a .config or a fragment)' % c)
    o.config = os.path.realpath(c)


def stderr_tail(cmd: list[str]) -> tuple[int, str]:
    """CMD's status and the last line of its stderr (its stdout dropped)."""
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, text=True, errors='replace')
    lines = p.stderr.rstrip('\n').split('\n')
    return common.status_of(p.returncode), lines[-1]


def check_measurement(given: dict[str, str], paths: Paths,
                      o: Options) -> None:
    """The measurement's and the decision's options, which copybench
    sweep --dry-run and compare judge; --retries; --trace's names."""
    o.sizes = given.get('sizes') or o.sizes
    o.directions = given.get('directions') or o.directions
    o.variants = given.get('variants') or o.variants
    repeat = given.get('repeat') or text(o.repeat)
    samples = given.get('samples') or text(o.samples)
    o.placement = given.get('placement') or o.placement
    rc, last = stderr_tail([
        paths.copybench, 'sweep', '--backend', 'user', '--dry-run',
        '--sizes', o.sizes, '--directions', o.directions,
        '--variants', o.variants, '--repeat', repeat,
        '--samples', samples, '--placement', o.placement])
    if rc != 0:
        raise BadOption('invalid measurement: ' + last)
    o.repeat = typed('repeat', repeat, 'a whole number')
    o.samples = typed('samples', samples, 'a whole number')
    if o.variants != 'all' and 'native' not in o.variants.split(','):
        raise BadOption("invalid --variants '%s': native is not among them "
                        '(accepted: native and the controls)' % o.variants)
    threshold = given.get('threshold') or text(o.threshold)
    alpha = given.get('alpha', '')
    decide = ['--threshold', threshold] + (['--alpha', alpha] if alpha else [])
    rc, last = stderr_tail([paths.copybench, 'compare'] + decide + ['--help'])
    if rc != 0:
        raise BadOption('invalid decision: ' + last)
    o.threshold = typed('threshold', threshold, 'a number')
    o.alpha = typed('alpha', alpha, 'a number')
    retries = given.get('retries') or text(o.retries)
    if not is_uint_in(retries, 0, 9):
        raise BadOption("invalid --retries '%s' (accepted: an integer from 0 "
                        'to 9)' % retries)
    o.retries = int(retries)
    o.trace = given.get('trace') or o.trace
    if o.trace != 'none':
        for v in o.trace.split(','):
            if v not in tracing.TOOLS:
                raise BadOption(
                    "invalid --trace '%s': no tool '%s' (accepted: a list of "
                    '%s, or none)' % (o.trace, v, ','.join(tracing.TOOLS)))
    o.append = given.get('append', '')
    o.accel = given.get('accel', '')


def trace_preflight(o: Options, trace_given: str) -> str:
    """Whether the traces can work with this tree and config, before
    anything is built: bpftrace here (the guest runs the host's), the
    kernel's headers in the tree, tracing.NEEDS_CONFIG in the config (the
    given file; the .config is checked again once configured). The line
    said at the start. A trace that cannot work: with --trace given, a
    BadOption; by default, a warning, and o.trace becomes none."""
    if o.trace == 'none':
        return 'trace: none (--trace none)'
    why = []
    if not shutil.which('bpftrace'):
        why.append("no bpftrace on this host (the guest runs the host's; "
                   'package bpftrace)')
    if not os.access(os.path.join(o.tree, 'include', 'linux', 'kconfig.h'),
                     os.R_OK):
        why.append("no include/linux/kconfig.h in --tree '%s' (bpftrace "
                   "reads the kernel's headers there)" % o.tree)
    lines = common.read_text(o.config).split('\n')
    unmet = ''.join(' ' + n[:-2] for n in tracing.NEEDS_CONFIG
                    if n not in lines)
    if unmet:
        why.append("the config (%s) does not set%s (bpftrace's kprobes and "
                   'samples need them)' % (o.config, unmet))
    if not why:
        version, _ = common.output(['bpftrace', '--version'])
        return ('trace: %s.bt after each measurement can work: %s, the '
                'headers in %s, %s in the config'
                % (o.trace.replace(',', '.bt, '), common.first_line(version),
                   o.tree, ' '.join(n[:-2] for n in tracing.NEEDS_CONFIG)))
    reasons = ''.join(w + '; ' for w in why)
    if trace_given:
        raise BadOption("invalid --trace '%s': the trace cannot work with this "
                        'tree: %sbisect without it with --trace none'
                        % (o.trace, reasons))
    o.trace = 'none'
    return ('WARNING: the trace cannot work with this tree: %sbisecting '
            'without it (--trace none)' % reasons)


def check_vm(given: dict[str, str], o: Options) -> None:
    """--jobs, --timeout, --accel."""
    jobs = given.get('jobs') or text(o.jobs)
    if not is_uint_in(jobs, 1, 256):
        raise BadOption("invalid --jobs '%s' (accepted: an integer from 1 to "
                        '256)' % jobs)
    o.jobs = int(jobs)
    timeout = given.get('timeout') or text(o.timeout)
    if not is_uint_in(timeout, 1, 86400):
        raise BadOption("invalid --timeout '%s' (accepted: seconds, an "
                        'integer from 1 to 86400)' % timeout)
    o.timeout = int(timeout)
    if o.accel not in ('', 'auto', 'kvm', 'tcg'):
        raise BadOption("invalid --accel '%s' (accepted: auto, kvm, tcg)"
                        % o.accel)


def check_record(paths: Paths, name: str, f: str) -> None:
    """A record given for GOOD or BAD: a readable file sweep --like
    takes."""
    if not (os.path.isfile(f) and os.access(f, os.R_OK)):
        raise BadOption("invalid --%s '%s': not a readable file (accepted: a "
                        'record of copybench sweep --backend module)'
                        % (name, f))
    rc, last = stderr_tail([paths.copybench, 'sweep', '--backend', 'user',
                            '--dry-run', '--like', f])
    if rc != 0:
        raise BadOption("invalid --%s '%s': %s" % (name, f, last))
