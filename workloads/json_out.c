// SPDX-License-Identifier: GPL-2.0
/* JSON strings for guest programs: see json_out.h. */
#include "json_out.h"

void json_put_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			putc(*p, out);
	}
	putc('"', out);
}
