# SPDX-License-Identifier: GPL-2.0
#
# copybench: top-level Makefile. kbuild reads ./Kbuild for the module; this
# file drives kbuild, the userspace library, the selftests and the checks.
#
#   make                    module for KDIR + userspace library + selftests
#   make KDIR=/lib/modules/<release>/build
#                           the module for another kernel
#   make check              every test, native and in a VM per kernel
#   make bench              the readers matrix on the best source available
#   make debug-kernel       build (once, cached outside the tree) the debug
#                           kernel make check also tests on (tools/debug-kernel)
#   make setup              install the Debian packages the project needs
#   make clean
#
# KDIR defaults to the running kernel's build directory when it exists,
# else to the newest /lib/modules/*/build.

PWD_TOP		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD		:= $(PWD_TOP)/build

KDIR_RUNNING	:= /lib/modules/$(shell uname -r)/build
KDIR_NEWEST	:= $(lastword $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V))
KDIR		?= $(if $(wildcard $(KDIR_RUNNING)),$(KDIR_RUNNING),$(KDIR_NEWEST))
# Where "make module" leaves copybench.ko (make check builds one per kernel).
KO_OUT		?= $(PWD_TOP)/copybench.ko

# The kernel's own kselftest headers and lib.mk (and checkpatch.pl for the
# style check), extracted from Debian's linux-source tarball into a miniature
# kernel tree under build/ (never committed).
KSFT_TARBALL	?= $(lastword $(shell ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V))
KSFT_TREE	:= $(BUILD)/linux
KSFT_DIR	:= $(KSFT_TREE)/tools/testing/selftests
KSFT_STAMP	:= $(KSFT_DIR)/.extracted

.DEFAULT_GOAL	:= all

CB_TOP		:= $(PWD_TOP)
CB_LIB_DIR	:= $(BUILD)
include $(PWD_TOP)/lib/libcopyvariants.mk

.PHONY: all module module-clean lib selftests ksft-headers check bench setup clean debug-kernel

all: module lib selftests

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "copybench: no kernel build directory (KDIR='$(KDIR)');" \
		     "install linux-headers or run 'make setup'" >&2; exit 1; }
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

check:
	$(PWD_TOP)/tools/check

# The main job: set up (light), build, and when the running kernel has its
# headers build copybench.ko for it too, so tools/bench can load it.
bench:
	$(PWD_TOP)/tools/setup --for bench
	$(MAKE) -C $(PWD_TOP) lib selftests
	@if [ -d "$(KDIR_RUNNING)" ]; then \
		$(MAKE) -C $(PWD_TOP) module KDIR=$(KDIR_RUNNING) || \
		echo "bench: copybench.ko did not build for $$(uname -r);" \
		     "the module's data file will not be a source"; \
	else \
		echo "bench: no headers for the running kernel $$(uname -r):" \
		     "copybench.ko is not built for it"; \
	fi
	$(PWD_TOP)/tools/bench

setup:
	$(PWD_TOP)/tools/setup

# Debian's linux-source-6.12 with tools/debug-kernel.config (KASAN, lockdep,
# kmemleak, UBSAN, fault injection); prints the built tree, for
# "tools/vm-run --kernel-tree" and "make module KDIR=".
debug-kernel:
	$(PWD_TOP)/tools/debug-kernel

clean: module-clean
	$(MAKE) -C selftests KSFT_DIR=$(KSFT_DIR) OUTPUT=$(BUILD)/selftests clean \
		>/dev/null 2>&1 || true
	rm -rf $(BUILD) $(PWD_TOP)/copybench.ko
