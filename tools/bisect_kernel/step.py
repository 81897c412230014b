# SPDX-License-Identifier: GPL-2.0
"""A kernel measured: a step of git bisect run (the subcommand step, run
in the tree: 0 good, 1 bad, 125 skip) or GOOD's and BAD's record (record).
Each prints one line, also kept in DIR/steps.log."""

import os
import re
import subprocess
import sys
import time

from . import common
from . import kernel
from . import trace as tracing
from .common import Die, Exit, say, short

# The lines of steps.log that are bisect steps (not GOOD's or BAD's).
STEP_LINE_RE = re.compile(r' (good|bad|skip) \(exit [0-9]+\) ')

BISECT_RUN_PREFIX = 'copybench bisect-run: '


def step_line(d, c12, answer, status, timing, why):
    """One line to stdout and to D/steps.log."""
    line = ('%s %s %s (exit %d) [build %s, module %s, boot and measure %s]: %s'
            % (common.now(), c12, answer, status, common.dur(timing.build),
               common.dur(timing.module), common.dur(timing.measure), why))
    with open(os.path.join(d, 'steps.log'), 'a') as f:
        f.write(line + '\n')
    print('%s: %s' % (common.ME, line), flush=True)


def subject(tree, commit):
    """COMMIT's subject line."""
    return common.output(['git', '-C', tree, 'log', '-1', '--format=%s',
                          commit])[0]


def tree_changes(tree):
    """git status --porcelain -uno of TREE: its changes to tracked files."""
    return common.output(['git', '-C', tree, 'status', '--porcelain',
                          '-uno'], stderr=subprocess.STDOUT)[0]


def keep_bisect_log(b):
    """The marks so far in DIR/bisect.log, should the tree lose its bisect
    (git bisect reset)."""
    log, rc = common.output(['git', '-C', b.tree, 'bisect', 'log'])
    if rc == 0:
        common.write_atomic(os.path.join(b.dir, 'bisect.log'), log + '\n')


def verdict(b, c12, rc):
    """The step's answer from bisect-run's lines in DIR/logs/step-C12.out
    and the VM's status RC: (status, why)."""
    out = common.read_text(os.path.join(b.dir, 'logs', 'step-%s.out' % c12))
    lines = [ln for ln in out.split('\n') if ln.startswith(BISECT_RUN_PREFIX)]
    if not lines:
        log = common.read_text(os.path.join(b.dir, 'logs',
                                            'step-%s.log' % c12))
        vm = [ln for ln in log.split('\n') if ln.startswith('vm-run: ')]
        return 125, ('the VM failed (status %d): %s (log: logs/step-%s.log)'
                     % (rc, vm[0] if vm else 'no word from tools/vm-run', c12))
    why = lines[-1].split('): ', 1)[1] if '): ' in lines[-1] else lines[-1]
    if len(lines) > 1:
        why += (' [measured %d times in the boot: the earlier answers were '
                "the measurement's]" % len(lines))
    failed = tracing.trace_failed(os.path.join(b.dir, 'trace-' + c12),
                                  b.opts.trace)
    if failed:
        why += '; TRACE FAILED: ' + failed[0]
    return (rc if rc in (0, 1) else 125), why


def step(b):
    """git bisect run's step on the tree's HEAD: its status."""
    commit, rc = common.output(['git', '-C', b.tree, 'rev-parse', 'HEAD'])
    if rc != 0:
        say('step: no HEAD in %s' % b.tree)
        raise Die()
    c12 = short(commit)
    # The tree must be the commit it says: a kernel built from anything
    # else would be measured under the wrong name. 128 stops git bisect
    # run, and the message says why.
    changes = tree_changes(b.tree)
    if changes:
        say('step %s: the tree has changes HEAD has not (a checkout was '
            'interrupted?):' % c12,
            ''.join(ln + ' ' for ln in changes.split('\n')[:5]))
        raise Exit(128)
    timing = kernel.Timing()
    say('step %s: %s' % (c12, subject(b.tree, commit)))
    keep_bisect_log(b)
    if not kernel.build_kernel(b, c12, timing):
        step_line(b.dir, c12, 'skip', 125, timing,
                  '%s (log: logs/kernel-%s.log)' % (timing.why, c12))
        return 125
    ko = kernel.build_module(b, c12, timing)
    if not ko:
        step_line(b.dir, c12, 'skip', 125, timing,
                  '%s (log: logs/module-%s.log)' % (timing.why, c12))
        return 125
    rc = measure_step(b, c12, ko, timing)
    # vm-run's own failures (a panic 123, a timeout 124, 125) are skips,
    # a signal (130: Ctrl-C) stops git bisect run where it is.
    if rc >= 128:
        raise Exit(rc)
    rc, why = verdict(b, c12, rc)
    answer = {0: 'good', 1: 'bad'}.get(rc, 'skip')
    step_line(b.dir, c12, answer, rc, timing, why)
    return rc


