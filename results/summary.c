// SPDX-License-Identifier: GPL-2.0
/*
 * The text summary of a bench run: per kernel, filesystem and job section,
 * each mode's median over repetitions with its range, its ratio to
 * `shared`, and '*' where the difference from `shared` is beyond noise
 * (results/stats.h). Then the reference peer: our writer beside real fio.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "series.h"
#include "stats.h"
#include "summary.h"
#include "table.h"
#include "../workloads/pmem_map.h"

/* Three significant digits with k/M/G: 12345 -> "12.3k". */
const char *summary_human(double v, char *buf, size_t size)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	int i = 0;

	if (isnan(v))
		return "-";
	while (fabs(v) >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, size, fabs(v) >= 100 || v == (long long)v ? "%.0f%s" : fabs(v) >= 10 ? "%.1f%s" : "%.2f%s",
		 v, suffix[i]);
	return buf;
}

/* "median [min-max]" plus, against base, "x1.23*". */
void summary_cell(struct series *s, struct series *base, char *out, size_t size)
{
	struct sample_stats st, bst;
	char a[16], b[16], c[16];

	if (!s || !s->n) {
		snprintf(out, size, "-");
		return;
	}
	sample_stats_of(s->v, s->n, &st);
	if (st.min == st.max)
		snprintf(out, size, "%s", summary_human(st.median, a, sizeof(a)));
	else
		snprintf(out, size, "%s [%s-%s]", summary_human(st.median, a, sizeof(a)),
			 summary_human(st.min, b, sizeof(b)), summary_human(st.max, c, sizeof(c)));
	if (base && base != s && base->n) {
		sample_stats_of(base->v, base->n, &bst);
		if (bst.median != 0)
			snprintf(out + strlen(out), size - strlen(out), " x%.2f%s",
				 st.median / bst.median, differs_beyond_noise(&st, &bst) ? "*" : "");
		else if (st.median != 0)
			snprintf(out + strlen(out), size - strlen(out), " (shared 0)%s",
				 differs_beyond_noise(&st, &bst) ? "*" : "");
	}
}

static int seen_before(struct run *r, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcmp(r->s[k].kernel, r->s[i].kernel) && !strcmp(r->s[k].fs, r->s[i].fs) &&
		    !strcmp(r->s[k].job, r->s[i].job) && !strcmp(r->s[k].section, r->s[i].section))
			return 1;
	return 0;
}

static void print_group(FILE *out, enum table_format fmt, struct run *r, const struct series *g)
{
	static const int width[] = { 28, 26, 26, 26, 26 };
	const char *header[5] = { "metric" }, *row[5];
	char cells[4][96], caption[256];
	const struct metric *m;
	struct table t;
	int i;

	for (i = 0; map_modes[i].name; i++)
		header[i + 1] = map_modes[i].name;
	snprintf(caption, sizeof(caption), "%s %s %s [%s]", g->kernel, g->fs, g->job, g->section);
	table_begin(&t, out, fmt, caption, 5, header, width);
	for (m = metrics; m->key; m++) {
		struct series *base = run_find(r, g->kernel, g->fs, "shared", g->job, g->section, m->key);
		int any = 0;

		for (i = 0; map_modes[i].name; i++)
			any |= run_find(r, g->kernel, g->fs, map_modes[i].name, g->job, g->section, m->key) != NULL;
		if (!any)
			continue;
		row[0] = m->label;
		for (i = 0; map_modes[i].name; i++) {
			summary_cell(run_find(r, g->kernel, g->fs, map_modes[i].name, g->job, g->section, m->key),
				     base, cells[i], sizeof(cells[i]));
			row[i + 1] = cells[i];
		}
		table_row(&t, row);
	}
	table_end(&t);
}

/* An exact count, median [min-max] over repetitions: faults are not rounded. */
static void count_cell(struct series *s, char *out, size_t size)
{
	struct sample_stats st;

	if (!s || !s->n) {
		snprintf(out, size, "-");
		return;
	}
	sample_stats_of(s->v, s->n, &st);
	if (st.min == st.max)
		snprintf(out, size, "%.0f", st.median);
	else
		snprintf(out, size, "%.0f [%.0f-%.0f]", st.median, st.min, st.max);
}

/*
 * Our writer beside real fio on the same job; shared mode must agree. The
 * writer's side of the libpmem pair maps with MAP_SYNC, as fio's libpmem
 * engine does (pmem_map_file): "sync+libpmem"; runs from before that have
 * "shared+libpmem".
 * "dax faults" shows that both sides took the same faults (fs_dax
 * tracepoints; "-" where a side has no counts, as fio in older runs).
 */
