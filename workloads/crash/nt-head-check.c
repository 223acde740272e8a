// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for nt-head.c and nt-head-flushed.c: every record acknowledged
 * ($PMEM_ACKED of them, at most 64) must read back from "data" as it was
 * copied, head included. Exit 1 names the first one that does not.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define BS 4096
#define RECORDS 64
#define HEAD 3
#define LEN (1024 - HEAD)

int main(void)
{
	unsigned char want[LEN], got[LEN];
	const char *acked = getenv("PMEM_ACKED");
	long n = acked ? strtol(acked, NULL, 10) : RECORDS;
	int fd = open("data", O_RDONLY);

	if (n > RECORDS)
		n = RECORDS;
	for (long i = 0; i < n; i++) {
		record_fill(want, LEN, i, i * BS + HEAD);
		if (fd < 0 || pread(fd, got, LEN, i * BS + HEAD) != LEN) {
			fprintf(stderr, "nt-head-check: data is missing or short\n");
			return 1;
		}
		if (memcmp(want, got, LEN)) {
			size_t k = 0;

			while (want[k] == got[k])
				k++;
			fprintf(stderr, "nt-head-check: record %ld differs from byte %zu on (%s)\n", i, k,
				k < 8 - HEAD ? "its head" : "its non-temporal part");
			return 1;
		}
	}
	return 0;
}
