/* SPDX-License-Identifier: GPL-2.0 */
/* Bench runs side by side (results/compare.c). */
#ifndef PMEM_COMPARE_H
#define PMEM_COMPARE_H

#include <stdio.h>

/* 0, or 2 with one error line when the runs cannot be compared. */
int compare_runs(const char *const *dirs, int n, FILE *out);

#endif
