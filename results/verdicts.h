/* SPDX-License-Identifier: GPL-2.0 */
/* Crash-test verdicts (crash/summary.json "scenarios") as tables. */
#ifndef PMEM_VERDICTS_H
#define PMEM_VERDICTS_H

#include <jansson.h>

#include "table.h"

/* One row per (scenario, filesystem), as crashtest prints it. */
void verdict_table(json_t *rows, FILE *out, enum table_format fmt);
/* The rows of programs judged black-box by their own recovery (none: nothing). */
void verdict_blackbox_table(json_t *rows, FILE *out, enum table_format fmt);
/* Scenario x filesystem: the verdict counts and whether they were expected. */
void verdict_matrix(json_t *rows, FILE *out, enum table_format fmt, const char *caption);
/* The summed "causes" of each row that has them (ADR losses), or nothing. */
void verdict_causes(json_t *rows, FILE *out, enum table_format fmt);
/* "as expected", "as allowed: ..." or "UNEXPECTED: ..." for one row. */
const char *verdict_result(json_t *row);

#endif
