// SPDX-License-Identifier: GPL-2.0
/* Fuzz target: the checker's phase times (crash-inject/check_phases.c). */
#include "check_phases.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct check_phases p[2] = { 0 };
	char *text = fuzz_text(data, size);

	check_phases_parse(text, &p[0]);
	check_phases_parse(text, &p[1]);
	json_decref(check_phases_json(p, 2));
	free(text);
	return 0;
}
