/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check the crash programs' -check.c files share: every record the
 * program acknowledged ($PMEM_ACKED of them, at most max) must read back
 * from "data" as record_fill() wrote it. Record i is len bytes at
 * i * stride + head. Returns the checker's exit status: 0, or 1 with one
 * line naming the first record that differs and the first byte of it.
 */
#ifndef PMEM_RECORDS_CHECK_H
#define PMEM_RECORDS_CHECK_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

static int check_records(const char *who, long max, off_t stride, off_t head, size_t len)
{
	const char *acked = getenv("PMEM_ACKED");
	long n = acked ? strtol(acked, NULL, 10) : max;
	unsigned char *want = malloc(len), *got = malloc(len);
	int fd, ret = 0;

	if (n > max)
		n = max;
	if (n <= 0)
		return 0;
	fd = open("data", O_RDONLY);
	if (!want || !got) {
		fprintf(stderr, "%s: out of memory\n", who);
		return 1;
	}
	for (long i = 0; i < n && !ret; i++) {
		off_t at = i * stride + head;

		record_fill(want, len, i, at);
		if (fd < 0 || pread(fd, got, len, at) != (ssize_t)len) {
			fprintf(stderr, "%s: data is missing or short\n", who);
			ret = 1;
		} else if (memcmp(want, got, len)) {
			size_t k = 0;

			while (want[k] == got[k])
				k++;
			fprintf(stderr, "%s: record %ld of data is not what was acknowledged, from its byte %zu on\n",
				who, i, k);
			ret = 1;
		}
	}
	free(want);
	free(got);
	return ret;
}

#endif
