# SPDX-License-Identifier: GPL-2.0
"""Unit tests of trace.py: the summary over bpftrace's JSON output (-f
json, as kcopy.bt and copysize.bt print it) and why a trace failed."""

import json
import os
import unittest

from . import trace
from .testlib import ScratchTest

# kcopy.bt's output on a kernel whose copies take the byte loop: a
# stack bpftrace could not look up (an empty key), frames to sum by name.
KCOPY = [
    {'type': 'attached_probes', 'data': {'probes': 6}},
    {'type': 'map', 'data': {'@oncpu_frame': {
        '\n        rep_movs_alternative+19\n': 150,
        '\n        rep_movs_alternative+19\n        copy_page_to_iter+9\n': 39,
        '\n        p9_virtio_request+424\n': 14,
        '\n        do_user_addr_fault+180\n': 4,
        '\n        handle_softirqs+114\n': 4,
        '': 7}}},
    {'type': 'hist', 'data': {'@read_ns': {'shmem_file_read_iter': [
        {'min': 16384, 'max': 32767, 'count': 1000},
        {'min': 32768, 'max': 65535, 'count': 3000},
        {'min': 65536, 'max': 131071, 'count': 97}]}}},
    {'type': 'hist', 'data': {'@read_bytes': {
        'shmem_file_read_iter': [{'min': 0, 'max': 0, 'count': 1},
                                 {'min': 4096, 'max': 8191, 'count': 4096}],
        'filemap_read': [{'min': 1, 'max': 1, 'count': 99}]}}},
]

COPYSIZE = [
    {'type': 'map', 'data': {'@routine': {
        'dd,tmpfs,\n        rep_movs_alternative+19\n': 40,
        'dd,pagecache,\n        memcpy_orig+12\n': 99,
        'dd,tmpfs,\n        _copy_to_iter+200\n': 2}}},
]


def lines(objs):
    return ''.join(json.dumps(o) + '\n' for o in objs)


class SummaryTest(ScratchTest):
    """frames, median, reads and summary."""

    def test_frames_sum_by_name_top_three(self):
        self.assertEqual(trace.frames(KCOPY, '@oncpu_frame'),
                         '211 samples: rep_movs_alternative+19 189, '
                         'p9_virtio_request+424 14, do_user_addr_fault+180 4')

    def test_frames_filtered_by_path(self):
        self.assertEqual(trace.frames(COPYSIZE, '@routine', '^[^,]*,tmpfs,'),
                         '42 samples: rep_movs_alternative+19 40, '
                         '_copy_to_iter+200 2')

    def test_frames_none(self):
        self.assertEqual(trace.frames(KCOPY, '@nothing'), 'no sample')
        self.assertEqual(trace.frames([{'type': 'map', 'data': {
            '@oncpu_frame': {'': 3}}}], '@oncpu_frame'), 'no sample')

    def test_median_bucket(self):
        h = KCOPY[2]['data']['@read_ns']['shmem_file_read_iter']
        self.assertEqual(trace.median(h)['min'], 32768)
        self.assertIsNone(trace.median([]))
        self.assertEqual(trace.median([{'min': 1, 'max': 1, 'count': 2},
                                       {'min': 2, 'max': 3, 'count': 2}])['min'], 1)

    def test_reads(self):
        self.assertEqual(trace.reads(KCOPY),
                         '4097 tmpfs reads, the median one 4096-8192 bytes in '
                         '32.768-65.536 us')
        self.assertEqual(trace.reads(KCOPY[:2]), 'no tmpfs read timed')

    def test_summary_of_files(self):
        pre = os.path.join(self.tmp, 'trace-abc')
        self.write('trace-abc.kcopy.json', lines(KCOPY))
        self.write('trace-abc.copysize.json', lines(COPYSIZE))
        self.assertEqual(trace.summary(pre, 'kcopy,copysize'), [
            '    kcopy.bt, dd on the CPU: 211 samples: rep_movs_alternative+19 '
            '189, p9_virtio_request+424 14, do_user_addr_fault+180 4',
            '    kcopy.bt: 4097 tmpfs reads, the median one 4096-8192 bytes in '
            '32.768-65.536 us',
            '    copysize.bt, the tmpfs read path: 42 samples: '
            'rep_movs_alternative+19 40, _copy_to_iter+200 2'])

    def test_unreadable_and_none(self):
        pre = os.path.join(self.tmp, 'trace-abc')
        t = self.write('trace-abc.kcopy.json', lines(KCOPY)[:-20])
        self.assertEqual(trace.summary(pre, 'none'), [
            '    kcopy.bt, dd on the CPU: unreadable (%s)' % t,
            '    kcopy.bt: unreadable (%s)' % t,
            '    no trace (--trace none)'])


class FailedTest(ScratchTest):
    """trace_failed: why a tool left no trace."""

    def pre(self):
        return os.path.join(self.tmp, 'trace-abc')

    def test_all_there_or_none_asked(self):
        self.write('trace-abc.kcopy.json', lines(KCOPY))
        self.assertEqual(trace.trace_failed(self.pre(), 'kcopy'), [])
        self.assertEqual(trace.trace_failed(self.pre(), 'none'), [])

    def test_the_guest_had_no_bpftrace(self):
        self.write('trace-abc.err', 'bisect-kernel: no bpftrace in the guest: '
                   'no trace\nsecond|line\nthird\n')
        self.assertEqual(trace.trace_failed(self.pre(), 'kcopy'), [
            'bisect-kernel: no bpftrace in the guest: no trace | second | line'])

    def test_error_lines_of_the_err(self):
        self.write('trace-abc.copysize.err', 'Attaching 9 probes...   \n'
                   'stdin:12: ERROR: cannot attach kprobe  \nwarn\n'
                   'bisect-kernel: bpftrace copysize.bt failed with status 1\n')
        self.write('trace-abc.kcopy.err', 'just\nwords\nhere\n')
        self.assertEqual(trace.trace_failed(self.pre(), 'copysize,kcopy'), [
            'copysize.bt: stdin:12: ERROR: cannot attach kprobe | '
            'bisect-kernel: bpftrace copysize.bt failed with status 1',
            'kcopy.bt: just | words'])

    def test_no_err_at_all(self):
        self.assertEqual(trace.trace_failed(self.pre(), 'kcopy'), [
            'kcopy.bt: no trace-abc.kcopy.err (the VM did not run the trace)'])
        self.assertEqual(trace.summary(self.pre(), 'kcopy'), [
            '    TRACE FAILED: kcopy.bt: no trace-abc.kcopy.err (the VM did not '
            'run the trace) (trace-abc.*.err)'])

    def test_long_reason_is_cut(self):
        self.write('trace-abc.kcopy.err', 'error ' + 'x' * 600 + '\n')
        self.assertEqual(len(trace.trace_failed(self.pre(), 'kcopy')[0]),
                         len('kcopy.bt: ') + 400)


if __name__ == '__main__':
    unittest.main()
