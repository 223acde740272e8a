// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness crashtest: simulated power loss on the emulated NVDIMM.
 *
 * For each scenario (crash-inject/scenarios) and filesystem:
 *  1. A writer guest runs the scenario's job with verify=1. Every "ack" line
 *     is logged on the host before it is answered. Right after chosen acks,
 *     and at random times, the guest is paused (QMP stop), the NVDIMM
 *     backing file copied (a crash image that records how many acks were
 *     logged) and the guest resumed. When the job is done the guest asks
 *     "done" and QEMU is killed with SIGKILL before anything else runs: the
 *     last crash image (crash_writer.c, crash_images.c).
 *  2. The checker pool (crash-inject/run/checker.c), up from before the first writer
 *     to the end of the run, takes the images: for each, the host rewrites
 *     a checker guest's backing file in place while nothing is mounted, the
 *     guest drops its block-device buffers, mounts (journal or log replay),
 *     reads every record slot, unmounts and runs fsck -n. A checker that
 *     hangs or panics gives its current image the verdict fs-corrupt; one
 *     killed from outside has that image checked again by a fresh one.
 *  3. The host judges each image against its ack log (crash-inject/judge/judge.c,
 *     crash_judge.c).
 *
 * results/runs/<run-id>/crash/<scenario>__<fs>/: acks.log, images/, one
 * JSON per image, and summary.json for the run (crash_summary.c). A
 * results disk that fills up stops the run in one line, and --resume
 * finishes it: a scenario counts as judged once its row is in the summary
 * on disk, never before.
 *
 * `pmem-harness plan crashtest` makes the same run as units for a
 * scheduler, one per scenario and filesystem (crash_plan.h): each unit
 * runs one scenario here with checker guests of its own and leaves its
 * row in its directory; collect makes the summary from the rows.
 *
 * This file reads the options and runs the scenarios, one at a time, or
 * plans them, or runs one as a unit.
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

#include "../vm/accel.h"
#include "../lib/cache_dir.h"
#include "builtin.h"
#include "../crash-inject/run/crash.h"
#include "../crash-inject/run/crash_plan.h"
#include "../crash-inject/run/crash_resume.h"
#include "../lib/diskfull.h"
#include "../lib/filesystems.h"
#include "../lib/flavours.h"
#include "../lib/names.h"
#include "../lib/rundir.h"
#include "../crash-inject/run/program_line.h"
#include "../crash-inject/run/user_program.h"

/* What a step returns when the command goes on; anything else is its exit status. */
#define GO_ON -1

#define MAX_SCENARIOS 64

