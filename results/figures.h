/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's plots, drawn by gnuplot from run documents only: fault
 * latency CDFs, persist-call latency against the dirty set, throughput and
 * instructions per fault with their spread, and crash verdicts. Each kind is
 * drawn for every job whose sections measured what it shows, whatever the
 * job is called (figures.c: figure_ops[]); where several jobs have it, the
 * figures' names and titles name the job. Given several sources (a
 * comparison) their lines are overlaid, tagged A, B, ...
 */
#ifndef PMEM_FIGURES_H
#define PMEM_FIGURES_H

#include <jansson.h>

#include "series.h"

struct source {
	struct run run;		/* bench series; none for a crash-only run */
	json_t *crash;		/* crash/summary.json, or NULL */
	char tag[8];		/* "A", "B", ... in a comparison; "" in a report */
};

struct figure {
	char name[128];		/* NAME.svg and NAME.gp in the report directory */
	char group[64];		/* the report section it belongs to */
	char title[256];
	char caption[512];
};

#define FIGURES_MAX 96
/* The group of the crash verdict plot: reports show it beside the verdict matrix. */
#define CRASH_GROUP "Crash verdicts"

struct figures {
	struct figure f[FIGURES_MAX];
	int n;
	int failed;		/* plots gnuplot could not draw (each said why) */
	int no_gnuplot;		/* gnuplot is not installed: no plots at all */
};

/* Draw every plot the sources have data for into dir. */
void figures_make(struct source *src, int nsrc, const char *dir, struct figures *out);

#endif
