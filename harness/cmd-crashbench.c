// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness crashbench: how fast the checker judges crash images.
 *
 * It takes the kept images of a crash run (crashtest --keep), so every pass
 * checks the same bytes, and checks them all --reps times through the same
 * path crashtest uses (crash-inject/run/checker.c): one checker guest per scenario
 * and filesystem, each image with mount, verification, umount and fsck.
 * Identical images are checked once, as in crashtest. Each pass must give
 * every image the verdict the run gave it; a disagreement is a checker bug
 * and fails the bench.
 *
 * results/runs/<run-id>/: run.json, crashbench.json (the table), and
 * cells/<kernel>__<fs>__<mode>__crashbench.json with one rep per pass, so
 * make compare sets two versions' checking speeds side by side.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../crash-inject/image.h"
#include "../results/series.h"
#include "../results/stats.h"
#include "../vm/accel.h"
#include "../lib/cache_dir.h"
#include "builtin.h"
#include "../crash-inject/run/checker.h"
#include "../lib/jsonio.h"
#include "../vm/runinfo.h"
#include "../lib/rundir.h"

#define MAX_SET 4000
#define MAX_REPS 16

/* One scenario x filesystem of the image set. */
struct bench_row {
	const char *scenario, *fs, *mode, *platform;
	char dir[PATH_MAX];
	struct ack_rec *acks;
	size_t nacks;
	char **files;		/* image files, in the run's order */
	char **expect;		/* the verdict the run gave each */
	struct check_item *items;
	size_t n, twins;
	/* per pass */
	double seconds[MAX_REPS];
	size_t checked[MAX_REPS];
	size_t disagree;
	struct check_phases *phases;	/* every checked image of every pass */
	size_t nphases;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A run's directories, private and ours, or one line saying why not. */
static int make_dir(const char *dir)
{
	char why[1600];

	if (run_dir_make(dir, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "crashbench: %s\n", why);
	return -1;
}

static int write_file(void *ctx, size_t i, const char *dst)
{
	const struct bench_row *row = ctx;

	return image_rewrite(row->files[i], dst);
}

/* The kept images of one row; 0 when it has none worth timing. */
static size_t load_row(struct bench_row *row, const char *crash_dir)
{
	char path[PATH_MAX];
	size_t i;

	snprintf(row->dir, sizeof(row->dir), "%s/%s__%s", crash_dir, row->scenario, row->fs);
	snprintf(path, sizeof(path), "%s/acks.log", row->dir);
	if (ack_log_load(path, &row->acks, &row->nacks) < 0) {
		fprintf(stderr, "crashbench: %s: no readable ack log; skipped\n", row->dir);
		return 0;
	}
	row->files = calloc(MAX_SET, sizeof(*row->files));
	row->expect = calloc(MAX_SET, sizeof(*row->expect));
	row->items = calloc(MAX_SET, sizeof(*row->items));
	if (!row->files || !row->expect || !row->items)
		abort();
	for (i = 0; row->n < MAX_SET; i++) {
		json_t *doc;
		const char *file, *verdict;
		struct stat st;

		snprintf(path, sizeof(path), "%s/image-%03zu.json", row->dir, i);
		if (stat(path, &st) < 0)
			break;
		doc = json_load_file(path, 0, NULL);
		file = json_string_value(json_object_get(doc, "file"));
		verdict = json_string_value(json_object_get(doc, "verdict"));
		if (file && verdict && !access(file, R_OK)) {
			row->files[row->n] = strdup(file);
			row->expect[row->n] = strdup(verdict);
			row->items[row->n].acked = json_integer_value(json_object_get(doc, "acked"));
			row->n++;
		}
		json_decref(doc);
	}
	if (!row->n)
		fprintf(stderr, "crashbench: %s: no kept image files (make the set with crashtest --keep); skipped\n",
			row->dir);
	return row->n;
}

/* Identical images (same bytes, same acks) are checked once, as crashtest does. */
static void find_twins(struct bench_row *row)
{
	struct image_sum *sums = calloc(row->n, sizeof(*sums));
	size_t i, j;

	if (!sums)
		abort();
	for (i = 0; i < row->n; i++) {
		row->items[i].same_as = -1;
		if (image_sum(row->files[i], &sums[i]) < 0)
			continue;
		for (j = 0; j < i; j++)
			if (row->items[j].same_as < 0 && sums[j].hi == sums[i].hi && sums[j].lo == sums[i].lo &&
			    row->items[j].acked == row->items[i].acked) {
				row->items[i].same_as = j;
				row->twins++;
				break;
			}
	}
	free(sums);
}

static void run_pass(struct bench_row *row, int rep, struct checker_pool *pool)
{
	struct check_set s = { .fs = row->fs, .acks = row->acks,
			       .nacks = row->nacks, .items = row->items, .nitems = row->n,
			       .write_image = write_file, .ctx = row };
	double t;
	size_t i;

	for (i = 0; i < row->n; i++) {
		json_decref(row->items[i].verdict);
		row->items[i].verdict = NULL;
		memset(&row->items[i].phases, 0, sizeof(row->items[i].phases));
	}
	t = now_s();
	checker_pool_check(pool, &s);
	row->seconds[rep] = now_s() - t;
	for (i = 0; i < row->n; i++) {
		const struct check_item *it = &row->items[i];
		const char *v;

		if (it->same_as >= 0)
			continue;
		row->checked[rep]++;
		row->phases[row->nphases++] = it->phases;
		v = json_string_value(json_object_get(it->verdict, "verdict"));
		if (!v || strcmp(v, row->expect[i])) {
			fprintf(stderr, "crashbench: %s: %s now judged %s, the run said %s\n", row->dir,
				row->files[i], v ? v : "nothing", row->expect[i]);
			row->disagree++;
		}
	}
}

static json_t *rate_json(const double *v, size_t n)
{
	struct sample_stats st;

	sample_stats_of(v, n, &st);
	return json_pack("{s:f, s:f, s:f}", "median", st.median, "min", st.min, "max", st.max);
}

/* One pass of one row, as a bench cell's job section. */
static json_t *pass_section(const struct bench_row *row, int rep, const struct check_phases *p, size_t np)
{
	double s = row->seconds[rep];

	return json_pack("{s:s, s:{s:I, s:I, s:I, s:f, s:f, s:o}}", "jobname", row->scenario, "crashbench",
			 "images", (json_int_t)row->n, "checked", (json_int_t)row->checked[rep], "deduplicated",
			 (json_int_t)row->twins, "seconds", s, "images_per_s", s > 0 ? row->checked[rep] / s : 0.0,
			 "phases", check_phases_json(p, np));
}

/* Every row once, in one pool of checker guests; its boot is timed apart. */
static void run_passes(struct bench_row *rows, size_t nrows, int reps, const struct checker_options *proto,
		       const char *run_dir, double *pass_s, double *boot_s, int *guests)
{
	for (int rep = 0; rep < reps; rep++) {
		struct checker_options o = *proto;
		char dir[PATH_MAX], golden[PATH_MAX];
		struct checker_pool *pool;
		double t0 = now_s(), boot;

		snprintf(dir, sizeof(dir), "%s/pass-%d", run_dir, rep);
		snprintf(golden, sizeof(golden), "%s/images/%s.img", o.build, rows[0].fs);
		o.dir = dir;
		o.golden = golden;
		if (make_dir(dir) < 0 || !(pool = checker_pool_start(&o)))
			return;
		fprintf(stderr, "crashbench: pass %d/%d: booting %d checker guest%s ...\n", rep + 1, reps,
			o.parallel, o.parallel > 1 ? "s" : "");
		checker_pool_ready(pool);
		boot_s[rep] = now_s() - t0;
		for (size_t r = 0; r < nrows; r++) {
			fprintf(stderr, "crashbench: pass %d/%d: %s on %s, %zu images ...\n", rep + 1, reps,
				rows[r].scenario, rows[r].fs, rows[r].n - rows[r].twins);
			run_pass(&rows[r], rep, pool);
		}
		checker_pool_stop(pool, &guests[rep], &boot);
		pass_s[rep] = now_s() - t0;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmem-harness crashbench --images RUN_DIR [--reps N] [--kernel FLAVOUR]\n"
		"                               [--run-id ID] [--results DIR] [--accel A] [--checkers N]\n"
		"Checks the kept images of a crash run (made with crashtest --keep) N times\n"
		"(default 3) and reports images checked per second and the time per phase:\n"
		"the host's write of each image into the checker, the guest's mount, verify,\n"
		"umount and fsck, and the round trip the host sees per image. --checkers N:\n"
		"guests checking at once (default: one per CPU, at most 4; PMEM_CHECKERS).\n");
}

static void print_row(const struct bench_row *row, int reps, json_t *ph, double *rates)
{
	struct sample_stats a;
	char cell[40];

	for (int rep = 0; rep < reps; rep++)
		rates[rep] = row->seconds[rep] > 0 ? row->checked[rep] / row->seconds[rep] : 0;
	sample_stats_of(rates, reps, &a);
	snprintf(cell, sizeof(cell), "%.2f (%.2f-%.2f)", a.median, a.min, a.max);
	printf("  %-26s %-5s %-8s %6zu %6zu %-18s", row->scenario, row->fs, row->platform, row->n, row->twins, cell);
	for (int p = 0; p < NPHASES; p++)
		printf(" %7.0f", json_number_value(json_object_get(json_object_get(ph, check_phase_names[p]),
								   "median_ms")));
	printf("%s\n", row->disagree ? "  VERDICTS DIFFER" : "");
}

int cmd_crashbench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "images", required_argument, NULL, 'I' }, { "reps", required_argument, NULL, 'r' },
		{ "kernel", required_argument, NULL, 'k' }, { "run-id", required_argument, NULL, 'i' },
		{ "results", required_argument, NULL, 'o' }, { "accel", required_argument, NULL, 'a' },
		{ "checkers", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' }, { 0 }
	};
	const char *set = NULL, *kernel = NULL, *results = "results/runs", *accel = "auto";
	char run_id[64] = "", run_dir[PATH_MAX], path[PATH_MAX], acc[16], why[256] = "", kpath[PATH_MAX], ipath[PATH_MAX];
	static struct bench_row rows[64];
	size_t nrows = 0, r, k, total_images = 0, total_twins = 0, total_checked[MAX_REPS] = { 0 };
	int reps = 3, opt, rep, bad = 0, guests[MAX_REPS] = { 0 };
	json_t *summary, *srows, *row_doc, *cells = json_object(), *doc;
	double pass_s[MAX_REPS] = { 0 }, boot_s[MAX_REPS] = { 0 }, rates[MAX_REPS], after[MAX_REPS];
	struct checker_options proto = { 0 };