/* One crashtest run: its options, its scenarios and where it stands. */
struct crashtest {
	struct crash_options opt;
	const char *results;		/* --results: run directories go here */
	char accel[16];			/* the accelerator chosen for "auto" or given */
	char accel_why[WHY_MAX];		/* why, as run.json says */
	char adr_plugin[PATH_MAX];
	/* the scenarios */
	struct scenario sc[MAX_SCENARIOS];
	int ns;
	const char *only;		/* the rows to run, or NULL: every row */
	/* a user's program and checker, or a program row's, as built */
	char prog_bin[PATH_MAX], check_bin[PATH_MAX];
	char recover_bin[PATH_MAX];
	char *program_args, *recover_args;	/* as sh words */
	/* the checker guests: the run's pool, and a program row's own */
	struct checker_options pool_opts, row_opts;
	char pool_golden[PATH_MAX], pool_dir[PATH_MAX];
	int pool_tried;
	/* the scenario running, and where the run stands */
	struct crash_scenario_state st;
	json_t *options, *rows;
	struct crash_resume done;	/* what the run resumed had judged */
	size_t held;			/* rows in the summary on disk */
	int failures;
	double t0;
	/* planned units: what the plan fixed for them */
	int checkers_asked;		/* --checkers, or 0 */
	int fence_points_given, fence_period_given;
	json_t *run_doc;		/* a unit's run.json: its strings are the options */
	char fs_list[256];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmem-harness crashtest [--fs LIST] [--scenarios LIST] [--scenario-table FILE] [--kernel FLAVOUR]\n"
		"                              [--platform eadr|adr] [--subsets N] [--structured N] [--torn N]\n"
		"                              [--history N] [--fence-points N]\n"
		"                              [--program PROG [ARG...] [--recover PROG [ARG...]] [--check PROG]\n"
		"                               [--mode MODE]\n"
		"                               [--cflags FLAGS] [--ldlibs LIBS]]\n"
		"                              [--keep] [--seed N] [--run-id ID | --resume ID] [--results DIR]\n"
		"                              [--accel A]\n"
		"                              [--checkers N]\n"
		"Runs each scenario of crash-inject/scenarios (or --program, checked by --check)\n"
		"on each filesystem, takes crash images, checks them in a checker guest and\n"
		"prints the verdicts.\n"
		"  --scenario-table FILE  rows in crash-inject/scenarios' format to run instead\n"
		"                  of that table (its head says what the columns mean)\n"
		"  --platform      eadr: every executed store is durable (QEMU's view);\n"
		"                  adr: lines not written back and fenced may be lost (TCG model)\n"
		"  --subsets N     random ADR images per crash point with more than 4 lines\n"
		"                  pending (default 20, max 64); with at most 4, every subset\n"
		"  --structured N  and at most N of each: prefixes in store order, drop-one,\n"
		"                  keep-one (default 16, max 32; 0: random subsets only)\n"
		"  --torn N        ADR images of torn lines per crash point, at most N of each:\n"
		"                  one changed 8-byte word of a line left old in the eADR image,\n"
		"                  or taken new in the strict one (default 0: lines whole; max 32)\n"
		"  --history N     ADR images of earlier values per crash point, at most N of\n"
		"                  each: a line stored over before it was durable, taken as it\n"
		"                  was in between, in the eADR image or alone in the strict one\n"
		"                  (default 8, max 32; 0: a line is as last durable or as now)\n"
		"  --fence-points N  ADR crash points sampled at fences (default 4; a black box 32)\n"
		"  --fence-period N  sample one in N fences that write lines back and leave\n"
		"                  others pending (default 200; 1: each, up to --fence-points;\n"
		"                  a black box: 1, each fence that wrote lines back, and the\n"
		"                  kept ones thinned evenly to --fence-points)\n"
		"  --program PROG  C or C++ sources (\"a.c b.cc\"), built with the ack, record and\n"
		"                  flush helpers and --cflags/--ldlibs; an x86-64 binary (static,\n"
		"                  or dynamic on libraries the guests carry); or a #!/bin/sh script\n"
		"                  (with its arguments: \"data_store btree pool.obj 200\"; a bare\n"
		"                  name is looked up in build/pmdk/bin)\n"
		"  --recover PROG  judge it black-box: no acks; after each crash image is\n"
		"                  mounted, PROG (the program's own recovery) runs there, then\n"
		"                  pmempool check on each PMDK pool, then fsck\n"
		"  --mode MODE     the program's mapping: shared, sync, aware or sync+aware\n"
		"  --resume ID     finish an interrupted run, with the options it started with:\n"
		"                  scenarios judged before are kept, the one cut off runs again\n"
		"  --checkers N    checker guests at once (default: one per CPU, at most 4;\n"
		"                  PMEM_CHECKERS sets the default)\n");
}

static int parse_options(struct crashtest *t, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fs", required_argument, NULL, 'f' }, { "scenarios", required_argument, NULL, 's' },
		{ "kernel", required_argument, NULL, 'k' }, { "keep", no_argument, NULL, 'K' },
		{ "seed", required_argument, NULL, 'S' }, { "run-id", required_argument, NULL, 'i' },
		{ "results", required_argument, NULL, 'o' }, { "accel", required_argument, NULL, 'a' },
		{ "program", required_argument, NULL, 'P' }, { "check", required_argument, NULL, 'C' },
		{ "recover", required_argument, NULL, 'r' },
		{ "mode", required_argument, NULL, 'M' }, { "platform", required_argument, NULL, 'L' },
		{ "subsets", required_argument, NULL, 'N' }, { "fence-points", required_argument, NULL, 'F' },
		{ "fence-period", required_argument, NULL, 'E' }, { "structured", required_argument, NULL, 'U' },
		{ "torn", required_argument, NULL, 'W' }, { "history", required_argument, NULL, 'Y' },
		{ "scenario-table", required_argument, NULL, 'T' },
		{ "checkers", required_argument, NULL, 'c' }, { "cflags", required_argument, NULL, 'G' },
		{ "ldlibs", required_argument, NULL, 'l' }, { "resume", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { 0 }
	};
	struct crash_options *o = &t->opt;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "f:s:k:KS:i:o:a:P:C:r:M:L:N:U:W:Y:F:E:T:c:G:l:R:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': o->filesystems = optarg; break;
		case 's': o->scenarios = optarg; break;
		case 'T': o->scenario_table = optarg; break;
		case 'k': o->kernel = o->checker_kernel = optarg; break;
		case 'K': o->keep = 1; break;
		case 'S': o->seed = strtoul(optarg, NULL, 0); break;
		case 'i':
		case 'R':
			/* A run id becomes a directory name under --results. */
			if (!name_is_safe(optarg, sizeof(o->run_id))) {
				fprintf(stderr, "crashtest: run id '%.80s' cannot name a directory: use up to %zu letters, digits, '.', '_', '+' or '-', not starting with '.'\n",
					optarg, sizeof(o->run_id) - 1);
				return 2;
			}
			snprintf(o->run_id, sizeof(o->run_id), "%s", optarg);
			o->resume = opt == 'R';
			break;
		case 'o': t->results = optarg; break;
		case 'a': o->accel = optarg; break;
		case 'P': o->program = optarg; break;
		case 'C': o->check = optarg; break;
		case 'r': o->recover = optarg; break;
		case 'M': o->mode = optarg; break;
		case 'L': o->platform = optarg; break;
		case 'N': o->adr.subsets = strtoul(optarg, NULL, 0); break;
		case 'U': o->adr.structured = strtoul(optarg, NULL, 0); break;
		case 'W': o->adr.torn = strtoul(optarg, NULL, 0); break;
		case 'Y': o->adr.history = strtoul(optarg, NULL, 0); break;
		case 'F':
			o->adr.fence_max = strtoull(optarg, NULL, 0);
			t->fence_points_given = 1;
			break;
		case 'E':
			o->adr.fence_period = strtoull(optarg, NULL, 0);
			t->fence_period_given = 1;
			break;
		case 'c': o->checkers = t->checkers_asked = atoi(optarg); break;
		case 'G': o->cflags = optarg; break;
		case 'l': o->ldlibs = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	return GO_ON;
}

