// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness xfstests: the filesystems' own DAX and mmap tests in guests,
 * each kernel beside its stock baseline.
 *
 * One unit per (kernel, filesystem) (xfstests_unit.c), run here one after
 * another, or planned (pmem-harness plan xfstests) for a scheduler to run
 * as `pmem-harness unit RUN_DIR KERNEL FS` lines, and merged by collect.
 *
 * results/runs/<run-id>/: run.json (the options and the units), xfstests.json
 * (every result, rewritten after each unit), summary.md (the table), and per
 * unit xfstests/<kernel>/<fs>/ (xfstests_run.h).
 * Exit status: 0, 1 when a kernel fails a test its baseline passes, 2 when
 * the run could not start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../results/xfstests.h"
#include "../vm/accel.h"
#include "../lib/cache_dir.h"
#include "../lib/error.h"
#include "../lib/filesystems.h"
#include "../lib/flavours.h"
#include "builtin.h"
#include "../crash-inject/run/crash_resume.h"
#include "../lib/jsonio.h"
#include "../lib/names.h"
#include "../vm/qemu.h"
#include "../lib/rundir.h"
#include "../vm/runinfo.h"
#include "../lib/textfile.h"
#include "../xfstests/host/xfstests_run.h"

#define MAX_KERNELS 15
#define MAX_FS 2
/* What setup returns when the command goes on; anything else is its exit status. */
#define GO_ON -1

/* A run as its options made it: run.json written, with its units. */
struct xt_setup {
	struct xt_run run;
	char run_id[64], run_dir[PATH_MAX], acc[16], root[PATH_MAX];
	json_t *run_doc;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmem-harness xfstests [--kernels \"K...\"] [--fs \"FS...\"] [--tests FILE]\n"
		   "           [--only \"TEST...\"] [--timeout S] [--root-image IMG] [--run-id ID] [--results DIR]\n"
		   "           [--force-aware] [--accel A] [-v]\n"
		   "  Runs the tests of FILE (default xfstests/tests) in guests of each kernel on each\n"
		   "  filesystem (default: %s), DAX on, and fails when a kernel fails a test its -stock\n"
		   "  baseline passes.\n"
		   "  --force-aware: every shared file mapping asks for MAP_PMEM_AWARE first (LD_PRELOAD).\n"
		   "  pmem-harness plan xfstests [the same options] writes the run and one unit per\n"
		   "  kernel and filesystem for a scheduler; pmem-harness collect RUN_DIR merges them.\n",
		fs_defaults("xfstests"));
}

/*
 * The options read and checked, the run's directory and run.json written
 * with its units ("plan": kernel, fs and the tests that apply): GO_ON, or
 * the exit status.
 */
