/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gnuplot script per plot, data inline as datablocks, rendered to SVG.
 * The .gp file stays beside the .svg so a figure can be restyled or
 * re-rendered by hand: `gnuplot NAME.gp`.
 */
#ifndef PMEM_PLOT_H
#define PMEM_PLOT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct plot {
	char dir[PATH_MAX], name[128];
	FILE *f;
	char *clauses;		/* the plot command's clauses, comma separated */
	size_t len;
	int blocks;
};

/* Open DIR/NAME.gp with an SVG terminal, a title and axis labels. */
int plot_begin(struct plot *p, const char *dir, const char *name, const char *title,
	       const char *xlabel, const char *ylabel);
/* A raw gnuplot line ("set logscale x"). */
void plot_set(struct plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A datablock: plot_block() returns its number; rows go in with plot_data(). */
int plot_block(struct plot *p);
/* A data row is a line of the script like any other. */
#define plot_data plot_set
void plot_block_end(struct plot *p);
/* One clause of the plot command over a block: spec is "using 1:2 with lines". */
void plot_series(struct plot *p, int block, const char *spec, const char *title);
/* Run gnuplot: DIR/NAME.svg. 0, or -1 with one error line, or PLOT_NO_GNUPLOT. */
#define PLOT_NO_GNUPLOT (-2)
int plot_end(struct plot *p);
/*
 * Names come from runs, and a run may carry any bytes in them. plot_quote()
 * writes s as a double-quoted string of a gnuplot command: quotes and
 * backslashes escaped, control characters (a newline ends a command, and
 * "EOD" on a line of its own would end a datablock) as spaces.
 */
void plot_quote(FILE *f, const char *s);
/* s as a quoted label of a datablock row, where gnuplot reads no escapes:
 * quotes become ', control characters spaces. */
void plot_label(char *dst, size_t len, const char *s);

#endif
