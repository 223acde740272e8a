/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmem-harness crashtest, one file per phase of a scenario:
 *   crash_writer.c    the writer guest, its acks and crash points
 *   crash_images.c    the crash images: made, deduplicated, written, dropped
 *   crash_check.c     the checker guests on them, during and after the writer
 *   crash_judge.c     the checker's reports turned into verdicts and a row
 *   crash_scenario.c  one scenario on one filesystem, writer to row
 *   crash_summary.c   the run's documents: run.json, summary.json, tables
 *   crash_plan.c      a planned run: plan.txt, a unit's row document
 *   crash_collect.c   a planned run's summary, from its units' rows
 * and cmd-crashtest.c, which reads the options and runs the scenarios (or
 * plans them, or runs one as a planned unit).
 */
#ifndef HARNESS_CRASH_H
#define HARNESS_CRASH_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "../judge/ack_stream.h"
#include "../model/adr.h"
#include "scenario.h"
#include "checker.h"
#include "../../lib/error.h"
#include "../../vm/vm.h"

#define MAX_IMAGES 4000
#define MAX_POINTS 96

/*
 * Room kept free on the results disk besides the next image: the verdicts,
 * the summary and the logs must still be written, and the writer's NVDIMM
 * file (QEMU maps it; a full disk would be a SIGBUS there) may still grow.
 */
#define DISK_RESERVE ((off_t)64 << 20)

/* What the command line fixed for the whole run. */
struct crash_options {
	/* the guests */
	const char *build, *accel, *kernel, *checker_kernel;
	int accel_auto;		/* the user let us choose: ADR rows may then take TCG */
	int checkers;		/* checker guests at once */
	/* what runs: scenarios from the table, or a user's program */
	const char *filesystems;	/* --fs: a list */
	const char *scenarios;		/* --scenarios, or NULL: every row */
	const char *scenario_table;	/* --scenario-table, or NULL: crash-inject/scenarios */
	const char *platform;		/* --platform, or NULL: each row's */
	const char *program, *check, *mode, *cflags, *ldlibs;	/* --program: its sources */
	const char *recover;		/* --recover: its own recovery, run on each image (black box) */
	/* what decides the verdicts */
	unsigned int seed;
	int keep;			/* every image kept, not only the evidence */
	struct adr_params adr;
	const char *adr_plugin;		/* build/plugins/adr-cache.so */
	/* where the results go */
	char run_id[64], run_dir[PATH_MAX];
	int resume;
};

struct image {
	char path[PATH_MAX];
	const char *why;	/* "ack", "time", "kill", "fence" */
	/* ADR: the crash point it comes from and which pending lines it keeps */
	int point;		/* -1: an eADR image */
	char variant[16];	/* "eadr" (all kept), "adr" (none), a subset (adr_subset_name()) */
	unsigned char *keep;	/* per pending line of the point, then per earlier value
				 * (adr_mask_width()); NULL: see variant */
	char hash[40];
};

/*
 * One scenario on one filesystem, from its writer guest to its verdicts.
 * A run reuses one for every scenario: each starts it over
 * (crash_writer_begin), but its random state goes on.
 */