static int setup(struct xt_setup *s, int argc, char **argv)
{
	const char *kernels_arg = flavour_defaults("xfstests"), *fs_arg = fs_defaults("xfstests");
	const char *list_path = "xfstests/tests", *only = NULL, *results = "results/runs", *accel = "auto";
	const char *root_arg = NULL;
	const char *kernels[MAX_KERNELS], *fss[MAX_FS];
	char path[PATH_MAX], why[512], *kbuf, *fbuf, *obuf = NULL, *tok, *save;
	static const struct option opts[] = {
		{ "kernels", required_argument, NULL, 'k' }, { "fs", required_argument, NULL, 'f' },
		{ "tests", required_argument, NULL, 't' }, { "only", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 'T' }, { "run-id", required_argument, NULL, 'r' },
		{ "results", required_argument, NULL, 'R' }, { "accel", required_argument, NULL, 'a' },
		{ "root-image", required_argument, NULL, 'i' }, { "force-aware", no_argument, NULL, 'F' }, { "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' }, { 0 }
	};
	static struct xt_list list;
	size_t nk = 0, nf = 0, i, j, k;
	json_t *kj, *fj, *units, *tests;
	int c;

	s->run.limit = 600;
	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernels_arg = optarg; break;
		case 'f': fs_arg = optarg; break;
		case 't': list_path = optarg; break;
		case 'o': only = optarg; break;
		case 'T': s->run.limit = atoi(optarg); break;
		case 'r':
			if (!name_is_safe(optarg, sizeof(s->run_id))) {
				fprintf(stderr, "xfstests: run id '%s' may hold only letters, digits, '.', '_', '+', '-'\n",
					optarg);
				return 2;
			}
			snprintf(s->run_id, sizeof(s->run_id), "%s", optarg);
			break;
		case 'R': results = optarg; break;
		case 'a': accel = optarg; break;
		case 'v': s->run.verbose = 1; break;
		case 'i': root_arg = optarg; break;
		case 'F': s->run.force_aware = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || s->run.limit < 10 || s->run.limit > 24 * 3600) {
		usage(stderr);
		return 2;
	}
	s->run.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	if (xt_list_load(list_path, &list, why, sizeof(why)) < 0) {
		fprintf(stderr, "xfstests: %s\n", why);
		return 2;
	}
	kbuf = strdup(kernels_arg);
	fbuf = strdup(fs_arg);
	for (tok = strtok_r(kbuf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		snprintf(path, sizeof(path), "%s/kernels/%s/bzImage", s->run.build, tok);
		if (!name_is_safe(tok, 64) || access(path, R_OK)) {
			fprintf(stderr, "xfstests: no kernel '%s' (%s): run 'make kernels' or give KERNELS=\n", tok, path);
			return 2;
		}
		if (nk == MAX_KERNELS) {
			fprintf(stderr, "xfstests: at most %d kernels\n", MAX_KERNELS);
			return 2;
		}
		kernels[nk++] = tok;
	}
	for (tok = strtok_r(fbuf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		if (!fs_for(tok, "xfstests")) {
			fprintf(stderr, "xfstests: unknown filesystem '%s' (%s)\n", tok, fs_names("xfstests"));
			return 2;
		}
		if (nf < MAX_FS)
			fss[nf++] = tok;
	}
	if (!nk || !nf) {
		usage(stderr);
		return 2;
	}
	if (only) {
		/* --only narrows the list; each name must be on it. */
		struct xt_list *sub = calloc(1, sizeof(*sub));

		obuf = strdup(only);
		for (tok = strtok_r(obuf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
			for (i = 0; i < list.n && strcmp(list.name[i], tok); i++)
				;
			if (i == list.n) {
				fprintf(stderr, "xfstests: '%.40s' is not in %s: add it there with its reason\n", tok,
					list_path);
				return 2;
			}
			if (sub->n < XT_MAX_TESTS)
				snprintf(sub->name[sub->n++], XT_NAME_MAX, "%s", tok);
		}
		list = *sub;
		free(sub);
	}
	if (root_arg)
		snprintf(s->root, sizeof(s->root), "%s", root_arg);
	else
		snprintf(s->root, sizeof(s->root), "%s/images/xfstests-root.img", s->run.build);
	if (access(s->root, R_OK)) {
		fprintf(stderr, "xfstests: no %s: run 'make xfstests-image' (or vm-images/build-xfstests.sh)\n", s->root);
		return 2;
	}
	s->run.root_image = s->root;
	snprintf(path, sizeof(path), "%s/" CRASH_INITRAMFS, s->run.build);
	if (access(path, R_OK)) {
		fprintf(stderr, "xfstests: no %s: run 'make images'\n", path);
		return 2;
	}
	{
		struct qemu_config q = { .binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
					 .mem_mib = 1024, .cpus = 1, .kernel = path, .initrd = path };

		snprintf(path, sizeof(path), "%s/kernels/%s/bzImage", s->run.build, kernels[0]);
		if (accel_resolve(accel, &q, cache_dir(), s->acc, sizeof(s->acc), why, sizeof(why)) < 0)
			return 2;
		s->run.accel = s->acc;
	}
	if (!s->run_id[0]) {
		time_t t = time(NULL);

		strftime(s->run_id, sizeof(s->run_id), "%Y%m%d-%H%M%S-xfstests", localtime(&t));
	}
	if (run_dir_name(s->run_dir, sizeof(s->run_dir), results, s->run_id, why, sizeof(why)) < 0) {
		fprintf(stderr, "xfstests: %s\n", why);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/run.json", s->run_dir);
	if (!access(path, F_OK)) {
		fprintf(stderr, "xfstests: run %s exists: give another --run-id\n", s->run_id);
		return 2;
	}
	if (run_dir_make(s->run_dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "xfstests: %s\n", why);
		return 2;
	}
	kj = json_array();
	fj = json_array();
	units = json_array();
	for (i = 0; i < nk; i++)
		json_array_append_new(kj, json_string(kernels[i]));
	for (j = 0; j < nf; j++)
		json_array_append_new(fj, json_string(fss[j]));
	/* Filesystem by filesystem, each kernel: the tests that apply to it. */
	for (j = 0; j < nf; j++) {
		tests = json_array();
		for (k = 0; k < list.n; k++)
			if (xt_test_applies(list.name[k], fss[j]))
				json_array_append_new(tests, json_string(list.name[k]));
		for (i = 0; json_array_size(tests) && i < nk; i++)
			json_array_append_new(units, json_pack("{s:s, s:s, s:O}", "kernel", kernels[i], "fs", fss[j],
							       "tests", tests));
		json_decref(tests);
	}
	/* What build-xfstests.sh wrote beside the image: which tree it holds. */
	snprintf(path, sizeof(path), "%.*s.json", (int)(strlen(s->root) - (strlen(s->root) > 4 ? 4 : 0)), s->root);
	s->run_doc = json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:i, s:b, s:s, s:o, s:o, s:{s:o}}", "schema", 1, "kind",
			       "xfstests", "run_id", s->run_id, "accel", s->acc, "kernels", kj, "fs", fj, "timeout",
			       s->run.limit, "force_aware", s->run.force_aware, "root_image", s->root, "xfstests",
			       json_load_file(path, 0, NULL) ?: json_null(), "environment", run_environment(), "plan",
			       "units", units);
	free(kbuf);
	free(fbuf);
	free(obuf);
	snprintf(path, sizeof(path), "%s/run.json", s->run_dir);
	if (!s->run_doc || json_write_atomic(path, s->run_doc) < 0)
		return 2;
	return GO_ON;
}

static json_t *units_of(const struct xt_setup *s)
{
	return json_object_get(json_object_get(s->run_doc, "plan"), "units");
}

int cmd_xfstests(int argc, char **argv)
{
	struct xt_setup s = { 0 };
	int rc, failed;
	json_t *u;
	size_t i;

	if ((rc = setup(&s, argc, argv)) != GO_ON)
		return rc;
	json_array_foreach(units_of(&s), i, u) {
		if (xt_unit_run(&s.run, s.run_dir, json_string_value(json_object_get(u, "kernel")),
				json_string_value(json_object_get(u, "fs")), json_object_get(u, "tests"), &failed) < 0 ||
		    xt_collect(s.run_dir, s.run_doc, 0) == 2) {
			fprintf(stderr, "xfstests: stopped: results so far are in %s\n", s.run_dir);
			json_decref(s.run_doc);
			return 2;
		}
	}
	rc = xt_collect(s.run_dir, s.run_doc, 1);
	json_decref(s.run_doc);
	return rc;
}

/*
 * pmem-harness plan xfstests [OPTIONS]: the run and its run.json as
 * xfstests makes them, and plan.txt with one unit per kernel and
 * filesystem. Each unit is one guest at a time (a new one after a hang),
 * 1.5 GiB: give a scheduler one CPU and 2 GiB per unit.
 */
int xfstests_plan(int argc, char **argv)
{
	struct xt_setup s = { 0 };
	char path[PATH_MAX], why[WHY_MAX];
	struct text_out out;
	json_t *u;
	size_t i;
	int rc;

	if ((rc = setup(&s, argc, argv)) != GO_ON)
		return rc;
	snprintf(path, sizeof(path), "%s/plan.txt", s.run_dir);
	if (text_file_begin(&out, path, why, sizeof(why)) < 0) {
		fprintf(stderr, "plan: %s\n", why);
		json_decref(s.run_doc);
		return 1;
	}
	json_array_foreach(units_of(&s), i, u)
		xt_plan_line(out.f, s.run.build, s.run_dir, json_string_value(json_object_get(u, "kernel")),
			     json_string_value(json_object_get(u, "fs")));
	if (text_file_commit(&out, why, sizeof(why)) < 0) {
		fprintf(stderr, "plan: %s\n", why);
		json_decref(s.run_doc);
		return 1;
	}
	json_array_foreach(units_of(&s), i, u)
		xt_plan_line(stdout, s.run.build, s.run_dir, json_string_value(json_object_get(u, "kernel")),
			     json_string_value(json_object_get(u, "fs")));
	fprintf(stderr, "plan: %zu unit%s in %s; run each line, then: %s/pmem-harness collect %s\n",
		json_array_size(units_of(&s)), json_array_size(units_of(&s)) == 1 ? "" : "s", path, s.run.build,
		s.run_dir);
	json_decref(s.run_doc);
	return 0;
}

/* pmem-harness unit RUN_DIR KERNEL FS, for a planned xfstests run. */
int xfstests_unit(const char *run_dir, json_t *run, const char *kernel, const char *fs)
{
	struct xt_run r = { .verbose = 0 };
	json_t *u, *tests = NULL;
	char dir[PATH_MAX];
	int failed;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(run, "plan"), "units"), i, u)
		if (!strcmp(json_string_value(json_object_get(u, "kernel")) ?: "", kernel) &&
		    !strcmp(json_string_value(json_object_get(u, "fs")) ?: "", fs))
			tests = json_object_get(u, "tests");
	if (!tests) {
		fprintf(stderr, "unit: %.64s on %.32s is not a unit of run %s (see its plan.txt)\n", kernel, fs,
			json_string_value(json_object_get(run, "run_id")) ?: "?");
		return 2;
	}
	xt_unit_dir(run_dir, kernel, fs, dir, sizeof(dir));
	if (xt_unit_done(dir)) {
		fprintf(stderr, "unit: %s on %s: done before, skipped\n", kernel, fs);
		return 0;
	}
	/* What an attempt cut off left (a failed test's files) is not this
	 * attempt's: the unit starts over. */
	if (crash_resume_clear(dir) < 0)
		return 1;
	r.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	/* The accelerator, root image and timeout the plan fixed. */
	r.accel = json_string_value(json_object_get(run, "accel")) ?: "tcg";
	r.root_image = json_string_value(json_object_get(run, "root_image"));
	r.limit = json_integer_value(json_object_get(run, "timeout"));
	r.force_aware = json_is_true(json_object_get(run, "force_aware"));
	if (!r.root_image || access(r.root_image, R_OK) || r.limit < 10) {
		fprintf(stderr, "unit: %s/run.json names no readable root image or no timeout: plan the run again\n",
			run_dir);
		return 2;
	}
	return xt_unit_run(&r, run_dir, kernel, fs, tests, &failed) < 0 ? 1 : 0;
}
