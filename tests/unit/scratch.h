/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests that make files: paths under their scratch directory. */
#ifndef PMEM_UNIT_SCRATCH_H
#define PMEM_UNIT_SCRATCH_H

#include <stdio.h>

/* dir/sub, from a ring of 8: a result stays valid for the next 7 calls. */
static inline char *scratch_path(const char *dir, const char *sub)
{
	static char paths[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, sub);
	return paths[i];
}

#endif
