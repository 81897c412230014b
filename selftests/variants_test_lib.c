// SPDX-License-Identifier: GPL-2.0
/*
 * variants_test_lib.c - what the native tests of the copy variants share;
 * variants_test_lib.h says what each function does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "copybench.h"
#include "variants_test_lib.h"

uint8_t pattern(size_t i)
{
	uint8_t b = cb_data_byte(i * 7 + 3);

	return b == POISON ? (uint8_t)~POISON : b;
}

void fill_pattern(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(i);
}

uint8_t *map_edge(uint8_t **base)
{
	uint8_t *p = mmap(NULL, EDGE_PAGES * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + 2 * PAGE, 2 * PAGE, PROT_NONE)) {
		munmap(p, EDGE_PAGES * PAGE);
		return NULL;
	}
	*base = p;
	return p + 2 * PAGE;
}

int uffd_watch_missing(void *addr, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int uffd_wait_fault(int fd)
{
	struct uffd_msg msg;

	if (read(fd, &msg, sizeof(msg)) != sizeof(msg))
		return errno ? errno : EIO;
	return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : EPROTO;
}
