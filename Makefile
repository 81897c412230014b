# SPDX-License-Identifier: GPL-2.0
#
# copybench: top-level Makefile. kbuild reads ./Kbuild for the module; this
# file drives kbuild, the userspace library, the selftests and the checks.
#
#   make                    module for KDIR + userspace library + selftests
#                           + the copybench command (build/copybench)
#   make KDIR=/lib/modules/<release>/build
#                           the module for another kernel
#   make check              every test, native and in a VM per kernel
#   make bench              the readers matrix on the best source available,
#                           then a copybench sweep's plateau table
#   make debug-kernel       build (once, cached outside the tree) the debug
#                           kernel make check also tests on (scripts/debug-kernel)
#   make setup              install the Debian packages the project needs
#   make htmldocs           Documentation/ as HTML (Sphinx) in build/htmldocs
#   make deb                the Debian source package and the packages copybench
#                           and copybench-dkms (DEBFULLNAME, DEBEMAIL)
#   make dsc                the Debian source package only
#   make unit-check         the unit tests that need no root, no VM and no
#                           network (the package build runs them)
#   make install            the commands, man pages and docs (DESTDIR, PREFIX)
#   make dkms-source        the module's sources for DKMS (DESTDIR)
#   make clean
#
# KDIR defaults to the running kernel's build directory when it exists,
# else to the newest /lib/modules/*/build; "make module" says which kernel
# it builds for and why (a module loads only on the kernel it was built for).

PWD_TOP		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD		:= $(PWD_TOP)/build

KREL_RUNNING	:= $(shell uname -r)
KDIR_RUNNING	:= /lib/modules/$(KREL_RUNNING)/build
KDIR_NEWEST	:= $(lastword $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V))
ifneq ($(filter command line environment,$(origin KDIR)),)
KDIR_WHY	:= KDIR was given
else ifneq ($(wildcard $(KDIR_RUNNING)),)
KDIR		:= $(KDIR_RUNNING)
KDIR_WHY	:= the running kernel
else
KDIR		:= $(KDIR_NEWEST)
KDIR_WHY	:= no headers for the running kernel $(KREL_RUNNING), so the newest in /lib/modules
endif
# The release KDIR builds for: kbuild writes it into the headers.
KREL		= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
# Where "make module" leaves copybench.ko (make check builds one per kernel).
KO_OUT		?= $(PWD_TOP)/copybench.ko
# The one version of the module, its DKMS package and the Debian packages:
# a digit, then letters, digits, '.', '+' or '~' (make version-check).
CB_VERSION	:= $(shell cat $(PWD_TOP)/VERSION)

# The kernel's own kselftest headers and lib.mk (and checkpatch.pl for the
# style check), extracted from Debian's linux-source tarball into a miniature
# kernel tree under build/ (never committed). KSFT_TREE=DIR uses a tree that
# holds them already: the Debian source package's kselftest component (only
# the files KSFT_TEST_FILES names), for its unit tests.
KSFT_TARBALL	?= $(lastword $(shell ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V))
KSFT_TREE	?= $(BUILD)/linux
KSFT_DIR	:= $(KSFT_TREE)/tools/testing/selftests
KSFT_TEST_FILES	:= tools/testing/selftests/lib.mk tools/testing/selftests/kselftest.h \
		   tools/testing/selftests/kselftest_harness.h
ifeq ($(KSFT_TREE),$(BUILD)/linux)
KSFT_STAMP	:= $(KSFT_DIR)/.extracted
else
KSFT_STAMP	:= $(addprefix $(KSFT_TREE)/,$(KSFT_TEST_FILES))
endif

.DEFAULT_GOAL	:= all

CB_TOP		:= $(PWD_TOP)
CB_LIB_DIR	:= $(BUILD)
include $(PWD_TOP)/lib/libcopyvariants.mk

