// SPDX-License-Identifier: GPL-2.0
/*
 * The report's plots: see figures.h. Every figure is a gnuplot script with
 * its data inline (results/plot.c); this file decides what goes in them.
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
#define P50 6

static const struct {
	const char *mode, *colour;
} mode_colours[] = {
	{ "shared", "#1f77b4" }, { "sync", "#ff7f0e" }, { "aware", "#2ca02c" }, { "sync+aware", "#d62728" },
};

/* Latency percentiles of one (source, kernel, fs, mode, section), per repetition. */
struct curve {
	int src;
	size_t seq;			/* order of first appearance: the last tie-break */
	char kernel[64], fs[16], mode[24], section[64], method[16];
	double dirty;			/* pages per persist call */
	double v[NPCT][SERIES_MAX_REPS];
	size_t n;
};

struct curves {
	struct curve *c;
	size_t n, cap;
	int src;
	const char *job, *lat;		/* which job, and which latency object in its sections */
};

static struct curve *curve_get(struct curves *cs, json_t *cell, const char *section)
{
	const char *k = json_string_value(json_object_get(cell, "kernel"));
	const char *fs = json_string_value(json_object_get(cell, "fs"));
	const char *mode = json_string_value(json_object_get(cell, "mode"));
	struct curve *c;
	size_t i;

	if (!k || !fs || !mode)
		return NULL;
	for (i = 0; i < cs->n; i++) {
		c = &cs->c[i];
		if (c->src == cs->src && !strcmp(c->kernel, k) && !strcmp(c->fs, fs) && !strcmp(c->mode, mode) &&
		    !strcmp(c->section, section))
			return c;
	}
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 32;
		cs->c = realloc(cs->c, cs->cap * sizeof(*cs->c));
		if (!cs->c)
			abort();
	}
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	c->seq = cs->n;
	c->src = cs->src;
	snprintf(c->kernel, sizeof(c->kernel), "%s", k);
	snprintf(c->fs, sizeof(c->fs), "%s", fs);
	snprintf(c->mode, sizeof(c->mode), "%s", mode);
	snprintf(c->section, sizeof(c->section), "%s", section);
	return c;
}

