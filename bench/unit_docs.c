// SPDX-License-Identifier: GPL-2.0
/* A bench unit's answers, one JSON document per line: see unit_docs.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/names.h"
#include "unit_docs.h"

#define DOC_START "{\"schema\":"

/* Why doc is refused, or NULL when it is a result or a failure. */
static const char *refusal(const json_t *doc, const char **kind)
{
	json_t *schema = json_object_get(doc, "schema");

	*kind = json_string_value(json_object_get(doc, "kind"));
	if (!json_is_integer(schema) || json_integer_value(schema) != UNIT_DOCS_SCHEMA)
		return "another schema than 1: the guest image is older or newer than the harness (make images)";
	if (!*kind || (strcmp(*kind, "writer") && strcmp(*kind, "fio") && strcmp(*kind, "failed")))
		return "kind is not writer, fio or failed";
	/* The names become a cell's file name on the host. */
	if (!name_is_safe(json_string_value(json_object_get(doc, "mode")), 32) ||
	    !name_is_safe(json_string_value(json_object_get(doc, "job")), 64))
		return "mode or job is not a name of letters, digits and ._+-";
	if (strcmp(*kind, "failed") && !json_is_object(json_object_get(doc, "result")))
		return "its result is not an object";
	return NULL;
}

/* Up to 60 bytes of a line the guest wrote, printable: it goes to a terminal. */
static void quote_line(const char *line, size_t len, char out[64])
{
	size_t i, n = len < 60 ? len : 60;

	for (i = 0; i < n; i++)
		out[i] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
	out[n] = '\0';
}

json_t *unit_docs_parse(const char *text, const char *origin, int *failures)
{
	json_t *results = json_array();
	const char *line = text, *eol;

	*failures = 0;
	for (; line && *line; line = eol ? eol + 1 : NULL) {
		const char *kind, *why;
		json_error_t err;
		json_t *doc;
		size_t len;

		eol = strchr(line, '\n');
		len = eol ? (size_t)(eol - line) : strlen(line);
		if (strncmp(line, DOC_START, strlen(DOC_START)))
			continue;
		doc = json_loadb(line, len, 0, &err);
		why = doc ? refusal(doc, &kind) : err.text;
		if (why) {
			char shown[64];

			quote_line(line, len, shown);
			fprintf(stderr, "bench: %s: result \"%s%s\" refused: %s\n", origin, shown,
				len > 60 ? "..." : "", why);
			(*failures)++;
		} else if (!strcmp(kind, "failed")) {
			(*failures)++;
		} else {
			json_array_append_new(results, json_pack("{s:s, s:O, s:O, s:O}", "kind", kind,
				"mode", json_object_get(doc, "mode"), "job", json_object_get(doc, "job"),
				"result", json_object_get(doc, "result")));
		}
		json_decref(doc);
	}
	return results;
}
