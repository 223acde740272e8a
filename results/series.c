// SPDX-License-Identifier: GPL-2.0
/* A run as series of numbers: see series.h. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "../lib/rundir.h"

json_t *json_path(json_t *o, const char *path)
{
	char buf[256], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
		o = json_object_get(o, tok);
	return o;
}

static int get_number(json_t *o, const char *path, double *out)
{
	json_t *v = json_path(o, path);

	if (!json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return 1;
}

static int get_bw(json_t *s, double *out)
{
	if (!get_number(s, "write.bw", out) || !json_integer_value(json_path(s, "write.total_ios")))
		return 0;
	*out /= 1024; /* KiB/s -> MiB/s */
	return 1;
}

static int get_fault_p50(json_t *s, double *out)
{
	json_t *pct = json_path(s, "pmem.first_touch.lat_ns.percentile");

	if (!json_integer_value(json_path(s, "pmem.first_touch.count")))
		return 0;
	if (!json_is_number(json_object_get(pct, "50.000000")))
		return 0;
	*out = json_number_value(json_object_get(pct, "50.000000"));
	return 1;
}

static int get_persist_p50(json_t *s, double *out)
{
	json_t *pct = json_path(s, "pmem.persist_calls.lat_ns.percentile");
	const char *method = json_string_value(json_path(s, "pmem.persist"));

	if (!method || !strcmp(method, "none") || !json_integer_value(json_path(s, "pmem.persist_calls.calls")))
		return 0;
	if (!json_is_number(json_object_get(pct, "50.000000")))
		return 0;
	*out = json_number_value(json_object_get(pct, "50.000000"));
	return 1;
}

static int get_wb_one(json_t *s, double *out)
{
	return get_number(s, "pmem.tracepoints.dax_writeback_one", out);
}

static int get_faults(json_t *s, double *out)
{
	double pte, pmd;

	if (!get_number(s, "pmem.tracepoints.dax_pte_fault_done", &pte) ||
	    !get_number(s, "pmem.tracepoints.dax_pmd_fault_done", &pmd))
		return 0;
	*out = pte + pmd;
	return 1;
}

static int get_insn(json_t *s, double *out)
{
	return get_number(s, "pmem.insn_per_fault.median", out);
}

/* What insn_per_fault leaves out: interrupts, other tasks, apart calls. */
static int get_insn_interference(json_t *s, double *out)
{
	return get_number(s, "pmem.insn_interference.mean", out);
}

/* crashbench: the checker's speed on a fixed image set (harness/cmd-crashbench.c). */
static int get_check_rate(json_t *s, double *out)
{
	return get_number(s, "crashbench.images_per_s", out);
}

static int get_check_round(json_t *s, double *out)
{
	return get_number(s, "crashbench.phases.round.median_ms", out);
}

static int get_check_mount(json_t *s, double *out)
{
	return get_number(s, "crashbench.phases.mount.median_ms", out);
}

static int get_check_fsck(json_t *s, double *out)
{
	return get_number(s, "crashbench.phases.fsck.median_ms", out);
}

const struct metric metrics[] = {
	{ "bw", "write MiB/s", 1, 1, get_bw },
	{ "fault_p50", "first-touch fault p50 ns", 0, 1, get_fault_p50 },
	{ "persist_p50", "persist call p50 ns", 0, 1, get_persist_p50 },
	{ "insn_fault", "kernel insns/fault (median)", 0, 0, get_insn },
	{ "insn_interference", "+ interference/fault (mean)", 0, 0, get_insn_interference },
	{ "faults", "dax faults (tracepoints)", 0, 0, get_faults },
	{ "wb_one", "dax_writeback_one events", 0, 0, get_wb_one },
	{ "check_rate", "crash images checked/s", 1, 1, get_check_rate },
	{ "check_round", "ms per crash image (median)", 0, 1, get_check_round },
	{ "check_mount", "checker mount ms (median)", 0, 1, get_check_mount },
	{ "check_fsck", "checker fsck ms (median)", 0, 1, get_check_fsck },
	{ NULL },
};

