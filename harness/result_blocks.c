// SPDX-License-Identifier: GPL-2.0
/* A bench unit's result blocks: see result_blocks.h. */
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "result_blocks.h"

struct header {
	char kind[32], mode[32], job[64];
};

/* "@@begin KIND MODE JOB" and nothing else on the line: 0, or -1. */
static int parse_header(const char *line, size_t len, struct header *h)
{
	char buf[256], *w[4], *save, *t;
	int n = 0;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (len && buf[len - 1] == '\r')
		buf[len - 1] = '\0';
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == 4)
			return -1;
		w[n++] = t;
	}
	/* The names become a cell's file name on the host. */
	if (n != 4 || strcmp(w[0], "@@begin") || !name_is_safe(w[1], sizeof(h->kind)) ||
	    !name_is_safe(w[2], sizeof(h->mode)) || !name_is_safe(w[3], sizeof(h->job)))
		return -1;
	snprintf(h->kind, sizeof(h->kind), "%s", w[1]);
	snprintf(h->mode, sizeof(h->mode), "%s", w[2]);
	snprintf(h->job, sizeof(h->job), "%s", w[3]);
	return 0;
}

/* The next line of text that starts with "@@", or NULL. */
static char *next_marker(char *p, char *text)
{
	for (; (p = strstr(p, "@@")); p += 2)
		if (p == text || p[-1] == '\n')
			return p;
	return NULL;
}

json_t *result_blocks_parse(char *text, const char *origin, int *failures)
{
	json_t *results = json_array();
	char *line, *p = text;

	*failures = 0;
	while (text && (line = next_marker(p, text))) {
		char *eol = strchr(line, '\n'), *end;
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		struct header h;
		json_error_t err;
		json_t *doc;

		if (strncmp(line, "@@begin", 7)) {
			*failures += !strncmp(line, "@@failed", 8);
			p = line + 2;
			continue;
		}
		if (parse_header(line, len, &h) < 0) {
			fprintf(stderr, "bench: %s: result header \"%.*s\" refused: \"@@begin KIND MODE JOB\", names of letters, digits and ._+- only\n",
				origin, (int)(len > 120 ? 120 : len), line);
			(*failures)++;
			p = line + 2;
			continue;
		}
		end = eol ? strstr(eol, "\n@@end") : NULL;
		if (!end) {
			fprintf(stderr, "bench: %s: result %s %s %s is cut off (no @@end)\n", origin, h.kind, h.mode,
				h.job);
			(*failures)++;
			break;
		}
		*end = '\0';
		doc = json_loads(eol + 1, 0, &err);
		if (doc)
			json_array_append_new(results, json_pack("{s:s, s:s, s:s, s:o}", "kind", h.kind, "mode",
								 h.mode, "job", h.job, "result", doc));
		else {
			fprintf(stderr, "bench: %s: result %s %s %s is not JSON: line %d: %s\n", origin, h.kind,
				h.mode, h.job, err.line, err.text);
			(*failures)++;
		}
		p = end + 1;
	}
	return results;
}
