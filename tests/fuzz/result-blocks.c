// SPDX-License-Identifier: GPL-2.0
/* Fuzz target: a bench unit's result blocks in guest output (harness/result_blocks.c). */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "names.h"
#include "result_blocks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	int failures;
	json_t *r = result_blocks_parse(text, "fuzz", &failures), *b;
	size_t i;

	/* What becomes a host path must be a safe name, always. */
	json_array_foreach(r, i, b)
		if (!name_is_safe(json_string_value(json_object_get(b, "kind")), 32) ||
		    !name_is_safe(json_string_value(json_object_get(b, "mode")), 32) ||
		    !name_is_safe(json_string_value(json_object_get(b, "job")), 64) ||
		    !json_object_get(b, "result"))
			abort();
	json_decref(r);
	free(text);
	return 0;
}
