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
 *  2. The checker pool (harness/checker.c), up from before the first writer
 *     to the end of the run, takes the images: for each, the host rewrites
 *     a checker guest's backing file in place while nothing is mounted, the
 *     guest drops its block-device buffers, mounts (journal or log replay),
 *     reads every record slot, unmounts and runs fsck -n. A checker that
 *     hangs or panics gives its current image the verdict fs-corrupt; one
 *     killed from outside has that image checked again by a fresh one.
 *  3. The host judges each image against its ack log (crash-inject/judge.c,
 *     crash_judge.c).
 *
 * results/runs/<run-id>/crash/<scenario>__<fs>/: acks.log, images/, one
 * JSON per image, and summary.json for the run (crash_summary.c). A
 * results disk that fills up stops the run in one line, and --resume
 * finishes it: a scenario counts as judged once its row is in the summary
 * on disk, never before.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"
#include "builtin.h"
#include "crash.h"
#include "crash_resume.h"
#include "names.h"
#include "rundir.h"
#include "user_program.h"

/*
 * A program row of the scenario table (the CoW cases): its program and
 * checker are built into the run's user/<scenario>/, and its images go to
 * checker guests of its own, which carry its checker. prog and check are
 * the binaries' paths (len bytes each).
 */
static int program_row_begin(struct crash_scenario_state *st, const struct scenario *sc, const char *run_dir,
			     const struct checker_options *pool, struct checker_options *row, char *prog,
			     char *check, size_t len)
{
	char dir[1100], why[1200];

	snprintf(dir, sizeof(dir), "%s/user", run_dir);
	if (run_dir_make(dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/user/%s", run_dir, sc->name);
	if (run_dir_make(dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return -1;
	}
	snprintf(prog, len, "%s/program", dir);
	snprintf(check, len, "%s/check", dir);
	if (user_program_build(sc->job, prog, NULL, NULL) < 0 || user_program_build(sc->check, check, NULL, NULL) < 0)
		return -1;
	*row = *pool;
	row->check = check;
	if (sc->kernel[0])
		row->kernel = sc->kernel;
	st->program = prog;
	st->row_checker = row;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmem-harness crashtest [--fs LIST] [--scenarios LIST] [--kernel FLAVOUR]\n"
		"                              [--platform eadr|adr] [--subsets N] [--fence-points N]\n"
		"                              [--program PROG [--check PROG] [--mode MODE]\n"
		"                               [--cflags FLAGS] [--ldlibs LIBS]]\n"
		"                              [--keep] [--seed N] [--run-id ID | --resume ID] [--results DIR]\n"
		"                              [--accel A]\n"
		"                              [--checkers N]\n"
		"Runs each scenario of crash-inject/scenarios (or --program, checked by --check)\n"
		"on each filesystem, takes crash images, checks them in a checker guest and\n"
		"prints the verdicts.\n"
		"  --platform      eadr: every executed store is durable (QEMU's view);\n"
		"                  adr: lines not written back and fenced may be lost (TCG model)\n"
		"  --subsets N     ADR images per crash point besides the strict one (default 20, max 64)\n"
		"  --fence-points N  ADR crash points sampled at fences (default 4)\n"
		"  --fence-period N  sample one in N fences that write lines back and leave\n"
		"                  others pending (default 200; 1: each, up to --fence-points)\n"
		"  --program PROG  C or C++ sources (\"a.c b.cc\"), built with the ack, record and\n"
		"                  flush helpers and --cflags/--ldlibs; an x86-64 binary (static,\n"
		"                  or dynamic on libraries the guests carry); or a #!/bin/sh script\n"
		"  --mode MODE     the program's mapping: shared, sync, aware or sync+aware\n"
		"  --resume ID     finish an interrupted run, with the options it started with:\n"
		"                  scenarios judged before are kept, the one cut off runs again\n"
		"  --checkers N    checker guests at once (default: one per CPU, at most 4;\n"
		"                  PMEM_CHECKERS sets the default)\n");
}

int cmd_crashtest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fs", required_argument, NULL, 'f' }, { "scenarios", required_argument, NULL, 's' },
		{ "kernel", required_argument, NULL, 'k' }, { "keep", no_argument, NULL, 'K' },
		{ "seed", required_argument, NULL, 'S' }, { "run-id", required_argument, NULL, 'i' },
		{ "results", required_argument, NULL, 'o' }, { "accel", required_argument, NULL, 'a' },
		{ "program", required_argument, NULL, 'P' }, { "check", required_argument, NULL, 'C' },
		{ "mode", required_argument, NULL, 'M' }, { "platform", required_argument, NULL, 'L' },
		{ "subsets", required_argument, NULL, 'N' }, { "fence-points", required_argument, NULL, 'F' },
		{ "fence-period", required_argument, NULL, 'E' },
		{ "checkers", required_argument, NULL, 'c' }, { "cflags", required_argument, NULL, 'G' },
		{ "ldlibs", required_argument, NULL, 'l' }, { "resume", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { 0 }
	};
	const char *program = NULL, *check = NULL, *mode = "shared", *platform = NULL;
	const char *cflags = NULL, *ldlibs = NULL;
	char prog_bin[1100], check_bin[1100], adr_plugin[1100];
	char pool_golden[1100], pool_dir[1200];
	struct checker_options pool_opts, row_opts;
	struct crash_options o = { .kernel = "6.1-aware", .checker_kernel = "6.1-aware", .accel = "auto",
				  .seed = 1, .adr = { .subsets = 20, .fence_max = 4, .fence_period = 200 } };
	struct crash_scenario_state st = { .opt = &o };
	const char *user_check = NULL;
	const char *fss = NULL, *only = NULL, *results = "results/runs";
	char why[1400] = "";
	struct scenario sc[32];
	char run_id[64] = "", run_dir[1024], path[1200], where[200], *fsl, *tok, *save;
	json_t *rows = json_array(), *options;
	struct crash_resume done = { 0 };
	int ns, i, opt, rc, full, failures = 0, resume = 0, stopped = 0, pool_tried = 0;
	size_t held;	/* rows in the summary on disk */
	double t0 = now_s();

	optind = 1;
	while ((opt = getopt_long(argc, argv, "f:s:k:KS:i:o:a:P:C:M:L:N:F:E:c:G:l:R:h", longopts, NULL)) != -1) {
		if (opt == 'P' || opt == 'C' || opt == 'M') {
			*(opt == 'P' ? &program : opt == 'C' ? &check : &mode) = optarg;
			continue;
		}
		switch (opt) {
		case 'f': fss = optarg; break;
		case 's': only = optarg; break;
		case 'k': o.kernel = o.checker_kernel = optarg; break;
		case 'K': o.keep = 1; break;
		case 'S': o.seed = strtoul(optarg, NULL, 0); break;
		case 'i':
		case 'R':
			/* A run id becomes a directory name under --results. */
			if (!name_is_safe(optarg, sizeof(run_id))) {
				fprintf(stderr, "crashtest: run id '%.80s' cannot name a directory: use up to %zu letters, digits, '.', '_', '+' or '-', not starting with '.'\n",
					optarg, sizeof(run_id) - 1);
				return 2;
			}
			snprintf(run_id, sizeof(run_id), "%s", optarg);
			resume = opt == 'R';
			break;
		case 'o': results = optarg; break;
		case 'a': o.accel = optarg; break;
		case 'L': platform = optarg; break;
		case 'N': o.adr.subsets = strtoul(optarg, NULL, 0); break;
		case 'F': o.adr.fence_max = strtoull(optarg, NULL, 0); break;
		case 'E': o.adr.fence_period = strtoull(optarg, NULL, 0); break;
		case 'c': o.checkers = atoi(optarg); break;
		case 'G': cflags = optarg; break;
		case 'l': ldlibs = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!o.checkers)
		o.checkers = checker_default_parallel();
	/* The reflinked xfs runs only the rows made for it (the CoW cases); a
	 * user's program runs on each filesystem it is given. */
	if (!fss)
		fss = program ? "ext4 xfs" : "ext4 xfs xfs-reflink";
	o.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	if (platform && strcmp(platform, "eadr") && strcmp(platform, "adr")) {
		fprintf(stderr, "crashtest: unknown platform '%s' (eadr: every executed store durable; adr: the cache model)\n",
			platform);
		return 2;
	}
	if (o.adr.subsets > 64) {
		fprintf(stderr, "crashtest: --subsets %u is more than 64 images per crash point\n", o.adr.subsets);
		return 2;
	}
	st.images = calloc(MAX_IMAGES, sizeof(*st.images));
	st.checks = calloc(MAX_IMAGES, sizeof(*st.checks));
	if (!st.images || !st.checks)
		return 2;
	snprintf(adr_plugin, sizeof(adr_plugin), "%s/plugins/adr-cache.so", o.build);
	o.adr_plugin = adr_plugin;
	o.adr.seed = o.seed;
	st.rng = o.seed;
	/* The ADR model is a TCG plugin: no KVM for a run that needs it. */
	if (!strcmp(o.accel, "auto") && platform && !strcmp(platform, "adr"))
		o.accel = "tcg";
	{
		/* auto: KVM only when a probe guest boots under it (accel.c). */
		static char accel[16];
		char kpath[1024], ipath[1024];
		struct qemu_config q = { .binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
					 .mem_mib = 1024, .cpus = 1, .kernel = kpath, .initrd = ipath };

		snprintf(kpath, sizeof(kpath), "%s/kernels/%s/bzImage", o.build, o.kernel);
		snprintf(ipath, sizeof(ipath), "%s/initramfs.cpio", o.build);
		if (access(kpath, R_OK) || access(ipath, R_OK)) {
			fprintf(stderr, "crashtest: no %s or %s: run 'make kernels images'\n", kpath, ipath);
			return 2;
		}
		o.accel_auto = !strcmp(o.accel, "auto");
		if (accel_resolve(o.accel, &q, harness_cache_dir(), accel, sizeof(accel), why, sizeof(why)) < 0)
			return 2;
		o.accel = accel;
	}
	ns = scenarios_load(sc, 32);
	if (ns <= 0)
		return 2;
	{
		int found = 0;

		for (i = 0; i < ns; i++)
			found += (!only || word_in_list(only, sc[i].name)) && (!platform || !strcmp(platform, sc[i].platform));
		if (!found) {
			fprintf(stderr, "crashtest: no scenario matches '%s' (see crash-inject/scenarios)\n", only);
			return 2;
		}
	}
	if (!run_id[0]) {
		time_t t = time(NULL);

		strftime(run_id, sizeof(run_id), "%Y%m%d-%H%M%S-crash", localtime(&t));
	}
	snprintf(run_dir, sizeof(run_dir), "%s/%s", results, run_id);
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	if (!resume && !access(path, F_OK)) {
		fprintf(stderr, "crashtest: run %s exists: give another --run-id, or --resume %s to finish it\n", run_id,
			run_id);
		return 2;
	}
	/* Every filesystem is checked before any scenario runs. */
	fsl = strdup(fss);
	for (tok = strtok_r(fsl, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save))
		if (strcmp(tok, "ext4") && strcmp(tok, "xfs") && strcmp(tok, "xfs-reflink")) {
			fprintf(stderr, "crashtest: unknown filesystem '%s' (ext4, xfs, xfs-reflink)\n", tok);
			return 2;
		}
	free(fsl);
	o.filesystems = fss, o.scenarios = only, o.platform = platform, o.mode = mode;
	o.program = program, o.check = check, o.cflags = cflags, o.ldlibs = ldlibs;
	snprintf(o.run_id, sizeof(o.run_id), "%s", run_id);
	snprintf(o.run_dir, sizeof(o.run_dir), "%s", run_dir);
	o.resume = resume;
	options = crash_run_options(&o);
	snprintf(path, sizeof(path), "%s/crash", run_dir);
	if (resume && access(run_dir, F_OK)) {
		fprintf(stderr, "crashtest: nothing to resume at %s: give the run id of a run under --results (%s)\n",
			run_dir, results);
		return 2;
	}
	if (resume && run_dir_make(run_dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return 2;
	}
	if (resume && crash_resume_open(run_dir, run_id, options, &done) < 0)
		return 2;
	if (done.complete) {
		fprintf(stderr, "crashtest: run %s is complete: nothing to resume (results: %s)\n", run_id, path);
		return 0;
	}
	if (run_dir_make(run_dir, why, sizeof(why)) < 0 || run_dir_make(path, why, sizeof(why)) < 0) {
		fprintf(stderr, "crashtest: %s\n", why);
		return 2;
	}
	/* What ran where, as bench records it: reports read it. A resumed run
	 * keeps the record of the run it finishes. */
	if (!resume) {
		rc = crash_run_record(&o, why, options);
		if (rc)
			return rc;
	}
	/* A user's program is one scenario whose every image must be intact. */
	if (program) {
		snprintf(path, sizeof(path), "%s/user", run_dir);
		snprintf(prog_bin, sizeof(prog_bin), "%s/user/program", run_dir);
		snprintf(check_bin, sizeof(check_bin), "%s/user/check", run_dir);
		if (run_dir_make(path, why, sizeof(why)) < 0) {
			fprintf(stderr, "crashtest: %s\n", why);
			return 2;
		}
		if (user_program_build(program, prog_bin, cflags, ldlibs) < 0 ||
		    (check && user_program_build(check, check_bin, cflags, ldlibs) < 0))
			return 2;
		st.program = prog_bin;
		user_check = check ? check_bin : NULL;
		ns = 1;
		snprintf(sc[0].name, sizeof(sc[0].name), "program");
		snprintf(sc[0].job, sizeof(sc[0].job), "%s", program);
		snprintf(sc[0].mode, sizeof(sc[0].mode), "%s", mode);
		snprintf(sc[0].expect, sizeof(sc[0].expect), "intact");
		snprintf(sc[0].platform, sizeof(sc[0].platform), "%s", platform ? platform : "eadr");
		snprintf(sc[0].fs, sizeof(sc[0].fs), "*");
		sc[0].kernel[0] = '\0';
		only = NULL;
	}
	{
		/* The checker guests boot while the first writer runs, and stay up
		 * to the last scenario. Every golden image has the same namespace,
		 * so any of them will do to boot with. */
		char *first = strdup(fss);

		pool_opts = (struct checker_options){ .build = o.build, .accel = o.accel, .kernel = o.checker_kernel,
						      .golden = pool_golden, .dir = pool_dir, .check = user_check,
						      .parallel = o.checkers };
		snprintf(pool_golden, sizeof(pool_golden), "%s/images/%s.img", o.build, strtok_r(first, " ,", &save));
		snprintf(pool_dir, sizeof(pool_dir), "%s/crash", run_dir);
		free(first);
	}
	held = json_array_size(done.rows);
	fsl = strdup(fss);
	for (tok = strtok_r(fsl, " ,", &save); tok && !stopped; tok = strtok_r(NULL, " ,", &save)) {
		for (i = 0; i < ns; i++) {
			json_t *row;

			if ((only && !word_in_list(only, sc[i].name)) || (platform && strcmp(platform, sc[i].platform)))
				continue;
			if (strcmp(sc[i].fs, "*") && !word_in_list(sc[i].fs, tok))
				continue;
			if (resume && (row = crash_resume_row(&done, sc[i].name, tok))) {
				fprintf(stderr, "crashtest: %s on %s: judged before the interruption, kept\n", sc[i].name,
					tok);
				json_array_append(rows, row);
				continue;
			}
			snprintf(path, sizeof(path), "%s/crash/%s__%s", run_dir, sc[i].name, tok);
			if (resume && crash_resume_clear(path) < 0) {
				failures++;
				continue;
			}
			/* Booted with the first writer that runs: a resume with
			 * every scenario judged needs none. */
			if (!pool_tried) {
				st.pool = checker_pool_start(&pool_opts);
				pool_tried = 1;
			}
			fprintf(stderr, "crashtest: %s on %s (%s) ...\n", sc[i].name, tok, sc[i].mode);
			if (!program && scenario_is_program(&sc[i])) {
				if (program_row_begin(&st, &sc[i], run_dir, &pool_opts, &row_opts, prog_bin, check_bin,
						      sizeof(prog_bin)) < 0) {
					failures++;
					continue;
				}
			}
			row = crash_scenario_run(&st, &sc[i], tok);
			if (!program)
				st.program = NULL, st.row_checker = NULL;
			snprintf(where, sizeof(where), "%s on %s", sc[i].name, tok);
			if (!row && st.disk_full[0]) {
				crash_say_stopped(&o, where, st.disk_full, 1, held, 0);
				stopped = 1;
				break;
			}
			if (!row) {
				failures++;
				continue;
			}
			json_array_append_new(rows, row);
			/* A consistent partial summary after every scenario; the
			 * scenario is judged once its row is saved, and not before. */
			rc = crash_summary_partial(&o, rows, why, sizeof(why), &full);
			if (rc < 0) {
				crash_say_stopped(&o, where, why, full, held, 0);
				stopped = 1;
				break;
			}
			held = json_array_size(rows);
			fprintf(stderr, "crashtest: %s: %lld images, %lld acks, %.0f s\n", where,
				(long long)json_integer_value(json_object_get(row, "images")),
				(long long)json_integer_value(json_object_get(row, "acks")),
				json_real_value(json_object_get(row, "seconds")));
		}
	}
	free(fsl);
	if (stopped) {
		int guests;
		double boot_s;

		if (st.pool)
			checker_pool_stop(st.pool, &guests, &boot_s);
		json_decref(rows);
		json_decref(options);
		crash_resume_free(&done);
		return 1;
	}
	{
		double boot_s = 0;
		int guests = 0;

		if (st.pool)
			checker_pool_stop(st.pool, &guests, &boot_s);
		rc = crash_summary_finish(&o, rows, t0, guests, boot_s, held, failures);
		json_decref(options);
		crash_resume_free(&done);
		json_decref(rows);
		return rc;
	}
}
