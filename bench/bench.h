/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark matrix and its units. A cell is (kernel flavour, filesystem,
 * mapping mode, job file); a unit is one fresh guest for one (kernel,
 * filesystem, repetition), which runs every mode x job of its pair.
 *
 * results/runs/<run-id>/
 *   run.json        the matrix and what ran where (kernels, QEMU, host, git)
 *   jobs/<job>.fio  the job files, as planned: units read these
 *   plan.txt        one `pmem-harness unit ...` command per unit
 *   units/<kernel>__<fs>__rep<N>/  one guest: vm.json, logs, unit.json
 *   cells/<kernel>__<fs>__<mode>__<job>.json  one document per cell
 *
 * `plan` makes the run directory and its plan; each unit writes only its own
 * directory, unit.json last and atomically (a unit that has one is done);
 * `collect` rebuilds the cells, summary and report from the units there.
 * `bench` is plan, then the units (up to --guests at once), then collect.
 */
#ifndef HARNESS_BENCH_H
#define HARNESS_BENCH_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>

#include "../lib/error.h"

#define BENCH_MAX_LIST 16

struct bench_list {
	char *v[BENCH_MAX_LIST];
	int n;
};

struct bench {
	struct bench_list kernels, fss, modes, jobs;
	int reps, peer, quick, resume, guests;
	const char *build, *accel, *plugin;
	char run_id[64], run_dir[PATH_MAX];
	char harness[PATH_MAX];
	struct run_error disk_full;	/* the results disk has no room: the run stops */
};

/* Every unit of b: repetition by repetition, each kernel on each filesystem. */
#define bench_for_each_unit(b, rep, i, k)				\
	for ((rep) = 1; (rep) <= (b)->reps; (rep)++)			\
		for ((i) = 0; (i) < (b)->kernels.n; (i)++)		\
			for ((k) = 0; (k) < (b)->fss.n; (k)++)

/* The options bench and plan share; see bench_usage(). */
int bench_parse(struct bench *b, int argc, char **argv, const char *cmd);
void bench_usage(FILE *f, const char *cmd);

/*
 * Make or reopen the run directory, write run.json, copy the job files into
 * jobs/ and write plan.txt with every unit not done yet. The number of units
 * planned, or -1 after one line on stderr (2 is the exit status then, or 1
 * for a full disk).
 */
int bench_plan(struct bench *b, int *exit_status);

/* run.json for a new run: the matrix, the kernels, where it runs. */
json_t *bench_run_json(const struct bench *b);

/* One plan line: the complete `pmem-harness unit` command for a unit, quoted for sh. */
void bench_plan_line(const struct bench *b, const char *kernel, const char *fs, int rep, FILE *f);

/* Read the matrix back from run_dir/run.json for a unit or collect; 0 or -1 (line said). */
int bench_load(struct bench *b, const char *run_dir, const char *cmd);

/* A unit's directory, and whether it is done (has unit.json). */
void bench_unit_dir(const struct bench *b, const char *kernel, const char *fs, int rep, char *buf, size_t size);
int bench_unit_done(const char *dir);

/* Run one unit's guest in this process; 0, or -1 after one line. */
int bench_run_unit(struct bench *b, const char *kernel, const char *fs, int rep);

/*
 * Rebuild the cells from the units there, record the accelerator and how
 * the units shared their hosts in run.json, print the summary and write
 * the report. The number of planned units still missing (each said), or
 * -1 when nothing could be collected.
 */
int bench_collect(struct bench *b, FILE *out);

/* The one line a full disk stops the run with. */
void bench_say_disk_full(const struct bench *b, const char *where, int resumable);

/* Whether the kernel has MAP_PMEM_AWARE (patch set, or probed for a user's kernel). */
int bench_kernel_has_port(const struct bench *b, const char *kernel);

/* The run kind's entry points (harness/run_kinds.c), bench_units.c. */
int bench_plan_main(int argc, char **argv);
int bench_unit_main(const char *run_dir, json_t *run, char **words);
int bench_collect_main(const char *run_dir, json_t *run);

/* A job file's name without directory and ".fio". */
const char *bench_job_name(const char *path, char *buf, size_t size);

#endif
