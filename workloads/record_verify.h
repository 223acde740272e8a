/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a crashed file's record slots hold, as the host's judge reads it:
 * "size <bytes>", then "<slot> <V|Z|T|X> <seq>" per slot, or
 * "<first>-<last> <state> <seq>" for a run of equal slots (see
 * record.h), or "nofile" when the file does not exist.
 */
#ifndef PMEM_RECORD_VERIFY_H
#define PMEM_RECORD_VERIFY_H

#include <stddef.h>
#include <stdio.h>

/* Returns 0, or -1 after one line on stderr when the file cannot be read. */
int record_verify_file(const char *path, size_t bs, FILE *out);

#endif
