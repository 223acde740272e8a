// SPDX-License-Identifier: GPL-2.0
/*
 * The bench matrix: kernels x filesystems x modes x job files x reps, from
 * the command line (bench, plan) or back from a run's run.json (unit,
 * collect), checked before any guest boots.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../results/series.h"
#include "../results/summary.h"
#include "bench.h"
#include "../lib/child.h"
#include "../lib/filesystems.h"
#include "../lib/flavours.h"
#include "../lib/names.h"
#include "../lib/rundir.h"
#include "../vm/runinfo.h"
#include "../workloads/pmem_map.h"

static void split(struct bench_list *l, const char *s)
{
	char *copy = strdup(s), *tok, *save;

	l->n = 0;
	for (tok = strtok_r(copy, " ,", &save); tok && l->n < BENCH_MAX_LIST; tok = strtok_r(NULL, " ,", &save))
		l->v[l->n++] = strdup(tok);
	free(copy);
}

const char *bench_job_name(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/');

	snprintf(buf, size, "%s", base ? base + 1 : path);
	if (strlen(buf) > 4 && !strcmp(buf + strlen(buf) - 4, ".fio"))
		buf[strlen(buf) - 4] = '\0';
	return buf;
}

/*
 * Whether the kernel has MAP_PMEM_AWARE. A user's kernel was asked in a
 * guest when build-kernel.sh published it ("map_pmem_aware": true or false,
 * null when it could not ask); our flavours say it by their patch sets.
 */
int bench_kernel_has_port(const struct bench *b, const char *kernel)
{
	json_t *k = run_kernel_info(b->build, kernel), *set;
	json_t *probed = json_object_get(k, "map_pmem_aware");
	size_t i;
	int has = 0;

	if (json_is_true(json_object_get(k, "user")))
		has = json_is_true(probed);
	else
		json_array_foreach(json_object_get(k, "patch_sets"), i, set)
			has |= !strcmp(json_string_value(set), "aware");
	json_decref(k);
	return has;
}

/* One line per kernel the aware modes skip, and per user's kernel. */
static void say_ports(const struct bench *b)
{
	int i, asked = 0;

	for (i = 0; i < b->modes.n; i++)
		asked |= map_mode_find(b->modes.v[i])->aware;
	for (i = 0; i < b->kernels.n && asked; i++) {
		json_t *k = run_kernel_info(b->build, b->kernels.v[i]);
		json_t *probed = json_object_get(k, "map_pmem_aware");
		const char *name = b->kernels.v[i];
		int has = bench_kernel_has_port(b, name);

		if (!json_is_true(json_object_get(k, "user"))) {
			if (!has)
				fprintf(stderr, "bench: %s has no aware patch set: only shared and sync run on it\n", name);
		} else if (!json_is_boolean(probed)) {
			fprintf(stderr, "bench: %s: MAP_PMEM_AWARE was not probed (run vm-images/build-kernel.sh %s again after 'make images'): only shared and sync run on it\n",
				name, json_string_value(json_object_get(k, "path")));
		} else {
			fprintf(stderr, "bench: %s %s MAP_PMEM_AWARE (probed in a guest): %s\n", name,
				has ? "has" : "lacks", has ? "every mode runs on it" : "only shared and sync run on it");
		}
		json_decref(k);
	}
}

