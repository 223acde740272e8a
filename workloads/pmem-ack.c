// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-ack SEQ OFF LEN: acknowledge one record from a script, in a guest
 * that crashtest runs. The same protocol as ack() (ack.h): run it only
 * after the record is durable; it returns once the host has logged the
 * acknowledgement, so a crash injected right after it must keep the record.
 *
 *	dd if=rec of=data bs=4096 seek="$i" conv=notrunc,fsync 2>/dev/null
 *	pmem-ack "$i" $((i * 4096)) 4096 || exit 1
 *
 * The numbers go to the host as given, in plain decimal; anything else is
 * refused here, before it reaches the port. The host checks the rest (a
 * place claimed once, a sequence higher than the last claim there).
 * Exit 0: logged; 1: the host or the port refused it; 2: usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmem-ack.h"

/* Plain decimal only: no sign, no space, no hex, no overflow. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t v[3];
	static const char *const what[] = { "SEQ", "OFF", "LEN" };

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: pmem-ack SEQ OFF LEN\n"
		       "Acknowledge record SEQ, LEN bytes at offset OFF, once it is durable.\n"
		       "Returns when the host has logged it (exit 0).\n");
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: pmem-ack SEQ OFF LEN (decimal; see pmem-ack --help)\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		if (parse_u64(argv[i + 1], &v[i]) < 0) {
			fprintf(stderr, "pmem-ack: %s '%s' is not a decimal number below 2^64\n", what[i],
				argv[i + 1]);
			return 2;
		}
	}
	if (v[2] == 0) {
		fprintf(stderr, "pmem-ack: LEN must be at least 1 byte\n");
		return 2;
	}
	if (ack(v[0], v[1], (size_t)v[2]) < 0) {
		fprintf(stderr, "pmem-ack: ack %" PRIu64 " %" PRIu64 " %" PRIu64 " was not logged\n", v[0], v[1],
			v[2]);
		return 1;
	}
	return 0;
}
