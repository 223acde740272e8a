// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for cow-write.c and cow-unshare.c: in every page of data, the
 * bytes that the kernel copied from the shared block must still be the
 * record acknowledged before the clone: all but the line write(2)
 * overwrote (which may be old or new), or, for unshare, the whole page.
 * Exit 1 names the first page that lost them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define BS 4096
#define RECORDS 16
#define LINE_OFF 2048

int main(void)
{
	unsigned char want[BS], got[BS];
	int fd = open("data", O_RDONLY);

	for (size_t i = 0; i < RECORDS; i++) {
		record_fill(want, BS, i, i * BS);
		if (fd < 0 || pread(fd, got, BS, i * BS) != BS) {
			fprintf(stderr, "cow-check: data is missing or short\n");
			return 1;
		}
#ifdef COW_UNSHARE
		if (memcmp(want, got, BS)) {
#else
		if (memcmp(want, got, LINE_OFF) || memcmp(want + LINE_OFF + 64, got + LINE_OFF + 64, BS - LINE_OFF - 64)) {
#endif
			fprintf(stderr, "cow-check: page %zu lost the acknowledged record the kernel copied\n", i);
			return 1;
		}
	}
	return 0;
}
