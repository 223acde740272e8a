// SPDX-License-Identifier: GPL-2.0
/* Counting fs_dax tracepoints: see tracefs.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

static const char *const names[EV_COUNT] = {
	[EV_PTE_FAULT_DONE] = "dax_pte_fault_done",
	[EV_PMD_FAULT_DONE] = "dax_pmd_fault_done",
	[EV_PMD_FALLBACK] = "dax_pmd_fallback",
	[EV_INSERT_PFN_MKWRITE] = "dax_insert_pfn_mkwrite",
	[EV_WRITEBACK_RANGE] = "dax_writeback_range",
	[EV_WRITEBACK_ONE] = "dax_writeback_one",
};

const char *dax_event_name(enum dax_event e)
{
	return names[e];
}

int tracefs_write(const char *file, const char *value)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		fprintf(stderr, "tracefs: open %s: %s (is tracefs mounted?)\n", path, strerror(errno));
		return -1;
	}
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	if (!ok)
		fprintf(stderr, "tracefs: write '%s' to %s: %s\n", value, path, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

int tracefs_start(void)
{
	static const char *const events[] = {
		"dax_pte_fault_done", "dax_pmd_fault_done", "dax_insert_pfn_mkwrite",
		"dax_writeback_range", "dax_writeback_one",
	};
	char file[128];
	size_t i;

	if (tracefs_write("tracing_on", "0") || tracefs_write("buffer_size_kb", "16384") ||
	    tracefs_write("trace", ""))
		return -1;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(file, sizeof(file), "events/fs_dax/%s/enable", events[i]);
		if (tracefs_write(file, "1"))
			return -1;
	}
	return tracefs_write("tracing_on", "1");
}

int tracefs_count(unsigned long ino, struct dax_counts *c)
{
	char needle[64], line[1024];
	FILE *f;
	int e;

	memset(c, 0, sizeof(*c));
	if (tracefs_write("tracing_on", "0"))
		return -1;
	f = fopen(TRACEFS "/trace", "r");
	if (!f) {
		fprintf(stderr, "tracefs: open trace: %s\n", strerror(errno));
		return -1;
	}
	snprintf(needle, sizeof(needle), "ino %#lx ", ino);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || (ino && !strstr(line, needle)))
			continue;
		for (e = 0; e < EV_COUNT; e++) {
			char tag[64];

			snprintf(tag, sizeof(tag), " %s:", names[e]);
			if (strstr(line, tag))
				c->n[e]++;
		}
		if (strstr(line, " dax_pmd_fault_done:") && strstr(line, "FALLBACK"))
			c->n[EV_PMD_FALLBACK]++;
	}
	fclose(f);
	return 0;
}