struct crash_scenario_state {
	const struct crash_options *opt;
	unsigned int rng;		/* rand_r() state, from --seed */
	/* what runs, and which checker guests judge its images */
	const char *platform;		/* "eadr" or "adr" */
	const char *program;		/* a user's program (a binary), or NULL: our writer */
	const char *program_args;	/* its arguments, as sh words */
	int blackbox;			/* judged by its own recovery and what it printed, not by acks */
	struct checker_pool *pool;	/* the run's, up from the first writer to the end */
	const struct checker_options *row_checker;	/* a program row's own, or NULL */
	char dir[PATH_MAX];			/* its files: crash/<scenario>__<fs>/ */
	/* the writer guest and the acks it claimed */
	FILE *ack_log;
	off_t ack_log_len;	/* what acks.log holds in whole lines; -1: unknown */
	struct ack_stream stream;	/* what the guest may still claim */
	struct ack_rec *acks;
	struct adr_record *records;	/* ADR: where acks[i] lies in the region */
	size_t nacks, cap;
	/* what a black-box program printed, in order (proto/print_line.h) */
	char **printed;
	size_t nprinted, printed_cap;
	FILE *printed_log;
	int printed_dropped;	/* lines past PRINT_LINES_MAX, not kept */
	/* black box: fence points offered by the model, and one kept in every
	 * fence_stride of them (doubled each time the kept ones fill --fence-points) */
	uint64_t fences_offered, fence_stride;
	uint64_t fence_pick;		/* where in the current window the point is taken */
	int fence_window_taken;		/* the current window has its point */
	uint64_t user_fences_offered;	/* of those, completing write-backs of the program (not the kernel) */
	size_t point_files;		/* names given to point files */
	size_t points_skipped;		/* points not taken: MAX_POINTS were */
	long aware_mappings;		/* mappings made with MAP_PMEM_AWARE (an -aware program), or -1 */
	size_t next_ack_crash;	/* take an image after this many acks */
	double next_time_crash;
	int done;		/* the guest said "done": the last image is taken */
	/* why it stopped early, one line each ("": it did not) */
	char protocol_error[320];	/* the first line refused, and why */
	struct run_error disk_full;	/* the results disk has no room: the run stops */
	struct run_error log_error;	/* acks.log could not be written otherwise */
	/* the ADR model of the writer guest */
	struct adr_model model;
	struct adr_point points[MAX_POINTS];
	size_t npoints;
	int base_checked;
	char model_error[256];
	struct adr_record last_rec;	/* the last ack point's record */
	int have_last_rec;
	/* Every ack point checked against the lines still pending (all of them,
	 * not only those sampled as images): checked, without the record's
	 * place (ack() rather than ack_at()), and with lines of it pending. */
	uint64_t acks_checked, acks_unlocated, acks_pending, first_pending_seq;
	double snapshot_seconds;	/* saving the crash points (adr_snapshot) */
	/* when the writer guest was launched, the ADR model started (the guest ran
	 * its start marker: the boot is over), and the program said "done"; 0: not yet */
	double t_launch, t_model_start, t_done;
	struct adr_line first_pending;
	/* the images, and per image what the checker needs and says (same index) */
	struct image *images;
	struct check_item *checks;
	size_t nimages;
	/* Images made of the first points_imaged points, compared with those
	 * before them up to deduped (twins: identical to one before). The
	 * subsets draw from their own random state, so that when a point's
	 * images are made does not change which. */
	size_t points_imaged, deduped, twins;
	unsigned int subset_rng;
	/* The images as the checkers have them (crash_check.c); checking: they
	 * take each as it is ready, while the writer runs. */
	struct check_set check;
	int checking;
};

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int is_adr(const struct crash_scenario_state *st)
{
	return !strcmp(st->platform, "adr");
}

/* crash_writer.c: the writer guest */
/* Start st over for a scenario on platform ("eadr" or "adr"). */
void crash_writer_begin(struct crash_scenario_state *st, const char *platform);
/* Run the writer guest in st->dir, taking images as it goes: 0, or -1 when
 * it could not start (said, or st->disk_full). */
int crash_writer_run(struct crash_scenario_state *st, const struct scenario *sc, const char *fs,
		     const char *kernel, struct vm_result *r);
/*
 * Why the writer's run does not count as a finished one, in one line for
 * the user (0 when it does): the guest failed, the program exited non-zero
 * or was killed, or it finished without acknowledging anything.
 */
int crash_writer_failed(const struct crash_scenario_state *st, const struct vm_result *r, char *why, size_t len);

/* crash_images.c: the images */
/* The next image slot, set for an eADR image; NULL when all are taken. */
struct image *crash_image_new(struct crash_scenario_state *st);
/* Bytes free under dir, or -1. */
off_t crash_free_bytes(const char *dir);
/* Whether st->dir has room for need bytes and DISK_RESERVE; if not, say so
 * in st->disk_full. */
int crash_room_for(struct crash_scenario_state *st, off_t need);
/*
 * The images ready to check: how many (they are the first). ADR: every
 * crash point whose ack line has come (all: every point) becomes its
 * boundary images (all pending lines kept: eADR; none: strict ADR) and
 * subsets between. They stay descriptions (a point and a mask) until the
 * checker or the evidence needs the bytes. An image identical to one
 * before it is that one's twin (same_as), checked once.
 */
