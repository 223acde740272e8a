// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filesystems.h"

static struct filesystem rows[FS_MAX];
static int nrows = -1;

/* Copy the '|' column at *p, without its surrounding blanks; 0, or -1 when
 * it does not fit. */
static int column(const char **p, const char *end, char *out, size_t size)
{
	const char *s = *p, *e = memchr(s, '|', end - s);
	size_t n;

	if (!e)
		e = end;
	*p = e < end ? e + 1 : end;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = e - s;
	if (!n || n >= size)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int fs_table_parse(const char *text, struct filesystem *out, int max, int *bad_line)
{
	int n = 0, line = 0;

	for (const char *p = text; *p; ) {
		const char *end = strchr(p, '\n'), *q = p;
		struct filesystem f;

		if (!end)
			end = p + strlen(p);
		line++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q != '#') {
			if (n == max || column(&q, end, f.name, sizeof(f.name)) || column(&q, end, f.type, sizeof(f.type)) ||
			    column(&q, end, f.golden, sizeof(f.golden)) || column(&q, end, f.runs, sizeof(f.runs)) ||
			    column(&q, end, f.fsck, sizeof(f.fsck)) || column(&q, end, f.mkfs, sizeof(f.mkfs)) ||
			    q != end || strcspn(f.name, " /\t") != strlen(f.name)) {
				*bad_line = line;
				return -1;
			}
			out[n++] = f;
		}
		p = *end ? end + 1 : end;
	}
	return n;
}

/* vm-images/filesystems as the build found it (Makefile: FS_TABLE_INC). */
static const char table_text[] =
#include "filesystems.inc"
	;

static int load(void)
{
	int bad = 0;

	if (nrows >= 0)
		return nrows;
	nrows = fs_table_parse(table_text, rows, FS_MAX, &bad);
	if (nrows < 0) {
		fprintf(stderr, "vm-images/filesystems: row %d: want 'name | type | golden | runs | fsck | mkfs' (at most %d rows)\n",
			bad, FS_MAX);
		nrows = 0;
	}
	return nrows;
}

const struct filesystem *fs_find(const char *name)
{
	for (int i = 0; i < load(); i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

static int offered(const struct filesystem *f, const char *kind)
{
	size_t n = strlen(kind);

	for (const char *p = f->runs; (p = strstr(p, kind)); p += n)
		if ((p == f->runs || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

const struct filesystem *fs_for(const char *name, const char *kind)
{
	const struct filesystem *f = fs_find(name);

	return f && offered(f, kind) ? f : NULL;
}

const char *fs_names(const char *kind)
{
	static char names[FS_MAX * 34];
	size_t n = 0;

	names[0] = '\0';
	for (int i = 0; i < load(); i++)
		if ((!kind || offered(&rows[i], kind)) && n < sizeof(names))
			n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", rows[i].name);
	return names;
}
