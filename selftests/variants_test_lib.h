/* SPDX-License-Identifier: GPL-2.0 */
/*
 * variants_test_lib.h - what the native tests of the copy variants share
 * (variants_test.c, variants_signal_test.c): the source pattern, a mapping
 * that ends at PROT_NONE pages, and a userfaultfd that holds a copy at a
 * missing page until the test fills it.
 */
#ifndef VARIANTS_TEST_LIB_H
#define VARIANTS_TEST_LIB_H

#include <stddef.h>
#include <stdint.h>

#define PAGE		4096UL
#define POISON		0xa5
#define EDGE_PAGES	5			/* RW RW NONE NONE RW */

/* Source pattern: position-dependent, never the poison value. */
uint8_t pattern(size_t i);
/* p[i] = pattern(i) for i < len. */
void fill_pattern(uint8_t *p, size_t len);
/*
 * EDGE_PAGES pages: RW RW NONE NONE RW; returns the first PROT_NONE byte
 * (the mapping in *base), or NULL.
 */
uint8_t *map_edge(uint8_t **base);
/*
 * A userfaultfd watching [addr, addr + len) for missing pages: a copy that
 * reaches them waits in the kernel until the test fills them. Returns the
 * descriptor, or -1 with errno set (no userfaultfd here).
 */
int uffd_watch_missing(void *addr, size_t len);
/* Wait for the next page fault on a watched range: 0, or an errno. */
int uffd_wait_fault(int fd);

#endif /* VARIANTS_TEST_LIB_H */
