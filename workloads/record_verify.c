// SPDX-License-Identifier: GPL-2.0
/* The slot report of one crashed file: see record_verify.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_out.h"
#include "record.h"
#include "record_verify.h"

#define VERIFY_CHUNK (1 << 20)

/* One run of slots holding the same state and sequence. The host reads
 * JSON integers as signed 64-bit: a larger sequence, only ever in a
 * damaged header, is written as the largest, which no ack matches either. */
static void put_run(FILE *out, int *first_run, size_t first, size_t last, enum record_state s, uint64_t seq)
{
	fprintf(out, "%s[%zu,%zu,\"%c\",%" PRIu64 "]", *first_run ? "" : ",", first, last, s,
		seq > INT64_MAX ? (uint64_t)INT64_MAX : seq);
	*first_run = 0;
}

/* The end of an entry: the error that cut it short, if any. */
static int put_end(FILE *out, const char *error)
{
	if (error) {
		fputs(",\"error\":", out);
		json_put_string(out, error);
	}
	fputs("}", out);
	return error ? -1 : 0;
}

int record_verify_json(const char *path, const char *name, size_t bs, FILE *out)
{
	enum record_state run_state = REC_ZERO;
	uint64_t run_seq = 0;
	unsigned char *buf;
	struct stat st;
	size_t slot = 0, run_first = 0, nslots, chunk, i;
	char error[160];
	int fd, first_run = 1, ret;

	fputs("{\"name\":", out);
	json_put_string(out, name);
	fd = open(path, O_RDONLY);
	if (fd < 0 && errno == ENOENT) {
		fputs(",\"missing\":true}", out);
		return 0;
	}
	fputs(",\"missing\":false", out);
	if (fd < 0) {
		snprintf(error, sizeof(error), "open: %s", strerror(errno));
		fputs(",\"size\":0,\"slots\":[]", out);
		return put_end(out, error);
	}
	/* Whole chunks of slots per read: under TCG each DAX read costs far
	 * more in the system call and extent lookup than in the copy. */
	chunk = bs >= VERIFY_CHUNK ? 1 : VERIFY_CHUNK / bs;
	buf = malloc(chunk * bs);
	if (!buf || fstat(fd, &st) < 0) {
		snprintf(error, sizeof(error), "%s: %s", buf ? "fstat" : "malloc", strerror(buf ? errno : ENOMEM));
		fputs(",\"size\":0,\"slots\":[]", out);
		ret = put_end(out, error);
		goto out;
	}
	fprintf(out, ",\"size\":%lld,\"slots\":[", (long long)st.st_size);
	nslots = st.st_size / bs;
	while (slot < nslots) {
		size_t n = nslots - slot < chunk ? nslots - slot : chunk;

		ssize_t got = pread(fd, buf, n * bs, slot * bs);

		if (got != (ssize_t)(n * bs)) {
			snprintf(error, sizeof(error), "read slots %zu-%zu: %s", slot, slot + n - 1,
				 got < 0 ? strerror(errno) : "short read");
			break;
		}
		for (i = 0; i < n; i++, slot++) {
			uint64_t seq;
			enum record_state s = record_check(buf + i * bs, bs, slot * bs, &seq);

			if (s != REC_VALID && s != REC_TORN)
				seq = 0;
			if (slot && (s != run_state || seq != run_seq)) {
				put_run(out, &first_run, run_first, slot - 1, run_state, run_seq);
				run_first = slot;
			}
			run_state = s;
			run_seq = seq;
		}
	}
	if (slot)
		put_run(out, &first_run, run_first, slot - 1, run_state, run_seq);
	fputs("]", out);
	ret = put_end(out, slot < nslots ? error : NULL);
out:
	free(buf);
	close(fd);
	return ret;
}
