// SPDX-License-Identifier: GPL-2.0
/* The slot report of one crashed file: see record_verify.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "record_verify.h"

#define VERIFY_CHUNK (1 << 20)

/* One line per run of slots holding the same state and sequence. */
static void put_run(FILE *out, size_t first, size_t last, enum record_state s, uint64_t seq)
{
	if (first == last)
		fprintf(out, "%zu %c %" PRIu64 "\n", first, s, seq);
	else
		fprintf(out, "%zu-%zu %c %" PRIu64 "\n", first, last, s, seq);
}

int record_verify_file(const char *path, size_t bs, FILE *out)
{
	enum record_state run_state = REC_ZERO;
	uint64_t run_seq = 0;
	unsigned char *buf;
	struct stat st;
	size_t slot = 0, run_first = 0, nslots, chunk, i;
	int fd, ret = -1;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		if (errno == ENOENT) {
			fputs("nofile\n", out);
			return 0;
		}
		fprintf(stderr, "verify: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Whole chunks of slots per read: under TCG each DAX read costs far
	 * more in the system call and extent lookup than in the copy. */
	chunk = bs >= VERIFY_CHUNK ? 1 : VERIFY_CHUNK / bs;
	buf = malloc(chunk * bs);
	if (!buf || fstat(fd, &st) < 0)
		goto out;
	fprintf(out, "size %lld\n", (long long)st.st_size);
	nslots = st.st_size / bs;
	while (slot < nslots) {
		size_t n = nslots - slot < chunk ? nslots - slot : chunk;

		if (pread(fd, buf, n * bs, slot * bs) != (ssize_t)(n * bs)) {
			fprintf(stderr, "verify: %s: read slots %zu-%zu: %s\n", path, slot, slot + n - 1,
				strerror(errno));
			goto out;
		}
		for (i = 0; i < n; i++, slot++) {
			uint64_t seq;
			enum record_state s = record_check(buf + i * bs, bs, slot * bs, &seq);

			if (s != REC_VALID && s != REC_TORN)
				seq = 0;
			if (slot && (s != run_state || seq != run_seq)) {
				put_run(out, run_first, slot - 1, run_state, run_seq);
				run_first = slot;
			}
			run_state = s;
			run_seq = seq;
		}
	}
	if (slot)
		put_run(out, run_first, slot - 1, run_state, run_seq);
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}
