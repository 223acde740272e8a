// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel instructions per fault: the insn-per-fault plugin's arguments for
 * a kernel, and its intervals shared out to a unit's writer sections.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_insns.h"
#include "../lib/textfile.h"
#include "../results/stats.h"

/*
 * Kernel functions whose calls the plugin counts apart from the faulting
 * task's own instructions (its apart= argument), because what they cost
 * depends on state that differs between runs of one cell rather than on
 * the fault path:
 *   slab    SLUB's slow paths: refilling the CPU's slab, freeing into
 *           a slab that is not the CPU's, taking a slab page from the page
 *           allocator or giving one back, each when the heap says so (and
 *           SLOB's first-fit walk, for a user's kernel built with SLOB);
 *   clock   the inode timestamp update, work only when the coarse clock
 *           ticked since the file's last write;
 *   sched   the scheduler, when the task sleeps (a MAP_SYNC fault waits
 *           for the log), yields or wakes a worker: its load tracking
 *           decays per elapsed millisecond;
 *   random  the random number batches, refilled every so many calls from
 *           anywhere (xfs draws one per log ticket).
 * A symbol counts under its name and with a compiler suffix
 * (slob_alloc.isra.0). "switch" is no class: __switch_to(prev, next) tells
 * the plugin the tasks (its switch= argument).
 */
static const struct {
	const char *cls, *fn;
} insn_syms[] = {
	{ "switch", "__switch_to" },
	{ "slab", "slob_alloc" },
	{ "slab", "slob_free" },
	{ "slab", "___slab_alloc" },
	{ "slab", "__slab_free" },
	{ "slab", "new_slab" },
	{ "slab", "free_slab" },
	{ "slab", "__free_slab" },
	{ "clock", "file_update_time" },
	{ "sched", "__schedule" },
	{ "sched", "try_to_wake_up" },
	{ "random", "get_random_u8" },
	{ "random", "get_random_u16" },
	{ "random", "get_random_u32" },
	{ "random", "get_random_u64" },
	{ "random", "get_random_bytes" },
	{ "random", "_get_random_bytes" },
};

#define INSN_SYMS_N (sizeof(insn_syms) / sizeof(insn_syms[0]))
#define APPEND(buf, len, size, ...) \
	((len) += snprintf((buf) + (len), (len) < (size) ? (size) - (len) : 0, __VA_ARGS__))

/*
 * ",switch=ADDR,apart=CLASS:ADDR..." for the plugin from the kernel's
 * System.map, or "" without one. Addresses are link-time: a kernel with
 * KASLR gets none.
 */
void insn_plugin_args(const char *build, const char *kernel, char *buf, size_t size)
{
	char path[PATH_MAX], line[512], sym[256], type, have[INSN_SYMS_N][64] = { { 0 } };
	unsigned long long addr;
	char *config;
	size_t len = 0, i, k;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/kernels/%s/config", build, kernel);
	config = read_text_file(path);
	if (config && strstr(config, "\nCONFIG_RANDOMIZE_BASE=y")) {
		free(config);
		return;
	}
	free(config);
	snprintf(path, sizeof(path), "%s/kernels/%s/System.map", build, kernel);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		for (i = 0; i < INSN_SYMS_N; i++) {
			size_t n = strlen(insn_syms[i].fn), hl = strlen(have[i]);

			if (!strncmp(sym, insn_syms[i].fn, n) && (!sym[n] || sym[n] == '.'))
				snprintf(have[i] + hl, sizeof(have[i]) - hl, ":%llx", addr);
		}
	}
	fclose(f);
	for (i = 0; i < INSN_SYMS_N; i++) {
		if (!have[i][0])
			continue;
		if (!strcmp(insn_syms[i].cls, "switch")) {
			/* The first: __switch_to has no compiler variants. */
			APPEND(buf, len, size, ",switch=%.*s", (int)strcspn(have[i] + 1, ":"),
			       have[i] + 1);
			continue;
		}
		/* One apart= per class, its functions after its name. */
		for (k = 0; k < i; k++)
			if (!strcmp(insn_syms[k].cls, insn_syms[i].cls) && have[k][0])
				break;
		if (k < i)
			continue;
		APPEND(buf, len, size, ",apart=%s", insn_syms[i].cls);
		for (k = i; k < INSN_SYMS_N; k++)
			if (!strcmp(insn_syms[k].cls, insn_syms[i].cls) && have[k][0])
				APPEND(buf, len, size, "%s", have[k]);
	}
	if (len >= size)
		buf[0] = '\0';
}

#define INSN_MAX_CLASSES 8

/*
 * The plugin's intervals, in execution order: ncls numbers per interval,
 * named by the header (version 1 wrote one, all instructions, as "own").
 */
struct insn_intervals {
	double *v;
	size_t n;
	int ncls;
	char cls[INSN_MAX_CLASSES][32];
};

