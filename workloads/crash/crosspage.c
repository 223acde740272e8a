// SPDX-License-Identifier: GPL-2.0
/*
 * A store that crosses a page boundary, under the ADR model. "data" has
 * two pages, mapped in the mode $PMEM_MODE in reverse order: its second
 * page at V, its first at V + 4096. One unaligned 8-byte store at
 * V + 4092 writes the last 4 bytes of the second page and the first 4 of
 * the first, two lines that are not next to each other on the NVDIMM. The
 * program writes both lines back (clwb, sfence) and acknowledges them:
 * the first page's first line (seq 0), then the second page's last (seq 1).
 *
 * A model that takes the store's lines from the physical address of its
 * first page marks the line after the second page pending instead of the
 * first page's: that line's new bytes are then in no image, not even the
 * eADR one, and the correct program looks lost.
 *
 * With FLUSH_FIRST_PAGE_ONLY (crosspage-half.c, a planted bug) only the
 * line in V's page is written back: the first page's line is lost under
 * ADR, and the loss is the crossing store's, never written back.
 *
 * crosspage-check.c checks the acknowledged lines.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "pmem_map.h"

#define BS 4096
#define VALUE 0x1122334455667788ULL	/* crosspage-check.c's too */

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "sync";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char zeros[2 * BS];
	int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char *v;

	if (!mode) {
		fprintf(stderr, "crosspage: unknown mode '%s'\n", name);
		return 1;
	}
	/* Allocated, written and durable before the experiment. */
	if (fd < 0 || pwrite(fd, zeros, sizeof(zeros), 0) != sizeof(zeros) || fsync(fd) < 0 ||
	    ack_open() < 0)
		return 1;
	/* Two pages of address space, then the file's pages swapped into them. */
	v = mmap(NULL, 2 * BS, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED ||
	    mmap(v, BS, PROT_READ | PROT_WRITE, mode->flags | MAP_FIXED, fd, BS) != v ||
	    mmap(v + BS, BS, PROT_READ | PROT_WRITE, mode->flags | MAP_FIXED, fd, 0) != v + BS) {
		perror("crosspage: mmap");
		return 1;
	}
	/* The one store that crosses the boundary. */
	*(volatile uint64_t *)(v + BS - 4) = VALUE;
#ifdef FLUSH_FIRST_PAGE_ONLY
	cpu_flush(v + BS - 4, 4);
#else
	cpu_flush(v + BS - 4, 8);
#endif
	if (ack_at(0, 0, 64, v + BS) < 0 || ack_at(1, 2 * BS - 64, 64, v + BS - 64) < 0)
		return 1;
	return 0;
}
