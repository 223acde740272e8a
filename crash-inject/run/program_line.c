// SPDX-License-Identifier: GPL-2.0
/* A program and its arguments from one command-line value: see program_line.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/shell_word.h"
#include "program_line.h"

static int is_source(const char *w)
{
	static const char *const suffixes[] = { ".c", ".cc", ".cpp", ".cxx" };
	size_t n = strlen(w);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);

		if (n > k && !strcmp(w + n - k, suffixes[i]))
			return 1;
	}
	return 0;
}

/*
 * Words of line into pl->words, one after another, as sh splits them:
 * blanks separate, '...' keeps everything, "..." keeps all but \" and \\,
 * a backslash keeps the next character. How many, or -1 (why says).
 */
static int split(const char *line, struct program_line *pl, char **v, int max, const char **why)
{
	char *out = pl->words, *end = pl->words + sizeof(pl->words) - 1;
	int n = 0;

	for (const char *s = line; *s;) {
		char quote = 0;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		if (n == max) {
			*why = "too many words";
			return -1;
		}
		v[n++] = out;
		for (; *s && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
			char c = *s;

			if (!quote && (c == '\'' || c == '"')) {
				quote = c;
				continue;
			}
			if (quote == c) {
				quote = 0;
				continue;
			}
			if (c == '\\' && quote != '\'' && s[1] && (!quote || s[1] == '"' || s[1] == '\\'))
				c = *++s;
			if (out == end) {
				*why = "longer than 8 KiB";
				return -1;
			}
			*out++ = c;
		}
		if (quote) {
			*why = "a quote is not closed";
			return -1;
		}
		*out++ = '\0';
	}
	return n;
}

int program_line_parse(const char *what, const char *line, const char *bin_dir, struct program_line *pl)
{
	char *v[PROGRAM_ARGS_MAX + 256];
	const char *why = NULL;
	size_t used = 0;
	int n, first = 0;

	memset(pl, 0, sizeof(*pl));
	if (!access(line, F_OK)) {
		snprintf(pl->spec, sizeof(pl->spec), "%s", line);
		return 0;
	}
	n = split(line, pl, v, sizeof(v) / sizeof(v[0]), &why);
	if (n == 0)
		why = "it is empty";
	if (n <= 0) {
		fprintf(stderr, "crashtest: %s '%.200s' cannot be read as a command line: %s\n", what, line, why);
		return -1;
	}
	/* The sources, or the one program. */
	while (first < n && is_source(v[first]))
		first++;
	if (!first) {
		if (!strchr(v[0], '/') && access(v[0], F_OK) && bin_dir) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", bin_dir, v[0]);
			if (!access(path, X_OK))
				used = snprintf(pl->spec, sizeof(pl->spec), "%s", path);
		}
		if (!used)
			used = snprintf(pl->spec, sizeof(pl->spec), "%s", v[0]);
		first = 1;
	} else {
		for (int i = 0; i < first; i++)
			used += snprintf(pl->spec + used, used < sizeof(pl->spec) ? sizeof(pl->spec) - used : 0, "%s%s",
					 i ? " " : "", v[i]);
	}
	if (used >= sizeof(pl->spec) || n - first > PROGRAM_ARGS_MAX) {
		fprintf(stderr, "crashtest: %s '%.200s': more than 4 KiB of sources or %d arguments\n", what, line,
			PROGRAM_ARGS_MAX);
		return -1;
	}
	for (int i = first; i < n; i++)
		pl->argv[pl->argc++] = v[i];
	return 0;
}

void program_line_args(FILE *f, const struct program_line *pl)
{
	for (int i = 0; i < pl->argc; i++) {
		if (i)
			fputc(' ', f);
		shell_word(f, pl->argv[i]);
	}
}
