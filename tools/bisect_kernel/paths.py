# SPDX-License-Identifier: GPL-2.0
"""Where bisect-kernel finds the project's files: in the source tree (the
command run as tools/bisect-kernel) or where make install puts them (the
command run as PREFIX/bin/copybench-bisect-kernel)."""

import glob
import os

# The command's name when installed (Makefile: install), and vm-run's.
INSTALLED_NAME = 'copybench-bisect-kernel'
VMRUN_NAME = 'copybench-vm-run'


class Paths:
    """The files bisect-kernel uses, found from its own path (ENTRY, the
    executable's real path); installed, COPYBENCH_TOP may name a copybench
    checkout for the module's sources when copybench-dkms is not
    installed."""

    def __init__(self, entry, environ=None):
        environ = os.environ if environ is None else environ
        self.entry = entry
        here = os.path.dirname(entry)
        top = os.path.dirname(here)
        self.installed = not (os.path.isfile(os.path.join(here, 'vm-run'))
                              and os.path.isfile(os.path.join(top, 'Makefile')))
        if not self.installed:
            self._from_tree(top)
        else:
            self._installed(top, environ)

    def _from_tree(self, top):
        """The source tree: everything under TOP, the command built in
        build/."""
        tools = os.path.join(top, 'tools')
        self.project = top
        self.copybench = os.path.join(top, 'build', 'copybench')
        self.vmrun = os.path.join(tools, 'vm-run')
        self.config = os.path.join(tools, 'bisect-kernel.config')
        self.kernel_sh = os.path.join(tools, 'lib', 'kernel.sh')
        self.bpftrace = os.path.join(tools, 'bpftrace')
        self.prog = 'tools/bisect-kernel'

    def _installed(self, prefix, environ):
        """PREFIX/bin (copybench, copybench-vm-run), PREFIX/share/copybench;
        the module's sources are copybench-dkms's, else made by make
        dkms-source in COPYBENCH_TOP's checkout when it is given."""
        share = os.path.join(prefix, 'share', 'copybench')
        checkout = environ.get('COPYBENCH_TOP', '')
        self.project = os.path.realpath(checkout) if checkout else ''
        self.copybench = os.path.join(prefix, 'bin', 'copybench')
        self.vmrun = os.path.join(prefix, 'bin', VMRUN_NAME)
        self.config = os.path.join(share, 'bisect-kernel.config')
        self.kernel_sh = os.path.join(share, 'lib', 'kernel.sh')
        self.bpftrace = os.path.join(share, 'bpftrace')
        self.prog = INSTALLED_NAME

    def bt(self, tool):
        """The bpftrace tool TOOL.bt."""
        return os.path.join(self.bpftrace, tool + '.bt')

    def default_dir(self, name):
        """Where a bisect named NAME (TREE-GOOD-BAD) is kept by default:
        build/bisect/ in the checkout, else the user's cache."""
        if not self.installed and self.prog != INSTALLED_NAME:
            return os.path.join(self.project, 'build', 'bisect', name)
        cache = os.environ.get('XDG_CACHE_HOME') or os.path.join(
            os.path.expanduser('~'), '.cache')
        return os.path.join(cache, 'copybench', 'bisect', name)

    def dkms_sources(self):
        """The module's sources as the copybench-dkms package installed
        them (/usr/src/copybench-VERSION), or ''."""
        found = sorted(glob.glob('/usr/src/copybench-*/dkms.conf'))
        return os.path.dirname(found[-1]) if found else ''
