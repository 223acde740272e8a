// SPDX-License-Identifier: GPL-2.0
/* A makefile fragment's "NAME := words" lines, read as data (make_vars.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "make_vars.h"

#define BLANKS " \t"
#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

/* value's words as one block: the pointers, then the strings they point into. */
static char **split(const char *value)
{
	size_t n = 0, len = strlen(value) + 1;
	const char *p;
	char **v, *s;

	for (p = value + strspn(value, BLANKS); *p; p += strcspn(p, BLANKS), p += strspn(p, BLANKS))
		n++;
	v = malloc((n + 1) * sizeof(*v) + len);
	if (!v)
		abort();
	s = memcpy((char *)(v + n + 1), value, len);
	n = 0;
	for (char *save, *w = strtok_r(s, BLANKS, &save); w; w = strtok_r(NULL, BLANKS, &save))
		v[n++] = w;
	v[n] = NULL;
	return v;
}

char **make_var(const char *path, const char *name, char *why, size_t len)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *value, **words = NULL;
	size_t cap = 0, n;
	int lineno = 0, bad = 0;

	if (!f) {
		snprintf(why, len, "cannot read %s: %m (the harness runs from the top of the tree)", path);
		return NULL;
	}
	while (!words && !bad && getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[strspn(line, BLANKS)] || line[strspn(line, BLANKS)] == '#')
			continue;
		n = strspn(line, NAME_CHARS);
		value = line + n + strspn(line + n, BLANKS);
		bad = !n || strncmp(value, ":=", 2) || strchr(line, '$') || line[strlen(line) - 1] == '\\';
		if (bad)
			snprintf(why, len, "%s:%d: not \"NAME := words\" on one line without $: the harness reads this file as data",
				 path, lineno);
		else if (n == strlen(name) && !strncmp(line, name, n))
			words = split(value + 2);
	}
	if (!words && !bad)
		snprintf(why, len, "%s has no %s", path, name);
	free(line);
	fclose(f);
	return words;
}
