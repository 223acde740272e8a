// SPDX-License-Identifier: GPL-2.0
/* Fuzz target: the guest's serial console lines (vm/console.c). */
#include "vm/console.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *line = text, *nl;

	do {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!console_event_name(console_scan_line(line)))
			abort();
		line = nl ? nl + 1 : NULL;
	} while (nl);
	free(text);
	return 0;
}