def measure_step(b, c12, ko, timing):
    """In the VM, bisect-run on the step's kernel: 0, 1 or 125 and one line
    per measurement to DIR/logs/step-C12.out, its stderr and the VM's to
    the step's log."""
    cmd = kernel.vm_cmd(b, c12, b.opts.retries) + [
        b.paths.copybench, 'bisect-run', '--good',
        os.path.join(b.dir, 'good.json'), '--bad',
        os.path.join(b.dir, 'bad.json'), '--backend', 'module',
        '--load=' + ko] + b.decide()
    logs = os.path.join(b.dir, 'logs')
    start = time.monotonic()
    with open(os.path.join(logs, 'step-%s.out' % c12), 'w') as out, \
            open(os.path.join(logs, 'step-%s.log' % c12), 'w') as err:
        rc = common.call(cmd, cwd=b.tree, stdout=out, stderr=err,
                         stdin=subprocess.DEVNULL)
    timing.measure = kernel.since(start)
    return rc


def record(b, name, commit):
    """GOOD's or BAD's record (NAME good or bad), DIR/NAME.json, measured
    on COMMIT's kernel (checked out, built, booted), with its trace."""
    c12 = short(commit)
    upper = name.upper()
    timing = kernel.Timing()
    say('recording %s at %s: %s' % (upper, c12, subject(b.tree, commit)))
    if common.call(['git', '-C', b.tree, 'checkout', '-q', '--detach',
                    commit]) != 0:
        say('cannot check out %s in %s' % (c12, b.tree))
        raise Die()
    if not kernel.build_kernel(b, c12, timing):
        say('%s (%s) does not build: %s (log: %s/logs/kernel-%s.log)'
            % (upper, c12, timing.why, b.dir, c12))
        raise Die()
    ko = kernel.build_module(b, c12, timing)
    if not ko:
        say('%s (%s): %s (log: %s/logs/module-%s.log)'
            % (upper, c12, timing.why, b.dir, c12))
        raise Die()
    rc = sweep(b, name, c12, ko, timing)
    log = os.path.join(b.dir, 'logs', 'record-%s.log' % name)
    if rc != 0:
        if rc >= 128:
            raise Exit(rc)
        tail = common.read_text(log).rstrip('\n').split('\n')[-20:]
        sys.stderr.write('\n'.join(tail) + '\n')
        say('measuring %s (%s) failed with status %d (log: %s)'
            % (upper, c12, rc, log))
        raise Die()
    why = 'recorded %s.json' % name
    failed = tracing.trace_failed(os.path.join(b.dir, 'trace-' + c12),
                                  b.opts.trace)
    if failed:
        why += '; TRACE FAILED: ' + failed[0]
    step_line(b.dir, c12, upper, 0, timing, why)


def sweep(b, name, c12, ko, timing):
    """copybench sweep in the VM on C12's kernel into DIR/NAME.json: its
    status."""
    o = b.opts
    cmd = kernel.vm_cmd(b, c12, 0) + [
        b.paths.copybench, 'sweep', '--backend', 'module', '--load=' + ko,
        '--directions', o.directions, '--sizes', o.sizes,
        '--variants', o.variants, '--repeat', str(o.repeat),
        '--samples', str(o.samples), '--placement', o.placement,
        '-o', os.path.join(b.dir, name + '.json')]
    start = time.monotonic()
    with open(os.path.join(b.dir, 'logs', 'record-%s.log' % name), 'w') as err:
        rc = common.call(cmd, cwd=b.tree, stdout=subprocess.DEVNULL,
                         stderr=err, stdin=subprocess.DEVNULL)
    timing.measure = kernel.since(start)
    return rc