struct series *run_find(struct run *r, const char *kernel, const char *fs, const char *mode,
			const char *job, const char *section, const char *metric)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct series *s = &r->s[i];

		if (!strcmp(s->kernel, kernel) && !strcmp(s->fs, fs) && !strcmp(s->mode, mode) &&
		    !strcmp(s->job, job) && !strcmp(s->section, section) && !strcmp(s->metric->key, metric))
			return s;
	}
	return NULL;
}

static struct series *series_get(struct run *r, json_t *cell, const char *section, const struct metric *m)
{
	const char *kernel = json_string_value(json_object_get(cell, "kernel"));
	const char *fs = json_string_value(json_object_get(cell, "fs"));
	const char *mode = json_string_value(json_object_get(cell, "mode"));
	const char *job = json_string_value(json_object_get(cell, "job"));
	struct series *s;

	if (!kernel || !fs || !mode || !job)
		return NULL;
	s = run_find(r, kernel, fs, mode, job, section, m->key);
	if (s)
		return s;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->s = realloc(r->s, r->cap * sizeof(*r->s));
		if (!r->s)
			abort();
	}
	s = &r->s[r->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->kernel, sizeof(s->kernel), "%s", kernel);
	snprintf(s->fs, sizeof(s->fs), "%s", fs);
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	snprintf(s->job, sizeof(s->job), "%s", job);
	snprintf(s->section, sizeof(s->section), "%s", section);
	s->metric = m;
	return s;
}

static void add_section(void *ctx, json_t *cell, json_t *section)
{
	const char *name = json_string_value(json_object_get(section, "jobname"));
	struct run *r = ctx;
	const struct metric *m;

	for (m = metrics; m->key; m++) {
		struct series *s;
		double v;

		if (!m->get(section, &v))
			continue;
		s = series_get(r, cell, name, m);
		if (s && s->n < SERIES_MAX_REPS)
			s->v[s->n++] = v;
	}
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

void run_foreach_section(const struct run *r, section_fn fn, void *ctx, int say_skipped)
{
	struct dirent **names;
	char path[PATH_MAX];
	json_error_t err;
	int i, n;

	snprintf(path, sizeof(path), "%s/cells", r->dir);
	n = scandir(path, &names, NULL, by_name);
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);
		json_t *cell, *rep, *section;
		size_t k, j;

		if (len > 5 && !strcmp(names[i]->d_name + len - 5, ".json")) {
			snprintf(path, sizeof(path), "%s/cells/%s", r->dir, names[i]->d_name);
			/* One cell at a time: a full run's cells hold tens of MiB. */
			cell = json_load_file(path, 0, &err);
			if (!cell && say_skipped)
				fprintf(stderr, "%s: skipped (%s)\n", path, err.text);
			json_array_foreach(json_object_get(cell, "reps"), k, rep)
				json_array_foreach(json_object_get(json_object_get(rep, "result"), "jobs"), j, section)
					if (json_is_string(json_object_get(section, "jobname")))
						fn(ctx, cell, section);
			json_decref(cell);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

int run_load(const char *dir, struct run *r)
{
	char path[PATH_MAX];
	json_error_t err;

	memset(r, 0, sizeof(*r));
	if (run_dir_name(r->dir, sizeof(r->dir), dir, NULL, path, sizeof(path)) < 0) {
		fprintf(stderr, "%s\n", path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/run.json", dir);
	r->info = json_load_file(path, 0, &err);
	if (!r->info) {
		fprintf(stderr, "%s: not a run directory (%s): give a results/runs/<run-id>\n", dir, err.text);
		return -1;
	}
	if (json_integer_value(json_object_get(r->info, "schema")) != RUN_SCHEMA) {
		fprintf(stderr, "%s: run schema %lld, this tool reads schema %d: use the harness version that wrote it\n", dir,
			(long long)json_integer_value(json_object_get(r->info, "schema")), RUN_SCHEMA);
		json_decref(r->info);
		r->info = NULL;
		return -1;
	}
	/* Unreadable cells are said here, once, not by every later pass. */
	run_foreach_section(r, add_section, r, 1);
	return 0;
}

void run_free(struct run *r)
{
	json_decref(r->info);
	free(r->s);
	memset(r, 0, sizeof(*r));
}
