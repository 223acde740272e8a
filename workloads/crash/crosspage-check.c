// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for crosspage.c and crosspage-half.c: the crossing store's bytes
 * must be in every acknowledged line ($PMEM_ACKED of 2): the first 4 bytes
 * of the first page (seq 0), the last 4 of the second (seq 1). Exit 1 names
 * the first line that lost them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BS 4096
#define VALUE 0x1122334455667788ULL	/* crosspage.c's */

int main(void)
{
	const char *acked = getenv("PMEM_ACKED");
	long n = acked ? strtol(acked, NULL, 10) : 2;
	uint64_t value = VALUE;
	unsigned char want[8], got[4];
	int fd = open("data", O_RDONLY);

	memcpy(want, &value, 8);
	/* seq 0: the store's high half, at the first page's start. */
	if (n >= 1 && (fd < 0 || pread(fd, got, 4, 0) != 4 || memcmp(got, want + 4, 4))) {
		fprintf(stderr, "crosspage-check: the first page's first line lost the crossing store\n");
		return 1;
	}
	/* seq 1: the low half, at the second page's end. */
	if (n >= 2 && (pread(fd, got, 4, 2 * BS - 4) != 4 || memcmp(got, want, 4))) {
		fprintf(stderr, "crosspage-check: the second page's last line lost the crossing store\n");
		return 1;
	}
	return 0;
}
