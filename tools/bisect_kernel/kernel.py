# SPDX-License-Identifier: GPL-2.0
"""One kernel of a bisect: configured, built, its module built, booted.
How copybench's kernels are configured and built is tools/lib/kernel.sh's
(scripts/kernel-cache makes its kernels with it too): its functions are run
here through bash."""

import filecmp
import glob
import os
import shutil
import subprocess
import time

from . import common
from .common import Die, say

# What each step's kernel needs, whatever the config: the module loads
# (MODULES, MODULE_UNLOAD) and has its interface (DEBUG_FS), and the
# kernel's release names its commit (LOCALVERSION_AUTO).
NEEDS_CONFIG = ('CONFIG_MODULES=y', 'CONFIG_MODULE_UNLOAD=y',
                'CONFIG_DEBUG_FS=y', 'CONFIG_LOCALVERSION_AUTO=y')


class KernelSh:
    """tools/lib/kernel.sh's functions, each run in a bash that sources
    it."""

    def __init__(self, path):
        self.path = path

    def _cmd(self, func, *args):
        return ['bash', '-c', '. "$0" && "$@"', self.path, func] + list(args)

    def run(self, func, *args):
        """FUNC ARGS: its status."""
        return common.call(self._cmd(func, *args), stdin=subprocess.DEVNULL)

    def out(self, func, *args, stdin_text=None):
        """FUNC ARGS: its output (trailing newlines removed); STDIN_TEXT
        on its stdin."""
        p = subprocess.run(self._cmd(func, *args), input=stdin_text or '',
                           stdout=subprocess.PIPE, text=True,
                           errors='replace')
        return p.stdout.rstrip('\n')

    def configure(self, src, obj, fragment, log):
        """tinyconfig, FRAGMENT merged, olddefconfig; True when it worked."""
        return self.run('kernel_configure', src, obj, fragment, log) == 0

    def build(self, src, obj, jobs, log):
        """vmlinux, the modules (and bzImage without PVH); True when built."""
        return self.run('kernel_build', src, obj, jobs, log) == 0

    def first_error(self, log):
        """The line of a failed build's LOG that says why."""
        return self.out('kernel_first_error', log)

    def unmet(self, config, lines):
        """The lines of the fragment LINES that do not hold in CONFIG."""
        return self.out('kernel_unmet', config, '/dev/stdin',
                        stdin_text='\n'.join(lines) + '\n')

    def unmet_file(self, config, fragment):
        """The lines of the file FRAGMENT that do not hold in CONFIG."""
        return self.out('kernel_unmet', config, fragment)


class Timing:
    """What a kernel's build, its module's and its boot with the
    measurement took, in seconds, and why a build failed."""

    def __init__(self):
        self.build = self.module = self.measure = 0
        self.why = ''


def since(start):
    """Whole seconds since START (time.monotonic())."""
    return int(time.monotonic() - start)


def build_kernel(b, c12, timing):
    """The tree's HEAD built in the build directory with the bisect's
    config (log: DIR/logs/kernel-C12.log); False with timing.why when it
    did not build. B: the bisect (bisect.Bisect)."""
    log = os.path.join(b.dir, 'logs', 'kernel-%s.log' % c12)
    start = time.monotonic()
    open(log, 'w').close()
    timing.why = ''
    # The same .config at every commit; olddefconfig gives new symbols
    # their defaults. Copied only when it differs, so an unchanged config
    # rebuilds nothing.
    config, dotconfig = os.path.join(b.dir, 'config'), os.path.join(b.obj, '.config')
    try:
        if not (os.path.exists(dotconfig)
                and filecmp.cmp(config, dotconfig, shallow=False)):
            shutil.copyfile(config, dotconfig)
    except OSError as e:
        say('cannot write %s' % dotconfig)
        raise Die() from e
    with open(log, 'a') as f:
        rc = common.call(['make', '-C', b.tree, 'O=' + b.obj, 'olddefconfig'],
                         stdout=f, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)
    if rc != 0:
        timing.why = 'make olddefconfig failed: ' + b.ksh.first_error(log)
    elif b.ksh.unmet(dotconfig, NEEDS_CONFIG):
        timing.why = ('its config lost what each step needs: '
                      + common.first_line(b.ksh.unmet(dotconfig, NEEDS_CONFIG)))
    elif not b.ksh.build(b.tree, b.obj, str(b.opts.jobs), log):
        timing.why = 'the kernel did not build: ' + b.ksh.first_error(log)
    timing.build = since(start)
    return not timing.why


def module_sources(b):
    """The module's sources in DIR/module, as DKMS takes them."""
    found = sorted(glob.glob(os.path.join(b.dir, 'module', 'usr', 'src',
                                          'copybench-*')))
    return found[0] if found else os.path.join(
        b.dir, 'module', 'usr', 'src', 'copybench-*')


def built_module(src):
    """Where kbuild leaves the module: dkms.conf says, as it says DKMS."""
    script = ('. ./dkms.conf && '
              'echo "${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko"')
    env = dict(os.environ, kernel_source_dir='', dkms_tree='',
               PACKAGE_NAME='', PACKAGE_VERSION='')
    p = subprocess.run(['bash', '-c', script], cwd=src, env=env,
                       stdout=subprocess.PIPE, text=True)
    return p.stdout.strip()


def build_module(b, c12, timing):
    """copybench.ko against the build directory, from DIR/module's
    sources, into DIR/ko/C12/copybench.ko (log: DIR/logs/module-C12.log);
    the module's path, or '' with timing.why."""
    log = os.path.join(b.dir, 'logs', 'module-%s.log' % c12)
    start = time.monotonic()
    open(log, 'w').close()
    timing.why = ''
    ko = os.path.join(b.dir, 'ko', c12, 'copybench.ko')
    src = module_sources(b)
    built = built_module(src) if os.path.isdir(src) else ''
    with open(log, 'a') as f:
        rc = common.call(['make', '-C', b.obj, 'M=' + src, 'modules'],
                         stdout=f, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)
    if rc != 0:
        timing.why = ('copybench.ko did not build against it: '
                      + b.ksh.first_error(log))
    else:
        try:
            os.makedirs(os.path.dirname(ko), exist_ok=True)
            shutil.copyfile(os.path.join(src, built), ko)
        except OSError:
            timing.why = "no %s/%s after the module's build" % (src, built)
    timing.module = since(start)
    return ko if not timing.why else ''


def vm_cmd(b, c12, retries):
    """The command line that boots the build directory's kernel and runs,
    in it, what follows (measured again up to RETRIES times when that is
    a bisect-run whose skip is the measurement's), then the traces into
    DIR/trace-C12.*.

    tsc=reliable: a kernel with neither HPET nor PM timer (no ACPI, as the
    fast bisect kernel) checks its TSC against jiffies, finds it unstable
    on a busy host, and falls back to a 4 ms clock: bpftrace's nsecs, and
    so kcopy.bt's time per read, would be 0 or 4 ms."""
    cmd = [b.paths.vmrun, '--kernel-tree', b.obj, '--share', b.dir,
           '--timeout', str(b.opts.timeout)]
    if b.opts.accel:
        cmd += ['--accel', b.opts.accel]
    append = 'tsc=reliable'
    if b.opts.append:
        append += ' ' + b.opts.append
    cmd += ['--append', append]
    return cmd + ['--', b.paths.entry, 'guest',
                  os.path.join(b.dir, 'trace-' + c12), '--trace',
                  b.opts.trace, '--retries', str(retries), '--']
