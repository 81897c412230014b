# SPDX-License-Identifier: GPL-2.0
"""The bisect itself (the subcommand run, the command's default): checks
everything, configures the tree once, records GOOD and BAD, runs git
bisect run with the subcommand step, writes the report. Interrupted, the
same command resumes from DIR/state.json."""

import dataclasses
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from typing import Callable

from . import common
from . import kernel
from . import options
from . import report
from . import state
from . import step
from . import trace as tracing
from .common import BadOption, Die, Exit, say, short


class Bisect:
    """One bisect: its files (PATHS), directory D and options (opts, as
    DIR/state.json keeps them)."""

    def __init__(self, paths, d: str, opts: options.Options):
        self.paths = paths
        self.ksh = kernel.KernelSh(paths.kernel_sh)
        self.dir = d
        self.opts = opts
        self.start = time.monotonic()

    @property
    def tree(self) -> str:
        return self.opts.tree

    @property
    def obj(self) -> str:
        return self.opts.build_dir

    def set(self, **kv) -> None:
        """Set the options' fields KV, then write the state whole."""
        self.opts = dataclasses.replace(self.opts, **kv)
        state.save(self.dir, self.opts)

    def git(self, *args):
        """git -C TREE ARGS: its output and status."""
        return common.output(['git', '-C', self.tree] + list(args))

    def decide(self) -> list[str]:
        """The decision's options, as bisect-run and compare take them."""
        return self.opts.decide()

    def log(self, name):
        """DIR/logs/NAME."""
        return os.path.join(self.dir, 'logs', name)

    def die(self, *words):
        """Say WORDS, exit 1."""
        say(*words)
        raise Die()

    def bisecting(self):
        """Whether a git bisect is under way in the tree."""
        gitdir, _ = self.git('rev-parse', '--absolute-git-dir')
        return os.path.exists(os.path.join(gitdir, 'BISECT_START'))


def config_sha(path: str) -> str:
    """The SHA-256 of the config file PATH, which a resumed bisect must
    give again."""
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_state(d: str) -> options.Options:
    """The options kept in D, or a BadOption when they cannot be read."""
    try:
        return state.load(d)
    except state.StateError as e:
        raise BadOption("invalid --dir '%s': %s (not a bisect's state)"
                        % (d, e)) from e


def begin(b, given):
    """The state of a new bisect (b.opts, as checked), or a resumed one's
    checked against it; nothing is changed before a refusal. GIVEN: the
    options as given."""
    if state.exists(b.dir):
        there = load_state(b.dir)
        changed = there.changed(b.opts)
        if changed:
            raise BadOption(
                "'%s' holds another bisect (%sresume it with its own "
                'options, or --dir DIR alone, or give another --dir)'
                % (b.dir, ''.join(c + '; ' for c in changed)))
        b.opts = there
        if there.phase != 'done':
            say('resuming the bisect in %s (phase: %s)' % (b.dir, there.phase))
        return
    if common.output(['git', '-C', b.tree, 'status', '--porcelain', '-uno'],
                     stderr=subprocess.STDOUT)[0]:
        raise BadOption("invalid --tree '%s': it has uncommitted changes (git "
                        'status); commit or stash them first' % given['tree'])
    if b.bisecting():
        raise BadOption("invalid --tree '%s': a git bisect is under way there "
                        "(git bisect log); 'git bisect reset' first"
                        % given['tree'])
    try:
        os.makedirs(os.path.join(b.dir, 'logs'), exist_ok=True)
    except OSError:
        b.die('cannot create %s' % b.dir)
    head, rc = b.git('symbolic-ref', '-q', '--short', 'HEAD')
    if rc != 0:
        head = b.git('rev-parse', 'HEAD')[0]
    b.set(good_ref=given['good'], bad_ref=given['bad'], orig_head=head,
          phase='new')


