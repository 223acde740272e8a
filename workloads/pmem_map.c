// SPDX-License-Identifier: GPL-2.0
/* The mapping modes: see pmem_map.h. */
#include <stdio.h>
#include <string.h>

#include "pmem_map.h"

const struct map_mode map_modes[] = {
	{ "shared", MAP_SHARED, 0, 0,
	  "legacy MAP_SHARED: entries tagged dirty, msync/fsync flush them" },
	{ "sync", MAP_SHARED_VALIDATE | MAP_SYNC, 0, 1,
	  "MAP_SYNC: write faults commit metadata; entries still tagged dirty" },
	{ "aware", MAP_SHARED_VALIDATE | MAP_PMEM_AWARE, 1, 0,
	  "MAP_PMEM_AWARE: no dirty tagging; metadata only on fsync" },
	{ "sync+aware", MAP_SHARED_VALIDATE | MAP_SYNC | MAP_PMEM_AWARE, 1, 1,
	  "both: metadata committed at fault, no dirty tagging" },
	{ NULL, 0, 0, 0, NULL },
};

const struct map_mode *map_mode_find(const char *name)
{
	const struct map_mode *m;

	for (m = map_modes; m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

void *map_mode_map(const struct map_mode *m, int fd, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, m->flags, fd, 0);
}

int smaps_vmflags(const void *addr, char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long a = (unsigned long)addr, start, end;
	char line[512];
	int inside = 0, ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = a >= start && a < end;
		else if (inside && !strncmp(line, "VmFlags:", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, size, "%s", line + 8);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int vmflags_has(const char *vmflags, const char *flag)
{
	char padded[512], needle[8];

	snprintf(padded, sizeof(padded), " %s ", vmflags);
	snprintf(needle, sizeof(needle), " %s ", flag);
	return strstr(padded, needle) != NULL;
}
