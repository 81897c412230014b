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

.PHONY: all module module-clean lib selftests ksft-headers check bench setup clean copybench

all: module lib selftests copybench

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

# The copybench command (tools/copybench/, Documentation/measure.rst) and
# its unit tests. *_test.c files are test programs, copybench.c is main().
CB_CMD_DIR	:= $(PWD_TOP)/tools/copybench
CB_CMD_SRCS	:= $(filter-out %_test.c,$(wildcard $(CB_CMD_DIR)/*.c))
CB_CMD_PARTS	:= $(filter-out $(CB_CMD_DIR)/copybench.c,$(CB_CMD_SRCS))
CB_CMD_HDRS	:= $(wildcard $(CB_CMD_DIR)/*.h) $(CB_LIB_HDRS)
CB_CMD_VERSION	:= $(BUILD)/copybench.version
CB_CMD_CFLAGS	:= -O2 -g -Wall -Wextra -I$(PWD_TOP) -I$(CB_CMD_DIR)

copybench: $(BUILD)/copybench $(BUILD)/copybench_unit_test

# git describe, rewritten only when it changes, so a commit rebuilds.
$(CB_CMD_VERSION): FORCE
	@mkdir -p $(dir $@)
	@v=$$(git -C $(PWD_TOP) describe --always --dirty 2>/dev/null || echo unknown); \
	[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@

$(BUILD)/copybench: $(CB_CMD_SRCS) $(CB_CMD_HDRS) $(CB_LIB) $(CB_CMD_VERSION)
	$(CC) $(CB_CMD_CFLAGS) -DCB_VERSION="\"$$(cat $(CB_CMD_VERSION))\"" \
		$(CB_CMD_SRCS) $(CB_LIB) -lm -o $@

$(BUILD)/copybench_unit_test: $(CB_CMD_DIR)/measure_test.c $(CB_CMD_PARTS) $(CB_CMD_HDRS) \
		$(CB_LIB) $(KSFT_STAMP)
	$(CC) $(CB_CMD_CFLAGS) -Wno-unused-parameter -I$(KSFT_DIR) $(CB_CMD_DIR)/measure_test.c $(CB_CMD_PARTS) \
		$(CB_LIB) -lm -o $@

.PHONY: FORCE
FORCE:

check:
	$(PWD_TOP)/tools/check

# The main job: set up (light), build, and when the running kernel has its
# headers build copybench.ko for it too, so tools/bench can load it.
bench:
	$(PWD_TOP)/tools/setup --for bench
	$(MAKE) -C $(PWD_TOP) lib selftests copybench
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

clean: module-clean
	$(MAKE) -C selftests KSFT_DIR=$(KSFT_DIR) OUTPUT=$(BUILD)/selftests clean \
		>/dev/null 2>&1 || true
	rm -rf $(BUILD) $(PWD_TOP)/copybench.ko
