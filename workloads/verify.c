// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-verify FILE BS: after a crash, say what every record slot of FILE
 * holds, one line per slot: "<slot> <V|Z|T|X> <seq>" (see record.h), after a
 * "size <bytes>" line, or "nofile" when FILE does not exist. The host judges
 * the slots against its ack log; the guest never sees the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

int main(int argc, char **argv)
{
	unsigned char *buf;
	struct stat st;
	size_t bs, slot;
	int fd;

	if (argc != 3 || !(bs = strtoul(argv[2], NULL, 0)) || bs < sizeof(struct record_header)) {
		fprintf(stderr, "usage: pmem-verify FILE BS (BS >= %zu)\n", sizeof(struct record_header));
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		if (errno == ENOENT) {
			puts("nofile");
			return 0;
		}
		fprintf(stderr, "pmem-verify: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	buf = malloc(bs);
	if (!buf || fstat(fd, &st) < 0)
		return 1;
	printf("size %lld\n", (long long)st.st_size);
	for (slot = 0; (off_t)((slot + 1) * bs) <= st.st_size; slot++) {
		uint64_t seq;
		enum record_state s;

		if (pread(fd, buf, bs, slot * bs) != (ssize_t)bs) {
			fprintf(stderr, "pmem-verify: read slot %zu: %s\n", slot, strerror(errno));
			return 1;
		}
		s = record_check(buf, bs, slot * bs, &seq);
		printf("%zu %c %" PRIu64 "\n", slot, s, s == REC_VALID || s == REC_TORN ? seq : 0);
	}
	free(buf);
	close(fd);
	return 0;
}