.PHONY: all module module-clean lib selftests ksft-headers check bench setup clean \
	dkms-source htmldocs userspace man install deb dsc deb-source deb-maintainer \
	version-check copybench debug-kernel unit-check

all: module lib selftests copybench

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "copybench: no kernel build directory (KDIR='$(KDIR)');" \
		     "install linux-headers or run 'make setup'" >&2; exit 1; }
	@echo "copybench: building copybench.ko for $(or $(KREL),the kernel of $(KDIR)) ($(KDIR_WHY)): it loads only on that kernel"
	@$(if $(filter-out $(KREL_RUNNING),$(KREL)),echo "copybench: not for the running kernel $(KREL_RUNNING): insmod there fails with 'Invalid module format'; another kernel: make module KDIR=/lib/modules/RELEASE/build")
	$(MAKE) -C $(KDIR) M=$(PWD_TOP) modules
	@mkdir -p $(dir $(KO_OUT))
	cp $(BUILD)/module/copybench.ko $(KO_OUT)

# The module's kbuild products only (kbuild's own "clean" for M= deletes
# every *.o, *.a and *.ko below this directory, build/ included).
module-clean:
	rm -rf $(BUILD)/module
	rm -f $(PWD_TOP)/*.o $(PWD_TOP)/.*.cmd $(PWD_TOP)/*.mod $(PWD_TOP)/*.mod.c \
		$(PWD_TOP)/Module.symvers $(PWD_TOP)/modules.order

lib: $(CB_LIB)

ksft-headers: $(KSFT_STAMP)

$(KSFT_STAMP):
	@test -n "$(KSFT_TARBALL)" || { \
		echo "copybench: no /usr/src/linux-source-*.tar.xz for the kselftest" \
		     "headers; run 'make setup'" >&2; exit 1; }
	@mkdir -p $(KSFT_TREE)
	tar -xJf $(KSFT_TARBALL) -C $(KSFT_TREE) --strip-components=1 --wildcards \
		'*/tools/testing/selftests/lib.mk' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest/*' \
		'*/tools/testing/selftests/Makefile' \
		'*/scripts/subarch.include' \
		'*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	@echo "$(KSFT_TARBALL)" > $@

selftests: $(KSFT_STAMP) $(CB_LIB)
	@mkdir -p $(BUILD)/selftests
	$(MAKE) -C selftests KSFT_DIR=$(KSFT_DIR) OUTPUT=$(BUILD)/selftests \
		CB_TOP=$(PWD_TOP) CB_LIB_DIR=$(BUILD)