	optind = 1;
	while ((opt = getopt_long(argc, argv, "I:r:k:i:o:a:c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'I': set = optarg; break;
		case 'r': reps = atoi(optarg); break;
		case 'k': kernel = optarg; break;
		case 'i': snprintf(run_id, sizeof(run_id), "%s", optarg); break;
		case 'o': results = optarg; break;
		case 'a': accel = optarg; break;
		case 'c': proto.parallel = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!set || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "crashbench: --images RUN_DIR is required and --reps must be 1 to %d\n", MAX_REPS);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/crash/summary.json", set);
	summary = json_load_file(path, 0, NULL);
	if (!summary) {
		fprintf(stderr, "crashbench: %s is not a crash run (no crash/summary.json): make one with crashtest --keep\n",
			set);
		return 2;
	}
	if (!kernel)
		kernel = json_string_value(json_object_get(summary, "kernel"));
	if (!proto.parallel)
		proto.parallel = checker_default_parallel();
	proto.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	proto.kernel = kernel;
	{
		struct qemu_config q = { .binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
					 .mem_mib = 1024, .cpus = 1, .kernel = kpath, .initrd = ipath };

		snprintf(kpath, sizeof(kpath), "%s/kernels/%s/bzImage", proto.build, kernel ? kernel : "?");
		snprintf(ipath, sizeof(ipath), "%s/initramfs.cpio", proto.build);
		if (!kernel || access(kpath, R_OK) || access(ipath, R_OK)) {
			fprintf(stderr, "crashbench: no %s or %s: run 'make kernels images'\n", kpath, ipath);
			return 2;
		}
		if (accel_resolve(accel, &q, cache_dir(), acc, sizeof(acc), why, sizeof(why)) < 0)
			return 2;
		proto.accel = acc;
	}
	snprintf(path, sizeof(path), "%s/crash", set);
	json_array_foreach(json_object_get(summary, "scenarios"), k, row_doc) {
		struct bench_row *row = &rows[nrows];

		if (nrows == 64)
			break;
		memset(row, 0, sizeof(*row));
		row->scenario = json_string_value(json_object_get(row_doc, "scenario"));
		row->fs = json_string_value(json_object_get(row_doc, "fs"));
		row->mode = json_string_value(json_object_get(row_doc, "mode"));
		row->platform = json_string_value(json_object_get(row_doc, "platform"));
		if (!row->scenario || !row->fs || !row->mode || !row->platform || !load_row(row, path))
			continue;
		find_twins(row);
		row->phases = calloc(row->n * reps, sizeof(*row->phases));
		if (!row->phases)
			abort();
		nrows++;
	}
	if (!nrows) {
		fprintf(stderr, "crashbench: %s has no kept images to check\n", set);
		return 2;
	}
	if (!run_id[0]) {
		time_t t = time(NULL);

		strftime(run_id, sizeof(run_id), "%Y%m%d-%H%M%S-crashbench", localtime(&t));
	}
	if (run_dir_name(run_dir, sizeof(run_dir), results, run_id, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashbench: %s\n", why);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	if (!access(path, F_OK)) {
		fprintf(stderr, "crashbench: run %s exists: give another --run-id\n", run_id);
		return 2;
	}
	if (make_dir(run_dir) < 0)
		return 2;
	doc = json_pack("{s:i, s:s, s:s, s:s, s:{s:o}, s:{s:s, s:s}, s:i, s:i}", "schema", RUN_SCHEMA, "run_id",
			run_id, "kind", "crashbench", "images_from", set, "kernels", kernel,
			run_kernel_info(proto.build, kernel) ?: json_null(), "accel", "name", acc, "reason", why,
			"reps", reps, "checkers", proto.parallel);
	json_object_update_new(doc, run_environment());
	if (json_write_atomic(path, doc) < 0)
		return 2;
	json_decref(doc);

	run_passes(rows, nrows, reps, &proto, run_dir, pass_s, boot_s, guests);

	srows = json_array();
	printf("  %-26s %-5s %-8s %6s %6s %-18s %7s %7s %7s %7s %7s %7s\n", "scenario", "fs", "platform", "images",
	       "dedup", "images/s", "write", "mount", "verify", "umount", "fsck", "round");
	for (r = 0; r < nrows; r++) {
		struct bench_row *row = &rows[r];
		json_t *ph = check_phases_json(row->phases, row->nphases), *cell;
		double rr[MAX_REPS];
		char key[256];

		print_row(row, reps, ph, rr);
		for (rep = 0; rep < reps; rep++)
			total_checked[rep] += row->checked[rep];
		total_images += row->n;
		total_twins += row->twins;
		bad |= row->disagree > 0;
		json_array_append_new(srows, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o}",
			"scenario", row->scenario, "fs", row->fs, "mode", row->mode, "platform", row->platform,
			"images", (json_int_t)row->n, "deduplicated", (json_int_t)row->twins,
			"disagreements", (json_int_t)row->disagree, "images_per_s", rate_json(rr, reps),
			"phases", ph));

		/* One cell per (fs, mode), one section per scenario, one rep per pass. */
		snprintf(key, sizeof(key), "%s__%s__%s__crashbench", kernel, row->fs, row->mode);
		cell = json_object_get(cells, key);
		if (!cell) {
			cell = json_pack("{s:s, s:s, s:s, s:s, s:[]}", "kernel", kernel, "fs", row->fs, "mode", row->mode,
					 "job", "crashbench", "reps");
			for (rep = 0; rep < reps; rep++)
				json_array_append_new(json_object_get(cell, "reps"),
						      json_pack("{s:i, s:{s:[]}}", "rep", rep, "result", "jobs"));
			json_object_set_new(cells, key, cell);
		}
		for (rep = 0; rep < reps; rep++) {
			size_t per = row->nphases / reps;
			json_t *jobs = json_object_get(json_object_get(json_array_get(json_object_get(cell, "reps"), rep),
								       "result"), "jobs");

			json_array_append_new(jobs, pass_section(row, rep, row->phases + rep * per, per));
		}
	}
	for (rep = 0; rep < reps; rep++) {
		rates[rep] = pass_s[rep] > 0 ? total_checked[rep] / pass_s[rep] : 0;
		after[rep] = pass_s[rep] > boot_s[rep] ? total_checked[rep] / (pass_s[rep] - boot_s[rep]) : 0;
	}
	{
		struct sample_stats a, b, c;
		const char *key;
		json_t *cell, *all = json_pack("{s:s, s:s, s:s, s:s, s:[]}", "kernel", kernel, "fs", "all", "mode", "-",
					       "job", "crashbench", "reps");

		sample_stats_of(rates, reps, &a);
		sample_stats_of(after, reps, &b);
		sample_stats_of(boot_s, reps, &c);
		printf("\n%zu images (%zu identical to another, checked once), %d pass%s, %d checker guest%s at once, "
		       "accelerator %s:\n"
		       "%.2f images/s (median; %.2f to %.2f) with the guests' boot (%.1f s), %.2f after it\n",
		       total_images, total_twins, reps, reps > 1 ? "es" : "", proto.parallel,
		       proto.parallel > 1 ? "s" : "", acc, a.median, a.min, a.max, c.median, b.median);
		for (rep = 0; rep < reps; rep++)
			json_array_append_new(json_object_get(all, "reps"), json_pack(
				"{s:i, s:{s:[{s:s, s:{s:I, s:f, s:f, s:f, s:i}}]}}", "rep", rep, "result", "jobs",
				"jobname", "all", "crashbench", "checked", (json_int_t)total_checked[rep],
				"seconds", pass_s[rep], "boot_seconds", boot_s[rep], "images_per_s", rates[rep],
				"guests", guests[rep]));
		json_object_set_new(cells, "all__crashbench", all);
		doc = json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:o, s:o, s:o, s:o}", "run_id", run_id, "kernel",
				kernel, "accel", acc, "reps", reps, "checkers", proto.parallel, "images",
				(json_int_t)total_images, "deduplicated", (json_int_t)total_twins, "images_per_s",
				rate_json(rates, reps), "images_per_s_after_boot", rate_json(after, reps),
				"boot_seconds", rate_json(boot_s, reps), "rows", srows);
		snprintf(path, sizeof(path), "%s/crashbench.json", run_dir);
		json_write_atomic(path, doc);
		json_decref(doc);
		snprintf(path, sizeof(path), "%s/cells", run_dir);
		if (make_dir(path) == 0)
			json_object_foreach(cells, key, cell) {
				snprintf(path, sizeof(path), "%s/cells/%s.json", run_dir, key);
				json_write_atomic(path, cell);
			}
		json_decref(cells);
		printf("results: %s\n", run_dir);
	}
	if (bad)
		fprintf(stderr, "crashbench: some images were judged differently from their run: the checker is not "
				"deterministic (see the lines above and the pass-N/ logs)\n");
	json_decref(summary);
	return bad;
}
