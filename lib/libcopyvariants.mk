# SPDX-License-Identifier: GPL-2.0
#
# libcopyvariants.mk - rules for libcopyvariants.a, the userspace build of
# copy_variants.S, the C client of the module's debugfs interface
# (lib/cb_debugfs.c) that the copybench command and the module's tests
# share, and what the copybench command and readers share: the JSON writer
# (lib/cb_json_writer.c) and the option engine (lib/cb_options.c, on
# lib/cb_util.c). Included by the top-level Makefile and by
# selftests/Makefile (so the selftests also build inside a kernel tree).
#
# In:  CB_TOP      copybench's source directory
#      CB_LIB_DIR  where the objects and the archive go
# Out: CB_LIB      the archive's path

CB_LIB		:= $(CB_LIB_DIR)/libcopyvariants.a
CB_LIB_C_OBJS	:= $(addprefix $(CB_LIB_DIR)/lib/,copy_variants_user.o cb_debugfs.o \
		   cb_json_writer.o cb_options.o cb_util.o)
CB_LIB_OBJS	:= $(CB_LIB_DIR)/lib/copy_variants.o $(CB_LIB_C_OBJS)
CB_LIB_HDRS	:= $(CB_TOP)/copy_variants.h $(CB_TOP)/copy_variants_list.h \
		   $(CB_TOP)/copybench.h $(CB_TOP)/lib/cb_asm_user.h \
		   $(CB_TOP)/lib/cb_debugfs.h $(CB_TOP)/lib/cb_json_writer.h \
		   $(CB_TOP)/lib/cb_options.h $(CB_TOP)/lib/cb_util.h
CB_LIB_CFLAGS	:= -O2 -g -Wall -Wextra -I$(CB_TOP)

$(CB_LIB): $(CB_LIB_OBJS)
	$(AR) rcs $@ $^

$(CB_LIB_DIR)/lib/copy_variants.o: $(CB_TOP)/copy_variants.S $(CB_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CB_LIB_CFLAGS) -c $< -o $@

$(CB_LIB_C_OBJS): $(CB_LIB_DIR)/lib/%.o: $(CB_TOP)/lib/%.c $(CB_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CB_LIB_CFLAGS) -c $< -o $@