size_t crash_images_ready(struct crash_scenario_state *st, int all);
/* Put an image's bytes into dst (create: a new file; else over dst in
 * place): a copy of its file, or its point's lines. */
int crash_image_write(const struct crash_scenario_state *st, const struct image *im, const char *dst, int create);
/*
 * A scenario the disk had no room for is not judged: its images go, to give
 * the space back, and a resumed run takes the scenario again.
 */
void crash_images_drop(struct crash_scenario_state *st);

/* crash_check.c: the checker guests on the images */
/* Before the writer: with the run's pool, the images are checked as they are
 * made (not a black box, nor a row with a checker of its own). */
void crash_check_begin(struct crash_scenario_state *st, const char *fs);
/* The writer's hooks: the pool's descriptors, and what poll said of them
 * (fds NULL: only hand out what is newly ready). */
int crash_check_fds(struct crash_scenario_state *st, struct pollfd *fds, int max);
void crash_check_step(struct crash_scenario_state *st, const struct pollfd *fds, int n);
/* The scenario is not judged: nothing more goes out, and those out end. */
void crash_check_abandon(struct crash_scenario_state *st);
/* After the writer: every image judged. busy: seconds some image was with a
 * checker; tail: seconds after the writer. 0, or -1 when the disk filled up
 * under them (st->disk_full). */
int crash_check_rest(struct crash_scenario_state *st, double *busy, double *tail);

/* crash_judge.c: the verdicts */
/* What a scenario's row says besides its verdicts. */
struct crash_row_facts {
	double t0;		/* when the scenario began */
	double writer_seconds;	/* the writer guest: boot, program, crash points */
	double check_seconds;	/* seconds some image was with a checker guest */
	double check_tail_seconds;	/* the checkers' after the writer ended */
	enum vm_status status;	/* how the writer guest ended */
	const char *failure;	/* why the writer's run failed, or "" */
	size_t twins;		/* images identical to one checked */
};
/* A scenario that is not judged (a full disk, an ack log not written): nothing of it is kept. */
void crash_unjudged(struct crash_scenario_state *st);
/* Every image's verdict written, and the scenario's row of summary.json;
 * NULL when the disk filled up (st->disk_full, nothing kept). */
json_t *crash_judge(struct crash_scenario_state *st, const struct scenario *sc, const char *fs, const char *kernel,
		    const struct crash_row_facts *f);

/* crash_scenario.c */
/* Run sc on fs, writer to verdicts: its row, or NULL when it failed (said)
 * or the disk filled up (st->disk_full: the run stops). */
json_t *crash_scenario_run(struct crash_scenario_state *st, const struct scenario *sc, const char *fs);

/* crash_summary.c: the run's documents */
/*
 * What decides a run's verdicts, recorded in run.json: --resume finishes a
 * run only with the same (the checker count and accelerator may change).
 */
json_t *crash_run_options(const struct crash_options *o);
/* Write run.json: 0, or the exit status the command stops with (said). */
int crash_run_record(const struct crash_options *o, const char *accel_reason, json_t *options);
/* Save summary.json with the rows judged so far, not complete: 0, or -1
 * with err set (a full disk: ENOSPC or EDQUOT). */
int crash_summary_partial(const struct crash_options *o, json_t *rows, struct run_error *err);
/*
 * The one line a run stops with when its results cannot be saved: err
 * (free space when the disk is full, else make it writable), what the
 * summary on disk holds (held rows, every one judged; all_judged: every
 * scenario is, but the run is not marked complete), and what to run next.
 * A resume keeps those rows and runs the rest.
 */
void crash_say_stopped(const struct crash_options *o, const char *where, const struct run_error *err, size_t held,
		       int all_judged);
/*
 * The complete summary.json, then the verdict tables and totals on stdout;
 * returns the command's exit status. seconds: the run's time (in-process: its
 * wall clock; collected from units: theirs added up).
 */
int crash_summary_finish(const struct crash_options *o, json_t *rows, double seconds, int guests, double boot_s,
			 size_t held, int failures);

#endif
