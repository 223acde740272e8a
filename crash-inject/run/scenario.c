// SPDX-License-Identifier: GPL-2.0
/* The crash scenario table: see scenario.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"
#include "../../lib/filesystems.h"
#include "../../workloads/pmem_map.h"

int scenario_is_program(const struct scenario *s)
{
	size_t n = strlen(s->job);

	return n > 2 && !strcmp(s->job + n - 2, ".c");
}

/*
 * A row that names a mode, platform or expectation nothing knows would run
 * as something else (an unknown mode maps like "-"), so it stops the load.
 */
static int row_valid(const char *table, const struct scenario *s, int lineno)
{
	const char *what = NULL, *known = NULL;

	if (strcmp(s->mode, "-") && !map_mode_find(s->mode))
		what = s->mode, known = "-, or a mode of workloads/pmem_map.c";
	else if (strcmp(s->platform, "eadr") && strcmp(s->platform, "adr"))
		what = s->platform, known = "eadr, adr";
	else if (strcmp(s->expect, "intact") && strcmp(s->expect, "may-lose") && strcmp(s->expect, "lost"))
		what = s->expect, known = "intact, may-lose, lost";
	if (!what)
		return 1;
	fprintf(stderr, "crashtest: %s line %d: scenario %s: unknown '%s' (known: %s)\n",
		table, lineno, s->name, what, known);
	return 0;
}

int scenarios_load(const char *table, struct scenario *s, int max)
{
	FILE *f;
	char line[512];
	int n = 0, lineno = 0;

	if (!table)
		table = SCENARIO_TABLE;
	f = fopen(table, "re");
	if (!f) {
		fprintf(stderr, "crashtest: cannot read the scenario table %s: %s%s\n", table, strerror(errno),
			strcmp(table, SCENARIO_TABLE) ? "" : " (run from the repository top)");
		return -1;
	}
	while (n < max && fgets(line, sizeof(line), f)) {
		int fields;

		lineno++;
		if (line[0] == '#')
			continue;
		fields = sscanf(line, "%63s %255s %23s %7s %15s %63s %47s", s[n].name, s[n].job, s[n].mode,
				s[n].platform, s[n].expect, s[n].fs, s[n].kernel);
		if (fields < 5)
			continue;
		if (!row_valid(table, &s[n], lineno)) {
			fclose(f);
			return -1;
		}
		/* A row that names no filesystem runs on the table's program defaults. */
		if (fields == 5 || !strcmp(s[n].fs, "-"))
			snprintf(s[n].fs, sizeof(s[n].fs), "%s", fs_defaults("program"));
		/* A row may need a kernel of its own (a feature the run's lacks). */
		if (fields < 7 || !strcmp(s[n].kernel, "-"))
			s[n].kernel[0] = '\0';
		/* A program row's checker is its source's "-check.c" twin. */
		s[n].check[0] = '\0';
		if (scenario_is_program(&s[n])) {
			snprintf(s[n].check, sizeof(s[n].check), "%.*s-check.c", (int)strlen(s[n].job) - 2, s[n].job);
			if (access(s[n].job, R_OK) || access(s[n].check, R_OK)) {
				fprintf(stderr, "crashtest: scenario %s needs %s and %s\n", s[n].name, s[n].job,
					s[n].check);
				fclose(f);
				return -1;
			}
		}
		n++;
	}
	/* A row past the last one we can hold must not vanish silently. */
	while (n == max && fgets(line, sizeof(line), f)) {
		char first[64];

		if (line[0] != '#' && sscanf(line, "%63s", first) == 1) {
			fprintf(stderr, "crashtest: %s holds more than %d scenarios (row %s and after)\n", table, max,
				first);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return n;
}

int word_in_list(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len)
		if ((p == list || strchr(" ,", p[-1])) && strchr(" ,", p[len]))
			return 1;
	return 0;
}