/* auto: KVM only when a probe guest boots under it (accel.c). */
static int choose_accel(struct crashtest *t)
{
	struct crash_options *o = &t->opt;
	char kpath[PATH_MAX], ipath[PATH_MAX];
	struct qemu_config q = { .binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
				 .mem_mib = 1024, .cpus = 1, .kernel = kpath, .initrd = ipath };

	snprintf(kpath, sizeof(kpath), "%s/kernels/%s/bzImage", o->build, o->kernel);
	snprintf(ipath, sizeof(ipath), "%s/initramfs.cpio", o->build);
	if (access(kpath, R_OK) || access(ipath, R_OK)) {
		fprintf(stderr, "crashtest: no %s or %s: run 'make kernels images'\n", kpath, ipath);
		return 2;
	}
	o->accel_auto = !strcmp(o->accel, "auto");
	if (accel_resolve(o->accel, &q, cache_dir(), t->accel, sizeof(t->accel), t->accel_why,
			  sizeof(t->accel_why)) < 0)
		return 2;
	o->accel = t->accel;
	return GO_ON;
}

/* The defaults that depend on other options, and the checks on them. */
static int check_options(struct crashtest *t)
{
	struct crash_options *o = &t->opt;

	if (!o->checkers)
		o->checkers = checker_default_parallel();
	/* The scenarios run on the table's crashtest defaults, each row on those
	 * it names; a user's program on its program defaults (vm-images/filesystems). */
	if (!o->filesystems)
		o->filesystems = fs_defaults(o->program ? "program" : "crashtest");
	o->build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	if (o->platform && strcmp(o->platform, "eadr") && strcmp(o->platform, "adr")) {
		fprintf(stderr, "crashtest: unknown platform '%s' (eadr: every executed store durable; adr: the cache model)\n",
			o->platform);
		return 2;
	}
	/* A black box has no acks to crash at: its fence points are all it has,
	 * every one offered, and a sample of 32 spread over the run kept. */
	if (o->recover && !t->fence_points_given)
		o->adr.fence_max = 32;
	if (o->recover && !t->fence_period_given)
		o->adr.fence_period = 1;
	if (o->recover && !o->program) {
		fprintf(stderr, "crashtest: --recover (RECOVER=) judges a --program (PROGRAM=): give the program too\n");
		return 2;
	}
	if (o->adr.subsets > ADR_MAX_RANDOM) {
		fprintf(stderr, "crashtest: --subsets %u is more than %d random images per crash point\n", o->adr.subsets,
			ADR_MAX_RANDOM);
		return 2;
	}
	if (o->adr.structured > ADR_MAX_STRUCTURED) {
		fprintf(stderr, "crashtest: --structured %u is more than %d images of each family per crash point\n",
			o->adr.structured, ADR_MAX_STRUCTURED);
		return 2;
	}
	if (o->adr.torn > ADR_MAX_TORN) {
		fprintf(stderr, "crashtest: --torn %u is more than %d images of each torn family per crash point\n",
			o->adr.torn, ADR_MAX_TORN);
		return 2;
	}
	if (o->adr.history > ADR_MAX_HISTORY) {
		fprintf(stderr, "crashtest: --history %u is more than %d images of each family of earlier values per crash point\n",
			o->adr.history, ADR_MAX_HISTORY);
		return 2;
	}
	t->st.images = calloc(MAX_IMAGES, sizeof(*t->st.images));
	t->st.checks = calloc(MAX_IMAGES, sizeof(*t->st.checks));
	if (!t->st.images || !t->st.checks)
		return 2;
	snprintf(t->adr_plugin, sizeof(t->adr_plugin), "%s/plugins/adr-cache.so", o->build);
	o->adr_plugin = t->adr_plugin;
	o->adr.seed = o->seed;
	t->st.rng = o->seed;
	/* The ADR model is a TCG plugin: no KVM for a run that needs it. */
	if (!strcmp(o->accel, "auto") && o->platform && !strcmp(o->platform, "adr"))
		o->accel = "tcg";
	return choose_accel(t);
}

