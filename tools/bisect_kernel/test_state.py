# SPDX-License-Identifier: GPL-2.0
"""Unit tests of state.py: the round trip, atomic writes, resuming, the
shell version's state."""

import json
import os
import unittest
from unittest import mock

from . import common
from . import state
from .testlib import ScratchTest


class StateTest(ScratchTest):
    """DIR/state.json written, read back, and resumed from."""

    def test_round_trip_every_key(self):
        st = state.State(self.tmp)
        st.set(tree='/t', good='g' * 40, phase='configured', append='a b=c')
        again = state.State(self.tmp).load()
        self.assertEqual({k: v for k, v in again.items() if v}, st)
        self.assertEqual(set(again), set(state.IDENTITY + state.OTHERS))
        self.assertEqual(again['first_bad'], '')
        self.assertEqual(again['append'], 'a b=c')
        with open(os.path.join(self.tmp, 'state.json')) as f:
            whole = json.load(f)
        self.assertEqual(whole['format'], state.FORMAT)

    def test_values_are_strings(self):
        st = state.State(self.tmp)
        st.set(jobs=4, retries=0)
        self.assertEqual(state.State(self.tmp).load()['jobs'], '4')

    def test_atomic_write_leaves_no_temporary_and_keeps_the_old(self):
        st = state.State(self.tmp)
        st.set(phase='good')
        self.assertEqual(os.listdir(self.tmp), ['state.json'])
        with mock.patch('os.replace', side_effect=OSError(28, 'No space')), \
                mock.patch.object(common, 'say') as say:
            with self.assertRaises(common.Die):
                st.set(phase='bad')
        say.assert_called_once()
        self.assertEqual(os.listdir(self.tmp), ['state.json'])
        self.assertIn('cannot write', say.call_args[0][0])
        self.assertEqual(state.State(self.tmp).load()['phase'], 'good')

    def test_resume_sees_how_far_it_got(self):
        st = state.State(self.tmp)
        for p in state.PHASES:
            st.set(phase=p)
            again = state.State(self.tmp).load()
            done = [q for q in state.PHASES if again.phase_done(q)]
            self.assertEqual(done, list(state.PHASES[:state.PHASES.index(p) + 1]))

    def test_phase_done_table(self):
        st = state.State(self.tmp)
        st['phase'] = 'good'
        self.assertTrue(st.phase_done('configured'))
        self.assertTrue(st.phase_done('good'))
        self.assertFalse(st.phase_done('bad'))
        st['phase'] = 'new'
        self.assertFalse(st.phase_done('configured'))
        st['phase'] = 'bisecting'
        self.assertTrue(all(st.phase_done(p) for p in state.PHASES[:5]))

    def test_changed_names_each_key_in_order(self):
        st = state.State(self.tmp)
        ident = {k: 'x' for k in state.IDENTITY}
        st.update(ident)
        self.assertEqual(st.changed(ident), [])
        ident = dict(ident, sizes='64', alpha='0.05')
        self.assertEqual(st.changed(ident), ["sizes: 'x' there, '64' now",
                                             "alpha: 'x' there, '0.05' now"])

    def test_legacy_state_is_read_then_replaced(self):
        self.write('state', 'tree=/t\nsizes=4K\nappend=a=b\nphase=bisecting\n'
                   'first_bad=\n')
        self.assertTrue(state.exists(self.tmp))
        st = state.State(self.tmp).load()
        self.assertEqual((st['tree'], st['append'], st['phase']),
                         ('/t', 'a=b', 'bisecting'))
        st.set(jobs='2')
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'state')))
        self.assertEqual(state.State(self.tmp).load()['sizes'], '4K')

    def test_not_a_state(self):
        self.assertFalse(state.exists(self.tmp))
        for text in ('', '{', '[]', '{"format": 2, "state": {}}',
                     '{"format": 1, "state": {"a": 1}}'):
            self.write('state.json', text)
            with self.assertRaises(state.StateError, msg=text):
                state.State(self.tmp).load()


if __name__ == '__main__':
    unittest.main()
