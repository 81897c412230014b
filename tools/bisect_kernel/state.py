# SPDX-License-Identifier: GPL-2.0
"""A bisect's state, DIR/state.json: what the bisect is (IDENTITY: a
resumed run must give the same, or none) and how far it got (the other
keys; "phase": new, configured, good, bad, bisecting, done). Every value is
a string. Written whole each time it changes, atomically (a temporary
file renamed over it): a power cut leaves the old state or the new.

A bisect begun by the shell version of bisect-kernel kept DIR/state, one
"key=value" a line: it is read as the same, and replaced by state.json at
the first write."""

import json
import os

from . import common

FILE = 'state.json'
LEGACY_FILE = 'state'
FORMAT = 1

IDENTITY = ('tree good bad config_sha build_dir sizes directions variants '
            'repeat samples placement threshold alpha append accel').split()
OTHERS = ('config good_ref bad_ref orig_head jobs timeout retries trace '
          'phase first_bad').split()

# The phases, in order: a phase is done when the state is at it or past.
PHASES = ('new', 'configured', 'good', 'bad', 'bisecting', 'done')


class StateError(Exception):
    """A state file that cannot be read as one."""


def exists(d):
    """Whether directory D holds a bisect's state (either format)."""
    return any(os.access(os.path.join(d, f), os.R_OK)
               for f in (FILE, LEGACY_FILE))


def parse_legacy(text):
    """The shell version's key=value lines as a dict."""
    st = {}
    for line in text.split('\n'):
        if line:
            k, _, v = line.partition('=')
            st[k] = v
    return st


def parse(text):
    """state.json's text as a dict of strings; StateError when it is not
    one."""
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise StateError('not JSON: %s' % e) from e
    if not isinstance(obj, dict) or obj.get('format') != FORMAT:
        raise StateError('not a state of format %d' % FORMAT)
    st = obj.get('state')
    if not isinstance(st, dict) or not all(
            isinstance(v, str) for v in st.values()):
        raise StateError('no "state" of strings')
    return dict(st)


def dump(st):
    """ST as state.json's text: every key, '' for one not set."""
    keys = IDENTITY + OTHERS
    whole = {k: str(st.get(k, '')) for k in keys}
    whole.update({k: str(v) for k, v in st.items() if k not in whole})
    return json.dumps({'format': FORMAT, 'state': whole}, indent=1) + '\n'


class State(dict):
    """The state of the bisect in directory D, a dict of strings."""

    def __init__(self, d):
        super().__init__()
        self.dir = d

    def load(self):
        """Read state.json, or the shell version's state."""
        self.clear()
        path = os.path.join(self.dir, FILE)
        if os.path.exists(path):
            try:
                self.update(parse(common.read_text(path)))
            except StateError as e:
                raise StateError('%s: %s' % (path, e)) from e
        else:
            self.update(parse_legacy(common.read_text(
                os.path.join(self.dir, LEGACY_FILE))))
        return self

    def set(self, **kv):
        """Set KV, then write the state whole (temporary file, rename)."""
        self.update({k: str(v) for k, v in kv.items()})
        try:
            common.write_atomic(os.path.join(self.dir, FILE), dump(self))
            legacy = os.path.join(self.dir, LEGACY_FILE)
            if os.path.exists(legacy):
                os.unlink(legacy)
        except OSError as e:
            common.say('cannot write %s: %s'
                       % (os.path.join(self.dir, FILE), e.strerror))
            raise common.Die() from e

    def phase_done(self, phase):
        """Whether the bisect got to PHASE (or past it). Once bisecting,
        every phase before is done."""
        at = self.get('phase', 'new')
        if at not in PHASES:
            return False
        return PHASES.index(at) >= PHASES.index(phase)

    def changed(self, identity):
        """How IDENTITY (a dict of IDENTITY's keys) differs from this
        bisect's: "KEY: 'THERE' there, 'NOW' now" for each."""
        return ["%s: '%s' there, '%s' now" % (k, self.get(k, ''), identity[k])
                for k in IDENTITY if self.get(k, '') != identity[k]]
