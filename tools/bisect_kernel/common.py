# SPDX-License-Identifier: GPL-2.0
"""What every part of bisect-kernel shares: its messages, its exits, the
formats of durations and numbers, and running a command that a Ctrl-C
must not orphan."""

import datetime
import json
import math
import os
import signal
import subprocess
import sys

ME = 'bisect-kernel'

# The exit statuses (Documentation/bisect.rst).
EXIT_FOUND = 0
EXIT_NOT_FOUND = 1
EXIT_BAD_OPTION = 2
EXIT_INTERRUPTED = 130


class Exit(Exception):
    """Leave with a status, the message (if any) said already."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class Die(Exception):
    """A failure: the message said, exit 1."""


class BadOption(Exception):
    """A bad option or input: the message said, a pointer to --help, exit 2.
    Raised before anything was changed."""


def say(*words):
    """One line on stderr, as 'bisect-kernel: WORDS'."""
    print('%s: %s' % (ME, ' '.join(str(w) for w in words)),
          file=sys.stderr, flush=True)


def now():
    """The time as steps.log writes it, UTC to the second."""
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')


def dur(secs):
    """Seconds as '1 min 05 s' or '42 s'."""
    secs = int(secs)
    if secs >= 60:
        return '%d min %02d s' % (secs // 60, secs % 60)
    return '%d s' % secs


def short(commit):
    """A commit as its 12 first digits, for names."""
    return commit[:12]


def jround(x):
    """jq's round: half away from zero."""
    if x < 0:
        return -math.floor(-x + 0.5)
    return math.floor(x + 0.5)


def jnum(x):
    """A number as jq prints it: integral values without a '.0', None as
    'null'."""
    if x is None:
        return 'null'
    if isinstance(x, bool):
        return 'true' if x else 'false'
    if isinstance(x, float):
        if x.is_integer():
            if x == 0 and math.copysign(1, x) < 0:
                return '-0'
            return str(int(x))
        return repr(x)
    return str(x)


def first_line(text):
    """The first line of TEXT, '' for none."""
    return text.split('\n', 1)[0] if text else ''


def status_of(returncode):
    """A child's status as the shell gives it: 128 + N for signal N."""
    return 128 - returncode if returncode < 0 else returncode


def call(cmd, **kwargs):
    """Run CMD to its end (subprocess.Popen's keywords) and return its
    status, 128 + N when signal N killed it. A Ctrl-C reaches the child
    too (the same process group): it is waited for, not killed, so that it
    cleans up (vm-run's QEMU, make's half-written objects), then the
    KeyboardInterrupt goes on."""
    try:
        proc = subprocess.Popen(cmd, **kwargs)
    except OSError as e:
        print('%s: %s: %s' % (ME, cmd[0], e.strerror), file=sys.stderr)
        return 127 if isinstance(e, FileNotFoundError) else 126
    with proc:
        return wait_child(proc)


def wait_child(proc):
    """proc's status; a KeyboardInterrupt waits for it first."""
    try:
        return status_of(proc.wait())
    except KeyboardInterrupt:
        with ignoring_interrupts():
            proc.wait()
        raise


class ignoring_interrupts:
    """A block during which SIGINT is ignored (restored after)."""

    def __enter__(self):
        self.old = signal.signal(signal.SIGINT, signal.SIG_IGN)

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self.old)
        return False


def output(cmd, cwd=None, stderr=subprocess.DEVNULL):
    """CMD's stdout, its trailing newlines removed, and its status."""
    with subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=stderr, stdin=subprocess.DEVNULL,
                          text=True, errors='replace') as proc:
        try:
            out, _ = proc.communicate()
        except KeyboardInterrupt:
            with ignoring_interrupts():
                proc.wait()
            raise
        return out.rstrip('\n'), status_of(proc.returncode)


def read_text(path):
    """A file's text, '' when it cannot be read."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def nonempty(path):
    """Whether PATH is a file with something in it (the shell's -s)."""
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def json_stream(text):
    """The JSON values of TEXT, one after the other, as jq -s reads them
    (bpftrace -f json and compare --json print one a line); ValueError
    when one does not parse."""
    decoder = json.JSONDecoder()
    objs, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return objs
        obj, i = decoder.raw_decode(text, i)
        objs.append(obj)


def write_atomic(path, text):
    """PATH holds TEXT whole, or is as it was: a temporary file beside it,
    renamed over it."""
    tmp = path + '.tmp'
    try:
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
