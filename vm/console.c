// SPDX-License-Identifier: GPL-2.0
/*
 * Recognise guest kernel failures in serial console lines. The patterns are
 * the prefixes the kernel itself prints (kernel/panic.c, lib/bug.c,
 * arch/x86/kernel/dumpstack.c), matched after the printk timestamp.
 */
#include <string.h>

#include "console.h"

static const struct {
	const char *prefix;
	enum console_event event;
} patterns[] = {
	{ "Kernel panic - not syncing", CONSOLE_PANIC },
	{ "Oops:", CONSOLE_OOPS },
	{ "BUG:", CONSOLE_BUG },
	{ "kernel BUG at", CONSOLE_BUG },
	{ "general protection fault", CONSOLE_OOPS },
	{ "WARNING:", CONSOLE_WARNING },
};

enum console_event console_scan_line(const char *line)
{
	size_t i;

	/* Skip "[    1.234567] " */
	if (line[0] == '[') {
		const char *end = strchr(line, ']');

		if (end)
			line = end + 1;
	}
	while (*line == ' ')
		line++;
	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (!strncmp(line, patterns[i].prefix, strlen(patterns[i].prefix)))
			return patterns[i].event;
	return CONSOLE_NONE;
}

const char *console_event_name(enum console_event e)
{
	switch (e) {
	case CONSOLE_WARNING: return "warning";
	case CONSOLE_BUG: return "bug";
	case CONSOLE_OOPS: return "oops";
	case CONSOLE_PANIC: return "panic";
	default: return "none";
	}
}
