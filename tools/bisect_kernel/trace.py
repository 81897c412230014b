# SPDX-License-Identifier: GPL-2.0
"""The traces: what they run and need, why one is missing (trace_failed),
and their summary in the report, read from bpftrace's JSON output
(bpftrace -f json: one JSON object a line)."""

import os
import re

from . import common
from .common import jnum

# The traces' workload, in the guest: dd reading a tmpfs file; the tools
# that may trace it, and the default: kcopy.bt alone names the routine
# (samples of dd on the CPU), the bytes and the time per read; copysize.bt
# adds per-copy sizes from a wildcard probe that bpftrace 0.17 cannot
# expand on a kernel without FUNCTION_TRACER, and costs twice as long to
# start under TCG (18 s against 9 here).
FILE_MIB = 16
BS = '4K'
TOOLS = ('kcopy', 'copysize')
DEFAULT = 'kcopy'

# What the traces need of each step's kernel: BPF programs on kprobes,
# kretprobes and perf samples (kcopy.bt, copysize.bt); bpftrace (0.17,
# without BTF) also parses the kernel's headers, from the source tree
# (include/linux/kconfig.h) and the build directory's generated ones.
NEEDS_CONFIG = ('CONFIG_BPF_SYSCALL=y', 'CONFIG_BPF_EVENTS=y',
                'CONFIG_PERF_EVENTS=y', 'CONFIG_KPROBES=y',
                'CONFIG_KPROBE_EVENTS=y')

# The lines of a tool's .err that say why it failed.
ERROR_RE = re.compile(r'error|fatal|fail|cannot|could not|not found', re.I)


def bar_joined(lines):
    """LINES on one line, ' | ' between them (and for any '|' in them)."""
    return '|'.join(lines).replace('|', ' | ')


def trace_failed(prefix, trace):
    """Why the traces of PREFIX (DIR/trace-C12) are not there, one line per
    tool of TRACE (the bisect's --trace) that left no PREFIX.TOOL.json
    ('TOOL.bt: ' and the first error lines of its .err); [] when all are,
    or with --trace none."""
    if (trace or DEFAULT) == 'none':
        return []
    if common.nonempty(prefix + '.err'):
        lines = common.read_text(prefix + '.err').rstrip('\n').split('\n')
        return [bar_joined(lines[:2])]
    failed = []
    for t in [t for t in trace.split(',') if t]:
        if common.nonempty('%s.%s.json' % (prefix, t)):
            continue
        err = '%s.%s.err' % (prefix, t)
        if common.nonempty(err):
            lines = common.read_text(err).rstrip('\n').split('\n')
            why = [ln for ln in lines if ERROR_RE.search(ln)][:2] or lines[:2]
            why = bar_joined([ln.rstrip() for ln in why])
        else:
            why = 'no %s (the VM did not run the trace)' % os.path.basename(err)
        failed.append('%s.bt: %s' % (t, why[:400]))
    return failed


def load(path):
    """The JSON objects of a bpftrace -f json output, in order; ValueError
    when one does not parse."""
    return common.json_stream(common.read_text(path))


def frames(objs, name, path=''):
    """Samples of map NAME by 'function+offset' (the key's first frame,
    keys filtered by the regex PATH): the top three and their share, or
    'no sample'. A sample whose stack bpftrace could not look up ('failed
    to look up stack id', an empty key) names no frame, and is left out."""
    counts = {}
    total = 0
    for o in objs:
        if o.get('type') != 'map' or name not in o.get('data', {}):
            continue
        for key, n in o['data'][name].items():
            if not re.search(path, key):
                continue
            parts = key.split('\n')
            f = re.sub(r'\s', '', parts[1]) if len(parts) > 1 else ''
            if f:
                counts[f] = counts.get(f, 0) + n
                total += n
    if not counts:
        return 'no sample'
    top = sorted(sorted(counts.items()), key=lambda fn: -fn[1])[:3]
    return '%s samples: %s' % (jnum(total), ', '.join(
        '%s %s' % (f, jnum(n)) for f, n in top))


def median(buckets):
    """The bucket of a power-of-two histogram that holds its median, or
    None for an empty one."""
    total = sum(b.get('count', 0) for b in buckets)
    if total == 0:
        return None
    left, m = total / 2, None
    for b in buckets:
        if m is None and left <= b.get('count', 0):
            m = b
        else:
            left -= b.get('count', 0)
    return m


def hist(objs, name, func='shmem_file_read_iter'):
    """The buckets of histogram NAME's FUNC entry, over every object."""
    out = []
    for o in objs:
        if o.get('type') == 'hist' and name in o.get('data', {}):
            out += o['data'][name].get(func) or []
    return out


def plus(x, n):
    """X + N as jq adds (null + N is N)."""
    return n if x is None else x + n


def reads(objs):
    """kcopy.bt's tmpfs reads: their number, the median one's size and
    time, or 'no tmpfs read timed'."""
    ns, by = hist(objs, '@read_ns'), hist(objs, '@read_bytes')
    n = sum(b.get('count', 0) for b in ns)
    if n == 0:
        return 'no tmpfs read timed'
    t, b = median(ns) or {}, median(by) or {}
    tmin, tmax = t.get('min'), t.get('max')
    return '%s tmpfs reads, the median one %s-%s bytes in %s-%s us' % (
        jnum(n), jnum(b.get('min')), jnum(plus(b.get('max'), 1)),
        jnum(None if tmin is None else tmin / 1000),
        jnum(plus(tmax, 1) / 1000))


def summarise(path, what):
    """WHAT(objects) of the bpftrace output at PATH, or 'unreadable
    (PATH)'."""
    try:
        return what(load(path))
    except (ValueError, AttributeError, TypeError, KeyError):
        return 'unreadable (%s)' % path


def summary(prefix, trace):
    """A few lines from a kernel's traces (PREFIX: DIR/trace-C12):
    kcopy.bt's top frames of dd on the CPU, and its tmpfs reads' size and
    time; copysize.bt's top frames in the tmpfs read path; or why there
    is no trace."""
    out = []
    t = prefix + '.kcopy.json'
    if os.access(t, os.R_OK):
        out.append('    kcopy.bt, dd on the CPU: '
                   + summarise(t, lambda o: frames(o, '@oncpu_frame')))
        out.append('    kcopy.bt: ' + summarise(t, reads))
    t = prefix + '.copysize.json'
    if os.access(t, os.R_OK):
        out.append('    copysize.bt, the tmpfs read path: ' + summarise(
            t, lambda o: frames(o, '@routine', '^[^,]*,tmpfs,')))
    if (trace or DEFAULT) == 'none':
        out.append('    no trace (--trace none)')
    else:
        out += ['    TRACE FAILED: %s (%s.*.err)' % (f, os.path.basename(prefix))
                for f in trace_failed(prefix, trace)]
    return out
