# SPDX-License-Identifier: GPL-2.0
"""A bisect's state, DIR/state.json: its Options (options.py), typed, as
one JSON object of format 2 (FORMAT). Written whole each time it
changes, atomically (a temporary file renamed over it): a power cut
leaves the old state or the new.

Read too: format 1, where every value was a string, and the shell
version of bisect-kernel's DIR/state, one "key=value" a line; either is
replaced by state.json of format 2 at the first write. A format this
version does not know is refused, naming it."""

import dataclasses
import json
import os
from typing import Any, Optional

from . import common
from .options import FIELDS, PHASES, Options, from_text

FILE = 'state.json'
LEGACY_FILE = 'state'
FORMAT = 2
# The formats this version reads: its own, and format 1's strings.
STRINGS_FORMAT = 1


class StateError(Exception):
    """A state file that cannot be read as one."""


def exists(d: str) -> bool:
    """Whether directory D holds a bisect's state (either file)."""
    return any(os.access(os.path.join(d, f), os.R_OK)
               for f in (FILE, LEGACY_FILE))


# What a field of each type holds, as a refusal says it.
KINDS = {int: 'an integer', float: 'a number',
         Optional[float]: 'a number or null', str: 'a string'}


def is_a(kind: Any, value: Any) -> bool:
    """Whether VALUE, read from JSON, is of a field's type KIND."""
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == Optional[float]:
        return value is None or is_a(float, value)
    return isinstance(value, str)


def from_strings(st: dict[str, str]) -> Options:
    """The Options of a state whose values are strings (format 1, the shell
    version's); '' is a field's default. Keys no field has are left
    out."""
    o = Options()
    for k, v in st.items():
        if k in FIELDS and v != '':
            try:
                setattr(o, k, from_text(k, v))
            except ValueError as e:
                raise StateError("%s '%s': %s" % (k, v, e)) from e
    return checked(o)


def from_typed(st: dict[str, Any]) -> Options:
    """The Options of a state of format 2; a StateError names a value that
    is not of its field's type."""
    o = Options()
    for k, v in st.items():
        if k not in FIELDS:
            continue
        if not is_a(FIELDS[k], v):
            raise StateError('"%s" is %s, not %s'
                             % (k, json.dumps(v), KINDS[FIELDS[k]]))
        setattr(o, k, float(v) if FIELDS[k] is float else v)
    return checked(o)


def checked(o: Options) -> Options:
    """O, or a StateError when its phase is none of PHASES."""
    if o.phase not in PHASES:
        raise StateError("phase '%s' is none of %s"
                         % (o.phase, ', '.join(PHASES)))
    return o


def parse(text: str) -> Options:
    """state.json's text as Options; StateError when it is not one, or of a
    format this version does not read."""
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise StateError('not JSON: %s' % e) from e
    if not isinstance(obj, dict) or not isinstance(obj.get('state'), dict):
        raise StateError('not a state (no "format" and "state")')
    fmt = obj.get('format')
    if fmt == FORMAT:
        return from_typed(obj['state'])
    if fmt == STRINGS_FORMAT:
        if not all(isinstance(v, str) for v in obj['state'].values()):
            raise StateError('a state of format 1 whose values are not all '
                             'strings')
        return from_strings(obj['state'])
    raise StateError('a state of format %s, which this bisect-kernel does '
                     'not read (it reads formats %d and %d): written by '
                     'another version' % (json.dumps(fmt), STRINGS_FORMAT,
                                          FORMAT))


def parse_legacy(text: str) -> Options:
    """The shell version's key=value lines as Options."""
    st = {}
    for line in text.split('\n'):
        if line:
            k, _, v = line.partition('=')
            st[k] = v
    return from_strings(st)


def dump(o: Options) -> str:
    """O as state.json's text: every field, in the order of Options."""
    return json.dumps({'format': FORMAT, 'state': dataclasses.asdict(o)},
                      indent=1) + '\n'


def load(d: str) -> Options:
    """The Options kept in directory D: state.json, or the shell version's
    state; StateError naming the file when it cannot be read as one."""
    path = os.path.join(d, FILE)
    if os.path.exists(path):
        try:
            return parse(common.read_text(path))
        except StateError as e:
            raise StateError('%s: %s' % (path, e)) from e
    return parse_legacy(common.read_text(os.path.join(d, LEGACY_FILE)))


def save(d: str, o: Options) -> None:
    """O written whole into D/state.json (temporary file, rename); the
    shell version's state, if any, removed. Die when it cannot be
    written."""
    path = os.path.join(d, FILE)
    try:
        common.write_atomic(path, dump(o))
        legacy = os.path.join(d, LEGACY_FILE)
        if os.path.exists(legacy):
            os.unlink(legacy)
    except OSError as e:
        common.say('cannot write %s: %s' % (path, e.strerror))
        raise common.Die() from e
