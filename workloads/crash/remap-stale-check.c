// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for remap-stale.c and remap-stale-flushed.c: every record of
 * "data" that was acknowledged ($PMEM_ACKED of them, at most 4) must read
 * back as it was stored. Exit 1 names the first one that does not.
 */
#include "records-check.h"

int main(void)
{
	return check_records("remap-stale-check", 4, 4096, 0, 4096);
}
