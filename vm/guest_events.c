// SPDX-License-Identifier: GPL-2.0
/*
 * A record of guest kernel splats for whoever asked for one (the test
 * suite, through $PMEM_GUEST_EVENTS). The console line is the guest's: it
 * is written with every byte that could end or split a record (a tab, a
 * newline, anything not printable) made a '?', and it is already bounded
 * by struct vm_result.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_events.h"

void guest_events_record(const char *run_dir, const struct vm_result *r)
{
	const char *path = getenv("PMEM_GUEST_EVENTS");
	char line[sizeof(r->event_line)], rec[sizeof(line) + 4096 + 32];
	size_t i;
	int fd, n;

	if (!path || !*path || r->worst_event == CONSOLE_NONE)
		return;
	snprintf(line, sizeof(line), "%s", r->event_line);
	for (i = 0; line[i]; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] >= 0x7f)
			line[i] = '?';
	n = snprintf(rec, sizeof(rec), "%s\t%s\t%s\n", console_event_name(r->worst_event),
		     run_dir ? run_dir : "?", line);
	if (n < 0 || (size_t)n >= sizeof(rec))
		n = (int)strlen(rec);
	/* One write to an O_APPEND file: guests run side by side, and their
	 * records must not interleave. */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "pmem-harness: cannot record a guest kernel %s in %s (PMEM_GUEST_EVENTS)\n",
			console_event_name(r->worst_event), path);
		return;
	}
	if (write(fd, rec, (size_t)n) != n)
		fprintf(stderr, "pmem-harness: cannot record a guest kernel %s in %s (PMEM_GUEST_EVENTS)\n",
			console_event_name(r->worst_event), path);
	close(fd);
}
