// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for reflink-bystander.c and its variants: every record the
 * bystander acknowledged ($PMEM_ACKED of them, at most 16) must read back
 * from "data" as it was when the bystander fsynced it. Exit 1 names the
 * first one that does not, and what it holds instead.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define BS 4096
#define RECORDS 16

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
			fprintf(stderr, "reflink-bystander-check: data is missing or short\n");
			return 1;
		}
		if (memcmp(want, got, BS)) {
			uint64_t seq;

			memcpy(&seq, got, sizeof(seq));
			fprintf(stderr, "reflink-bystander-check: record %ld of data is not what was acknowledged "
				"(its first 8 bytes: %#llx)\n", i, (unsigned long long)seq);
			return 1;
		}
	}
	return 0;
}
