# SPDX-License-Identifier: GPL-2.0
"""Unit tests of common.py: the formats, jq's numbers, the JSON stream,
atomic writes and a child's status."""

import os
import signal
import unittest
from unittest import mock

from . import common
from .testlib import ScratchTest


class FormatTest(unittest.TestCase):
    """dur, short, jround, jnum, json_stream."""

    def test_dur(self):
        self.assertEqual(common.dur(0), '0 s')
        self.assertEqual(common.dur(59), '59 s')
        self.assertEqual(common.dur(60), '1 min 00 s')
        self.assertEqual(common.dur(823), '13 min 43 s')

    def test_jround_is_half_away_from_zero(self):
        self.assertEqual([common.jround(x) for x in (0.5, 1.5, 2.5, -2.5, -0.4)],
                         [1, 2, 3, -3, 0])

    def test_jnum(self):
        self.assertEqual([common.jnum(x) for x in (5243.0, 8.192, 4, None, -0.0)],
                         ['5243', '8.192', '4', 'null', '-0'])

    def test_json_stream(self):
        self.assertEqual(common.json_stream(' {"a": 1}{"b": [2]}\n3\n'),
                         [{'a': 1}, {'b': [2]}, 3])
        self.assertEqual(common.json_stream(''), [])
        with self.assertRaises(ValueError):
            common.json_stream('{"a": 1}\n{"b":')


class ChildTest(ScratchTest):
    """call's status, write_atomic."""

    def test_status_of_a_signal(self):
        self.assertEqual(common.call(['sh', '-c', 'exit 3']), 3)
        self.assertEqual(common.call(['sh', '-c', 'kill -TERM $$']),
                         128 + signal.SIGTERM)

    def test_missing_command(self):
        with mock.patch('sys.stderr'):
            self.assertEqual(common.call([os.path.join(self.tmp, 'none')]), 127)

    def test_write_atomic(self):
        path = os.path.join(self.tmp, 'f')
        common.write_atomic(path, 'one\n')
        common.write_atomic(path, 'two\n')
        self.assertEqual(common.read_text(path), 'two\n')
        self.assertEqual(os.listdir(self.tmp), ['f'])


if __name__ == '__main__':
    unittest.main()