static void print_peer(FILE *out, enum table_format fmt, struct run *r)
{
	static const char *const pairs[][3] = {
		{ "shared", "fio-mmap", "pmem-writer map=shared vs fio ioengine=mmap" },
		{ "shared+libpmem", "fio-libpmem", "pmem-writer persist=libpmem vs fio ioengine=libpmem" },
		{ "sync+libpmem", "fio-libpmem", "pmem-writer map=sync persist=libpmem vs fio ioengine=libpmem" },
	};
	static const char *const header[] = { "kernel fs pair", "pmem-writer", "fio", "dax faults", "verdict" };
	static const int width[] = { 76, 20, 20, 14, 10 };
	size_t i, p;
	struct table t;
	int rows = 0;

	for (i = 0; i < r->n; i++) {
		struct series *ours = &r->s[i], *fio;
		struct sample_stats a, b;
		char x[64], y[64], what[256], fa[40], fb[40], faults[96];
		const char *row[5];

		if (strcmp(ours->job, "peer") || strcmp(ours->metric->key, "bw"))
			continue;
		for (p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
			if (strcmp(ours->mode, pairs[p][0]))
				continue;
			fio = run_find(r, ours->kernel, ours->fs, pairs[p][1], "peer", ours->section, "bw");
			if (!fio) /* fio names its job after the section too */
				continue;
			if (!rows++)
				table_begin(&t, out, fmt, "reference peer (write MiB/s, median [range])", 5, header, width);
			sample_stats_of(ours->v, ours->n, &a);
			sample_stats_of(fio->v, fio->n, &b);
			summary_cell(ours, NULL, x, sizeof(x));
			summary_cell(fio, NULL, y, sizeof(y));
			snprintf(what, sizeof(what), "%s %s %s", ours->kernel, ours->fs, pairs[p][2]);
			count_cell(run_find(r, ours->kernel, ours->fs, pairs[p][0], "peer", ours->section, "faults"),
				   fa, sizeof(fa));
			count_cell(run_find(r, ours->kernel, ours->fs, pairs[p][1], "peer", ours->section, "faults"),
				   fb, sizeof(fb));
			snprintf(faults, sizeof(faults), "%s vs %s", fa, fb);
			row[0] = what;
			row[1] = x;
			row[2] = y;
			row[3] = faults;
			row[4] = a.n < 2 || b.n < 2 ? "too few repetitions to judge (need 2 or more)" :
				 differs_beyond_noise(&a, &b) ?
				 "DIFFERENT beyond noise (the writer and fio disagree: see the cells)" :
				 "agree within noise";
			table_row(&t, row);
		}
	}
	if (rows)
		table_end(&t);
}

void summary_tables(struct run *r, FILE *out, enum table_format fmt)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (!strcmp(r->s[i].job, "peer") && strcmp(r->s[i].mode, "shared"))
			continue;
		if (!seen_before(r, i))
			print_group(out, fmt, r, &r->s[i]);
	}
	print_peer(out, fmt, r);
}

/*
 * Guests run at once share cores, and under TCG a guest's emulated time
 * stretches when another takes its core: say so when it happened.
 */
static void print_sharing(FILE *out, const json_t *sharing)
{
	json_int_t shared = json_integer_value(json_object_get(sharing, "beside_other_guests"));

	if (shared <= 0)
		return;
	fprintf(out, "guests: %lld of %lld ran beside other guests (up to %lld at once on one host): "
		"their emulated times are stretched by shared cores, so compare times only with runs made "
		"the same way; instruction and tracepoint counts are unaffected\n",
		(long long)shared, (long long)json_integer_value(json_object_get(sharing, "units")),
		(long long)json_integer_value(json_object_get(sharing, "guests_max")));
}

int summary_print(const char *run_dir, FILE *out)
{
	struct run r;
	const char *accel;

	if (run_load(run_dir, &r) < 0)
		return -1;
	accel = json_string_value(json_object_get(json_object_get(r.info, "accel"), "name"));
	fprintf(out, "run %s: %s, QEMU %s, %lld repetitions\n",
		json_string_value(json_object_get(r.info, "run_id")),
		accel && !strcmp(accel, "tcg") ?
		"TCG: times are emulated, compare them only as ratios within this run" :
		"KVM: times are real",
		json_string_value(json_object_get(json_object_get(r.info, "qemu"), "version")),
		(long long)json_integer_value(json_object_get(r.info, "reps")));
	print_sharing(out, json_object_get(r.info, "host_sharing"));
	fprintf(out, "cells: median [min-max] over repetitions; xR = ratio to shared; "
		     "* = beyond noise (means differ by more than the sum of 95%% CI half-widths)\n");
	summary_tables(&r, out, TABLE_TEXT);
	run_free(&r);
	return 0;
}