/* Whether the run takes this row of the table (on some filesystem). */
static int row_chosen(const struct crashtest *t, const struct scenario *sc)
{
	return (!t->only || word_in_list(t->only, sc->name)) &&
	       (!t->opt.platform || !strcmp(t->opt.platform, sc->platform));
}

/* Whether a row runs on fs (a user's program runs on any). */
static int runs_on(const struct scenario *sc, const char *fs)
{
	return !strcmp(sc->fs, "*") || word_in_list(sc->fs, fs);
}

static int choose_scenarios(struct crashtest *t)
{
	int i, found = 0;

	t->only = t->opt.scenarios;
	t->ns = scenarios_load(t->opt.scenario_table, t->sc, MAX_SCENARIOS);
	if (t->ns <= 0)
		return 2;
	for (i = 0; i < t->ns; i++)
		found += row_chosen(t, &t->sc[i]);
	if (!found) {
		fprintf(stderr, "crashtest: no scenario matches '%s' (see %s)\n", t->only,
			t->opt.scenario_table ?: SCENARIO_TABLE);
		return 2;
	}
	return GO_ON;
}

/*
 * The run's directory and run.json, or the run it resumes and what that
 * judged before. Every filesystem is checked before any scenario runs.
 */
static int open_run(struct crashtest *t)
{
	struct crash_options *o = &t->opt;
	char path[PATH_MAX], why[WHY_MAX], *fsl, *tok, *save;

	if (!o->run_id[0]) {
		time_t now = time(NULL);

		strftime(o->run_id, sizeof(o->run_id), "%Y%m%d-%H%M%S-crash", localtime(&now));
	}
	if (run_dir_name(o->run_dir, sizeof(o->run_dir), t->results, o->run_id, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/run.json", o->run_dir);
	if (!o->resume && !access(path, F_OK)) {
		fprintf(stderr, "crashtest: run %s exists: give another --run-id, or --resume %s to finish it\n",
			o->run_id, o->run_id);
		return 2;
	}
	fsl = strdup(o->filesystems);
	for (tok = strtok_r(fsl, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save))
		if (!fs_for(tok, "crashtest")) {
			fprintf(stderr, "crashtest: unknown filesystem '%s' (%s)\n", tok, fs_names("crashtest"));
			return 2;
		}
	free(fsl);
	t->options = crash_run_options(o);
	snprintf(path, sizeof(path), "%s/crash", o->run_dir);
	if (o->resume && access(o->run_dir, F_OK)) {
		fprintf(stderr, "crashtest: nothing to resume at %s: give the run id of a run under --results (%s)\n",
			o->run_dir, t->results);
		return 2;
	}
	if (o->resume && run_dir_make(o->run_dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return 2;
	}
	if (o->resume && crash_resume_open(o->run_dir, o->run_id, t->options, &t->done) < 0)
		return 2;
	if (t->done.complete) {
		fprintf(stderr, "crashtest: run %s is complete: nothing to resume (results: %s)\n", o->run_id, path);
		return 0;
	}
	if (run_dir_make(o->run_dir, why, sizeof(why)) < 0 || run_dir_make(path, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return 2;
	}
	/* What ran where, as bench records it: reports read it. A resumed run
	 * keeps the record of the run it finishes. */
	if (!o->resume) {
		int rc = crash_run_record(o, t->accel_why, t->options);

		if (rc)
			return rc;
	}
	t->held = json_array_size(t->done.rows);
	return GO_ON;
}

/* A program line's arguments as one string of sh words (malloc'd). */
static char *args_words(const struct program_line *pl)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		abort();
	program_line_args(f, pl);
	fclose(f);
	return s;
}

/*
 * A user's program is one scenario whose every image must be intact (or,
 * judged black-box by its RECOVER, recovered). It is built once, into the
 * run's user/: a planned unit finds it there (build 0).
 */
static int build_program(struct crashtest *t, int build)
{
	struct crash_options *o = &t->opt;
	struct scenario *sc = &t->sc[0];
	struct program_line prog, rec;
	char path[PATH_MAX], why[WHY_MAX], bin[PATH_MAX];

	snprintf(bin, sizeof(bin), "%s/pmdk/bin", o->build);
	if (program_line_parse("PROGRAM", o->program, bin, &prog) < 0 ||
	    (o->recover && program_line_parse("RECOVER", o->recover, bin, &rec) < 0))
		return 2;
	snprintf(path, sizeof(path), "%s/user", o->run_dir);
	snprintf(t->prog_bin, sizeof(t->prog_bin), "%s/user/program", o->run_dir);
	snprintf(t->check_bin, sizeof(t->check_bin), "%s/user/check", o->run_dir);
	/* The same program recovering itself is built once. */
	snprintf(t->recover_bin, sizeof(t->recover_bin), "%s/user/%s", o->run_dir,
		 o->recover && strcmp(rec.spec, prog.spec) ? "recover" : "program");
	if (build && run_dir_make(path, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return 2;
	}
	if (build && (user_program_build(prog.spec, t->prog_bin, o->cflags, o->ldlibs) < 0 ||
	    (o->check && user_program_build(o->check, t->check_bin, o->cflags, o->ldlibs) < 0) ||
	    (o->recover && strcmp(t->recover_bin, t->prog_bin) &&
	     user_program_build(rec.spec, t->recover_bin, o->cflags, o->ldlibs) < 0)))
		return 2;
	t->st.program = t->prog_bin;
	t->program_args = args_words(&prog);
	t->st.program_args = t->program_args;
	if (o->recover)
		t->recover_args = args_words(&rec);
	t->st.blackbox = o->recover != NULL;
	t->ns = 1;
	snprintf(sc->name, sizeof(sc->name), "program");
	snprintf(sc->job, sizeof(sc->job), "%s", o->program);
	snprintf(sc->mode, sizeof(sc->mode), "%s", o->mode);
	snprintf(sc->expect, sizeof(sc->expect), "intact");
	snprintf(sc->platform, sizeof(sc->platform), "%s", o->platform ? o->platform : "eadr");
	snprintf(sc->fs, sizeof(sc->fs), "*");
	sc->kernel[0] = '\0';
	t->only = NULL;
	return GO_ON;
}

/*
 * The checker guests boot while the first writer runs, and stay up to the
 * last scenario. Every golden image has the same namespace, so any of them
 * will do to boot with.
 */
static void plan_checkers(struct crashtest *t, const char *dir)
{
	const struct crash_options *o = &t->opt;
	char *first = strdup(o->filesystems), *save;

	t->pool_opts = (struct checker_options){ .build = o->build, .accel = o->accel, .kernel = o->checker_kernel,
						 .golden = t->pool_golden, .dir = t->pool_dir,
						 .check = o->program && o->check ? t->check_bin : NULL,
						 .recover = o->program && o->recover ? t->recover_bin : NULL,
						 .recover_args = t->recover_args,
						 .parallel = o->checkers };
	snprintf(t->pool_golden, sizeof(t->pool_golden), "%s/images/%s.img", o->build, strtok_r(first, " ,", &save));
	snprintf(t->pool_dir, sizeof(t->pool_dir), "%s", dir);
	free(first);
}

/*
 * A program row of the scenario table (the CoW cases): its program and
 * checker are built into dir (the run's user/<scenario>/, or a unit's own
 * user/), and its images go to checker guests of its own, which carry its
 * checker.
 */
static int program_row_begin(struct crashtest *t, const struct scenario *sc, const char *dir)
{
	char why[WHY_MAX];

	if (run_dir_make(dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return -1;
	}
	snprintf(t->prog_bin, sizeof(t->prog_bin), "%s/program", dir);
	snprintf(t->check_bin, sizeof(t->check_bin), "%s/check", dir);
	if (user_program_build(sc->job, t->prog_bin, NULL, NULL) < 0 ||
	    user_program_build(sc->check, t->check_bin, NULL, NULL) < 0)
		return -1;
	t->row_opts = t->pool_opts;
	t->row_opts.check = t->check_bin;
	if (sc->kernel[0])
		t->row_opts.kernel = sc->kernel;
	t->st.program = t->prog_bin;
	t->st.row_checker = &t->row_opts;
	return 0;
}

/* One scenario on one filesystem, its row saved: 0, or -1 when the run stops. */
static int run_one(struct crashtest *t, const struct scenario *sc, const char *fs)
{
	const struct crash_options *o = &t->opt;
	char path[PATH_MAX], user[PATH_MAX], where[200];
	struct run_error err;
	json_t *row;

	if (o->resume && (row = crash_resume_row(&t->done, sc->name, fs))) {
		fprintf(stderr, "crashtest: %s on %s: judged before the interruption, kept\n", sc->name, fs);
		json_array_append(t->rows, row);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/crash/%s__%s", o->run_dir, sc->name, fs);
	if (o->resume && crash_resume_clear(path) < 0) {
		t->failures++;
		return 0;
	}
	/* Booted with the first writer that runs: a resume with every
	 * scenario judged needs none. */
	if (!t->pool_tried) {
		t->st.pool = checker_pool_start(&t->pool_opts);
		t->pool_tried = 1;
	}
	fprintf(stderr, "crashtest: %s on %s (%s) ...\n", sc->name, fs, sc->mode);
	snprintf(user, sizeof(user), "%s/user/%s", o->run_dir, sc->name);
	if (!o->program && scenario_is_program(sc) && program_row_begin(t, sc, user) < 0) {
		t->failures++;
		return 0;
	}
	row = crash_scenario_run(&t->st, sc, fs);
	if (!o->program)
		t->st.program = NULL, t->st.row_checker = NULL;
	snprintf(where, sizeof(where), "%s on %s", sc->name, fs);
	if (!row && t->st.disk_full.code) {
		crash_say_stopped(o, where, &t->st.disk_full, t->held, 0);
		return -1;
	}
	if (!row) {
		t->failures++;
		return 0;
	}
	json_array_append_new(t->rows, row);
	/* A consistent partial summary after every scenario; the scenario is
	 * judged once its row is saved, and not before. */
	if (crash_summary_partial(o, t->rows, &err) < 0) {
		crash_say_stopped(o, where, &err, t->held, 0);
		return -1;
	}
	t->held = json_array_size(t->rows);
	fprintf(stderr, "crashtest: %s: %lld images, %lld acks, %.0f s\n", where,
		(long long)json_integer_value(json_object_get(row, "images")),
		(long long)json_integer_value(json_object_get(row, "acks")),
		json_real_value(json_object_get(row, "seconds")));
	return 0;
}

/* Filesystem by filesystem, every row chosen for it: 0, or -1 when the run stopped. */
static int run_scenarios(struct crashtest *t)
{
	char *fsl = strdup(t->opt.filesystems), *fs, *save;
	int i, stopped = 0;

	for (fs = strtok_r(fsl, " ,", &save); fs && !stopped; fs = strtok_r(NULL, " ,", &save))
		for (i = 0; i < t->ns && !stopped; i++)
			if (row_chosen(t, &t->sc[i]) && runs_on(&t->sc[i], fs))
				stopped = run_one(t, &t->sc[i], fs) < 0;
	free(fsl);
	return stopped ? -1 : 0;
}

static void crashtest_init(struct crashtest *t)
{
	*t = (struct crashtest){
		.opt = { .kernel = flavour_defaults("crashtest"), .checker_kernel = flavour_defaults("crashtest"),
			 .accel = "auto", .mode = "shared", .seed = 1,
			 .adr = { .subsets = 20, .structured = 16, .history = 8, .fence_max = 4, .fence_period = 200 } },
		.results = "results/runs",
		.rows = json_array(),
		.t0 = now_s(),
	};
	t->st.opt = &t->opt;
}

static void crashtest_free(struct crashtest *t)
{
	json_decref(t->options);
	json_decref(t->rows);
	json_decref(t->run_doc);
	free(t->program_args);
	free(t->recover_args);
	crash_resume_free(&t->done);
	free(t->st.images);
	free(t->st.checks);
}

/* A program of a PMDK build: which PMDK and which libpmemobj, said once. */
static void say_pmdk(const struct crashtest *t)
{
	const char *keys[] = { "program", "recover" };

	for (size_t k = 0; k < 2; k++) {
		json_t *p = json_object_get(json_object_get(t->options, keys[k]), "pmdk");

		if (p)
			fprintf(stderr, "crashtest: %s: PMDK %s from %s%s%s, libpmemobj %s\n", keys[k],
				json_string_value(json_object_get(p, "pmdk_version")) ?: "?",
				json_string_value(json_object_get(p, "source")) ?: "?",
				strcmp(json_string_value(json_object_get(p, "mutant")) ?: "none", "none") ? ", mutant " : "",
				strcmp(json_string_value(json_object_get(p, "mutant")) ?: "none", "none") ?
					json_string_value(json_object_get(p, "mutant")) : "",
				json_string_value(json_object_get(p, "library")) ?: "?");
	}
}

/* What every way of starting a run shares: options, scenarios, its directory. */
static int crashtest_open(struct crashtest *t, int argc, char **argv)
{
	int rc;

	if ((rc = parse_options(t, argc, argv)) != GO_ON || (rc = check_options(t)) != GO_ON ||
	    (rc = choose_scenarios(t)) != GO_ON || (rc = open_run(t)) != GO_ON ||
	    (t->opt.program && (rc = build_program(t, 1)) != GO_ON))
		return rc;
	say_pmdk(t);
	return GO_ON;
}

int cmd_crashtest(int argc, char **argv)
{
	struct crashtest t;
	int rc, stopped, guests = 0;
	double boot_s = 0;
	char dir[PATH_MAX];

	crashtest_init(&t);
	if ((rc = crashtest_open(&t, argc, argv)) != GO_ON) {
		crashtest_free(&t);
		return rc;
	}
	/* In one process the checker guests are one pool for the whole run. */
	snprintf(dir, sizeof(dir), "%s/crash", t.opt.run_dir);
	plan_checkers(&t, dir);
	stopped = run_scenarios(&t) < 0;
	if (t.st.pool)
		checker_pool_stop(t.st.pool, &guests, &boot_s);
	rc = stopped ? 1 : crash_summary_finish(&t.opt, t.rows, now_s() - t.t0, guests, boot_s, t.held, t.failures);
	crashtest_free(&t);
	return rc;
}

/*
 * pmem-harness plan crashtest [OPTIONS]: the run's directory and run.json as
 * crashtest makes them (a --program built once, into user/), and plan.txt
 * with one unit per row and filesystem, in the order crashtest runs them.
 */
int crashtest_plan(int argc, char **argv)
{
	struct crashtest t;
	char dir[PATH_MAX], why[WHY_MAX];
	json_t *units;
	int rc, i, planned;
	char *fsl, *fs, *save;

	crashtest_init(&t);
	if ((rc = crashtest_open(&t, argc, argv)) != GO_ON) {
		crashtest_free(&t);
		return rc;
	}
	units = json_array();
	fsl = strdup(t.opt.filesystems);
	for (fs = strtok_r(fsl, " ,", &save); fs; fs = strtok_r(NULL, " ,", &save))
		for (i = 0; i < t.ns; i++)
			if (row_chosen(&t, &t.sc[i]) && runs_on(&t.sc[i], fs))
				json_array_append_new(units, json_pack("{s:s, s:s}", "scenario", t.sc[i].name, "fs", fs));
	free(fsl);
	rc = crash_plan_write(&t.opt, units, t.checkers_asked, &planned, why, sizeof(why));
	json_decref(units);
	if (rc < 0) {
		fprintf(stderr, "plan: %s\n", why);
		crashtest_free(&t);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/plan.txt", t.opt.run_dir);
	crash_plan_print(dir, stdout);
	fprintf(stderr, "plan: %d unit%s in %s; run each line, then: %s/pmem-harness collect %s\n", planned,
		planned == 1 ? "" : "s", dir, t.opt.build, t.opt.run_dir);
	crashtest_free(&t);
	return 0;
}

/* A unit's options: those its run was planned with (run.json), not argv. */
static int unit_options(struct crashtest *t, const char *run_dir)
{
	struct crash_options *o = &t->opt;
	json_t *opts = json_object_get(t->run_doc, "options"), *plan = json_object_get(t->run_doc, "plan"), *v;
	const char *id = json_string_value(json_object_get(t->run_doc, "run_id"));
	size_t i, used = 0;

	if (!json_is_object(opts) || !json_is_object(plan) || !id || !name_is_safe(id, sizeof(o->run_id))) {
		fprintf(stderr, "unit: %s/run.json is not a planned crashtest run: plan it with 'pmem-harness plan crashtest'\n",
			run_dir);
		return 2;
	}
	snprintf(o->run_id, sizeof(o->run_id), "%s", id);
	snprintf(o->run_dir, sizeof(o->run_dir), "%s", run_dir);
	o->kernel = o->checker_kernel = json_string_value(json_object_get(opts, "kernel")) ?: flavour_defaults("crashtest");
	json_array_foreach(json_object_get(opts, "filesystems"), i, v)
		used += snprintf(t->fs_list + used, used < sizeof(t->fs_list) ? sizeof(t->fs_list) - used : 0, "%s%s",
				 used ? " " : "", json_string_value(v) ?: "");
	o->filesystems = t->fs_list;
	o->scenarios = json_string_value(json_object_get(opts, "scenarios"));
	o->scenario_table = json_string_value(json_object_get(opts, "scenario_table"));
	o->platform = json_string_value(json_object_get(opts, "platform"));
	o->program = json_string_value(json_object_get(json_object_get(opts, "program"), "files"));
	o->check = json_string_value(json_object_get(json_object_get(opts, "check"), "files"));
	o->recover = json_string_value(json_object_get(json_object_get(opts, "recover"), "files"));
	o->mode = json_string_value(json_object_get(opts, "mode")) ?: "shared";
	o->cflags = json_string_value(json_object_get(opts, "cflags"));
	o->ldlibs = json_string_value(json_object_get(opts, "ldlibs"));
	o->seed = json_integer_value(json_object_get(opts, "seed"));
	o->adr.subsets = json_integer_value(json_object_get(opts, "subsets"));
	/* A run from before the structured subsets resumes without them. */
	o->adr.structured = json_integer_value(json_object_get(opts, "structured"));
	o->adr.torn = json_integer_value(json_object_get(opts, "torn"));
	/* A run from before the earlier values resumes without them. */
	o->adr.history = json_integer_value(json_object_get(opts, "history"));
	o->adr.fence_max = json_integer_value(json_object_get(opts, "fence_points"));
	o->adr.fence_period = json_integer_value(json_object_get(opts, "fence_period"));
	o->keep = json_is_true(json_object_get(opts, "keep"));
	/* The accelerator the plan chose: units do not probe again. */
	o->accel = json_string_value(json_object_get(json_object_get(t->run_doc, "accel"), "name")) ?: "tcg";
	/*
	 * A unit runs beside others, each given a CPU by its scheduler: one
	 * checker guest unless the plan or PMEM_CHECKERS says more.
	 */
	o->checkers = json_integer_value(json_object_get(plan, "checkers"));
	if (!o->checkers)
		o->checkers = getenv("PMEM_CHECKERS") ? checker_default_parallel() : 1;
	if (used >= sizeof(t->fs_list) || !o->filesystems[0]) {
		fprintf(stderr, "unit: %s/run.json names no filesystems\n", run_dir);
		return 2;
	}
	return GO_ON;
}

/* The row of the table that scenario names on fs, if the plan holds it. */
static const struct scenario *unit_scenario(struct crashtest *t, const char *scenario, const char *fs)
{
	json_t *u;
	size_t k;
	int i, planned = 0;

	json_array_foreach(json_object_get(json_object_get(t->run_doc, "plan"), "units"), k, u)
		planned |= !strcmp(json_string_value(json_object_get(u, "scenario")) ?: "", scenario) &&
			   !strcmp(json_string_value(json_object_get(u, "fs")) ?: "", fs);
	if (!planned)
		return NULL;
	for (i = 0; i < t->ns; i++)
		if (!strcmp(t->sc[i].name, scenario) && row_chosen(t, &t->sc[i]) && runs_on(&t->sc[i], fs))
			return &t->sc[i];
	return NULL;
}

/*
 * pmem-harness unit RUN_DIR SCENARIO FS, for a planned crashtest: one
 * scenario on one filesystem, writer to verdicts, and its row document.
 * The checker pool of an in-process run cannot be shared across processes
 * (its guests are children of the process that started them), so a unit
 * boots checker guests of its own, into its own directory.
 */
int crashtest_unit(const char *run_dir, json_t *run, const char *scenario, const char *fs)
{
	struct crashtest t;
	const struct scenario *sc;
	char dir[PATH_MAX], user[PATH_MAX], why[WHY_MAX];
	int rc, guests = 0;
	double boot_s = 0, t0 = now_s();
	json_t *row;

	crashtest_init(&t);
	t.run_doc = json_incref(run);
	if ((rc = unit_options(&t, run_dir)) != GO_ON || (rc = check_options(&t)) != GO_ON ||
	    (rc = choose_scenarios(&t)) != GO_ON || (t.opt.program && (rc = build_program(&t, 0)) != GO_ON))
		goto out;
	t.opt.accel_auto = json_is_true(json_object_get(json_object_get(run, "plan"), "accel_auto"));
	rc = 2;
	sc = unit_scenario(&t, scenario, fs);
	if (!sc) {
		fprintf(stderr, "unit: %.64s on %.32s is not a unit of run %s (see its plan.txt)\n", scenario, fs,
			t.opt.run_id);
		goto out;
	}
	crash_unit_dir(run_dir, scenario, fs, dir, sizeof(dir));
	if (crash_unit_done(dir)) {
		fprintf(stderr, "unit: %s on %s: done before, skipped\n", scenario, fs);
		rc = 0;
		goto out;
	}
	/* What an attempt cut off left is not evidence: it starts over. */
	rc = 1;
	if (crash_resume_clear(dir) < 0)
		goto out;
	if (run_dir_make(dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "unit: %s\n", why);
		rc = disk_full_errno(errno) ? UNIT_EXIT_DISK_FULL : 1;
		goto out;
	}
	plan_checkers(&t, dir);
	snprintf(user, sizeof(user), "%s/user", dir);
	if (!t.opt.program && scenario_is_program(sc) && program_row_begin(&t, sc, user) < 0)
		goto out;
	/* Booted while the writer runs, as in-process. */
	if (!t.st.row_checker)
		t.st.pool = checker_pool_start(&t.pool_opts);
	fprintf(stderr, "unit: %s on %s (%s) ...\n", sc->name, fs, sc->mode);
	row = crash_scenario_run(&t.st, sc, fs);
	if (t.st.pool)
		checker_pool_stop(t.st.pool, &guests, &boot_s);
	if (!row && t.st.disk_full.code) {
		fprintf(stderr, "unit: %s on %s stopped: %s; free space, then run the line again\n", scenario, fs,
			t.st.disk_full.context);
		rc = UNIT_EXIT_DISK_FULL;
		goto out;
	}
	if (!row)
		goto out;
	if (crash_row_write(dir, row, t.opt.checkers, guests, boot_s, now_s() - t0, why, sizeof(why)) < 0) {
		fprintf(stderr, "unit: %s on %s: judged, but %s; run the line again\n", scenario, fs, why);
		rc = disk_full_errno(errno) ? UNIT_EXIT_DISK_FULL : 1;
		json_decref(row);
		goto out;
	}
	fprintf(stderr, "unit: %s on %s: %lld images, %lld acks, done in %.0f s (%s)\n", scenario, fs,
		(long long)json_integer_value(json_object_get(row, "images")),
		(long long)json_integer_value(json_object_get(row, "acks")), now_s() - t0, dir);
	json_decref(row);
	rc = 0;
out:
	crashtest_free(&t);
	return rc;
}
