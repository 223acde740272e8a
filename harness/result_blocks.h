/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bench unit's answers, read from the guest's output: each result is a
 * block
 *
 *   @@begin KIND MODE JOB
 *   { ...the writer's JSON document... }
 *   @@end
 *
 * among other lines, and "@@failed ..." marks a job that failed in the
 * guest. The guest is untrusted: the names become parts of host paths and
 * are refused unless safe (names.h), and nothing is taken from a block that
 * is malformed or cut off.
 */
#ifndef HARNESS_RESULT_BLOCKS_H
#define HARNESS_RESULT_BLOCKS_H

#include <jansson.h>

/*
 * The blocks of text (changed in place) as [{kind, mode, job, result}].
 * failures counts the blocks refused (a malformed header, unsafe names,
 * JSON that does not parse, no @@end) and the @@failed lines; each refusal
 * is one line on stderr naming origin.
 */
json_t *result_blocks_parse(char *text, const char *origin, int *failures);

#endif