# The copybench command (tools/copybench/, Documentation/measure.rst) and
# its unit tests. *_test.c files are test programs, main.c is main().
CB_CMD_DIR	:= $(PWD_TOP)/tools/copybench
CB_CMD_SRCS	:= $(filter-out %_test.c,$(wildcard $(CB_CMD_DIR)/*.c))
CB_CMD_PARTS	:= $(filter-out $(CB_CMD_DIR)/main.c,$(CB_CMD_SRCS))
CB_CMD_HDRS	:= $(wildcard $(CB_CMD_DIR)/*.h) $(CB_LIB_HDRS)
CB_CMD_VERSION	:= $(BUILD)/copybench.version
CB_CMD_CFLAGS	:= -O2 -g -Wall -Wextra -I$(PWD_TOP) -I$(CB_CMD_DIR)

# The unit tests of the command's parts, one program a part, named for it.
CB_CMD_UNITS	:= $(addprefix $(BUILD)/unit/,stats_test points_test json_test record_test sweep_test)

copybench: $(BUILD)/copybench $(CB_CMD_UNITS)

# git describe, rewritten only when it changes, so a commit rebuilds;
# VERSION when this directory is not the top of a git tree (a source
# package, unpacked anywhere, even inside another repository).
$(CB_CMD_VERSION): FORCE
	@mkdir -p $(dir $@)
	@v=$$(p=$$(git -C $(PWD_TOP) rev-parse --show-prefix 2>/dev/null) && [ -z "$$p" ] && \
		git -C $(PWD_TOP) describe --always --dirty 2>/dev/null || echo $(CB_VERSION)); \
	[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@

# CPPFLAGS, CFLAGS and LDFLAGS from the environment or the command line
# come last, so a package build's hardening (dpkg-buildflags: fortify,
# stack protector, relro and bindnow) applies and can override the -O2.
$(BUILD)/copybench: $(CB_CMD_SRCS) $(CB_CMD_HDRS) $(CB_LIB) $(CB_CMD_VERSION)
	$(CC) $(CPPFLAGS) $(CB_CMD_CFLAGS) $(CFLAGS) -DCB_VERSION="\"$$(cat $(CB_CMD_VERSION))\"" \
		$(CB_CMD_SRCS) $(CB_LIB) $(LDFLAGS) -lm -o $@

$(BUILD)/unit/%: $(CB_CMD_DIR)/%.c $(CB_CMD_PARTS) $(CB_CMD_HDRS) $(CB_LIB) $(KSFT_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CB_CMD_CFLAGS) -Wno-unused-parameter -I$(KSFT_DIR) $< $(CB_CMD_PARTS) \
		$(CB_LIB) -lm -o $@

.PHONY: FORCE
FORCE:

check:
	$(PWD_TOP)/scripts/check

# The native suites alone (no kernel build, no VM): a few minutes.
check-native:
	$(PWD_TOP)/scripts/check --native-only

# The main job: set up (light), build, and when the running kernel has its
# headers build copybench.ko for it too, so scripts/bench can load it.
bench:
	$(PWD_TOP)/scripts/setup --for bench
	$(MAKE) -C $(PWD_TOP) lib selftests copybench
	@if [ -d "$(KDIR_RUNNING)" ]; then \
		$(MAKE) -C $(PWD_TOP) module KDIR=$(KDIR_RUNNING) || \
		echo "bench: copybench.ko did not build for $$(uname -r);" \
		     "the module's data file will not be a source"; \
	else \
		echo "bench: no headers for the running kernel $$(uname -r):" \
		     "copybench.ko is not built for it"; \
	fi
	$(PWD_TOP)/scripts/bench

setup:
	$(PWD_TOP)/scripts/setup

# Documentation/*.rst as HTML, as the kernel's "make htmldocs": Sphinx with
# every warning an error (-W; HTMLDOCS_STRICT= builds despite warnings, as
# the package build does: docs_test is what fails on them), the whole book
# re-read each time (-E) so an unchanged page's warnings are not hidden by
# the cache.
HTMLDOCS_SRC	?= $(PWD_TOP)/Documentation
HTMLDOCS	?= $(BUILD)/htmldocs
HTMLDOCS_STRICT	?= -W --keep-going

htmldocs:
	sphinx-build -E $(HTMLDOCS_STRICT) -n -q -b html -d $(HTMLDOCS)/.doctrees \
		$(HTMLDOCS_SRC) $(HTMLDOCS)

# The commands the copybench package ships: the copybench command and
# readers (the selftests build their own readers with the kernel's lib.mk,
# for kselftest installs). Built from what ships only: no kselftest header.
READERS_SRCS	:= $(wildcard $(PWD_TOP)/selftests/readers_src/*.c)
CB_BINS		:= $(BUILD)/copybench $(BUILD)/readers

# The scripts run from the tree as tools/NAME and installed as
# copybench-NAME (their man page's name too): a link in build/ gives mkman
# that name. tools/bisect-kernel's parts are the package
# tools/bisect_kernel/ (installed without its unit tests) and read
# bisect-kernel.config and lib/kernel.sh beside them; tools/vm-run's are
# tools/vm/init and prepare (share/copybench/vm/) and lib/opts.sh.
CB_SCRIPTS	:= $(BUILD)/copybench-bisect-kernel $(BUILD)/copybench-vm-run
BK_DIR		:= $(PWD_TOP)/tools/bisect_kernel
BK_PARTS	:= $(filter-out $(BK_DIR)/test_%.py $(BK_DIR)/testlib.py,$(wildcard $(BK_DIR)/*.py))

$(CB_SCRIPTS): $(BUILD)/copybench-%: $(PWD_TOP)/tools/%
	@mkdir -p $(BUILD)
	ln -sfn $< $@

userspace: lib $(CB_BINS) $(CB_SCRIPTS)

$(BUILD)/readers: $(READERS_SRCS) $(PWD_TOP)/selftests/readers_src/readers.h $(CB_LIB_HDRS) $(CB_LIB)
	$(CC) $(CPPFLAGS) -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(PWD_TOP) -pthread \
		$(CFLAGS) $(READERS_SRCS) $(CB_LIB) $(LDFLAGS) -pthread -lm -o $@

# The unit tests that need no root, no kernel of their own and no network:
# the copybench command's, compare's statistics, readers' judgements and
# the copy variants natively. The package build runs them (dh_auto_test),
# with the kselftest headers of its kselftest component (KSFT_TREE).
CB_UNIT_SELFTESTS := infer_test infer_checks_test infer_input_test readers_unit_test \
		     variants_test variants_signal_test cb_debugfs_test
CB_UNIT_HELPERS	:= variants_example

unit-check: $(KSFT_STAMP) $(CB_LIB)
	@mkdir -p $(BUILD)/selftests
	$(MAKE) -C selftests KSFT_DIR=$(KSFT_DIR) OUTPUT=$(BUILD)/selftests \
		CB_TOP=$(PWD_TOP) CB_LIB_DIR=$(BUILD) \
		$(addprefix $(BUILD)/selftests/,$(CB_UNIT_SELFTESTS) $(CB_UNIT_HELPERS))
	$(MAKE) -C $(PWD_TOP) $(CB_CMD_UNITS)
	@set -e; for t in $(CB_CMD_UNITS) $(addprefix $(BUILD)/selftests/,$(CB_UNIT_SELFTESTS)); do \
		echo "== $$t"; $$t; done

# make install [DESTDIR=...] [PREFIX=/usr/local]: the commands (and
# copybench-bisect-kernel's and copybench-vm-run's parts, share/copybench/),
# their man pages, the bpftrace tools (share/copybench/bpftrace/) and their
# example runs, the README, this book as HTML and its sources (DOCDIR:
# html/, rst/).
# The module is DKMS's business (dkms-source).
PREFIX		?= /usr/local
DOCDIR		?= $(PREFIX)/share/doc/copybench
CB_SHARE	= $(DESTDIR)$(PREFIX)/share/copybench
CB_DOC		= $(DESTDIR)$(DOCDIR)

# One page per command and per subcommand of copybench, from their own
# --help (scripts/mkman, help2man); each command's one-line summary is here.
MAN_DIR		:= $(BUILD)/man
MAN_NAME_readers	:= parallel reads into shared, private or strided buffers
MAN_NAME_copybench	:= time the kernel's copy routines against fixed copies
MAN_NAME_copybench-bisect-kernel := find the commit of a kernel tree that slowed its copies
MAN_NAME_copybench-vm-run := run one command as root in a QEMU VM booting a given kernel

man: userspace
	rm -rf $(MAN_DIR)
	$(PWD_TOP)/scripts/mkman --out $(MAN_DIR) --docdir $(DOCDIR) --version $(CB_VERSION) \
		$(foreach b,$(CB_BINS) $(CB_SCRIPTS),$(b) "$(MAN_NAME_$(notdir $(b)))")

# The HTML as installed: Sphinx's build files and the theme's unused GitHub
# banner (alabaster ships it for its github_banner option) stay out.
install: userspace man htmldocs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(CB_SHARE)/bpftrace $(CB_SHARE)/bisect_kernel $(CB_SHARE)/lib $(CB_SHARE)/vm \
		$(CB_DOC)/rst $(CB_DOC)/examples $(CB_DOC)/html
	install -m 755 $(CB_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(PWD_TOP)/tools/bisect-kernel $(DESTDIR)$(PREFIX)/bin/copybench-bisect-kernel
	install -m 644 $(BK_PARTS) $(CB_SHARE)/bisect_kernel/
	install -m 644 $(PWD_TOP)/tools/bisect-kernel.config $(CB_SHARE)/
	install -m 644 $(PWD_TOP)/tools/lib/kernel.sh $(PWD_TOP)/tools/lib/opts.sh $(CB_SHARE)/lib/
	install -m 755 $(PWD_TOP)/tools/vm-run $(DESTDIR)$(PREFIX)/bin/copybench-vm-run
	install -m 755 $(PWD_TOP)/tools/vm/init $(PWD_TOP)/tools/vm/prepare $(CB_SHARE)/vm/
	install -m 644 $(MAN_DIR)/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 755 $(wildcard $(PWD_TOP)/tools/bpftrace/*.bt) $(CB_SHARE)/bpftrace/
	install -m 644 $(wildcard $(PWD_TOP)/tools/bpftrace/*_example.txt) $(CB_DOC)/examples/
	install -m 644 $(PWD_TOP)/README.md $(CB_DOC)/
	install -m 644 $(wildcard $(PWD_TOP)/Documentation/*.rst) $(CB_DOC)/rst/
	cp -r $(HTMLDOCS)/. $(CB_DOC)/html/
	rm -rf $(CB_DOC)/html/.doctrees $(CB_DOC)/html/.buildinfo \
		$(CB_DOC)/html/_static/forkme_right_darkblue_*.png

# The Debian source package, format 3.0 (quilt), and from it the packages
# copybench and copybench-dkms, all in $(DEB_DIR)/:
#   copybench_<VERSION>.orig.tar.xz            the tree as it is (tracked and
#                                              new files, modified or not),
#                                              without debian/
#   copybench_<VERSION>.orig-kselftest.tar.xz  the kernel's kselftest headers
#                                              and lib.mk (KSFT_TEST_FILES),
#                                              from KSFT_TREE (make
#                                              ksft-headers): what the unit
#                                              tests of the build need
#   copybench_<VERSION>-<REV>.debian.tar.xz    debian/, with debian/changelog
#                                              written from VERSION
#   copybench_<VERSION>-<REV>.dsc              for dpkg-source -x, sbuild, ...
# Tarballs are reproducible: names sorted, owner 0, every mtime the last
# commit's. The Maintainer of debian/control and the changelog's signer are
# DEBFULLNAME and DEBEMAIL, whoever builds and answers for the packages:
# copybench has no Debian maintainer of its own (make deb-maintainer).
DEB_DIR		:= $(BUILD)/deb
DEB_REVISION	:= 1
DEB_SRC		:= $(DEB_DIR)/copybench-$(CB_VERSION)
DEB_EPOCH	:= $(or $(shell git -C $(PWD_TOP) log -1 --format=%ct 2>/dev/null),$(shell date +%s))
DEB_TAR		= tar --sort=name --mtime=@$(DEB_EPOCH) --owner=0 --group=0 --numeric-owner

deb-maintainer:
	@printf '%s\n' "$$DEBFULLNAME" | grep -Eqx '[^<>@]*[^<>@ ][^<>@]*' && \
	 printf '%s\n' "$$DEBEMAIL" | grep -Eqx '[^@<> ]+@[^@<> ]+\.[^@<> .]+' || { \
		echo "copybench: the Debian packages need a maintainer: set DEBFULLNAME" \
		     "and DEBEMAIL to the name and address of whoever builds and answers" \
		     "for them (copybench has no Debian maintainer of its own); got" \
		     "DEBFULLNAME='$$DEBFULLNAME' DEBEMAIL='$$DEBEMAIL'" >&2; exit 2; }

deb-source: version-check deb-maintainer $(KSFT_STAMP)
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC) $(DEB_DIR)/kselftest
	cd $(PWD_TOP) && if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard -- . ':!:debian' | \
			tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar -cf - --exclude=./build --exclude=./.git --exclude=./debian . | \
			tar -xf - -C $(DEB_SRC); \
	fi
	cd $(KSFT_TREE) && cp --parents $(KSFT_TEST_FILES) $(DEB_DIR)/kselftest/
	cd $(DEB_DIR) && $(DEB_TAR) -cf - copybench-$(CB_VERSION) | xz -6 -T1 \
		>copybench_$(CB_VERSION).orig.tar.xz
	cd $(DEB_DIR) && $(DEB_TAR) -cf - kselftest | xz -6 -T1 \
		>copybench_$(CB_VERSION).orig-kselftest.tar.xz
	mv $(DEB_DIR)/kselftest $(DEB_SRC)/kselftest
	cp -r $(PWD_TOP)/debian $(DEB_SRC)/debian
	SOURCE_DATE_EPOCH=$(DEB_EPOCH) $(PWD_TOP)/debian/mkchangelog \
		'$(CB_VERSION)-$(DEB_REVISION)' >$(DEB_SRC)/debian/changelog
	awk '/^Maintainer:/ { $$0 = "Maintainer: " ENVIRON["DEBFULLNAME"] " <" ENVIRON["DEBEMAIL"] ">" } \
		{ print }' $(PWD_TOP)/debian/control >$(DEB_SRC)/debian/control

# The source package alone.
dsc: deb-source
	cd $(DEB_SRC) && dpkg-buildpackage -S -us -uc -d

# The source package, then the binary packages built from it as a build
# daemon would (scripts/deb-build: dpkg-source -x, dpkg-buildpackage -b, what
# deb_test runs in a clean chroot); their .changes, .buildinfo and .debs
# beside the .dsc.
deb: dsc
	$(PWD_TOP)/scripts/deb-build $(DEB_DIR)/copybench_$(CB_VERSION)-$(DEB_REVISION).dsc $(DEB_DIR)

version-check:
	@test "$$(wc -l <$(PWD_TOP)/VERSION)" = 1 && \
	 grep -Eqx '[0-9][A-Za-z0-9.+~]*' $(PWD_TOP)/VERSION || { \
		echo "copybench: VERSION holds '$$(cat $(PWD_TOP)/VERSION)', not one line" \
		     "with a version: a digit, then letters, digits, '.', '+' or '~'" >&2; \
		exit 1; }

# The module's sources where DKMS (and the copybench-dkms package) keep
# them: $(DESTDIR)/usr/src/copybench-<version>/. Every top-level C, header
# and assembly file is part of the module.
DKMS_SOURCES	:= $(addprefix $(PWD_TOP)/,Kbuild dkms.conf VERSION) \
		   $(sort $(wildcard $(PWD_TOP)/*.c $(PWD_TOP)/*.h $(PWD_TOP)/*.S))
DKMS_DEST	= $(DESTDIR)/usr/src/copybench-$(CB_VERSION)

dkms-source: version-check
	install -d $(DKMS_DEST)
	install -m 644 $(DKMS_SOURCES) $(DKMS_DEST)/

# Debian's linux-source-6.12 with scripts/debug-kernel.config (KASAN, lockdep,
# kmemleak, UBSAN, fault injection); prints the built tree, for
# "tools/vm-run --kernel-tree" and "make module KDIR=".
debug-kernel:
	$(PWD_TOP)/scripts/debug-kernel

clean: module-clean
	$(MAKE) -C selftests KSFT_DIR=$(KSFT_DIR) OUTPUT=$(BUILD)/selftests clean \
		>/dev/null 2>&1 || true
	rm -rf $(BUILD) $(PWD_TOP)/copybench.ko
