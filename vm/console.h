/* SPDX-License-Identifier: GPL-2.0 */
/* Recognise guest kernel failures in serial console lines. */
#ifndef HARNESS_CONSOLE_H
#define HARNESS_CONSOLE_H

enum console_event {
	CONSOLE_NONE,
	CONSOLE_WARNING,	/* WARN_ON: recorded, the guest goes on */
	CONSOLE_BUG,		/* BUG: the guest is killed */
	CONSOLE_OOPS,
	CONSOLE_PANIC,
};

enum console_event console_scan_line(const char *line);
const char *console_event_name(enum console_event e);
/* BUG, oops and panic end the guest; a warning does not. */
static inline int console_event_is_fatal(enum console_event e)
{
	return e >= CONSOLE_BUG;
}

#endif
