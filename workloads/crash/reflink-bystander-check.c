// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for reflink-bystander.c and its variants: every record the
 * bystander acknowledged ($PMEM_ACKED of them, at most 16) must read back
 * from "data" as it was when the bystander fsynced it. Exit 1 names the
 * first one that does not.
 */
#include "records-check.h"

int main(void)
{
	return check_records("reflink-bystander-check", 16, 4096, 0, 4096);
}