static int validate(struct bench *b)
{
	char path[PATH_MAX], writer[PATH_MAX];
	int i;

	for (i = 0; i < b->kernels.n; i++) {
		snprintf(path, sizeof(path), "%s/kernels/%s/bzImage", b->build, b->kernels.v[i]);
		if (access(path, R_OK)) {
			fprintf(stderr, "bench: no kernel '%s' (%s): run 'make kernels' (known: vm-images/build-kernel.sh --list)\n",
				b->kernels.v[i], path);
			return -1;
		}
	}
	for (i = 0; i < b->fss.n; i++) {
		snprintf(path, sizeof(path), "%s/images/%s.img", b->build, b->fss.v[i]);
		if (!fs_for(b->fss.v[i], "bench")) {
			fprintf(stderr, "bench: unknown filesystem '%s' (%s)\n", b->fss.v[i], fs_names("bench"));
			return -1;
		}
		if (access(path, R_OK)) {
			fprintf(stderr, "bench: no golden %s image: run 'make images'\n", b->fss.v[i]);
			return -1;
		}
	}
	for (i = 0; i < b->modes.n; i++) {
		if (!map_mode_find(b->modes.v[i])) {
			fprintf(stderr, "bench: unknown mode '%s' (shared, sync, aware, sync+aware)\n", b->modes.v[i]);
			return -1;
		}
	}
	/* The writer itself checks the job files: one parser, one set of messages.
	 * No shell: a job path is an argument, never a word on a command line. */
	snprintf(writer, sizeof(writer), "%s/guest/pmem-writer", b->build);
	for (i = 0; i < b->jobs.n; i++) {
		char *argv[] = { writer, "--check", b->jobs.v[i], NULL };

		if (child_run(argv, 1, NULL) != 0) {
			fprintf(stderr, "bench: job file %s is not valid (message above)\n", b->jobs.v[i]);
			return -1;
		}
	}
	return 0;
}

/* The build directory, the harness in it, and the plugin if it can count. */
static void find_tools(struct bench *b, int say)
{
	static char plugin[PATH_MAX];

	b->build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	snprintf(b->harness, sizeof(b->harness), "%s/pmem-harness", b->build);
	snprintf(plugin, sizeof(plugin), "%s/plugins/insn-per-fault.so", b->build);
	b->plugin = !access(plugin, R_OK) && strcmp(b->accel, "kvm") ? plugin : NULL;
	if (!b->plugin && say)
		fprintf(stderr, "bench: no %s: instruction counts per fault will be reported as unavailable\n", plugin);
}

void bench_usage(FILE *f, const char *cmd)
{
	fprintf(f,
		"usage: pmem-harness %s [--kernels LIST] [--fs LIST] [--modes LIST] [--jobs FILES]\n"
		"          [--reps N] [--quick] [--run-id ID] [--resume ID] [--no-peer]\n"
		"          [--accel auto|kvm|tcg] [--results DIR]%s\n"
		"--quick: %s, %s, faults + persist jobs, 3 reps (explicit options win).\n"
		"Runs each (kernel, fs) pair REPS times in fresh guests, every mode x job in each.\n"
		"--resume ID finishes an interrupted run, skipping done guests.\n%s",
		cmd, strcmp(cmd, "bench") ? "" : " [--guests N]", flavour_defaults("quick"), fs_defaults("quick"),
		strcmp(cmd, "bench") ?
		"Writes the run directory and prints one 'pmem-harness unit' command per guest,\n"
		"for any scheduler to run; 'pmem-harness collect RUN_DIR' then merges them.\n" :
		"--guests N: up to N guests at once (default 1); their emulated times are noted as shared.\n"
		"Prints the summary and writes the report.\n");
}

