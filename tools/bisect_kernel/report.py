# SPDX-License-Identifier: GPL-2.0
"""The report, DIR/report.txt, short enough to paste into a reply: the
first bad commit, its subject, its change to native per point net of the
controls, where the copy time went (the traces), and the steps."""

import glob
import json
import os
import re
import subprocess

from . import common
from . import trace as tracing
from .common import jnum, jround, short
from .step import STEP_LINE_RE

TCG_NOTE = """\
EMULATED CPU: these kernels ran under QEMU's TCG, which emulates every
instruction: there 'rep movsb' costs about 10 times the unrolled loop and a
byte loop about twice 'rep movsb'. The commit is found; the size of its change
is the emulator's. Measure that on hardware, or bisect under KVM."""


def record_of(d, o, commit):
    """The record measured at COMMIT (GOOD's, BAD's or a step's) in D, the
    directory of the bisect of options O, or
    ''. A step's is bisect-run's name, bisect-KERNEL-COMMIT.json, the
    kernel's release ending in -gCOMMIT (the commit part is the time where
    the guest's git would not read the tree)."""
    for side in ('good', 'bad'):
        f = os.path.join(d, side + '.json')
        if commit == getattr(o, side) and os.access(f, os.R_OK):
            return f
    for f in sorted(glob.glob(os.path.join(
            d, 'bisect-*-g%s*.json' % glob.escape(short(commit))))):
        if os.access(f, os.R_OK):
            return f
    return ''


def header(path):
    """A record's first line (its header), as a dict ({} when unreadable)."""
    try:
        with open(path, encoding='utf-8') as f:
            h = json.loads(f.readline())
        return h if isinstance(h, dict) else {}
    except (OSError, ValueError):
        return {}


def is_tcg(h):
    """Whether the record header H was measured on QEMU's TCG."""
    return 'TCG' in str(h.get('cpu_model', ''))


def pct(x):
    """A change in percent as the report writes it: one decimal, signed."""
    v = jround(x * 10) / 10
    return ('+' if v > 0 else '') + jnum(v) + '%'


def columns(rows, indent='  '):
    """ROWS aligned as column -t does, two blanks between columns."""
    widths = [max(len(r[i]) for r in rows if i < len(r))
              for i in range(max(len(r) for r in rows))]
    out = []
    for r in rows:
        cells = [c.ljust(widths[i]) for i, c in enumerate(r[:-1])] + [r[-1]]
        out.append(indent + '  '.join(cells))
    return out


def points_table(compare_json):
    """The native points of copybench compare --json's output (its
    objects, one a line): point, parent, first bad, change, net, verdict,
    aligned; ValueError when it does not parse."""
    rows = [['point', 'parent', 'first bad', 'change', 'net', 'verdict']]
    for p in common.json_stream(compare_json):
        if p.get('type') != 'point' or p.get('control') is not False:
            continue
        net = p.get('net')
        rows.append([
            str(p.get('name', '')), jnum(jround(p['base']['median'])),
            jnum(jround(p['new']['median'])),
            pct(p['test']['change_pct']),
            '-' if net is None else pct((net['ratio'] - 1) * 100),
            str(p.get('verdict') or '')])
    return columns(rows)


def change(b, parent, prec, frec):
    """The native points at the first bad commit against its parent, or
    why there are none."""
    if not frec:
        return ['(no record of the first bad commit: it was not measured)']
    h = header(frec)
    lines = ['Native copies at the first bad commit against its parent %s, '
             "clocks per copy (the median of %s repeats' fastest), and the "
             'change net of the controls (the fixed copies, timed beside '
             'them):' % (short(parent), jnum(h.get('repeat')))]
    p = subprocess.run([b.paths.copybench, 'compare', '--json'] + b.decide()
                       + [prec, frec], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors='replace')
    try:
        return lines + points_table(p.stdout)
    except (ValueError, KeyError, TypeError, AttributeError):
        return lines + ['  (copybench compare failed:)'] + [
            '  ' + ln for ln in p.stdout.rstrip('\n').split('\n')]


