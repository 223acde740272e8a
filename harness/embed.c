// SPDX-License-Identifier: GPL-2.0
/* A host binary carried into a guest inside its job script, as base64. */
#include <stdio.h>

#include "embed.h"

int embed_binary(FILE *f, const char *bin, const char *dest)
{
	char cmd[1200], buf[4096];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "base64 '%s'", bin);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	fprintf(f, "base64 -d >%s <<'PMEM_BIN_EOF'\n", dest);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, f);
	fprintf(f, "PMEM_BIN_EOF\nchmod +x %s\n", dest);
	return pclose(p) ? -1 : 0;
}
