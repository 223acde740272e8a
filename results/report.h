/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reports read only a run's documents (run.json, cells/, crash/summary.json)
 * and never re-run anything. A report is a directory: index.html (one file,
 * plots inline as SVG), report.md (plots beside it as NAME.svg) and every
 * plot's gnuplot script NAME.gp.
 */
#ifndef PMEM_REPORT_H
#define PMEM_REPORT_H

#include <stddef.h>

/*
 * RUN_DIR/report/: 0 and the path of index.html in html; 1 when the page was
 * written but some plots could not be drawn (each said why); -1 with one
 * error line when nothing was written.
 */
int report_run(const char *run_dir, char *html, size_t size);
/* report_run(), then the path of the page on stdout; its return value. */
int report_and_say(const char *run_dir);
/* A comparison page in out_dir: the compare table and the runs' plots overlaid; returns as above. */
int report_compare(const char *const *dirs, int n, const char *out_dir, char *html, size_t size);

#endif