def steps_lines(d):
    """DIR/steps.log as the report lists it: without the record's name
    and the emulator's note, indented."""
    out = []
    for ln in common.read_text(os.path.join(d, 'steps.log')).splitlines():
        ln = re.sub(r'; record [^ ]*', '', ln, count=1)
        ln = ln.replace("; emulated CPU: the emulator's timings", '', 1)
        out.append('  ' + ln)
    return out


def seconds(d, this_run):
    """The bisect's time: the earlier runs' (DIR/seconds) and this one's."""
    total = this_run
    for ln in common.read_text(os.path.join(d, 'seconds')).split():
        try:
            total += int(float(ln))
        except ValueError:
            pass
    return total


def summary_line(b, this_run):
    """What was bisected, in how many steps and how long."""
    o, log = b.opts, common.read_text(os.path.join(b.dir, 'steps.log'))
    n = b.git('rev-list', '--count', '%s..%s' % (o.good, o.bad))[0]
    steps = sum(1 for ln in log.splitlines() if STEP_LINE_RE.search(ln))
    skipped = log.count(' skip (exit 125) ')
    return ('Bisected %s commits of %s, GOOD %s (%s) to BAD %s (%s): %d '
            'steps, %d skipped, %s in all.'
            % (n, b.tree, o.good_ref, short(o.good), o.bad_ref,
               short(o.bad), steps, skipped,
               common.dur(seconds(b.dir, this_run))))


def traces(b, parent, fb):
    """Where the time went: each kernel's trace summary."""
    pre = os.path.join(b.dir, 'trace-')
    out = []
    if (tracing.trace_failed(pre + short(parent), b.opts.trace)
            or tracing.trace_failed(pre + short(fb), b.opts.trace)):
        out += ['', 'TRACE FAILED: the trace of the parent or the first bad '
                'commit is missing; why, below.']
    out += ['', 'Where the time went: bpftrace on dd reading a %d MiB tmpfs '
            'file %s at a time, after each measurement; samples by '
            'function+offset:' % (tracing.FILE_MIB, tracing.BS)]
    out.append('  parent %s:' % short(parent))
    out += tracing.summary(pre + short(parent), b.opts.trace)
    out.append('  first bad %s:' % short(fb))
    out += tracing.summary(pre + short(fb), b.opts.trace)
    return out


def compose(b, fb, this_run):
    """The report's lines for the first bad commit FB; THIS_RUN: this
    run's seconds so far."""
    o = b.opts
    parent, rc = b.git('rev-parse', fb + '^')
    prec = record_of(b.dir, o, parent) if rc == 0 else ''
    if not prec:
        prec, parent = os.path.join(b.dir, 'good.json'), o.good
    frec = record_of(b.dir, o, fb)
    out = b.git('log', '-1', '--format=copybench bisect-kernel: first bad '
                'commit %H%n  %s%n  %an <%ae>, %ad', '--date=short',
                fb)[0].split('\n')
    out.append('')
    out += change(b, parent, prec, frec)
    out += traces(b, parent, fb)
    out += ['', summary_line(b, this_run)]
    h = header(frec) if frec else {}
    if frec:
        out.append('Kernel %s on %s, command line: %s'
                   % (h.get('kernel') or '', h.get('cpu_model') or '',
                      h.get('kernel_cmdline') or ''))
    out.append("Steps (kept in %s, with each one's record, trace and logs):"
               % b.dir)
    out += steps_lines(b.dir)
    if frec and is_tcg(h):
        out += [''] + TCG_NOTE.split('\n')
    return out


def write(b, fb, this_run):
    """DIR/report.txt, written whole (temporary file, rename)."""
    common.write_atomic(os.path.join(b.dir, 'report.txt'),
                        '\n'.join(compose(b, fb, this_run)) + '\n')
