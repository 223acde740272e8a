// SPDX-License-Identifier: GPL-2.0
/*
 * The report's plots: see figures.h. Every figure is a gnuplot script with
 * its data inline (results/plot.c); this file decides what goes in them.
 *
 * What is drawn is chosen by what a job's sections measured, never by the
 * job's name: figure_ops[] (at the end) has one row per kind of figure, the
 * sections it reads and the function that draws it, and figures_make()
 * walks it once for every job that has such sections.
 *
 * A mode keeps its colour in every plot; the source (A, B, ...) and, in a
 * run with several kernels, the kernel change the dash and the point type.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "plot.h"
#include "stats.h"

/* The writer's (and fio's) percentile keys, in order. */
static const char *const pct_keys[] = {
	"1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000", "50.000000",
	"60.000000", "70.000000", "80.000000", "90.000000", "95.000000", "99.000000", "99.500000",
	"99.900000", "99.950000", "99.990000",
};
#define NPCT (sizeof(pct_keys) / sizeof(pct_keys[0]))

static const struct {
	const char *mode, *colour;
} mode_colours[] = {
	{ "shared", "#1f77b4" }, { "sync", "#ff7f0e" }, { "aware", "#2ca02c" }, { "sync+aware", "#d62728" },
};

/*
 * One job section of one (source, kernel, fs, mode): what the series
 * (series.h) cannot hold. A series keeps one number per repetition, so the
 * numbers the figures plot come from there: insn_fault, bw, and persist_p50
 * for the persist-call plots. Two things are not such numbers and are kept
 * here: a CDF needs the whole first-touch latency distribution (17
 * percentiles per repetition, where the series keeps only fault_p50), and
 * choosing figures needs facts about the section that are not measurements:
 * its persist method, the pages it dirtied per persist call, and whether it
 * wrote pages it had already touched.
 */
struct sect {
	int src;
	size_t seq;			/* order of first appearance: the last tie-break */
	char kernel[64], fs[16], mode[24], job[64], name[64], method[16];
	double dirty;			/* pages per persist call */
	int persists;			/* it timed persist calls: it has a persist_p50 series */
	int rewrites;			/* more writes than first touches: a steady state */
	int sweep;			/* its job's sections of its fs and method differ in dirty set */
	int has_ft;			/* it reported first-touch percentiles */
	double ft[NPCT][SERIES_MAX_REPS];	/* first-touch latency percentiles per repetition */
	size_t nft;
};

/* Everything a figure is drawn from, and where it goes. */
struct figctx {
	struct source *src;
	int nsrc;
	const char *dir;
	struct figures *out;
	struct sect *s;			/* every section of every source, in order of appearance */
	size_t n, cap;
	int cur;			/* the source run_foreach_section() is reading */
};

/*
 * The reference peer is not a workload: bench-unit.sh runs the job the
 * harness calls "peer" through our writer and through real fio, and its
 * numbers are for the agreement table (summary.c), not for figures.
 */
static int is_peer(const char *job)
{
	return !strcmp(job, "peer");
}

