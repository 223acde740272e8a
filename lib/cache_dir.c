// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cache_dir.h"

const char *cache_dir(void)
{
	static char dir[PATH_MAX];
	const char *c = getenv("PMEM_CACHE"), *x = getenv("XDG_CACHE_HOME");

	if (c)
		return c;
	if (x)
		snprintf(dir, sizeof(dir), "%s/pmem-aware", x);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/pmem-aware", getenv("HOME") ? getenv("HOME") : "/tmp");
	return dir;
}