/* "# insn-per-fault v2 ...: vcpu own irq other ...": the column names. */
static void read_columns(char *line, struct insn_intervals *iv)
{
	const char *key = "between markers: vcpu ";
	char *cols = strstr(line, key), *save, *tok;

	if (strncmp(line, "# insn-per-fault v2 ", 20) || !cols)
		return;
	iv->ncls = 0;
	for (tok = strtok_r(cols + strlen(key), " \n", &save); tok && iv->ncls < INSN_MAX_CLASSES;
	     tok = strtok_r(NULL, " \n", &save))
		snprintf(iv->cls[iv->ncls++], sizeof(iv->cls[0]), "%s", tok);
}

static int read_intervals(const char *path, struct insn_intervals *iv)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	char line[512];

	memset(iv, 0, sizeof(*iv));
	if (!f)
		return -1;
	iv->ncls = 1;
	snprintf(iv->cls[0], sizeof(iv->cls[0]), "own");
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		int c = 0;

		if (line[0] == '#') {
			read_columns(line, iv);
			continue;
		}
		strtol(p, &end, 10);	/* the vCPU */
		if (end == p || !iv->ncls)
			continue;
		if (iv->n == cap) {
			cap = cap ? cap * 2 : 1024;
			iv->v = realloc(iv->v, cap * iv->ncls * sizeof(*iv->v));
		}
		for (p = end; c < iv->ncls; c++, p = end) {
			iv->v[iv->n * iv->ncls + c] = strtoull(p, &end, 10);
			if (end == p)
				break;
		}
		if (c == iv->ncls)
			iv->n++;
	}
	fclose(f);
	return 0;
}

/*
 * What the plugin counted apart from the faulting task's own instructions
 * in count intervals from row: per class its mean per fault, maximum and
 * how many faults it hit, their sum's mean, and the median of everything
 * (what the one figure was before the split).
 */
static json_t *insn_interference(const struct insn_intervals *iv, size_t row, size_t count)
{
	json_t *sources = json_object();
	struct sample_stats st;
	double *all = malloc(count * sizeof(*all)), sum = 0;
	size_t i;
	int c;

	for (i = 0; i < count; i++) {
		all[i] = 0;
		for (c = 0; c < iv->ncls; c++)
			all[i] += iv->v[(row + i) * iv->ncls + c];
		sum += all[i] - iv->v[(row + i) * iv->ncls];
	}
	for (c = 1; c < iv->ncls; c++) {
		double total = 0, max = 0, x;
		json_int_t hit = 0;

		for (i = 0; i < count; i++) {
			x = iv->v[(row + i) * iv->ncls + c];
			total += x;
			max = x > max ? x : max;
			hit += x > 0;
		}
		json_object_set_new(sources, iv->cls[c], json_pack("{s:f, s:f, s:I}",
				    "mean", total / count, "max", max, "hit", hit));
	}
	sample_stats(all, count, &st);
	sum /= count;
	sources = json_pack("{s:f, s:f, s:o}", "mean", sum, "all_median", st.median,
			    "sources", sources);
	free(all);
	return sources;
}

/*
 * Give every writer job section its share of the plugin's intervals: the
 * writer brackets each first touch with the markers, and sections run one
 * after another on one vCPU, so the k-th section owns the next `count`.
 * insn_per_fault is the faulting task's own instructions (the first
 * column); insn_interference the rest, when the plugin split it off.
 */
static void attach_insns(json_t *results, const struct insn_intervals *iv)
{
	size_t used = 0, i, k, j;
	struct sample_stats st;
	json_t *r, *section;

	json_array_foreach(results, i, r) {
		if (strcmp(json_string_value(json_object_get(r, "kind")), "writer"))
			continue;
		json_array_foreach(json_object_get(json_object_get(r, "result"), "jobs"), k, section) {
			json_t *pm = json_object_get(section, "pmem");
			size_t count = json_integer_value(json_object_get(json_object_get(pm, "first_touch"), "count"));
			double *slice;

			if (!pm || !count)
				continue;
			if (!iv->v || used + count > iv->n) {
				json_object_set_new(pm, "insn_per_fault", json_null());
				continue;
			}
			slice = malloc(count * sizeof(*slice));
			for (j = 0; j < count; j++)
				slice[j] = iv->v[(used + j) * iv->ncls];
			sample_stats(slice, count, &st);
			json_object_set_new(pm, "insn_per_fault", json_pack("{s:f, s:f, s:f, s:I}",
				"median", st.median, "min", st.min, "max", st.max, "N", (json_int_t)count));
			if (iv->ncls > 1)
				json_object_set_new(pm, "insn_interference",
						    insn_interference(iv, used, count));
			free(slice);
			used += count;
		}
	}
}

void insn_attach_file(json_t *results, const char *path)
{
	struct insn_intervals iv;

	read_intervals(path, &iv);
	attach_insns(results, &iv);
	free(iv.v);
}
