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
			    column(&q, end, f.defaults, sizeof(f.defaults)) ||
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
		fprintf(stderr, "vm-images/filesystems: row %d: want 'name | type | golden | runs | fsck | mkfs | default' (at most %d rows)\n",
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

/* Whether word is one of the blank-separated words of list. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

static int offered(const struct filesystem *f, const char *kind)
{
	return has_word(f->runs, kind);
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

const char *fs_defaults(const char *kind)
{
	/* One list per kind, kept: callers hold on to it (crashtest's filesystems
	 * while the scenario table asks for another kind). */
	static struct {
		char kind[16];
		char names[FS_MAX * 33];
	} lists[8];
	size_t n = 0;
	int k;

	for (k = 0; k < 8 && lists[k].kind[0]; k++)
		if (!strcmp(lists[k].kind, kind))
			return lists[k].names;
	if (k == 8 || strlen(kind) >= sizeof(lists[k].kind))
		return "";
	snprintf(lists[k].kind, sizeof(lists[k].kind), "%s", kind);
	for (int i = 0; i < load(); i++)
		if (has_word(rows[i].defaults, kind) && n < sizeof(lists[k].names))
			n += snprintf(lists[k].names + n, sizeof(lists[k].names) - n, "%s%s", n ? " " : "",
				      rows[i].name);
	return lists[k].names;
}
