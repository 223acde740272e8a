// SPDX-License-Identifier: GPL-2.0
/*
 * A host binary carried into a guest inside its job script, as base64 that
 * the guest's `base64 -d` reads back. Encoded here rather than by running
 * base64(1) through a shell: the path is a user's and is never quoted.
 */
#include <stdio.h>

#include "embed.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Encode n (1 to 3) bytes as four characters, '=' for the missing ones. */
static void encode_group(const unsigned char *in, size_t n, char out[4])
{
	unsigned long v = (unsigned long)in[0] << 16 | (n > 1 ? in[1] << 8 : 0) | (n > 2 ? in[2] : 0);

	out[0] = alphabet[v >> 18 & 63];
	out[1] = alphabet[v >> 12 & 63];
	out[2] = n > 1 ? alphabet[v >> 6 & 63] : '=';
	out[3] = n > 2 ? alphabet[v & 63] : '=';
}

int base64_encode_file(FILE *in, FILE *out)
{
	/* 57 bytes make one 76-character line, as base64(1) writes them. */
	unsigned char buf[57];
	size_t n, i;

	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		char line[77];

		for (i = 0; i < n; i += 3)
			encode_group(buf + i, n - i < 3 ? n - i : 3, line + i / 3 * 4);
		line[(n + 2) / 3 * 4] = '\n';
		fwrite(line, 1, (n + 2) / 3 * 4 + 1, out);
		if (n < sizeof(buf))
			break;
	}
	return ferror(in) || ferror(out) ? -1 : 0;
}

int embed_binary(FILE *f, const char *bin, const char *dest)
{
	FILE *in = fopen(bin, "rb");
	int ret;

	if (!in)
		return -1;
	fprintf(f, "base64 -d >%s <<'PMEM_BIN_EOF'\n", dest);
	ret = base64_encode_file(in, f);
	fprintf(f, "PMEM_BIN_EOF\nchmod +x %s\n", dest);
	fclose(in);
	return ret;
}