static void collect(void *ctx, json_t *cell, json_t *section)
{
	struct curves *cs = ctx;
	char path[128];
	json_t *pct;
	struct curve *c;
	size_t i;

	if (strcmp(json_string_value(json_object_get(cell, "job")) ?: "", cs->job))
		return;
	snprintf(path, sizeof(path), "%s.lat_ns.percentile", cs->lat);
	pct = json_path(section, path);
	snprintf(path, sizeof(path), "%s.lat_ns.N", cs->lat);
	if (!json_is_object(pct) || json_integer_value(json_path(section, path)) <= 0)
		return;
	c = curve_get(cs, cell, json_string_value(json_object_get(section, "jobname")));
	if (!c || c->n == SERIES_MAX_REPS)
		return;
	for (i = 0; i < NPCT; i++)
		if (!json_is_number(json_object_get(pct, pct_keys[i])))
			return;
	for (i = 0; i < NPCT; i++)
		c->v[i][c->n] = json_number_value(json_object_get(pct, pct_keys[i]));
	c->dirty = json_number_value(json_path(section, "pmem.persist_calls.dirty_pages_per_call"));
	snprintf(c->method, sizeof(c->method), "%s", json_string_value(json_path(section, "pmem.persist")) ?: "");
	c->n++;
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
	const struct curve *x = a, *y = b;
	int d;

	if (x->src != y->src)
		return x->src - y->src;
	if ((d = strcmp(x->kernel, y->kernel)))
		return d;
	if ((d = mode_rank(x->mode) - mode_rank(y->mode)))
		return d;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void collect_all(struct source *src, int nsrc, struct curves *cs, const char *job, const char *lat)
{
	memset(cs, 0, sizeof(*cs));
	cs->job = job;
	cs->lat = lat;
	/* cs->src tells collect() which source the sections come from. */
	for (cs->src = 0; cs->src < nsrc; cs->src++)
		if (src[cs->src].run.info)
			run_foreach_section(&src[cs->src].run, collect, cs, 0);
	if (cs->n) /* a crash run has no bench sections: cs->c is NULL */
		qsort(cs->c, cs->n, sizeof(*cs->c), by_line);
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

static void safe_name(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t i;

	snprintf(buf, size, fmt, a, b);
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

static int seen(const struct curve *c, size_t i, int same_method)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcmp(c[k].fs, c[i].fs) &&
		    (same_method ? !strcmp(c[k].method, c[i].method) : !strcmp(c[k].section, c[i].section)))
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

/* First-touch fault latency CDF per (fs, faults section): one line per mode. */
static void fault_cdfs(struct source *src, int nsrc, const char *dir, struct figures *out)
{
	struct curves cs;
	size_t i, k, p;

	collect_all(src, nsrc, &cs, "faults", "pmem.first_touch");
	for (i = 0; i < cs.n; i++) {
		struct figure *f;
		struct plot pl;

		if (seen(cs.c, i, 0) || !(f = figure_new(out, "First-touch fault latency")))
			continue;
		safe_name(f->name, sizeof(f->name), "fault-cdf-%s-%s", cs.c[i].fs, cs.c[i].section);
		snprintf(f->title, sizeof(f->title), "First-touch write fault latency CDF: %s, %s", cs.c[i].fs,
			 cs.c[i].section);
		snprintf(f->caption, sizeof(f->caption),
			 "Each page's (or 2 MiB region's) first write, timed in the guest. Each point is one percentile; "
			 "its latency is the median over the repetitions. %s.", time_kind(src, nsrc));
		if (plot_begin(&pl, dir, f->name, f->title, is_tcg(src, nsrc) ? "fault latency (ns, TCG-emulated)" : "fault latency (ns)", "percentile of faults") < 0) {
			out->failed++;
			continue;
		}
		plot_set(&pl, "set key inside right bottom\nset logscale x\nset yrange [0:100]\nset format x '%%.0s%%c'");
		for (k = i; k < cs.n; k++) {
			struct curve *c = &cs.c[k];
			int b;

			if (strcmp(c->fs, cs.c[i].fs) || strcmp(c->section, cs.c[i].section))
				continue;
			b = plot_block(&pl);
			for (p = 0; p < NPCT; p++) {
				struct sample_stats st;

				sample_stats_of(c->v[p], c->n, &st);
				plot_data(&pl, "%.0f %s", st.median, pct_keys[p]);
			}
			plot_block_end(&pl);
			add_line(&pl, src, nsrc, c->src, c->kernel, c->mode, b, "1:2 with linespoints");
		}
		figure_done(out, &pl);
	}
	free(cs.c);
}

static int by_dirty(const void *a, const void *b)
{
	const struct curve *x = *(const struct curve *const *)a, *y = *(const struct curve *const *)b;

	return (x->dirty > y->dirty) - (x->dirty < y->dirty);
}

/* p50 of the persist call against the pages dirtied before it, per (fs, method). */
static void persist_plots(struct source *src, int nsrc, const char *dir, struct figures *out)
{
	struct curves cs;
	size_t i, k, j;

	collect_all(src, nsrc, &cs, "persist", "pmem.persist_calls");
	for (i = 0; i < cs.n; i++) {
		struct curve *line[64];
		struct figure *f;
		struct plot pl;
		char ylabel[160];

		if (!cs.c[i].method[0] || !strcmp(cs.c[i].method, "none") || seen(cs.c, i, 1) ||
		    !(f = figure_new(out, "msync and fsync cost")))
			continue;
		safe_name(f->name, sizeof(f->name), "persist-%s-%s", cs.c[i].method, cs.c[i].fs);
		snprintf(f->title, sizeof(f->title), "%s latency against the dirty set: %s", cs.c[i].method, cs.c[i].fs);
		snprintf(f->caption, sizeof(f->caption),
			 "The file is preallocated; pages written between two %s calls on the x axis. Points are the "
			 "median over repetitions of each repetition's p50, bars its min and max. %s.",
			 cs.c[i].method, time_kind(src, nsrc));
		snprintf(ylabel, sizeof(ylabel), "%s p50 (ns%s)", cs.c[i].method, is_tcg(src, nsrc) ? ", TCG-emulated" : "");
		if (plot_begin(&pl, dir, f->name, f->title, "dirty pages per call", ylabel) < 0) {
			out->failed++;
			continue;
		}
		plot_set(&pl, "set key inside left top\nset logscale xy\nset format y '%%.0s%%c'\nset offsets graph 0.05, graph 0.05, 0, 0");
		/* One line per (source, kernel, mode), its points in dirty-set order. */
		for (k = i; k < cs.n; k++) {
			struct curve *c = &cs.c[k];
			size_t n = 0;
			int b;

			if (strcmp(c->fs, cs.c[i].fs) || strcmp(c->method, cs.c[i].method))
				continue;
			for (j = i; j < k; j++)
				if (cs.c[j].src == c->src && !strcmp(cs.c[j].kernel, c->kernel) &&
				    !strcmp(cs.c[j].mode, c->mode) && !strcmp(cs.c[j].fs, c->fs) &&
				    !strcmp(cs.c[j].method, c->method))
					break;
			if (j < k)
				continue; /* this line was drawn with its first point */
			for (j = k; j < cs.n && n < 64; j++)
				if (cs.c[j].src == c->src && !strcmp(cs.c[j].kernel, c->kernel) &&
				    !strcmp(cs.c[j].mode, c->mode) && !strcmp(cs.c[j].fs, c->fs) &&
				    !strcmp(cs.c[j].method, c->method))
					line[n++] = &cs.c[j];
			qsort(line, n, sizeof(line[0]), by_dirty);
			b = plot_block(&pl);
			for (j = 0; j < n; j++) {
				struct sample_stats st;

				sample_stats_of(line[j]->v[P50], line[j]->n, &st);
				plot_data(&pl, "%g %.0f %.0f %.0f", line[j]->dirty, st.median, st.min, st.max);
			}
			plot_block_end(&pl);
			add_line(&pl, src, nsrc, c->src, c->kernel, c->mode, b, "1:2:3:4 with yerrorlines");
		}
		figure_done(out, &pl);
	}
	free(cs.c);
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

/* Distinct values of one field over the series of (job, metric[, fs]), in order of appearance. */
static int distinct(struct source *src, int nsrc, const char *job, const char *metric, const char *fs,
		    int want_section, char (*out)[64], int max)
{
	int s, i, n = 0;
	size_t k;

	for (s = 0; s < nsrc; s++)
		for (k = 0; k < src[s].run.n; k++) {
			struct series *x = &src[s].run.s[k];
			const char *v = want_section ? x->section : x->fs;

			if (strcmp(x->job, job) || strcmp(x->metric->key, metric) || (fs && strcmp(x->fs, fs)))
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
static int spread_lines(struct source *src, int nsrc, const char *job, const char *metric, const char *fs,
			char (*sections)[64], int nsec, struct spread_line *out, int max)
{
	int s, m, i, n = 0;
	const char *kn;
	json_t *kv;

	for (s = 0; s < nsrc; s++)
		json_object_foreach(json_object_get(src[s].run.info, "kernels"), kn, kv)
			for (m = 0; m < 4; m++)
				for (i = 0; i < nsec && n < max; i++)
					if (run_find(&src[s].run, kn, fs, bench_modes[m], job, sections[i], metric)) {
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
static void spread_plots(struct source *src, int nsrc, const char *dir, struct figures *out,
			 const char *job, const char *metric, const char *group, const char *what, int logy)
{
	char fss[4][64], sections[16][64];
	struct spread_line lines[64];
	int nfs, nsec, nlines, fi, i, l;

	nfs = distinct(src, nsrc, job, metric, NULL, 0, fss, 4);
	for (fi = 0; fi < nfs; fi++) {
		struct figure *f = figure_new(out, group);
		struct plot pl;

		if (!f)
			return;
		nsec = distinct(src, nsrc, job, metric, fss[fi], 1, sections, 16);
		nlines = spread_lines(src, nsrc, job, metric, fss[fi], sections, nsec, lines, 64);
		safe_name(f->name, sizeof(f->name), "%s-%s", metric, fss[fi]);
		snprintf(f->title, sizeof(f->title), "%s per mode: %s, job %s", what, fss[fi], job);
		snprintf(f->caption, sizeof(f->caption),
			 "Points are medians over repetitions, bars the min and max repetition.%s",
			 metric_is_time(metric) ? (is_tcg(src, nsrc) ?
			 " Throughput under TCG: compare modes with each other, not with hardware." : "") :
			 " Counted by the TCG plugin, not timed: comparable across runs on any host.");
		if (plot_begin(&pl, dir, f->name, f->title, "job section", what) < 0) {
			out->failed++;
			continue;
		}
		plot_set(&pl, "set xrange [-0.5:%d.5]\nset xtics rotate by -20 nomirror", nsec - 1);
		plot_set(&pl, logy ? "set logscale y\nset format y '%%.0s%%c'" : "set yrange [0:*]");
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
				struct series *x = run_find(&src[ln->src].run, ln->kernel, fss[fi], ln->mode, job,
							    sections[i], metric);
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
		figure_done(out, &pl);
	}
}

/* Verdict counts per scenario and filesystem, stacked. */
static void crash_plot(struct source *src, int nsrc, const char *dir, struct figures *out)
{
	static const struct {
		const char *verdict, *colour;
	} verdicts[] = {
		{ "intact", "#2ca02c" }, { "lost", "#ff7f0e" }, { "torn", "#9467bd" }, { "fs-corrupt", "#d62728" },
	};
	struct figure *f;
	struct plot pl;
	json_t *row;
	size_t k, v;
	int s, any = 0, b;

	for (s = 0; s < nsrc; s++)
		any |= json_array_size(json_object_get(src[s].crash, "scenarios")) > 0;
	if (!any || !(f = figure_new(out, CRASH_GROUP)))
		return;
	snprintf(f->name, sizeof(f->name), "crash-verdicts");
	snprintf(f->title, sizeof(f->title), "Crash image verdicts per scenario and filesystem");
	snprintf(f->caption, sizeof(f->caption),
		 "Every crash image was recovered in a fresh guest: mounted, its acknowledged records verified, "
		 "and fsck run. Bars count images by verdict.");
	if (plot_begin(&pl, dir, f->name, f->title, "", "crash images") < 0) {
		out->failed++;
		return;
	}
	plot_set(&pl, "set style data histogram\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
		      "set boxwidth 0.75\nset xtics rotate by -35 nomirror\nset yrange [0:*]\nset bmargin 9");
	b = plot_block(&pl);
	for (s = 0; s < nsrc; s++)
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
	figure_done(out, &pl);
}

void figures_make(struct source *src, int nsrc, const char *dir, struct figures *out)
{
	memset(out, 0, sizeof(*out));
	fault_cdfs(src, nsrc, dir, out);
	spread_plots(src, nsrc, dir, out, "faults", "insn_fault", "Guest kernel instructions per fault",
		     "kernel instructions per fault", 1);
	persist_plots(src, nsrc, dir, out);
	spread_plots(src, nsrc, dir, out, "throughput", "bw", "Throughput", "write MiB/s", 0);
	crash_plot(src, nsrc, dir, out);
}
