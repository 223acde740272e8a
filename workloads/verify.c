// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-verify FILE BS: after a crash, say what every record slot of FILE
 * holds, as one JSON line (record_verify.h): the entry the checker puts in
 * its document on an image, for a file looked at by hand. The host judges
 * the slots against its ack log; the guest never sees the log.
 */
#include <stdio.h>
#include <stdlib.h>

#include "record.h"
#include "record_verify.h"

int main(int argc, char **argv)
{
	size_t bs;
	int ret;

	if (argc != 3 || !(bs = strtoul(argv[2], NULL, 0)) || bs < sizeof(struct record_header)) {
		fprintf(stderr, "usage: pmem-verify FILE BS (BS >= %zu)\n", sizeof(struct record_header));
		return 2;
	}
	ret = record_verify_json(argv[1], argv[1], bs, stdout);
	putchar('\n');
	return ret ? 1 : 0;
}
