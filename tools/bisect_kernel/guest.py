# SPDX-License-Identifier: GPL-2.0
"""In the VM (the subcommand guest, run by vm-run): the measurement on
the fresh boot, undisturbed; a bisect-run skip that is the measurement's
again, up to --retries times (a sweep costs seconds, a boot and the
traces most of a minute); then the traces. Exits with the measurement's
last status; its stdout passes through."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import common
from . import trace as tracing
from .common import say

USAGE = ('usage: bisect-kernel guest PREFIX [--trace LIST] [--retries N] '
         '-- COMMAND...')

# bisect-run's line: "copybench bisect-run: DATE KERNEL COMMIT: ANSWER
# (exit N): WHY; record FILE".
ANSWER_RE = re.compile(r'^copybench bisect-run: .* \(exit [0-9]*\): (.*)$',
                       re.M)


def retryable(why):
    """Whether a skip of bisect-run's is the measurement's (the machine
    moved, a point like neither side, an inconclusive verdict, a
    placement-sensitive point: processes slowed by a busy host), which a
    new measurement may decide; not a failure, which it would repeat."""
    return (why.startswith('the machine moved')
            or 'like neither GOOD nor BAD' in why
            or why.startswith('inconclusive:')
            or why.startswith('placement-sensitive:'))


def answer(out):
    """The why of bisect-run's first answer line in OUT, or ''."""
    m = ANSWER_RE.search(out)
    return m.group(1) if m else ''


def measure(command, retries):
    """COMMAND, again while its skip is retryable (up to RETRIES more
    times); its stdout passed through; its last status."""
    attempt = 0
    while True:
        with tempfile.TemporaryFile('w+') as out:
            rc = common.call(command, stdout=out)
            out.seek(0)
            text = out.read()
        sys.stdout.write(text)
        sys.stdout.flush()
        why = answer(text)
        if rc != 125 or not retryable(why) or attempt >= retries:
            return rc
        attempt += 1
        say('%s: measuring again in this boot (%d of %d)'
            % (why.split(';', 1)[0], attempt, retries))


def run_trace(paths, prefix, tools):
    """Each bpftrace tool of TOOLS on dd reading a tmpfs file, into
    PREFIX.TOOL.json (its stderr PREFIX.TOOL.err); never fails."""
    if not shutil.which('bpftrace'):
        with open(prefix + '.err', 'w') as f:
            f.write('%s: no bpftrace in the guest: no trace\n' % common.ME)
        return
    try:
        fd, data = tempfile.mkstemp(prefix='bisect-trace.', dir='/dev/shm')
    except OSError:
        return
    try:
        with os.fdopen(fd, 'wb') as f:
            for _ in range(tracing.FILE_MIB):
                f.write(bytes(1 << 20))
        # bpftrace -c runs its command without a PATH lookup.
        dd = shutil.which('dd') or 'dd'
        for t in tools.split(','):
            trace_one(paths, prefix, t, '%s if=%s of=/dev/null bs=%s'
                      % (dd, data, tracing.BS))
    finally:
        os.unlink(data)


def trace_one(paths, prefix, tool, workload):
    """bpftrace TOOL.bt on WORKLOAD into PREFIX.TOOL.json, kept only when
    bpftrace succeeded (PREFIX.TOOL.err says why not)."""
    js = '%s.%s.json' % (prefix, tool)
    err = '%s.%s.err' % (prefix, tool)
    with open(js + '.tmp', 'w') as out, open(err, 'w') as e:
        rc = common.call(['timeout', '-k', '5', '300', 'bpftrace', '-f', 'json',
                          '-c', workload, paths.bt(tool), '0', '0', 'dd'],
                         stdout=out, stderr=e, stdin=subprocess.DEVNULL)
    if rc == 0:
        os.replace(js + '.tmp', js)
        return
    with open(err, 'a') as e:
        e.write('%s: bpftrace %s.bt failed with status %d\n'
                % (common.ME, tool, rc))
    os.unlink(js + '.tmp')


def main(paths, prefix: str, tools: str, retries: int,
         command: list[str]) -> int:
    """The subcommand (cli.py parses it): COMMAND measured again up to
    RETRIES times, then the bpftrace TOOLS (a list, or none) into
    PREFIX.TOOL.json; its status."""
    rc = measure(command, retries)
    if tools != 'none':
        run_trace(paths, prefix, tools)
    return rc
