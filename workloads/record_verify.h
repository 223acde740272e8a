/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a crashed file's record slots hold, as the host's judge reads it: one
 * JSON object, the entry of "files" in the checker's document on an image
 * (crash-inject/judge/judge.h has the schema):
 *
 *   {"name":"crash/data","missing":false,"size":16384,
 *    "slots":[[0,0,"V",3],[1,2,"Z",0]]}
 *
 * with slots as runs [first, last, state, seq] of equal slots (see
 * record.h; seq 0 unless V or T, and at most 2^63 - 1), or
 * {"name":...,"missing":true} when the file does not exist, and "error"
 * when it could not be read to the end (the slots then stop there).
 */
#ifndef PMEM_RECORD_VERIFY_H
#define PMEM_RECORD_VERIFY_H

#include <stddef.h>
#include <stdio.h>

/* The entry of the file at path, named name; 0, or -1 when it carries an error. */
int record_verify_json(const char *path, const char *name, size_t bs, FILE *out);

#endif