static struct sect *sect_find(struct figctx *fc, int src, const char *kernel, const char *fs, const char *mode,
			      const char *job, const char *name)
{
	size_t i;

	for (i = 0; i < fc->n; i++) {
		struct sect *s = &fc->s[i];

		if (s->src == src && !strcmp(s->kernel, kernel) && !strcmp(s->fs, fs) && !strcmp(s->mode, mode) &&
		    !strcmp(s->job, job) && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

static struct sect *sect_get(struct figctx *fc, json_t *cell, const char *name)
{
	const char *k = json_string_value(json_object_get(cell, "kernel"));
	const char *fs = json_string_value(json_object_get(cell, "fs"));
	const char *mode = json_string_value(json_object_get(cell, "mode"));
	const char *job = json_string_value(json_object_get(cell, "job"));
	struct sect *s;

	if (!k || !fs || !mode || !job || !name || is_peer(job))
		return NULL;
	if ((s = sect_find(fc, fc->cur, k, fs, mode, job, name)))
		return s;
	if (fc->n == fc->cap) {
		fc->cap = fc->cap ? fc->cap * 2 : 32;
		fc->s = realloc(fc->s, fc->cap * sizeof(*fc->s));
		if (!fc->s)
			abort();
	}
	s = &fc->s[fc->n++];
	memset(s, 0, sizeof(*s));
	s->seq = fc->n;
	s->src = fc->cur;
	snprintf(s->kernel, sizeof(s->kernel), "%s", k);
	snprintf(s->fs, sizeof(s->fs), "%s", fs);
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	snprintf(s->job, sizeof(s->job), "%s", job);
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static void collect(void *ctx, json_t *cell, json_t *section)
{
	struct figctx *fc = ctx;
	json_t *pct = json_path(section, "pmem.first_touch.lat_ns.percentile");
	json_int_t touched = json_integer_value(json_path(section, "pmem.first_touch.count"));
	struct sect *s = sect_get(fc, cell, json_string_value(json_object_get(section, "jobname")));
	size_t i;

	if (!s)
		return;
	s->dirty = json_number_value(json_path(section, "pmem.persist_calls.dirty_pages_per_call"));
	snprintf(s->method, sizeof(s->method), "%s", json_string_value(json_path(section, "pmem.persist")) ?: "");
	s->rewrites |= touched > 0 && json_integer_value(json_path(section, "write.total_ios")) > touched;
	if (!json_is_object(pct) || json_integer_value(json_path(section, "pmem.first_touch.lat_ns.N")) <= 0)
		return;
	s->has_ft = 1;
	if (s->nft == SERIES_MAX_REPS)
		return;
	for (i = 0; i < NPCT; i++)
		if (!json_is_number(json_object_get(pct, pct_keys[i])))
			return;
	for (i = 0; i < NPCT; i++)
		s->ft[i][s->nft] = json_number_value(json_object_get(pct, pct_keys[i]));
	s->nft++;
}

/* Every section of every source, one pass over the cells; then what each one is. */
static void collect_all(struct figctx *fc)
{
	size_t i, k;

	for (fc->cur = 0; fc->cur < fc->nsrc; fc->cur++)
		if (fc->src[fc->cur].run.info)
			run_foreach_section(&fc->src[fc->cur].run, collect, fc, 0);
	for (i = 0; i < fc->n; i++) {
		struct sect *s = &fc->s[i];

		s->persists = run_find(&fc->src[s->src].run, s->kernel, s->fs, s->mode, s->job, s->name,
				       "persist_p50") != NULL;
	}
	for (i = 0; i < fc->n; i++)
		for (k = 0; k < fc->n && fc->s[i].persists && !fc->s[i].sweep; k++)
			fc->s[i].sweep = fc->s[k].persists && !strcmp(fc->s[k].job, fc->s[i].job) &&
					 !strcmp(fc->s[k].fs, fc->s[i].fs) &&
					 !strcmp(fc->s[k].method, fc->s[i].method) && fc->s[k].dirty != fc->s[i].dirty;
}

static int mode_rank(const char *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_colours) / sizeof(mode_colours[0]); i++)
		if (!strcmp(mode, mode_colours[i].mode))
			return i;
	return i;
}

/* Lines in a stable order: source, kernel, then shared, sync, aware, sync+aware. */
static int by_line(const void *a, const void *b)
{
	const struct sect *x = *(const struct sect *const *)a, *y = *(const struct sect *const *)b;
	int d;

	if (x->src != y->src)
		return x->src - y->src;
	if ((d = strcmp(x->kernel, y->kernel)))
		return d;
	if ((d = mode_rank(x->mode) - mode_rank(y->mode)))
		return d;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A run that holds several kernels names the kernel in every line. */
static int several_kernels(struct source *src, int nsrc)
{
	int i;

	for (i = 0; i < nsrc; i++)
		if (json_object_size(json_object_get(src[i].run.info, "kernels")) > 1)
			return 1;
	return 0;
}

static void line_title(struct source *src, int nsrc, int s, const char *kernel, const char *mode,
		       char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", src[s].tag, src[s].tag[0] ? " " : "",
		 several_kernels(src, nsrc) ? kernel : "", several_kernels(src, nsrc) ? " " : "", mode);
}

/* Colour by mode; dash and point by source and kernel. */
static void line_style(const char *mode, int variant, char *buf, size_t size)
{
	const char *colour = "#7f7f7f";
	size_t i;

	for (i = 0; i < sizeof(mode_colours) / sizeof(mode_colours[0]); i++)
		if (!strcmp(mode, mode_colours[i].mode))
			colour = mode_colours[i].colour;
	snprintf(buf, size, "lc rgb '%s' dt %d pt %d ps 0.8 lw 1.5", colour, variant % 5 + 1, variant % 6 + 5);
}

static int kernel_index(struct source *src, int s, const char *kernel)
{
	const char *k;
	json_t *v;
	int i = 0;

	json_object_foreach(json_object_get(src[s].run.info, "kernels"), k, v) {
		if (!strcmp(k, kernel))
			return i;
		i++;
	}
	return 0;
}

static int variant_of(struct source *src, int s, const char *kernel)
{
	return s * 3 + kernel_index(src, s, kernel);
}

/* One line of a plot over block b: coloured by mode, titled by source, kernel and mode. */
static void add_line(struct plot *pl, struct source *src, int nsrc, int s, const char *kernel, const char *mode,
		     int b, const char *how)
{
	char style[128], title[160], spec[256];

	line_style(mode, variant_of(src, s, kernel), style, sizeof(style));
	line_title(src, nsrc, s, kernel, mode, title, sizeof(title));
	snprintf(spec, sizeof(spec), "using %s %s", how, style);
	plot_series(pl, b, spec, title);
}

/*
 * PREFIX[-JOB]-A[-B] as a file name, every byte but letters, digits and -
 * made _. The job is named only where several jobs have this kind of figure.
 */
static void figure_name(char *buf, size_t size, const char *prefix, const char *job, const char *a, const char *b)
{
	size_t i;

	snprintf(buf, size, "%s%s%s-%s%s%s", prefix, job ? "-" : "", job ?: "", a, b ? "-" : "", b ?: "");
	for (i = 0; buf[i]; i++)
		if (!((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
		      (buf[i] >= '0' && buf[i] <= '9') || buf[i] == '-'))
			buf[i] = '_';
}

/*
 * The next free figure, not yet counted: figure_done() counts it once
 * gnuplot has drawn it, so a failed plot leaves no entry behind.
 */
static struct figure *figure_new(struct figures *out, const char *group)
{
	struct figure *f;

	if (out->n == FIGURES_MAX || out->no_gnuplot)
		return NULL;
	f = &out->f[out->n];
	memset(f, 0, sizeof(*f));
	snprintf(f->group, sizeof(f->group), "%s", group);
	return f;
}

static void figure_done(struct figures *out, struct plot *p)
{
	int rc = plot_end(p);

	if (rc == 0)
		out->n++;
	else
		out->failed++;
	/* Said once: every other plot would fail the same way. */
	out->no_gnuplot |= rc == PLOT_NO_GNUPLOT;
}

static int seen(struct sect *const *c, size_t i, int same_method)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcmp(c[k]->fs, c[i]->fs) &&
		    (same_method ? !strcmp(c[k]->method, c[i]->method) : !strcmp(c[k]->name, c[i]->name)))
			return 1;
	return 0;
}

/* Any source timed under TCG (or not saying) makes the whole plot emulated time. */
static int is_tcg(struct source *src, int nsrc)
{
	int i, tcg = 0;

	for (i = 0; i < nsrc; i++) {
		const char *a = json_string_value(json_path(src[i].run.info, "accel.name"));

		tcg |= !a || !strcmp(a, "tcg");
	}
	return tcg;
}

static int accels_differ(struct source *src, int nsrc)
{
	int i;

	for (i = 1; i < nsrc; i++)
		if (strcmp(json_string_value(json_path(src[i].run.info, "accel.name")) ?: "",
			   json_string_value(json_path(src[0].run.info, "accel.name")) ?: ""))
			return 1;
	return 0;
}

static const char *time_kind(struct source *src, int nsrc)
{
	if (accels_differ(src, nsrc))
		return "The runs used different accelerators: their times are not comparable with each other";
	return is_tcg(src, nsrc) ? "Times are TCG-emulated ns: compare the lines with each other, not with hardware" :
				   "Times are ns under KVM";
}

/* One kind of figure: one row of figure_ops[] below. */
struct figure_ops {
	const char *name;		/* NAME[-JOB]-...: a series plot's is its metric's key */
	const char *group;		/* the report section its figures go in */
	const char *metric;		/* the series it plots; NULL: it reads struct sect */
	int (*wants)(const struct sect *s);	/* the sections it is drawn from; NULL: none */
	/* The figures of one job; name_job when other jobs have this kind too. */
	void (*draw)(struct figctx *fc, const struct figure_ops *op, const char *job, int name_job);
	const char *what;		/* a series plot's y axis */
	int logy;
};

/* A series of op's metric that op draws: its section is one op wants. */
static struct series *op_series(struct figctx *fc, const struct figure_ops *op, int src, const char *kernel,
				const char *fs, const char *mode, const char *job, const char *section)
{
	struct series *x = run_find(&fc->src[src].run, kernel, fs, mode, job, section, op->metric);
	struct sect *s;

	if (!x || !(s = sect_find(fc, src, kernel, fs, mode, job, section)) || !op->wants(s))
		return NULL;
	return x;
}

static int op_takes(struct figctx *fc, const struct figure_ops *op, const struct sect *s)
{
	return op->wants(s) && (!op->metric || op_series(fc, op, s->src, s->kernel, s->fs, s->mode, s->job, s->name));
}

/* The sections of job that op draws, in line order; the caller frees *out. */
static size_t op_sections(struct figctx *fc, const struct figure_ops *op, const char *job, struct sect ***out)
{
	struct sect **sel = calloc(fc->n ?: 1, sizeof(*sel));
	size_t i, n = 0;

	if (!sel)
		abort();
	for (i = 0; i < fc->n; i++)
		if (!strcmp(fc->s[i].job, job) && op_takes(fc, op, &fc->s[i]))
			sel[n++] = &fc->s[i];
	qsort(sel, n, sizeof(*sel), by_line);
	*out = sel;
	return n;
}

/* First-touch fault latency CDF per (fs, section): one line per mode. */
static void fault_cdfs(struct figctx *fc, const struct figure_ops *op, const char *job, int name_job)
{
	struct source *src = fc->src;
	int nsrc = fc->nsrc;
	struct sect **c;
	size_t n = op_sections(fc, op, job, &c), i, k, p;

	for (i = 0; i < n; i++) {
		struct figure *f;
		struct plot pl;

		if (seen(c, i, 0) || !(f = figure_new(fc->out, op->group)))
			continue;
		figure_name(f->name, sizeof(f->name), op->name, name_job ? job : NULL, c[i]->fs, c[i]->name);
		snprintf(f->title, sizeof(f->title), "First-touch write fault latency CDF: %s, %s%s%s", c[i]->fs,
			 c[i]->name, name_job ? ", job " : "", name_job ? job : "");
		snprintf(f->caption, sizeof(f->caption),
			 "Each page's (or 2 MiB region's) first write, timed in the guest. Each point is one percentile; "
			 "its latency is the median over the repetitions. %s.", time_kind(src, nsrc));
		if (plot_begin(&pl, fc->dir, f->name, f->title,
			       is_tcg(src, nsrc) ? "fault latency (ns, TCG-emulated)" : "fault latency (ns)",
			       "percentile of faults") < 0) {
			fc->out->failed++;
			continue;
		}
		plot_set(&pl, "set key inside right bottom\nset logscale x\nset yrange [0:100]\nset format x '%%.0s%%c'");
		for (k = i; k < n; k++) {
			int b;

			if (strcmp(c[k]->fs, c[i]->fs) || strcmp(c[k]->name, c[i]->name))
				continue;
			b = plot_block(&pl);
			for (p = 0; p < NPCT; p++) {
				struct sample_stats st;

				sample_stats_of(c[k]->ft[p], c[k]->nft, &st);
				plot_data(&pl, "%.0f %s", st.median, pct_keys[p]);
			}
			plot_block_end(&pl);
			add_line(&pl, src, nsrc, c[k]->src, c[k]->kernel, c[k]->mode, b, "1:2 with linespoints");
		}
		figure_done(fc->out, &pl);
	}
	free(c);
}

static int by_dirty(const void *a, const void *b)
{
	const struct sect *x = *(const struct sect *const *)a, *y = *(const struct sect *const *)b;

	return (x->dirty > y->dirty) - (x->dirty < y->dirty);
}

static int same_line(const struct sect *a, const struct sect *b)
{
	return a->src == b->src && !strcmp(a->kernel, b->kernel) && !strcmp(a->mode, b->mode) &&
	       !strcmp(a->fs, b->fs) && !strcmp(a->method, b->method);
}

/* p50 of the persist call (the persist_p50 series) against the pages dirtied before it, per (fs, method). */
static void persist_plots(struct figctx *fc, const struct figure_ops *op, const char *job, int name_job)
{
	struct source *src = fc->src;
	int nsrc = fc->nsrc;
	struct sect **c;
	size_t n = op_sections(fc, op, job, &c), i, k, j;

	for (i = 0; i < n; i++) {
		struct sect *line[64];
		struct figure *f;
		struct plot pl;
		char ylabel[160];

		if (seen(c, i, 1) || !(f = figure_new(fc->out, op->group)))
			continue;
		figure_name(f->name, sizeof(f->name), op->name, name_job ? job : NULL, c[i]->method, c[i]->fs);
		snprintf(f->title, sizeof(f->title), "%s latency against the dirty set: %s%s%s", c[i]->method, c[i]->fs,
			 name_job ? ", job " : "", name_job ? job : "");
		snprintf(f->caption, sizeof(f->caption),
			 "The file is preallocated; pages written between two %s calls on the x axis. Points are the "
			 "median over repetitions of each repetition's p50, bars its min and max. %s.",
			 c[i]->method, time_kind(src, nsrc));
		snprintf(ylabel, sizeof(ylabel), "%s p50 (ns%s)", c[i]->method, is_tcg(src, nsrc) ? ", TCG-emulated" : "");
		if (plot_begin(&pl, fc->dir, f->name, f->title, "dirty pages per call", ylabel) < 0) {
			fc->out->failed++;
			continue;
		}
		plot_set(&pl, "set key inside left top\nset logscale xy\nset format y '%%.0s%%c'\nset offsets graph 0.05, graph 0.05, 0, 0");
		/* One line per (source, kernel, mode), its points in dirty-set order. */
		for (k = i; k < n; k++) {
			size_t m = 0;
			int b;

			if (strcmp(c[k]->fs, c[i]->fs) || strcmp(c[k]->method, c[i]->method))
				continue;
			for (j = i; j < k && !same_line(c[j], c[k]); j++)
				;
			if (j < k)
				continue; /* this line was drawn with its first point */
			for (j = k; j < n && m < 64; j++)
				if (same_line(c[j], c[k]))
					line[m++] = c[j];
			qsort(line, m, sizeof(line[0]), by_dirty);
			b = plot_block(&pl);
			for (j = 0; j < m; j++) {
				struct series *x = run_find(&src[line[j]->src].run, line[j]->kernel, line[j]->fs,
							    line[j]->mode, line[j]->job, line[j]->name, op->metric);
				struct sample_stats st;

				sample_stats_of(x->v, x->n, &st);
				plot_data(&pl, "%g %.0f %.0f %.0f", line[j]->dirty, st.median, st.min, st.max);
			}
			plot_block_end(&pl);
			add_line(&pl, src, nsrc, c[k]->src, c[k]->kernel, c[k]->mode, b, "1:2:3:4 with yerrorlines");
		}
		figure_done(fc->out, &pl);
	}
	free(c);
}

static int metric_is_time(const char *key)
{
	const struct metric *m;

	for (m = metrics; m->key; m++)
		if (!strcmp(m->key, key))
			return m->emulated_time;
	return 0;
}

static const char *const bench_modes[] = { "shared", "sync", "aware", "sync+aware" };

/* Distinct values of one field over op's series of job[, fs], in order of appearance. */
static int distinct(struct figctx *fc, const struct figure_ops *op, const char *job, const char *fs,
		    int want_section, char (*out)[64], int max)
{
	int s, i, n = 0;
	size_t k;

	for (s = 0; s < fc->nsrc; s++)
		for (k = 0; k < fc->src[s].run.n; k++) {
			struct series *x = &fc->src[s].run.s[k];
			const char *v = want_section ? x->section : x->fs;

			if (strcmp(x->job, job) || strcmp(x->metric->key, op->metric) || (fs && strcmp(x->fs, fs)) ||
			    !op_series(fc, op, s, x->kernel, x->fs, x->mode, x->job, x->section))
				continue;
			for (i = 0; i < n && strcmp(out[i], v); i++)
				;
			if (i == n && n < max)
				snprintf(out[n++], sizeof(out[0]), "%s", v);
		}
	return n;
}

struct spread_line {
	int src;
	const char *kernel, *mode;
};

/* The (source, kernel, mode) lines that have data in any section. */
static int spread_lines(struct figctx *fc, const struct figure_ops *op, const char *job, const char *fs,
			char (*sections)[64], int nsec, struct spread_line *out, int max)
{
	int s, m, i, n = 0;
	const char *kn;
	json_t *kv;

	for (s = 0; s < fc->nsrc; s++)
		json_object_foreach(json_object_get(fc->src[s].run.info, "kernels"), kn, kv)
			for (m = 0; m < 4; m++)
				for (i = 0; i < nsec && n < max; i++)
					if (op_series(fc, op, s, kn, fs, bench_modes[m], job, sections[i])) {
						out[n++] = (struct spread_line){ s, kn, bench_modes[m] };
						break;
					}
	return n;
}

/*
 * Median with min-max bars of one metric, per job section (x) and per line
 * (source, kernel, mode), the lines side by side within a section; one plot
 * per filesystem.
 */
static void spread_plots(struct figctx *fc, const struct figure_ops *op, const char *job, int name_job)
{
	struct source *src = fc->src;
	int nsrc = fc->nsrc;
	char fss[4][64], sections[16][64];
	struct spread_line lines[64];
	int nfs, nsec, nlines, fi, i, l;

	nfs = distinct(fc, op, job, NULL, 0, fss, 4);
	for (fi = 0; fi < nfs; fi++) {
		struct figure *f = figure_new(fc->out, op->group);
		struct plot pl;

		if (!f)
			return;
		nsec = distinct(fc, op, job, fss[fi], 1, sections, 16);
		nlines = spread_lines(fc, op, job, fss[fi], sections, nsec, lines, 64);
		figure_name(f->name, sizeof(f->name), op->name, name_job ? job : NULL, fss[fi], NULL);
		snprintf(f->title, sizeof(f->title), "%s per mode: %s, job %s", op->what, fss[fi], job);
		snprintf(f->caption, sizeof(f->caption),
			 "Points are medians over repetitions, bars the min and max repetition.%s",
			 metric_is_time(op->metric) ? (is_tcg(src, nsrc) ?
			 " Throughput under TCG: compare modes with each other, not with hardware." : "") :
			 " Counted by the TCG plugin, not timed: comparable across runs on any host.");
		if (plot_begin(&pl, fc->dir, f->name, f->title, "job section", op->what) < 0) {
			fc->out->failed++;
			continue;
		}
		plot_set(&pl, "set xrange [-0.5:%d.5]\nset xtics rotate by -20 nomirror", nsec - 1);
		plot_set(&pl, op->logy ? "set logscale y\nset format y '%%.0s%%c'" : "set yrange [0:*]");
		{
			char *xt = NULL;
			size_t xtlen = 0;
			FILE *m = open_memstream(&xt, &xtlen);

			if (!m)
				abort();
			fputs("set xtics (", m);
			for (i = 0; i < nsec; i++) {
				fputs(i ? ", " : "", m);
				plot_quote(m, sections[i]);
				fprintf(m, " %d", i);
			}
			fclose(m);
			plot_set(&pl, "%s)", xt);
			free(xt);
		}
		for (l = 0; l < nlines; l++) {
			struct spread_line *ln = &lines[l];
			int b = plot_block(&pl);

			for (i = 0; i < nsec; i++) {
				struct series *x = op_series(fc, op, ln->src, ln->kernel, fss[fi], ln->mode, job,
							     sections[i]);
				struct sample_stats st;

				if (!x || !x->n)
					continue;
				sample_stats_of(x->v, x->n, &st);
				plot_data(&pl, "%.3f %g %g %g", i + (l + 0.5) / nlines * 0.8 - 0.4,
					  st.median, st.min, st.max);
			}
			plot_block_end(&pl);
			add_line(&pl, src, nsrc, ln->src, ln->kernel, ln->mode, b, "1:2:3:4 with yerrorbars");
		}
		figure_done(fc->out, &pl);
	}
}

/* Verdict counts per scenario and filesystem, stacked: from crash/summary.json, not from jobs. */
static void crash_plot(struct figctx *fc, const struct figure_ops *op, const char *job, int name_job)
{
	static const struct {
		const char *verdict, *colour;
	} verdicts[] = {
		{ "intact", "#2ca02c" }, { "lost", "#ff7f0e" }, { "torn", "#9467bd" }, { "fs-corrupt", "#d62728" },
	};
	struct source *src = fc->src;
	struct figure *f;
	struct plot pl;
	json_t *row;
	size_t k, v;
	int s, any = 0, b;

	(void)job;
	(void)name_job;
	for (s = 0; s < fc->nsrc; s++)
		any |= json_array_size(json_object_get(src[s].crash, "scenarios")) > 0;
	if (!any || !(f = figure_new(fc->out, op->group)))
		return;
	snprintf(f->name, sizeof(f->name), "%s", op->name);
	snprintf(f->title, sizeof(f->title), "Crash image verdicts per scenario and filesystem");
	snprintf(f->caption, sizeof(f->caption),
		 "Every crash image was recovered in a fresh guest: mounted, its acknowledged records verified, "
		 "and fsck run. Bars count images by verdict.");
	if (plot_begin(&pl, fc->dir, f->name, f->title, "", "crash images") < 0) {
		fc->out->failed++;
		return;
	}
	plot_set(&pl, "set style data histogram\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
		      "set boxwidth 0.75\nset xtics rotate by -35 nomirror\nset yrange [0:*]\nset bmargin 9");
	b = plot_block(&pl);
	for (s = 0; s < fc->nsrc; s++)
		json_array_foreach(json_object_get(src[s].crash, "scenarios"), k, row) {
			json_t *vd = json_object_get(row, "verdicts");
			char name[512], label[520];

			snprintf(name, sizeof(name), "%s%s%s %s", src[s].tag, src[s].tag[0] ? " " : "",
				 json_string_value(json_object_get(row, "scenario")) ?: "?",
				 json_string_value(json_object_get(row, "fs")) ?: "?");
			plot_label(label, sizeof(label), name);
			plot_data(&pl, "%s %lld %lld %lld %lld", label,
				  (long long)json_integer_value(json_object_get(vd, "intact")),
				  (long long)json_integer_value(json_object_get(vd, "lost")),
				  (long long)json_integer_value(json_object_get(vd, "torn")),
				  (long long)json_integer_value(json_object_get(vd, "fs-corrupt")));
		}
	plot_block_end(&pl);
	for (v = 0; v < 4; v++) {
		char spec[128];

		snprintf(spec, sizeof(spec), "using %zu%s lc rgb '%s'", v + 2, v ? "" : ":xtic(1)", verdicts[v].colour);
		plot_series(&pl, b, spec, verdicts[v].verdict);
	}
	figure_done(fc->out, &pl);
}

/*
 * What a section measured, from its data. Every writer section reports every
 * number (first touches, persist calls, instructions, bandwidth), so "has the
 * metric" alone would draw each figure for every job; these say which
 * sections a figure is about.
 */

/* It timed no persist call (persist=none, or it made none): what it measured is its faults. */
static int fault_section(const struct sect *s)
{
	return !s->persists;
}

static int fault_latency(const struct sect *s)
{
	return fault_section(s) && s->has_ft;
}

/* It timed persist calls, and the job has the same method at another dirty set: a curve, not a point. */
static int persist_sweep(const struct sect *s)
{
	return s->persists && s->sweep && s->method[0] && strcmp(s->method, "none");
}

/* It persisted as it wrote, and wrote pages it had touched before: a steady state, not a first pass. */
static int steady_state(const struct sect *s)
{
	return s->persists && s->rewrites;
}

/* The report's figures, in the order they appear in it. */
static const struct figure_ops figure_ops[] = {
	/* Sections with first-touch percentiles that timed no persist call; curves, not series. */
	{ .name = "fault-cdf", .group = "First-touch fault latency", .wants = fault_latency, .draw = fault_cdfs },
	/* Series insn_fault of the sections that timed no persist call. */
	{ .name = "insn_fault", .group = "Guest kernel instructions per fault", .metric = "insn_fault",
	  .wants = fault_section, .draw = spread_plots, .what = "kernel instructions per fault", .logy = 1 },
	/* Series persist_p50 of the sections whose method's dirty set varies within their job. */
	{ .name = "persist", .group = "msync and fsync cost", .metric = "persist_p50", .wants = persist_sweep,
	  .draw = persist_plots },
	/* Series bw of the sections that persisted as they rewrote pages. */
	{ .name = "bw", .group = "Throughput", .metric = "bw", .wants = steady_state, .draw = spread_plots,
	  .what = "write MiB/s" },
	/* The crash summary's scenarios (crash/summary.json): no job sections. */
	{ .name = "crash-verdicts", .group = CRASH_GROUP, .draw = crash_plot },
	{ .name = NULL },
};

#define JOBS_MAX 64

void figures_make(struct source *src, int nsrc, const char *dir, struct figures *out)
{
	struct figctx fc = { .src = src, .nsrc = nsrc, .dir = dir, .out = out };
	const struct figure_ops *op;

	memset(out, 0, sizeof(*out));
	collect_all(&fc);
	for (op = figure_ops; op->name; op++) {
		char jobs[JOBS_MAX][64];
		int n = 0, j;
		size_t i;

		if (!op->wants) {
			op->draw(&fc, op, NULL, 0);
			continue;
		}
		/* Every job that has sections this figure wants, in order of appearance. */
		for (i = 0; i < fc.n; i++) {
			if (!op_takes(&fc, op, &fc.s[i]))
				continue;
			for (j = 0; j < n && strcmp(jobs[j], fc.s[i].job); j++)
				;
			if (j == n && n < JOBS_MAX)
				snprintf(jobs[n++], sizeof(jobs[0]), "%s", fc.s[i].job);
		}
		for (j = 0; j < n; j++)
			op->draw(&fc, op, jobs[j], n > 1);
	}
	free(fc.s);
}
