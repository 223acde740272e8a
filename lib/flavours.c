// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "flavours.h"

/* Whether the comma-separated list [s, e) has the word kind. */
static int has_kind(const char *s, const char *e, const char *kind)
{
	size_t n = strlen(kind);

	while (s < e) {
		const char *c = memchr(s, ',', e - s);

		if (!c)
			c = e;
		if ((size_t)(c - s) == n && !memcmp(s, kind, n))
			return 1;
		s = c + 1;
	}
	return 0;
}

int flavour_defaults_of(const char *text, const char *kind, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (const char *p = text; *p; ) {
		const char *end = strchr(p, '\n'), *w = p, *name = NULL;
		size_t name_len = 0;

		if (!end)
			end = p + strlen(p);
		while (w < end && (*w == ' ' || *w == '\t'))
			w++;
		/* Words: the name first, then the version, patch sets and '=' words. */
		while (w < end && *w != '#') {
			const char *we = w + strcspn(w, " \t\n");

			if (!name) {
				name = w;
				name_len = we - w;
			} else if (we - w > 8 && !memcmp(w, "default=", 8) && has_kind(w + 8, we, kind)) {
				int n = snprintf(out + used, size - used, "%s%.*s", used ? " " : "", (int)name_len, name);

				if (n < 0 || (size_t)n >= size - used)
					return -1;
				used += n;
			}
			w = we;
			while (w < end && (*w == ' ' || *w == '\t'))
				w++;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* vm-images/flavours as the build found it (Makefile: FLAVOUR_TABLE_INC). */
static const char table_text[] =
#include "flavours.inc"
	;

const char *flavour_defaults(const char *kind)
{
	/* One list per kind, kept: callers hold on to it. */
	static struct {
		char kind[16];
		char names[512];
	} lists[8];
	int k;

	for (k = 0; k < 8 && lists[k].kind[0]; k++)
		if (!strcmp(lists[k].kind, kind))
			return lists[k].names;
	if (k == 8 || strlen(kind) >= sizeof(lists[k].kind))
		return "";
	if (flavour_defaults_of(table_text, kind, lists[k].names, sizeof(lists[k].names)) < 0) {
		fprintf(stderr, "vm-images/flavours: the defaults for '%s' are longer than %zu bytes\n", kind,
			sizeof(lists[k].names) - 1);
		lists[k].names[0] = '\0';
	}
	snprintf(lists[k].kind, sizeof(lists[k].kind), "%s", kind);
	return lists[k].names;
}