def module_source(b):
    """The module's sources, as DKMS takes them, into DIR/module once:
    make dkms-source in the checkout, or the copybench-dkms package's."""
    dest = os.path.join(b.dir, 'module')
    if os.path.isdir(dest):
        return
    tmp, log = dest + '.tmp', b.log('module-source.log')
    installed = b.paths.dkms_sources() if b.paths.installed else ''
    if installed:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(installed, os.path.join(
            tmp, 'usr', 'src', os.path.basename(installed)))
        os.rename(tmp, dest)
        return
    with open(log, 'w') as f:
        rc = common.call(['make', '-s', '-C', b.paths.project or '.',
                          'dkms-source', 'DESTDIR=' + tmp], stdout=f,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if rc != 0:
        b.die('make dkms-source failed (log: %s)' % log)
    os.rename(tmp, dest)


def unmet_list(text):
    """kernel_unmet's lines, spaced as the messages give them."""
    return ''.join(ln + ' ' for ln in text.split('\n'))


def configure(b, trace_given):
    """The config, once, at GOOD: tinyconfig plus the config given, checked
    for what the config asks, what each step needs and what the traces
    need; DIR/config."""
    config = b.opts.config
    say('configuring at GOOD %s: tinyconfig + %s (build directory %s)'
        % (short(b.opts.good), config, b.obj))
    if common.call(['git', '-C', b.tree, 'checkout', '-q', '--detach',
                    b.opts.good]) != 0:
        b.die('cannot check out GOOD in %s' % b.tree)
    try:
        os.makedirs(b.obj, exist_ok=True)
    except OSError:
        b.die('cannot create %s' % b.obj)
    fragment, log = os.path.join(b.dir, 'fragment'), b.log('configure.log')
    with open(fragment, 'w') as f:
        f.write(common.read_text(config) + '\nCONFIG_LOCALVERSION_AUTO=y\n')
    if not b.ksh.configure(b.tree, b.obj, fragment, log):
        b.die('configuration failed: %s (log: %s)'
              % (b.ksh.first_error(log), log))
    dotconfig = os.path.join(b.obj, '.config')
    check_fragment(b, b.ksh.unmet_file(dotconfig, fragment), log)
    unmet = b.ksh.unmet(dotconfig, kernel.NEEDS_CONFIG)
    if unmet:
        b.die('the .config lacks what each step needs: %s' % unmet)
    check_trace_config(b, b.ksh.unmet(dotconfig, tracing.NEEDS_CONFIG),
                       trace_given)
    try:
        shutil.copyfile(dotconfig, os.path.join(b.dir, 'config'))
    except OSError:
        b.die('cannot write %s/config' % b.dir)
    b.set(phase='configured')


def check_fragment(b, unmet, log):
    """The lines of the config that do not hold in the .config: an error
    for the default fragment, a warning for the user's."""
    if not unmet:
        return
    config = b.opts.config
    lines = unmet.split('\n')
    if config == os.path.realpath(b.paths.config):
        sys.stderr.write(''.join('  %s\n' % ln for ln in lines))
        b.die('the .config does not hold what %s asks (above): is the tree '
              'older than it?' % os.path.basename(config))
    say('warning: %d line(s) of %s do not hold in the .config (all in %s):'
        % (len(lines), config, log))
    sys.stderr.write(''.join('  %s\n' % ln for ln in lines[:5]))
    with open(log, 'a') as f:
        f.write(unmet + '\n')


def check_trace_config(b, unmet, trace_given):
    """The traces' needs, in the .config itself (a dependency may have
    dropped one the config asked for)."""
    if not unmet or b.opts.trace == 'none':
        return
    if trace_given:
        b.die('the trace cannot work: the .config lacks %s(give --trace none '
              'to bisect without it)' % unmet_list(unmet))
    say('WARNING: the trace cannot work: the .config lacks %sbisecting '
        'without it (--trace none)' % unmet_list(unmet))
    b.set(trace='none')


def records(b, given_opts):
    """GOOD's and BAD's records: given (GIVEN_OPTS: the options as
    given), or measured."""
    for k in ('good', 'bad'):
        if b.opts.phase_done(k):
            continue
        given = given_opts.get(k + '-record')
        if given:
            try:
                shutil.copyfile(given, os.path.join(b.dir, k + '.json'))
            except OSError:
                b.die('cannot copy %s into %s' % (given, b.dir))
            step.step_line(b.dir, short(getattr(b.opts, k)), k.upper(), 0,
                           kernel.Timing(), 'given: ' + given)
        else:
            step.record(b, k, getattr(b.opts, k))
        b.set(phase=k)


def cpu_warnings(b):
    """Said loudly once GOOD's record is there: an emulated CPU, and
    FSRM."""
    h = report.header(os.path.join(b.dir, 'good.json'))
    if report.is_tcg(h):
        say('EMULATED CPU (%s): QEMU\'s TCG emulates every instruction.'
            % h.get('cpu_model'),
            "There 'rep movsb' costs about 10 times the unrolled loop and a "
            'byte loop about',
            "twice 'rep movsb': the bisect finds the commit of a large "
            'change, but the size of',
            "the change is the emulator's. Measure it on hardware, or bisect "
            'under KVM (--accel kvm',
            'where KVM boots).')
    flags = h.get('cpu_flags') or []
    if 'fsrm' in flags and 'clearcpuid=fsrm' not in b.opts.append.split():
        say('note: the guest CPU has FSRM: kernels since 6.4 copy user memory '
            "with an inline 'rep movsb' and never call rep_movs_alternative; "
            '--append clearcpuid=fsrm bisects that routine')


def run(paths, given: dict[str, str]) -> int:
    """The subcommand run with the options GIVEN (by name, as given): its
    status."""
    given = dict(given)
    trace_given = given.get('trace', '')
    if given.get('dir') and state.exists(given['dir']):
        options.options_from_state(given, load_state(given['dir']))
    checked = options.validate(given, paths, trace_given)
    o = checked.options
    o.config_sha = config_sha(o.config)
    b = Bisect(paths, checked.dir, o)
    begin(b, given)
    b.set(jobs=o.jobs, timeout=o.timeout, retries=o.retries, trace=o.trace)
    if b.opts.phase != 'done':
        say(checked.trace_note)
    with Interruptible(b):
        return phases(b, given, trace_given)


class Interruptible:
    """The block of a bisect that an interrupt (Ctrl-C, SIGTERM, SIGHUP)
    stops with 130, the same command resuming; each run's seconds are
    added to DIR/seconds however it ends."""

    def __init__(self, b):
        self.b = b

    def __enter__(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, interrupt)

    def __exit__(self, kind, exc, tb):
        if os.path.isdir(self.b.dir):
            with open(os.path.join(self.b.dir, 'seconds'), 'a') as f:
                f.write('%d\n' % kernel.since(self.b.start))
        if kind is KeyboardInterrupt:
            say('interrupted (phase %s); the same command resumes'
                % self.b.opts.phase)
            raise Exit(common.EXIT_INTERRUPTED)
        return False


def interrupt(signum, frame):
    """SIGTERM and SIGHUP, as Ctrl-C."""
    raise KeyboardInterrupt()


def phases(b, opts, trace_given):
    """Whatever is not done yet: the module's sources, the config, the
    records, the bisect; then the report, printed."""
    module_source(b)
    if not b.opts.phase_done('configured'):
        configure(b, trace_given)
    records(b, opts)
    if b.opts.phase != 'done':
        cpu_warnings(b)
    if b.opts.phase == 'bad':
        good_against_bad(b)
    if b.opts.phase != 'done':
        bisect(b)
    if not b.opts.first_bad:
        b.die('the bisect in %s named no first bad commit (%s/steps.log)'
              % (b.dir, b.dir))
    # Written once, when the bisect ends; a later run prints it again.
    path = os.path.join(b.dir, 'report.txt')
    if not common.nonempty(path):
        report.write(b, b.opts.first_bad, kernel.since(b.start))
    sys.stdout.write(common.read_text(path))
    return common.EXIT_FOUND


def compare(b):
    """copybench compare of GOOD and BAD: its status, its text (also in
    DIR/good-bad.compare.txt) and its --json objects."""
    recs = [os.path.join(b.dir, 'good.json'), os.path.join(b.dir, 'bad.json')]
    p = subprocess.run([b.paths.copybench, 'compare'] + b.decide() + recs,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors='replace')
    out = p.stdout.rstrip('\n')
    common.write_atomic(os.path.join(b.dir, 'good-bad.compare.txt'), out + '\n')
    js = subprocess.run([b.paths.copybench, 'compare', '--json'] + b.decide()
                        + recs, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True, errors='replace')
    try:
        objs = common.json_stream(js.stdout)
    except ValueError:
        objs = []
    return common.status_of(p.returncode), out, objs


def drift_pct(objs):
    """The largest drift of the controls, in whole percent."""
    d = [abs((o['ratio'] - 1) * 100) for o in objs
         if o.get('type') == 'drift' and 'ratio' in o]
    return common.jround(max(d)) if d else 0


def native_points(objs):
    """compare --json's native points."""
    return [o for o in objs
            if o.get('type') == 'point' and o.get('control') is False]


def spread_side(objs):
    """The side whose native processes spread the most, when a native point
    is placement-sensitive: 'good', 'bad', or ''."""
    pl = [p['placement'] for p in native_points(objs)
          if (p.get('placement') or {}).get('sensitive') is True]
    if not pl:
        return ''
    if (max(x.get('base_spread', 0) for x in pl)
            > max(x.get('new_spread', 0) for x in pl)):
        return 'good'
    return 'bad'


def regressed_net(objs):
    """A native point regressed both raw and net of the controls."""
    return any((p.get('test') or {}).get('verdict') == 'regressed'
               and (p.get('net') or {}).get('verdict') == 'regressed'
               for p in native_points(objs))


def remeasure(b, objs, rc, attempt):
    """Which side to measure again, and why, or (None, '')."""
    threshold = b.opts.threshold
    side = spread_side(objs)
    if side:
        return side, ("a native point is placement-sensitive (%s's processes "
                      'disagree beyond %s%%)'
                      % (side.upper(), options.text(threshold)))
    drift = drift_pct(objs)
    if rc == 3 or drift > int(threshold) // 2:
        return ('bad' if attempt % 2 == 0 else 'good',
                'the controls moved by %s%% between GOOD and BAD' % drift)
    return None, ''


def good_against_bad(b):
    """BAD against GOOD must show a native regression. When the machine
    moved between them (or by more than half the threshold, which leaves a
    step little room before it has moved against one of them), or a
    native point is placement-sensitive, the side that moved or spread,
    BAD first, is measured again in a new boot (a given record too: its
    kernel is in the tree), up to --retries times."""
    retries, attempt = b.opts.retries, 0
    while True:
        rc, out, objs = compare(b)
        who, why = remeasure(b, objs, rc, attempt)
        if not who or attempt >= retries:
            break
        attempt += 1
        say('%s: measuring %s again (%d of %d)'
            % (why, who.upper(), attempt, retries))
        step.record(b, who, getattr(b.opts, who))
    # The machine moved (a busy host), yet a native point regressed both
    # raw and net of the controls: the regression is the kernel's.
    if rc == 3 and regressed_net(objs):
        say('the controls moved between GOOD and BAD, but native regressed '
            'net of them too (%s/good-bad.compare.txt): bisecting' % b.dir)
        rc = 1
    if rc != 1:
        keep = ('# verdict', 'THE MACHINE MOVED', '# placement-sensitive')
        for ln in out.split('\n'):
            if ln.startswith(keep) or common_native_line(ln):
                print(ln, file=sys.stderr)
        b.die('BAD does not show a native regression against GOOD (copybench '
              'compare exited %d; %s/good-bad.compare.txt): nothing to bisect'
              % (rc, b.dir))


def common_native_line(ln):
    """compare's line of a native point ('#   DIR.native.SIZE ...')."""
    return re.match(r'#   [a-z_]*\.native\.', ln) is not None


def put_back(b):
    """A checkout that was interrupted (Ctrl-C in git) leaves the tree
    between two commits: it is put back at the commit git meant, or at
    HEAD. The tree had no change of its own when the bisect began."""
    k, rc = b.git('rev-parse', '-q', '--verify', 'BISECT_EXPECTED_REV')
    if rc != 0:
        k = 'HEAD'
    want = b.git('rev-parse', k)[0]
    if step.tree_changes(b.tree) or b.git('rev-parse', 'HEAD')[0] != want:
        say('the tree was left between two commits: checking out %s again'
            % short(want))
        if common.call(['git', '-C', b.tree, 'checkout', '-q', '-f',
                        '--detach', k]) != 0:
            b.die('cannot check out %s in %s' % (k, b.tree))


def start_bisect(b):
    """git's bisect in the tree: as it was, replayed from DIR/bisect.log,
    or started."""
    if b.bisecting():
        put_back(b)
        return
    log = b.log('git-bisect.log')
    with open(log, 'a') as f:
        if (b.opts.phase == 'bisecting'
                and common.nonempty(os.path.join(b.dir, 'bisect.log'))):
            say("the tree's bisect is gone: replaying %s/bisect.log" % b.dir)
            if common.call(['git', '-C', b.tree, 'bisect', 'replay',
                            os.path.join(b.dir, 'bisect.log')],
                           stdout=f, stderr=subprocess.STDOUT) != 0:
                b.die('git bisect replay failed (log: %s)' % log)
        elif common.call(['git', '-C', b.tree, 'bisect', 'start', b.opts.bad,
                          b.opts.good], stdout=f,
                         stderr=subprocess.STDOUT) != 0:
            b.die('git bisect start failed (log: %s)' % log)


def bisect_run(b):
    """git bisect run with the subcommand step, its words and each step's
    line as they come, also kept in DIR/bisect-run.out: its text."""
    path = os.path.join(b.dir, 'bisect-run.out')
    cmd = ['git', 'bisect', 'run', b.paths.entry, 'step', b.dir]
    with open(path, 'w') as keep, subprocess.Popen(
            cmd, cwd=b.tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL) as proc:
        try:
            tee(proc.stdout, keep)
        except KeyboardInterrupt:
            # git and the step have the signal too: their last words.
            with common.ignoring_interrupts():
                tee(proc.stdout, keep)
                proc.wait()
            raise
        proc.wait()
    return common.read_text(path)


def tee(pipe, keep):
    """PIPE's lines to stdout and KEEP, as they come."""
    for line in iter(pipe.readline, b''):
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
        keep.write(line.decode('utf-8', 'replace'))
        keep.flush()


def first_bad(out):
    """The commit git bisect run named the first bad one, or ''."""
    m = re.search(r'^([0-9a-f]{40}) is the first bad commit$', out, re.M)
    return m.group(1) if m else ''


def stopped_by_signal(out):
    """git bisect run stopped by a step killed by a signal (Ctrl-C), or a
    SIGINT that reached git between two steps and stopped its own
    bisect--helper ("exited with error code -1")."""
    return re.search(r'^bisect run failed: exit code (129|1[3-9][0-9]|'
                     r'2[0-9][0-9]) from|^error: bisect run failed: .* exited '
                     r'with error code -1$', out, re.M) is not None


def bisect(b):
    """The bisect, to its first bad commit (state: phase done, first_bad)."""
    start_bisect(b)
    b.set(phase='bisecting')
    n = b.git('rev-list', '--count', '%s..%s' % (b.opts.good, b.opts.bad))[0]
    say('bisecting %s commits; each step: build, module, boot, measure, trace'
        % n)
    out = bisect_run(b)
    log, rc = b.git('bisect', 'log')
    if rc == 0:
        common.write_atomic(os.path.join(b.dir, 'bisect.log'), log + '\n')
    fb = first_bad(out)
    gitlog = b.log('git-bisect.log')
    if not fb:
        no_first_bad(b, out, gitlog)
    with open(gitlog, 'a') as f:
        if common.call(['git', '-C', b.tree, 'bisect', 'reset',
                        b.opts.orig_head], stdout=f,
                       stderr=subprocess.STDOUT) != 0:
            say('warning: git bisect reset failed (log: %s)' % gitlog)
    b.set(phase='done', first_bad=fb)


def no_first_bad(b, out, gitlog):
    """git bisect run ended without a first bad commit: stopped (130, to
    resume), failed (1, the tree still bisecting), or only skipped commits
    left (1, the tree put back)."""
    if stopped_by_signal(out):
        say('stopped (phase bisecting); the same command resumes')
        raise Exit(common.EXIT_INTERRUPTED)
    failed = [ln for ln in out.split('\n') if 'bisect run failed' in ln]
    if failed:
        b.die('git bisect run stopped: %s' % failed[0],
              '(%s/bisect-run.out; the tree is still bisecting: git bisect '
              'log there)' % b.dir)
    lines = out.split('\n')
    at = [i for i, ln in enumerate(lines) if "only 'skip'ped commits left" in ln]
    if at:
        sys.stderr.write('\n'.join(lines[at[0]:at[0] + 20]).rstrip('\n') + '\n')
    with open(gitlog, 'a') as f:
        common.call(['git', '-C', b.tree, 'bisect', 'reset', b.opts.orig_head],
                    stdout=f, stderr=subprocess.STDOUT)
    b.set(phase='done', first_bad='')
    b.die('the bisect named no first bad commit (%s/bisect-run.out, '
          '%s/steps.log)' % (b.dir, b.dir))


def step_main(paths, d: str) -> int:
    """The subcommand step DIR, git bisect run's step: its status."""
    if not state.exists(d):
        say("step: no bisect state in '%s'" % d)
        raise Die()
    return step.step(Bisect(paths, d, load_state(d)))


def guard(paths, func: Callable[[], int]) -> int:
    """FUNC()'s status; Exit, Die, BadOption and a Ctrl-C as the
    command's exit statuses (PATHS: the command's, for its name)."""
    try:
        return func()
    except Exit as e:
        return e.status
    except Die:
        return common.EXIT_NOT_FOUND
    except BadOption as e:
        say(str(e))
        print("Try '%s --help'." % paths.prog, file=sys.stderr)
        return common.EXIT_BAD_OPTION
    except KeyboardInterrupt:
        return common.EXIT_INTERRUPTED
