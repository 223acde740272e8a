/* SPDX-License-Identifier: GPL-2.0 */
/* The text summary of a bench run (results/runs/<id>). */
#ifndef PMEM_SUMMARY_H
#define PMEM_SUMMARY_H

#include <stdio.h>

#include "series.h"
#include "table.h"

int summary_print(const char *run_dir, FILE *out);
/* The per-section tables and the peer check of a loaded run. */
void summary_tables(struct run *r, FILE *out, enum table_format fmt);
/* One table cell: "median [min-max] xRATIO*" against base (may be NULL). */
void summary_cell(struct series *s, struct series *base, char *out, size_t size);
/* Three significant digits with k/M/G suffixes: 12345 -> "12.3k". */
const char *summary_human(double v, char *buf, size_t size);

#endif
