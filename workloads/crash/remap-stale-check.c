// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for remap-stale.c and remap-stale-flushed.c: every record of
 * "data" that was acknowledged ($PMEM_ACKED of them, at most 4) must read
 * back as it was stored. Exit 1 names the first one that does not.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define BS 4096
#define RECORDS 4

int main(void)
{
	unsigned char want[BS], got[BS];
	const char *acked = getenv("PMEM_ACKED");
	long n = acked ? strtol(acked, NULL, 10) : RECORDS;
	int fd;

	if (n <= 0)
		return 0;
	if (n > RECORDS)
		n = RECORDS;
	fd = open("data", O_RDONLY);
	for (long i = 0; i < n; i++) {
		record_fill(want, BS, i, i * BS);
		if (fd < 0 || pread(fd, got, BS, i * BS) != BS) {
			fprintf(stderr, "remap-stale-check: data is missing or short\n");
			return 1;
		}
		if (memcmp(want, got, BS)) {
			uint64_t first;

			memcpy(&first, got, sizeof(first));
			fprintf(stderr, "remap-stale-check: record %ld of data is not what was acknowledged "
				"(its first 8 bytes: %#llx)\n", i, (unsigned long long)first);
			return 1;
		}
	}
	return 0;
}
