// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for nt-head.c and nt-head-flushed.c: every record acknowledged
 * ($PMEM_ACKED of them, at most 64) must read back from "data" as it was
 * copied, head included: 1021 bytes from byte 3 of each page. A record
 * that differs from its byte 0 to 4 on lost its cached head (nt-head.c's
 * HEAD); from byte 5 on, its non-temporal part. Exit 1 names the first.
 */
#include "records-check.h"

#define HEAD 3

int main(void)
{
	return check_records("nt-head-check", 64, 4096, HEAD, 1024 - HEAD);
}
