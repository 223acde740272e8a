// SPDX-License-Identifier: GPL-2.0
/* Fuzz target: a bench unit's answers in guest output (bench/unit_docs.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/names.h"
#include "bench/unit_docs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	int failures;
	json_t *r = unit_docs_parse(text, "fuzz", &failures), *b;
	size_t i;

	/* What becomes a host path must be a safe name, always; results are objects. */
	json_array_foreach(r, i, b) {
		const char *kind = json_string_value(json_object_get(b, "kind"));

		if (!kind || (strcmp(kind, "writer") && strcmp(kind, "fio")) ||
		    !name_is_safe(json_string_value(json_object_get(b, "mode")), 32) ||
		    !name_is_safe(json_string_value(json_object_get(b, "job")), 64) ||
		    !json_is_object(json_object_get(b, "result")))
			abort();
	}
	json_decref(r);
	free(text);
	return 0;
}
