# SPDX-License-Identifier: GPL-2.0
"""Unit tests of state.py: the typed round trip, atomic writes, resuming,
format 1's strings, the shell version's state, a format not read."""

import dataclasses
import json
import os
import unittest
from unittest import mock

from . import common
from . import state
from .options import IDENTITY, PHASES, Options
from .testlib import ScratchTest

# A bisect's options, no field at its default.
TYPED = Options(tree='/t', good='g' * 40, bad='b' * 40, config_sha='c' * 64,
                build_dir='/t/obj', sizes='4K', directions='to_user,from_user',
                variants='native,movsb', repeat=9, samples=101,
                placement='vary', threshold=26.5, alpha=0.05,
                append='a b=c', accel='tcg', config='/c', good_ref='v1',
                bad_ref='v2', orig_head='master', jobs=3, timeout=60,
                retries=0, trace='kcopy,copysize', phase='bisecting',
                first_bad='f' * 40)


class StateTest(ScratchTest):
    """DIR/state.json written, read back, and resumed from."""

    def saved(self):
        """state.json as JSON."""
        with open(os.path.join(self.tmp, state.FILE)) as f:
            return json.load(f)

    def test_typed_round_trip_every_field(self):
        state.save(self.tmp, TYPED)
        self.assertEqual(state.load(self.tmp), TYPED)
        whole = self.saved()
        self.assertEqual(whole['format'], 2)
        self.assertEqual(list(whole['state']),
                         [f.name for f in dataclasses.fields(Options)])
        self.assertEqual(list(whole['state'])[:len(IDENTITY)], IDENTITY)
        st = whole['state']
        self.assertEqual((st['repeat'], st['samples'], st['threshold'],
                          st['alpha'], st['jobs'], st['timeout'],
                          st['retries']), (9, 101, 26.5, 0.05, 3, 60, 0))

    def test_defaults_round_trip(self):
        state.save(self.tmp, Options(jobs=1))
        self.assertEqual(state.load(self.tmp), Options(jobs=1))
        st = self.saved()['state']
        self.assertIsNone(st['alpha'])
        self.assertEqual((st['threshold'], st['repeat'], st['phase']),
                         (25.0, 7, 'new'))

    def test_format_1_is_read_typed(self):
        strings = {'tree': '/t', 'repeat': '9', 'samples': '101',
                   'threshold': '26.5', 'alpha': '', 'jobs': '3',
                   'timeout': '', 'retries': '0', 'phase': 'good',
                   'first_bad': '', 'unknown_key': 'x'}
        self.write(state.FILE, json.dumps({'format': 1, 'state': strings}))
        o = state.load(self.tmp)
        self.assertEqual(o, Options(tree='/t', repeat=9, samples=101,
                                    threshold=26.5, alpha=None, jobs=3,
                                    retries=0, phase='good', timeout=600))
        self.write(state.FILE, json.dumps(
            {'format': 1, 'state': dict(strings, alpha='0.01')}))
        self.assertEqual(state.load(self.tmp).alpha, 0.01)

    def test_atomic_write_leaves_no_temporary_and_keeps_the_old(self):
        state.save(self.tmp, Options(phase='good'))
        self.assertEqual(os.listdir(self.tmp), ['state.json'])
        with mock.patch('os.replace', side_effect=OSError(28, 'No space')), \
                mock.patch.object(common, 'say') as say:
            with self.assertRaises(common.Die):
                state.save(self.tmp, Options(phase='bad'))
        say.assert_called_once()
        self.assertEqual(os.listdir(self.tmp), ['state.json'])
        self.assertIn('cannot write', say.call_args[0][0])
        self.assertEqual(state.load(self.tmp).phase, 'good')

    def test_resume_sees_how_far_it_got(self):
        for p in PHASES:
            state.save(self.tmp, Options(phase=p))
            again = state.load(self.tmp)
            done = [q for q in PHASES if again.phase_done(q)]
            self.assertEqual(done, list(PHASES[:PHASES.index(p) + 1]))

    def test_phase_done_table(self):
        o = Options(phase='good')
        self.assertTrue(o.phase_done('configured'))
        self.assertTrue(o.phase_done('good'))
        self.assertFalse(o.phase_done('bad'))
        o.phase = 'new'
        self.assertFalse(o.phase_done('configured'))
        o.phase = 'bisecting'
        self.assertTrue(all(o.phase_done(p) for p in PHASES[:5]))

    def test_changed_names_each_key_in_order(self):
        self.assertEqual(TYPED.changed(TYPED), [])
        # Not identity: the jobs, the phase.
        self.assertEqual(TYPED.changed(dataclasses.replace(
            TYPED, jobs=1, phase='new')), [])
        now = dataclasses.replace(TYPED, sizes='64', threshold=50.0,
                                  alpha=None)
        self.assertEqual(TYPED.changed(now), [
            "sizes: '4K' there, '64' now",
            "threshold: '26.5' there, '50' now",
            "alpha: '0.05' there, '' now"])

    def test_legacy_state_is_read_then_replaced(self):
        self.write('state', 'tree=/t\nsizes=4K\nappend=a=b\nphase=bisecting\n'
                   'repeat=5\nfirst_bad=\n')
        self.assertTrue(state.exists(self.tmp))
        o = state.load(self.tmp)
        self.assertEqual((o.tree, o.append, o.phase, o.repeat),
                         ('/t', 'a=b', 'bisecting', 5))
        state.save(self.tmp, dataclasses.replace(o, jobs=2))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'state')))
        self.assertEqual(state.load(self.tmp).sizes, '4K')
        self.assertEqual(self.saved()['format'], 2)

    def refused(self, text):
        """The StateError of a state.json of TEXT."""
        self.write(state.FILE, text)
        with self.assertRaises(state.StateError, msg=text) as cm:
            state.load(self.tmp)
        msg = str(cm.exception)
        self.assertTrue(msg.startswith(os.path.join(self.tmp, state.FILE)
                                       + ': '), msg)
        return msg

    def test_not_a_state(self):
        self.assertFalse(state.exists(self.tmp))
        for text in ('', '{', '[]', '{"format": 2, "state": []}',
                     '{"format": 1, "state": {"a": 1}}'):
            self.refused(text)

    def test_a_value_not_of_its_type_is_named(self):
        self.assertIn('"repeat" is "7", not an integer', self.refused(
            '{"format": 2, "state": {"repeat": "7"}}'))
        self.assertIn('"alpha" is true, not a number or null', self.refused(
            '{"format": 2, "state": {"alpha": true}}'))
        self.assertIn("repeat 'x': not an integer", self.refused(
            '{"format": 1, "state": {"repeat": "x"}}'))
        self.assertIn("phase 'later' is none of new, configured", self.refused(
            '{"format": 2, "state": {"phase": "later"}}'))

    def test_another_format_is_named(self):
        self.assertIn('a state of format 3, which this bisect-kernel does not '
                      'read (it reads formats 1 and 2): written by another '
                      'version', self.refused('{"format": 3, "state": {}}'))


if __name__ == '__main__':
    unittest.main()