int bench_parse(struct bench *b, int argc, char **argv, const char *cmd)
{
	static const struct option longopts[] = {
		{ "kernels", required_argument, NULL, 'k' }, { "fs", required_argument, NULL, 'f' },
		{ "modes", required_argument, NULL, 'm' }, { "jobs", required_argument, NULL, 'j' },
		{ "reps", required_argument, NULL, 'r' }, { "quick", no_argument, NULL, 'q' },
		{ "run-id", required_argument, NULL, 'i' }, { "resume", required_argument, NULL, 'R' },
		{ "no-peer", no_argument, NULL, 'n' }, { "accel", required_argument, NULL, 'a' },
		{ "results", required_argument, NULL, 'o' }, { "guests", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *kernels = flavour_defaults("bench"), *fss = fs_defaults("bench"), *modes = "shared sync aware sync+aware";
	const char *jobs = "workloads/jobs/*.fio", *results = "results/runs", *id = NULL;
	char why[512];
	struct bench_list pats;
	int c, i, k;
	glob_t g;

	memset(b, 0, sizeof(*b));
	b->reps = 5;
	b->peer = 1;
	b->accel = "auto";
	b->guests = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "k:f:m:j:r:qi:R:na:o:g:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kernels = optarg; break;
		case 'f': fss = optarg; break;
		case 'm': modes = optarg; break;
		case 'j': jobs = optarg; break;
		case 'r': b->reps = atoi(optarg); break;
		case 'q': b->quick = 1; break;
		case 'i': id = optarg; break;
		case 'R': id = optarg; b->resume = 1; break;
		case 'n': b->peer = 0; break;
		case 'a': b->accel = optarg; break;
		case 'o': results = optarg; break;
		case 'g': b->guests = atoi(optarg); break;
		case 'h': bench_usage(stdout, cmd); exit(0);
		default: bench_usage(stderr, cmd); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", cmd, argv[optind]);
		return -1;
	}
	/* A run id becomes a directory name under --results. */
	if (id && !name_is_safe(id, sizeof(b->run_id))) {
		fprintf(stderr, "%s: run id '%.80s' cannot name a directory: use up to %zu letters, digits, '.', '_', '+' or '-', not starting with '.'\n",
			cmd, id, sizeof(b->run_id) - 1);
		return -1;
	}
	if (b->guests < 1 || b->guests > 64) {
		fprintf(stderr, "%s: --guests must be 1..64\n", cmd);
		return -1;
	}
	/* QUICK: a first look in about three minutes. Explicit options still win. */
	if (b->quick) {
		static const char *const q[] = { "--kernels", "--fs", "--jobs", "--reps", "--no-peer" };
		int given[5] = { 0 };
		size_t a;

		for (i = 1; i < argc; i++)
			for (a = 0; a < 5; a++)
				given[a] |= !strncmp(argv[i], q[a], strlen(q[a]));
		if (!given[0])
			kernels = flavour_defaults("quick");
		if (!given[1])
			fss = fs_defaults("quick");
		if (!given[2])
			jobs = "workloads/jobs/faults.fio workloads/jobs/persist.fio";
		if (!given[3])
			b->reps = 3;
	}
	if (b->reps < 1 || b->reps > SERIES_MAX_REPS) {
		fprintf(stderr, "%s: --reps must be 1..%d\n", cmd, SERIES_MAX_REPS);
		return -1;
	}
	split(&b->kernels, kernels);
	split(&b->fss, fss);
	split(&b->modes, modes);
	/* Job files: a glob or a list of paths. */
	split(&pats, jobs);
	for (i = 0; i < pats.n; i++) {
		if (glob(pats.v[i], GLOB_NOCHECK, NULL, &g) != 0)
			continue;
		for (k = 0; k < (int)g.gl_pathc && b->jobs.n < BENCH_MAX_LIST; k++)
			b->jobs.v[b->jobs.n++] = strdup(g.gl_pathv[k]);
		globfree(&g);
	}
	if (!b->kernels.n || !b->fss.n || !b->modes.n || !b->jobs.n) {
		fprintf(stderr, "%s: empty matrix: give at least one kernel, filesystem, mode and job file\n", cmd);
		return -1;
	}
	find_tools(b, 0);
	if (validate(b) < 0)
		return -1;
	/* A job's name names its cells on the host and its file in the guest. */
	for (i = 0; i < b->jobs.n; i++) {
		char name[128];

		bench_job_name(b->jobs.v[i], name, sizeof(name));
		if (!name_is_safe(name, 64) || strstr(name, "__")) {
			fprintf(stderr, "%s: job file %s: its name '%s' names cells and guest files: rename it to letters, digits, '.', '_', '+' or '-' (no '__')\n",
				cmd, b->jobs.v[i], name);
			return -1;
		}
	}
	say_ports(b);
	find_tools(b, 1);
	if (id)
		snprintf(b->run_id, sizeof(b->run_id), "%s", id);
	else {
		time_t t = time(NULL);

		strftime(b->run_id, sizeof(b->run_id), "%Y%m%d-%H%M%S", localtime(&t));
	}
	if (run_dir_name(b->run_dir, sizeof(b->run_dir), results, b->run_id, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s\n", cmd, why);
		return -1;
	}
	return 0;
}

json_t *bench_run_json(const struct bench *b)
{
	json_t *kernels = json_object(), *jobs = json_array(), *doc;
	int i;

	for (i = 0; i < b->kernels.n; i++)
		json_object_set_new(kernels, b->kernels.v[i], run_kernel_info(b->build, b->kernels.v[i]));
	for (i = 0; i < b->jobs.n; i++)
		json_array_append_new(jobs, json_string(b->jobs.v[i]));
	doc = json_pack("{s:i, s:s, s:s, s:o, s:[], s:[], s:o, s:i, s:b, s:b, s:s}",
			"schema", RUN_SCHEMA, "kind", "bench", "run_id", b->run_id, "kernels", kernels,
			"filesystems", "modes", "jobs", jobs, "reps", b->reps, "quick", b->quick,
			"peer", b->peer, "accel_requested", b->accel);
	json_object_update_new(doc, run_environment());
	for (i = 0; i < b->fss.n; i++)
		json_array_append_new(json_object_get(doc, "filesystems"), json_string(b->fss.v[i]));
	for (i = 0; i < b->modes.n; i++)
		json_array_append_new(json_object_get(doc, "modes"), json_string(b->modes.v[i]));
	json_object_set_new(doc, "insn_per_fault", json_string(b->plugin ? "TCG plugin insn-per-fault" :
		"unavailable: needs QEMU >= 10 (plugin API v4) and build/plugins/insn-per-fault.so"));
	return doc;
}

/* A list from a run.json array of safe names; 0 or -1. */
static int load_list(struct bench_list *l, const json_t *a, int names)
{
	json_t *v;
	size_t i;

	l->n = 0;
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		if (!s || l->n == BENCH_MAX_LIST || (names && !name_is_safe(s, 128)))
			return -1;
		l->v[l->n++] = strdup(s);
	}
	return l->n ? 0 : -1;
}

int bench_load(struct bench *b, const char *run_dir, const char *cmd)
{
	char path[PATH_MAX];
	const char *key, *id;
	json_t *doc, *v, *accel;
	int bad;

	memset(b, 0, sizeof(*b));
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	doc = json_load_file(path, 0, NULL);
	if (!doc) {
		fprintf(stderr, "%s: no run at %s (no readable run.json): give the directory 'pmem-harness plan' made\n",
			cmd, run_dir);
		return -1;
	}
	snprintf(b->run_dir, sizeof(b->run_dir), "%s", run_dir);
	id = json_string_value(json_object_get(doc, "run_id"));
	snprintf(b->run_id, sizeof(b->run_id), "%s", id ? id : "");
	bad = 0;
	json_object_foreach(json_object_get(doc, "kernels"), key, v) {
		bad |= !name_is_safe(key, 128) || b->kernels.n == BENCH_MAX_LIST;
		if (b->kernels.n < BENCH_MAX_LIST)
			b->kernels.v[b->kernels.n++] = strdup(key);
	}
	bad |= !b->kernels.n || !name_is_safe(b->run_id, sizeof(b->run_id));
	bad |= load_list(&b->fss, json_object_get(doc, "filesystems"), 1) < 0;
	bad |= load_list(&b->modes, json_object_get(doc, "modes"), 0) < 0;
	bad |= load_list(&b->jobs, json_object_get(doc, "jobs"), 0) < 0;
	b->reps = json_integer_value(json_object_get(doc, "reps"));
	b->quick = json_is_true(json_object_get(doc, "quick"));
	/* Runs planned before these keys existed ran the peer, asking for auto. */
	b->peer = !json_is_false(json_object_get(doc, "peer"));
	accel = json_object_get(doc, "accel_requested");
	b->accel = json_is_string(accel) ? strdup(json_string_value(accel)) : "auto";
	b->guests = 1;
	json_decref(doc);
	if (bad || b->reps < 1 || b->reps > SERIES_MAX_REPS) {
		fprintf(stderr, "%s: %s does not describe a bench matrix: plan the run again\n", cmd, path);
		return -1;
	}
	find_tools(b, 0);
	return 0;
}
