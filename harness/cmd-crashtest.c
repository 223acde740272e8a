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
 *     last crash image.
 *  2. The checker pool (harness/checker.c), up from before the first writer
 *     to the end of the run, takes the images: for each, the host rewrites
 *     a checker guest's backing file in place while nothing is mounted, the
 *     guest drops its block-device buffers, mounts (journal or log replay),
 *     reads every record slot, unmounts and runs fsck -n. A checker that
 *     hangs or panics gives its current image the verdict fs-corrupt; one
 *     killed from outside has that image checked again by a fresh one.
 *  3. The host judges each image against its ack log (crash-inject/judge.c).
 *
 * results/runs/<run-id>/crash/<scenario>__<fs>/: acks.log, images/, one
 * JSON per image, and summary.json for the run. A results disk that fills
 * up stops the run in one line, and --resume finishes it: a scenario
 * counts as judged once its row is in the summary on disk, never before.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../crash-inject/ack_stream.h"
#include "../crash-inject/adr.h"
#include "../crash-inject/attribute.h"
#include "../crash-inject/image.h"
#include "../crash-inject/judge.h"
#include "../crash-inject/scenario.h"
#include "../crash-inject/check_phases.h"
#include "../crash-inject/symbolize.h"
#include "../results/series.h"
#include "../results/verdicts.h"
#include "accel.h"
#include "checker.h"
#include "crash_resume.h"
#include "embed.h"
#include "builtin.h"
#include "diskfull.h"
#include "jsonio.h"
#include "names.h"
#include "runinfo.h"
#include "rundir.h"
#include "shell_word.h"
#include "textfile.h"
#include "user_program.h"
#include "vm.h"

#define MAX_IMAGES 4000
#define MAX_POINTS 96

struct image {
	char path[1024];
	const char *why;	/* "ack", "time", "kill", "fence" */
	/* ADR: the crash point it comes from and which pending lines it keeps */
	int point;		/* -1: an eADR image */
	char variant[8];	/* "eadr" (all kept), "adr" (none), "sNN" (a subset) */
	unsigned char *keep;	/* per pending line of the point; NULL: see variant */
	char hash[40];
};

struct crash_run;
static int write_image(const struct crash_run *c, const struct image *im, const char *dst, int create);

struct crash_run {
	/* options */
	const char *build, *accel, *kernel, *checker_kernel;
	int accel_auto;		/* the user let us choose: ADR rows may then take TCG */
	unsigned int seed;
	int min_images, keep;
	const char *platform;		/* "eadr" or "adr" for this scenario */
	struct adr_params adr;
	const char *adr_plugin;		/* build/plugins/adr-cache.so */
	/* one scenario x fs */
	char dir[1024];
	FILE *ack_log;
	struct ack_stream stream;	/* what the guest may still claim */
	char protocol_error[320];	/* the first line refused, and why */
	char disk_full[1400];	/* the results disk has no room: the run stops */
	char log_error[1200];	/* acks.log could not be written otherwise */
	off_t ack_log_len;	/* what acks.log holds in whole lines; -1: unknown */
	struct ack_rec *acks;
	struct adr_record *records;	/* ADR: where acks[i] lies in the region */
	size_t nacks, cap;
	struct image *images;
	size_t nimages;
	size_t next_ack_crash;	/* take an image after this many acks */
	double next_time_crash;
	int done;
	/* the ADR model of the writer guest */
	struct adr_model model;
	struct adr_point points[MAX_POINTS];
	size_t npoints;
	int base_checked;
	char model_error[256];
	struct adr_record last_rec;	/* the last ack point's record */
	int have_last_rec;
	/* a user's program and checker (static binaries), or NULL */
	const char *program, *check;
	int checkers;		/* checker guests at once */
	struct checker_pool *pool;	/* up from the first scenario to the last */
	/* a program row's checker guests, booted for its images only */
	const struct checker_options *row_checker;
	/* per image: what the checker needs and says (same index as images) */
	struct check_item *checks;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct image *new_image(struct crash_run *c)
{
	struct image *im;

	if (c->nimages == MAX_IMAGES)
		return NULL;
	im = &c->images[c->nimages];
	memset(im, 0, sizeof(*im));
	im->point = -1;
	c->checks[c->nimages] = (struct check_item){ .same_as = -1 };
	snprintf(im->variant, sizeof(im->variant), "eadr");
	return im;
}

/*
 * Room kept free on the results disk besides the next image: the verdicts,
 * the summary and the logs must still be written, and the writer's NVDIMM
 * file (QEMU maps it; a full disk would be a SIGBUS there) may still grow.
 */
#define DISK_RESERVE ((off_t)64 << 20)

static off_t free_bytes(const char *dir)
{
	off_t bytes;

	return disk_free(dir, &bytes, NULL) < 0 ? -1 : bytes;
}

/* Whether dir has room for need bytes and the reserve; if not, say so. */
static int room_for(struct crash_run *c, off_t need)
{
	off_t avail = free_bytes(c->dir);

	if (avail < 0 || avail >= need + DISK_RESERVE)
		return 1;
	snprintf(c->disk_full, sizeof(c->disk_full),
		 "the disk under %s is full: %lld MiB free, and %lld MiB are needed (the next image, %lld MiB, and %lld MiB kept for the results)",
		 c->dir, (long long)(avail >> 20), (long long)((need + DISK_RESERVE) >> 20), (long long)(need >> 20),
		 (long long)(DISK_RESERVE >> 20));
	return 0;
}

/* Pause, copy, resume: one crash image, if the disk has room for it. */
static void take_image(struct crash_run *c, struct vm *vm, const char *why, int paused_already)
{
	struct image *im = new_image(c);
	int copied;

	if (!im || c->disk_full[0])
		return;
	snprintf(im->path, sizeof(im->path), "%s/images/%03zu.img", c->dir, c->nimages);
	if (!paused_already && vm_pause(vm) < 0)
		return;
	if (!room_for(c, image_allocated(vm_nvdimm(vm)))) {
		vm_kill(vm);
		return;
	}
	copied = image_copy(vm_nvdimm(vm), im->path);
	if (copied == 0) {
		c->checks[c->nimages].acked = c->nacks;
		im->why = why;
		c->nimages++;
	} else if (disk_full_errno(errno)) {
		unlink(im->path);
		snprintf(c->disk_full, sizeof(c->disk_full), "the disk under %s is full: copying image %zu failed",
			 c->dir, c->nimages);
		vm_kill(vm);
		return;
	}
	if (!paused_already)
		vm_resume(vm);
}

static void add_ack(struct crash_run *c, uint64_t seq, uint64_t off, size_t len)
{
	if (c->nacks == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->acks = realloc(c->acks, c->cap * sizeof(*c->acks));
		c->records = realloc(c->records, c->cap * sizeof(*c->records));
		if (!c->acks || !c->records)
			abort();
	}
	c->records[c->nacks].n = 0;
	c->acks[c->nacks++] = (struct ack_rec){ seq, off, len };
}

static int is_adr(const struct crash_run *c)
{
	return !strcmp(c->platform, "adr");
}

/*
 * ADR: the model holds the vCPU at a crash point until we answer. Ack points
 * come before the ack's system call, so the record being acknowledged counts
 * as acknowledged in the image: the program has claimed it durable.
 */
static void take_point(struct crash_run *c, struct vm *vm, const char *kind, int answer)
{
	int ack = !strcmp(kind, "ack");
	int want = !ack || c->nacks + 1 == c->next_ack_crash;
	struct adr_point *pt = &c->points[c->npoints];

	if (want && c->npoints < MAX_POINTS) {
		memset(pt, 0, sizeof(*pt));
		snprintf(pt->kind, sizeof(pt->kind), "%s", kind);
		snprintf(pt->adr, sizeof(pt->adr), "%s/images/p%03zu.adr", c->dir, c->npoints);
		pt->acked = c->nacks + ack;
		if (ack && c->model.have_rec) {
			pt->rec = c->model.rec;
			pt->has_rec = 1;
		}
		if (adr_snapshot(&c->model, vm_nvdimm(vm), pt) == 0)
			c->npoints++;
	}
	if (ack && c->nacks + 1 == c->next_ack_crash)
		c->next_ack_crash += 15 + rand_r(&c->seed) % 30;
	/* The record's place is kept for its ack line, which comes next. */
	c->have_last_rec = ack && c->model.have_rec;
	if (c->have_last_rec)
		c->last_rec = c->model.rec;
	if (answer)
		adr_model_go(&c->model);
}

static int writer_poll_fd(void *ctx)
{
	struct crash_run *c = ctx;

	return is_adr(c) ? adr_model_poll_fd(&c->model) : -1;
}

static void writer_fd(void *ctx, struct vm *vm)
{
	struct crash_run *c = ctx;
	char kind[16];

	if (adr_model_read(&c->model, kind, sizeof(kind)) == ADR_EV_POINT)
		take_point(c, vm, kind, 1);
}

/* The guest broke the protocol: it is not trusted to go on. The images
 * taken so far are judged against the acks logged before this line. */
static void protocol_error(struct crash_run *c, struct vm *vm, const char *line, const char *why)
{
	char quoted[96];

	ack_quote(line, quoted, sizeof(quoted));
	snprintf(c->protocol_error, sizeof(c->protocol_error), "\"%s\": %s", quoted, why);
	vm_kill(vm);
}

/*
 * Log an ack in acks.log, all of its line or none: 0, or -1 when it could
 * not be written. The guest is then stopped without its answer and the
 * scenario is not judged: a full disk stops the run (c->disk_full), any
 * other failure only the scenario (c->log_error).
 */
static int log_ack(struct crash_run *c, struct vm *vm, const struct ack_rec *rec)
{
	char path[1100];
	int n, err;

	n = fprintf(c->ack_log, "%llu %llu %zu\n", (unsigned long long)rec->seq, (unsigned long long)rec->off,
		    rec->len);
	if (n > 0 && !fflush(c->ack_log)) {
		c->ack_log_len += n;
		return 0;
	}
	err = errno;
	/*
	 * A line cut short is taken back, so the log holds whole lines (if
	 * that fails too, the scenario is still not judged, and a resume
	 * removes its log).
	 */
	__fpurge(c->ack_log);
	if (ftruncate(fileno(c->ack_log), c->ack_log_len) < 0)
		c->ack_log_len = -1;
	snprintf(path, sizeof(path), "%s/acks.log", c->dir);
	if (disk_full_errno(err))
		disk_full_writing(c->disk_full, sizeof(c->disk_full), c->dir, path, err);
	else
		snprintf(c->log_error, sizeof(c->log_error), "cannot write %s: %s", path, strerror(err));
	vm_kill(vm);
	return -1;
}

static void writer_line(void *ctx, struct vm *vm, const char *line)
{
	struct crash_run *c = ctx;
	struct ack_rec rec;
	char why[200];

	if (c->protocol_error[0] || c->disk_full[0] || c->log_error[0] || c->done)
		return;
	switch (ack_stream_take(&c->stream, line, &rec, why, sizeof(why))) {
	case ACK_REFUSED:
		protocol_error(c, vm, line, why);
		return;
	case ACK_NOT_ACK:
		if (strcmp(line, "done"))
			protocol_error(c, vm, line, "not a line of the writer's protocol (ack, done)");
		else {
			/* The last crash point: power off before any sync or unmount. */
			vm_kill(vm);
			if (is_adr(c))
				take_point(c, vm, "kill", 0);
			else
				take_image(c, vm, "kill", 1);
			c->done = 1;
		}
		return;
	case ACK_TAKEN:
		break;
	}
	/* Logged before it is answered, or not answered at all. */
	if (log_ack(c, vm, &rec) < 0)
		return;
	add_ack(c, rec.seq, rec.off, rec.len);
	if (is_adr(c)) {
		if (c->have_last_rec && c->last_rec.seq == rec.seq)
			c->records[c->nacks - 1] = c->last_rec;
		c->have_last_rec = 0;
	} else if (c->nacks == c->next_ack_crash) {
		/* The image is taken before the guest hears "ok": nothing
		 * after this persisted record can have run yet. */
		take_image(c, vm, "ack", 0);
		c->next_ack_crash += 15 + rand_r(&c->seed) % 30;
	}
	vm_reply(vm, "ok %llu\n", (unsigned long long)rec.seq);
}

/* The model was told where the NVDIMM is; QEMU must agree. */
static void check_nvdimm_base(struct crash_run *c, struct vm *vm)
{
	json_t *devs = vm_query(vm, "query-memory-devices"), *d;
	size_t i;

	c->base_checked = 1;
	json_array_foreach(devs, i, d) {
		json_t *data = json_object_get(d, "data");

		if (strcmp(json_string_value(json_object_get(d, "type")) ?: "", "nvdimm"))
			continue;
		if ((uint64_t)json_integer_value(json_object_get(data, "addr")) == ADR_NVDIMM_BASE &&
		    (uint64_t)json_integer_value(json_object_get(data, "size")) == c->model.region_size) {
			json_decref(devs);
			return;
		}
		snprintf(c->model_error, sizeof(c->model_error),
			 "QEMU put the NVDIMM at 0x%llx (%lld bytes), not where the ADR model watches (0x%llx): ADR_NVDIMM_BASE in crash-inject/adr.h must follow harness/qemu.c's machine",
			 (long long)json_integer_value(json_object_get(data, "addr")),
			 (long long)json_integer_value(json_object_get(data, "size")), ADR_NVDIMM_BASE);
	}
	if (!c->model_error[0])
		snprintf(c->model_error, sizeof(c->model_error), "QMP query-memory-devices shows no NVDIMM");
	json_decref(devs);
	vm_kill(vm);
}

static void writer_tick(void *ctx, struct vm *vm)
{
	struct crash_run *c = ctx;

	if (c->disk_full[0] || c->log_error[0])
		return;
	if (is_adr(c) && !c->base_checked)
		check_nvdimm_base(c, vm);
	if (c->nacks && now_s() >= c->next_time_crash) {
		/* Under ADR the model takes it at the next store into the region. */
		if (is_adr(c))
			adr_model_request_time(&c->model);
		else
			take_image(c, vm, "time", 0);
		/* ADR points cost up to 22 images each: fewer of them. */
		c->next_time_crash = now_s() + (is_adr(c) ? 2.0 + (rand_r(&c->seed) % 3000) / 1000.0 :
						     0.2 + (rand_r(&c->seed) % 800) / 1000.0);
	}
}

/*
 * The writer guest's job: its input as data (the job file, or a user's
 * program) and the parameters of vm-images/guest/crash-writer.sh, which
 * runs it. The filesystem was checked (ext4, xfs, xfs-reflink), but a
 * mode is any word of the scenario table or --mode: both go as sh words.
 */
static char *writer_script(const struct crash_run *c, const struct scenario *sc, const char *fs)
{
	char *s = NULL, *text;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	/* A user's program is its own job: sc->job is then its source, not a job file. */
	text = c->program ? NULL : read_text_file(sc->job);
	if (text)
		fprintf(f, "cat >/tmp/job.fio <<'PMEM_JOB_EOF'\n%s\nPMEM_JOB_EOF\n", text);
	if (c->program)
		embed_binary(f, c->program, "/tmp/prog");
	fputs("export PMEM_FS=", f);
	shell_word(f, fs);
	fputs(" PMEM_CRASH_MODE=", f);
	shell_word(f, sc->mode);
	fprintf(f, " PMEM_CRASH_ADR=%d PMEM_CRASH_PROGRAM=%d\nexec sh /usr/share/pmem/crash-writer.sh\n", is_adr(c),
		c->program != NULL);
	fclose(f);
	free(text);
	return s;
}

/*
 * A scenario the disk had no room for is not judged: its images go, to give
 * the space back, and a resumed run takes the scenario again.
 */
static void drop_unjudged(struct crash_run *c)
{
	for (size_t i = 0; i < c->nimages; i++) {
		if (c->images[i].point < 0)
			unlink(c->images[i].path);
		free(c->images[i].keep);
		c->images[i].keep = NULL;
	}
	for (size_t p = 0; p < c->npoints; p++) {
		unlink(c->points[p].adr);
		adr_point_free(&c->points[p]);
	}
	c->nimages = c->npoints = 0;
}

/* A scenario stopped by a full disk after its writer: nothing of it is kept. */
static json_t *unjudged(struct crash_run *c, json_t *counts, json_t *unexpected, json_t *tally,
			struct symbolizer *sym)
{
	for (size_t i = 0; i < c->nimages; i++) {
		json_decref(c->checks[i].verdict);
		c->checks[i].verdict = NULL;
	}
	drop_unjudged(c);
	json_decref(counts);
	json_decref(unexpected);
	json_decref(tally);
	if (sym)
		symbolizer_free(sym);
	return NULL;
}

/*
 * ADR: every crash point becomes its boundary images (all pending lines
 * kept: eADR; none: strict ADR) and subsets between. They stay descriptions
 * (a point and a mask) until the checker or the evidence needs the bytes.
 */
static void images_from_points(struct crash_run *c)
{
	unsigned int seed = c->seed;

	for (size_t p = 0; p < c->npoints; p++) {
		struct adr_point *pt = &c->points[p];
		size_t n = pt->nlines, k, nmasks;
		unsigned char *masks = malloc((n ? n : 1) * 64);
		struct image *im;

		if (!masks)
			abort();
		nmasks = adr_subsets(n, c->adr.subsets, &seed, masks, 64);
		for (k = 0; k < nmasks + 2 && (im = new_image(c)); k++) {
			im->keep = malloc(n ? n : 1);
			if (!im->keep)
				abort();
			if (k == 0) {
				snprintf(im->variant, sizeof(im->variant), "eadr");
				memset(im->keep, 1, n);
			} else if (k == 1) {
				snprintf(im->variant, sizeof(im->variant), "adr");
				memset(im->keep, 0, n);
			} else {
				snprintf(im->variant, sizeof(im->variant), "s%02zu", k - 2);
				memcpy(im->keep, masks + (k - 2) * n, n);
			}
			snprintf(im->path, sizeof(im->path), "%s/images/p%03zu-%s.img", c->dir, p, im->variant);
			im->point = p;
			/* The marker comes before its ack line: a guest that died or
			 * was refused between the two claimed one record fewer. */
			c->checks[c->nimages].acked = pt->acked < c->nacks ? pt->acked : c->nacks;
			im->why = pt->kind;
			c->nimages++;
		}
		free(masks);
	}
}

/* Put an image's bytes into dst: a copy of its file, or its point's lines. */
static int write_image(const struct crash_run *c, const struct image *im, const char *dst, int create)
{
	if (im->point >= 0)
		return adr_write_image(&c->points[im->point], im->keep, dst, create);
	return create ? image_copy(im->path, dst) : image_rewrite(im->path, dst);
}

/* Identical images are checked once; returns how many are twins of another. */
static size_t dedup_images(struct crash_run *c)
{
	size_t twins = 0;

	for (size_t i = 0; i < c->nimages; i++) {
		struct image *im = &c->images[i];

		if (im->point >= 0)
			adr_image_key(&c->points[im->point], im->keep, im->hash, sizeof(im->hash));
		else {
			struct image_sum s;

			if (image_sum(im->path, &s) < 0)
				continue;
			image_sum_hex(&s, im->hash, sizeof(im->hash));
		}
		for (size_t j = 0; j < i; j++)
			if (c->checks[j].same_as < 0 && !strcmp(c->images[j].hash, im->hash) &&
			    c->checks[j].acked == c->checks[i].acked) {
				c->checks[i].same_as = j;
				twins++;
				break;
			}
	}
	return twins;
}

static json_t *points_by_kind(const struct crash_run *c)
{
	json_t *by = json_pack("{s:i, s:i, s:i}", "ack", 0, "fence", 0, "time", 0);

	for (size_t p = 0; p < c->npoints; p++) {
		const char *k = c->points[p].kind;

		json_object_set_new(by, k, json_integer(json_integer_value(json_object_get(by, k)) + 1));
	}
	return by;
}

/* The model's own health: a flush it could not place or a line it could not
 * hold means its images may keep what a real machine would lose. */
static json_t *model_json(const struct crash_run *c, int *incomplete)
{
	const struct adr_counters *k = c->npoints ? &c->points[c->npoints - 1].counters : NULL;
	json_t *m;

	if (!k) {
		*incomplete = 1;
		return json_pack("{s:s}", "error", c->model_error[0] ? c->model_error : "no crash point was taken");
	}
	*incomplete = k->unresolved_flushes || k->overflow || c->model.protocol_error[0] || c->model_error[0];
	m = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "stores", (json_int_t)k->stores,
		      "nt_stores", (json_int_t)k->nt_stores, "flushes", (json_int_t)k->flushes,
		      "fences", (json_int_t)k->fences, "unresolved_flushes", (json_int_t)k->unresolved_flushes,
		      "overflow_lines", (json_int_t)k->overflow, "points", (json_int_t)c->npoints,
		      "pending_at_last_point", (json_int_t)k->pending);
	/* Which kinds of crash point the run reached: acks, sampled fences, times. */
	json_object_set_new(m, "points_by_kind", points_by_kind(c));
	if (k->unresolved_flushes)
		json_object_set_new(m, "last_unresolved_pc", json_sprintf("0x%llx", (unsigned long long)k->last_unresolved_pc));
	if (c->model.protocol_error[0])
		json_object_set_new(m, "protocol_error", json_string(c->model.protocol_error));
	if (c->model_error[0])
		json_object_set_new(m, "error", json_string(c->model_error));
	return m;
}

static void add_adr_facts(struct crash_run *c, size_t i, struct symbolizer *sym)
{
	const struct image *im = &c->images[i];
	json_t *verdict = c->checks[i].verdict;
	const struct adr_point *pt = &c->points[im->point];
	const char *v = json_string_value(json_object_get(verdict, "verdict"));
	struct record_map map = { c->records, c->nacks };

	json_object_set_new(verdict, "point", json_integer(im->point));
	json_object_set_new(verdict, "variant", json_string(im->variant));
	json_object_set_new(verdict, "pending_lines", json_integer(pt->nlines));
	if (c->checks[i].same_as >= 0)
		json_object_set_new(verdict, "same_as", json_integer(c->checks[i].same_as));
	json_object_set_new(verdict, "hash", json_string(im->hash));
	if (!strcmp(im->variant, "eadr") || !strcmp(v, "intact") || !strcmp(v, "fs-corrupt"))
		return;
	attribute_image(verdict, pt, im->keep, &map, sym);
}

/* Where x86-64 Linux loads a PIE's first segment when ASLR is off. */
#define PIE_BASE 0x555555554000ULL

static int elf_is_pie(const char *path)
{
	Elf64_Ehdr eh;
	FILE *f = fopen(path, "rb");
	int pie = f && fread(&eh, sizeof(eh), 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
		  eh.e_type == ET_DYN;

	if (f)
		fclose(f);
	return pie;
}

static void user_symbolizer(const struct crash_run *c, const char *kernel, struct symbolizer *sym)
{
	char map[1200];

	snprintf(map, sizeof(map), "%s/kernels/%s/System.map", c->build, kernel);
	/* Our writer and a dynamic program are PIEs run with ASLR off (crash-writer.sh
	 * turns it off under ADR), loaded where the kernel puts a PIE then; a
	 * static program is not PIE. */
	if (c->program)
		symbolizer_init(sym, c->program, elf_is_pie(c->program) ? PIE_BASE : 0, map);
	else {
		static char writer[1100];

		snprintf(writer, sizeof(writer), "%s/guest/pmem-writer", c->build);
		symbolizer_init(sym, writer, PIE_BASE, map);
	}
}

/*
 * Why the writer's run does not count as a finished one, in one line for
 * the user (0 when it does): the guest failed, the program exited non-zero
 * or was killed, or it finished without acknowledging anything.
 */
static int writer_failed(const struct crash_run *c, const struct vm_result *r, char *why, size_t len)
{
	const char *who = c->program ? "your program" : "the writer";
	int sig = r->guest_exit - 128;

	if (c->done && (c->nacks || !c->program))
		return 0;
	if (c->done)
		snprintf(why, len, "%s finished without acknowledging a record, so nothing it wrote can be checked: "
			 "call ack() (or pmem-ack) after each write it made durable", who);
	else if (r->status == VM_OK && sig > 0 && sig < 65)
		snprintf(why, len, "%s was killed by signal %d (%s) after %zu acks; its output is in guest.log", who,
			 sig, strsignal(sig), c->nacks);
	else if (r->status == VM_OK)
		snprintf(why, len, "%s exited with status %d after %zu acks; its output is in guest.log", who,
			 r->guest_exit, c->nacks);
	else
		snprintf(why, len, "the writer did not finish (%s%s%s)", vm_status_name(r->status),
			 r->message[0] ? ": " : "", r->message);
	return 1;
}

/* The checker's time per step over the images it checked (twins excluded). */
static json_t *checked_phases(const struct crash_run *c)
{
	struct check_phases *p = calloc(c->nimages + 1, sizeof(*p));
	size_t i, n = 0;
	json_t *doc;

	if (!p)
		return json_object();
	for (i = 0; i < c->nimages; i++)
		if (c->checks[i].same_as < 0)
			p[n++] = c->checks[i].phases;
	doc = check_phases_json(p, n);
	free(p);
	return doc;
}

/* The checker asks for image i: its file, or its crash point's lines. */
static int write_checked(void *ctx, size_t i, const char *dst)
{
	struct crash_run *c = ctx;

	return write_image(c, &c->images[i], dst, 0);
}

static json_t *run_scenario(struct crash_run *c, const struct scenario *sc, const char *fs,
			    const char *run_dir)
{
	char golden[1024], nv[1300], kpath[1024], ipath[1024], path[1400], plugin[4096];
	struct vm_hooks hooks = { .ctx = c, .on_line = writer_line, .on_tick = writer_tick, .tick_ms = 50,
				  .poll_fd = writer_poll_fd, .on_fd = writer_fd };
	json_t *counts = json_pack("{s:i, s:i, s:i, s:i}", "intact", 0, "lost", 0, "torn", 0, "fs-corrupt", 0);
	json_t *unexpected = json_array(), *tally, *row;
	struct symbolizer sym;
	struct check_set check;
	struct vm_options o;
	struct vm_result r;
	char *script;
	size_t i, twins = 0;
	const char *kernel = sc->kernel[0] ? sc->kernel : c->kernel;
	char failure[700] = "", why[4200];
	double t0 = now_s(), t_check;
	off_t free_after;
	int kept_example = 0, losses = 0, incomplete = 0;

	c->nacks = c->nimages = c->npoints = 0;
	c->done = c->base_checked = c->have_last_rec = 0;
	c->model_error[0] = c->protocol_error[0] = c->disk_full[0] = c->log_error[0] = '\0';
	c->ack_log_len = 0;
	ack_stream_free(&c->stream);
	c->platform = sc->platform;
	c->next_ack_crash = 1 + rand_r(&c->seed) % 40;
	/* Under ADR the first claim is always a crash point: a program with few
	 * acks must still be judged at one. */
	if (is_adr(c))
		c->next_ack_crash = 1;
	c->next_time_crash = now_s() + 3;
	snprintf(c->dir, sizeof(c->dir), "%s/crash/%s__%s", run_dir, sc->name, fs);
	snprintf(path, sizeof(path), "%s/images", c->dir);
	if (run_dir_make(c->dir, plugin, sizeof(plugin)) < 0 || run_dir_make(path, plugin, sizeof(plugin)) < 0) {
		if (disk_full_errno(errno))
			snprintf(c->disk_full, sizeof(c->disk_full), "the disk under %s is full: %s", run_dir, plugin);
		else
			fprintf(stderr, "crashtest: %s\n", plugin);
		return NULL;
	}
	snprintf(golden, sizeof(golden), "%s/images/%s.img", c->build, fs);
	/* The writer's NVDIMM and a first image; each next image is checked
	 * as it is taken, since how many a program makes is not known. */
	if (!room_for(c, 2 * image_allocated(golden)))
		return NULL;
	snprintf(path, sizeof(path), "%s/acks.log", c->dir);
	c->ack_log = fopen(path, "w");
	if (!c->ack_log) {
		if (disk_full_errno(errno))
			disk_full_writing(c->disk_full, sizeof(c->disk_full), c->dir, path, errno);
		else
			fprintf(stderr, "crashtest: cannot write %s: %s\n", path, strerror(errno));
		return NULL;
	}
	snprintf(nv, sizeof(nv), "%s/nvdimm.img", c->dir);
	if (image_copy(golden, nv) < 0) {
		/* image_copy said why; a full disk stops the run. */
		if (disk_full_errno(errno))
			snprintf(c->disk_full, sizeof(c->disk_full),
				 "the disk under %s is full: copying the writer's NVDIMM failed", c->dir);
		unlink(nv);
		fclose(c->ack_log);
		return NULL;
	}
	if (vm_options_flavour(&o, c->build, kernel, c->accel, nv, kpath, ipath) < 0) {
		unlink(nv);
		fclose(c->ack_log);
		return NULL;
	}
	o.boot_timeout = 120;
	o.run_timeout = 600;
	/* No record of the data file lies past the namespace it is on. */
	c->stream.limit = o.qemu.nvdimm_size - NVDIMM_LABEL_SIZE;
	if (is_adr(c)) {
		/* A KVM host still runs the ADR rows of an "auto" run, under TCG. */
		if (c->accel_auto)
			o.qemu.accel = "tcg";
		if (strcmp(o.qemu.accel, "tcg") || access(c->adr_plugin, R_OK)) {
			fprintf(stderr, "crashtest: PLATFORM=adr needs TCG and %s (QEMU >= 10: run 'make plugins'; drop ACCEL=%s)\n",
				c->adr_plugin, o.qemu.accel);
			fclose(c->ack_log);
			return NULL;
		}
		if (adr_model_start(&c->model, c->dir, nv, o.qemu.nvdimm_size - NVDIMM_LABEL_SIZE, &c->adr,
				    c->adr_plugin, plugin, sizeof(plugin)) < 0) {
			fclose(c->ack_log);
			return NULL;
		}
		o.qemu.plugin = plugin;
		o.qemu.append = "nokaslr";
	}
	script = writer_script(c, sc, fs);
	o.script = script;
	o.run_dir = c->dir;
	o.hooks = &hooks;
	vm_run(&o, &r);
	free(script);
	fclose(c->ack_log);
	if (is_adr(c)) {
		adr_model_stop(&c->model);
		if (c->model_error[0])
			fprintf(stderr, "crashtest: %s/%s: %s\n", sc->name, fs, c->model_error);
		images_from_points(c);
	}
	unlink(nv);
	if (c->log_error[0])
		fprintf(stderr, "crashtest: %s/%s: %s; stopped the writer at %zu acks, and its images are not judged\n",
			sc->name, fs, c->log_error, c->nacks);
	if (c->disk_full[0] || c->log_error[0]) {
		drop_unjudged(c);
		json_decref(counts);
		json_decref(unexpected);
		return NULL;
	}
	if (c->protocol_error[0])
		fprintf(stderr, "crashtest: %s/%s: the guest broke the ack protocol, stopped at %zu acks: %s; the %zu images taken before are judged\n",
			sc->name, fs, c->nacks, c->protocol_error, c->nimages);
	else if (writer_failed(c, &r, failure, sizeof(failure)))
		fprintf(stderr, "crashtest: %s/%s: %s; judging the %zu images taken before, as crash images of a run that failed\n",
			sc->name, fs, failure, c->nimages);
	twins = dedup_images(c);

	/* The crash job writes 4 KiB records into crash/data. */
	check = (struct check_set){ .fs = fs, .files = "crash/data", .bs = "4096", .acks = c->acks,
				    .nacks = c->nacks, .items = c->checks, .nitems = c->nimages,
				    .write_image = write_checked, .ctx = c };
	t_check = now_s();
	if (c->row_checker)
		checker_run(c->row_checker, &check);
	else if (c->pool)
		checker_pool_check(c->pool, &check);
	t_check = now_s() - t_check;
	/* A disk that filled up under the checkers failed them (a write into
	 * one's NVDIMM, or its QEMU's SIGBUS on the mapped file), not the
	 * images: the scenario is not judged, and a resume runs it again. */
	free_after = free_bytes(c->dir);
	if (check.disk_full[0])
		snprintf(c->disk_full, sizeof(c->disk_full), "the disk under %s is full: %s", c->dir, check.disk_full);
	else if (free_after >= 0 && free_after < DISK_RESERVE)
		snprintf(c->disk_full, sizeof(c->disk_full),
			 "the disk under %s is full: %lld MiB free after the checkers ran, less than the %lld MiB kept for the results",
			 c->dir, (long long)(free_after >> 20), (long long)(DISK_RESERVE >> 20));
	if (c->disk_full[0])
		return unjudged(c, counts, unexpected, NULL, NULL);

	tally = json_object();
	if (is_adr(c))
		user_symbolizer(c, kernel, &sym);
	for (i = 0; i < c->nimages; i++) {
		int expected, keep;

		struct image *im = &c->images[i];
		struct check_item *chk = &c->checks[i];
		const char *v;

		if (chk->same_as >= 0)
			chk->verdict = json_deep_copy(c->checks[chk->same_as].verdict);
		if (!chk->verdict)
			chk->verdict = json_pack("{s:s, s:s}", "verdict", "fs-corrupt", "checker_failure",
						 "the checker never reported on this image");
		json_object_set_new(chk->verdict, "image", json_integer(i));
		json_object_set_new(chk->verdict, "platform", json_string(c->platform));
		json_object_set_new(chk->verdict, "taken", json_string(im->why));
		json_object_set_new(chk->verdict, "acked", json_integer(chk->acked));
		json_object_set_new(chk->verdict, "recheck",
			json_sprintf("build/pmem-harness crashcheck --fs %s --acks %s/acks.log --acked %zu --image %s",
				     fs, c->dir, chk->acked, im->path));
		if (im->point >= 0)
			add_adr_facts(c, i, &sym);
		v = json_string_value(json_object_get(chk->verdict, "verdict"));
		cause_tally_add(tally, chk->verdict);
		json_object_set_new(counts, v, json_integer(json_integer_value(json_object_get(counts, v)) + 1));
		losses += !strcmp(v, "lost") || !strcmp(v, "torn");
		expected = !((strcmp(v, "intact") && !strcmp(sc->expect, "intact")) || !strcmp(v, "fs-corrupt"));
		if (!expected)
			json_array_append_new(unexpected, json_integer(i));
		/* Keep the evidence: every unexpected image, one example of an
		 * allowed loss; KEEP=1 keeps all. */
		keep = c->keep || !expected || (strcmp(v, "intact") && !kept_example++);
		json_object_set_new(chk->verdict, "kept", json_boolean(keep));
		if (!keep)
			json_object_del(chk->verdict, "recheck");
		/* ADR images exist as files only when kept; an eADR twin's file
		 * may be the one another image's recheck names. */
		if (im->point >= 0 && keep && write_image(c, im, im->path, 1) < 0)
			json_object_set_new(chk->verdict, "kept", json_false());
		else if (im->point < 0 && !keep)
			unlink(im->path);
		/* What crashbench and a user's own tools open. */
		if (json_is_true(json_object_get(chk->verdict, "kept")))
			json_object_set_new(chk->verdict, "file", json_string(im->path));
		snprintf(path, sizeof(path), "%s/image-%03zu.json", c->dir, i);
		if (json_write_atomic_why(path, chk->verdict, why, sizeof(why)) < 0) {
			if (disk_full_errno(errno)) {
				snprintf(c->disk_full, sizeof(c->disk_full), "the disk under %s is full: writing %s failed",
					 c->dir, path);
				return unjudged(c, counts, unexpected, tally, is_adr(c) ? &sym : NULL);
			}
			fprintf(stderr, "crashtest: %s\n", why);
		}
	}
	for (i = 0; i < c->nimages; i++) {
		json_decref(c->checks[i].verdict);
		c->checks[i].verdict = NULL;
		free(c->images[i].keep);
		c->images[i].keep = NULL;
	}
	row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:f, s:f, s:s, s:I}",
			"scenario", sc->name, "fs", fs, "mode", sc->mode, "platform", c->platform,
			"expect", sc->expect, "images", (json_int_t)c->nimages, "acks", (json_int_t)c->nacks,
			"verdicts", counts, "unexpected_images", unexpected,
			"seconds", now_s() - t0, "check_seconds", t_check, "writer", vm_status_name(r.status),
			"deduplicated", (json_int_t)twins);
	if (sc->kernel[0])
		json_object_set_new(row, "kernel", json_string(sc->kernel));
	if (!strcmp(sc->expect, "lost") && !losses)
		json_object_set_new(row, "missed", json_true());
	if (c->protocol_error[0])
		json_object_set_new(row, "protocol_error", json_string(c->protocol_error));
	else if (failure[0])
		json_object_set_new(row, "writer_failure", json_string(failure));
	json_object_set_new(row, "check_phases", checked_phases(c));
	if (json_object_size(tally))
		json_object_set_new(row, "causes", cause_tally_list(tally, 8));
	json_decref(tally);
	if (is_adr(c)) {
		json_object_set_new(row, "model", model_json(c, &incomplete));
		if (incomplete)
			json_object_set_new(row, "model_incomplete", json_true());
		for (i = 0; i < c->npoints; i++) {
			unlink(c->points[i].adr);
			adr_point_free(&c->points[i]);
		}
		symbolizer_free(&sym);
	}
	return row;
}

/* The filesystems of a --fs list, in its order. */
static json_t *fs_list(const char *fss)
{
	char *list = strdup(fss), *fs, *save;
	json_t *a = json_array();

	for (fs = strtok_r(list, " ,", &save); fs; fs = strtok_r(NULL, " ,", &save))
		json_array_append_new(a, json_string(fs));
	free(list);
	return a;
}

/* A user program's sources, named and hashed, or null. */
static json_t *program_json(const char *spec)
{
	char hex[32];

	if (!spec)
		return json_null();
	if (user_program_hash(spec, hex, sizeof(hex)) < 0)
		return json_pack("{s:s}", "files", spec);
	return json_pack("{s:s, s:s}", "files", spec, "xxh3", hex);
}

/*
 * A program row of the scenario table (the CoW cases): its program and
 * checker are built into the run's user/<scenario>/, and its images go to
 * checker guests of its own, which carry its checker. prog and check are
 * the binaries' paths (len bytes each).
 */
static int program_row_begin(struct crash_run *c, const struct scenario *sc, const char *run_dir,
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
	c->program = prog;
	c->check = check;
	c->row_checker = row;
	return 0;
}

/*
 * What decides a run's verdicts, recorded in run.json: --resume finishes a
 * run only with the same (the checker count and accelerator may change).
 */
static json_t *run_options(const struct crash_run *c, const char *fss, const char *only, const char *platform,
			   const char *program, const char *check, const char *mode, const char *cflags,
			   const char *ldlibs)
{
	return json_pack("{s:s, s:o, s:s?, s:s?, s:o, s:o, s:s, s:s?, s:s?, s:I, s:I, s:I, s:I, s:b}", "kernel", c->kernel,
			 "filesystems", fs_list(fss), "scenarios", only, "platform", platform, "program",
			 program_json(program), "check", program_json(check), "mode", mode, "cflags", cflags,
			 "ldlibs", ldlibs, "seed", (json_int_t)c->seed, "subsets", (json_int_t)c->adr.subsets,
			 "fence_points", (json_int_t)c->adr.fence_max, "fence_period", (json_int_t)c->adr.fence_period,
			 "keep", c->keep);
}

/*
 * Save the run's summary: 0, or -1 with one line in why and *full set when
 * the disk is full.
 */
static int save_summary(const char *run_dir, json_t *doc, char *why, size_t len, int *full)
{
	char path[1100], dir[1100];

	snprintf(path, sizeof(path), "%s/crash/summary.json", run_dir);
	*full = 0;
	if (!json_write_atomic_why(path, doc, why, len))
		return 0;
	*full = disk_full_errno(errno);
	if (*full) {
		snprintf(dir, sizeof(dir), "%s/crash", run_dir);
		disk_full_writing(why, len, dir, path, errno);
	}
	return -1;
}

/*
 * The one line a run stops with when its results cannot be saved: why,
 * what the summary on disk holds (held rows, every one judged; all_judged:
 * every scenario is, but the run is not marked complete), and what to run
 * next. A resume keeps those rows and runs the rest.
 */
static void say_stopped(const char *where, const char *why, int disk_full, size_t held, int all_judged,
			const char *run_dir, const char *run_id)
{
	fprintf(stderr, "crashtest: %s stopped: %s; the summary holds the %zu scenario%s judged %s (%s/crash/summary.json); %s, then finish the run with --resume %s (make crashtest RESUME=%s)\n",
		where, why, held, held == 1 ? "" : "s", all_judged ? "so far, the run not marked complete" : "before", run_dir,
		disk_full ? "free space" : "make it writable", run_id, run_id);
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
	struct crash_run c = { .kernel = "6.1-aware", .checker_kernel = "6.1-aware", .accel = "auto",
			       .seed = 1, .adr = { .subsets = 20, .fence_max = 4, .fence_period = 200 } };
	const char *fss = NULL, *only = NULL, *results = "results/runs";
	char why[1400] = "";
	struct scenario sc[32];
	char run_id[64] = "", run_dir[1024], path[1200], where[200], *fsl, *tok, *save;
	json_t *rows = json_array(), *doc, *options;
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
		case 'k': c.kernel = c.checker_kernel = optarg; break;
		case 'K': c.keep = 1; break;
		case 'S': c.seed = strtoul(optarg, NULL, 0); break;
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
		case 'a': c.accel = optarg; break;
		case 'L': platform = optarg; break;
		case 'N': c.adr.subsets = strtoul(optarg, NULL, 0); break;
		case 'F': c.adr.fence_max = strtoull(optarg, NULL, 0); break;
		case 'E': c.adr.fence_period = strtoull(optarg, NULL, 0); break;
		case 'c': c.checkers = atoi(optarg); break;
		case 'G': cflags = optarg; break;
		case 'l': ldlibs = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!c.checkers)
		c.checkers = checker_default_parallel();
	/* The reflinked xfs runs only the rows made for it (the CoW cases); a
	 * user's program runs on each filesystem it is given. */
	if (!fss)
		fss = program ? "ext4 xfs" : "ext4 xfs xfs-reflink";
	c.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	if (platform && strcmp(platform, "eadr") && strcmp(platform, "adr")) {
		fprintf(stderr, "crashtest: unknown platform '%s' (eadr: every executed store durable; adr: the cache model)\n",
			platform);
		return 2;
	}
	if (c.adr.subsets > 64) {
		fprintf(stderr, "crashtest: --subsets %u is more than 64 images per crash point\n", c.adr.subsets);
		return 2;
	}
	c.images = calloc(MAX_IMAGES, sizeof(*c.images));
	c.checks = calloc(MAX_IMAGES, sizeof(*c.checks));
	if (!c.images || !c.checks)
		return 2;
	snprintf(adr_plugin, sizeof(adr_plugin), "%s/plugins/adr-cache.so", c.build);
	c.adr_plugin = adr_plugin;
	c.adr.seed = c.seed;
	/* The ADR model is a TCG plugin: no KVM for a run that needs it. */
	if (!strcmp(c.accel, "auto") && platform && !strcmp(platform, "adr"))
		c.accel = "tcg";
	{
		/* auto: KVM only when a probe guest boots under it (accel.c). */
		static char accel[16];
		char kpath[1024], ipath[1024];
		struct qemu_config q = { .binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
					 .mem_mib = 1024, .cpus = 1, .kernel = kpath, .initrd = ipath };

		snprintf(kpath, sizeof(kpath), "%s/kernels/%s/bzImage", c.build, c.kernel);
		snprintf(ipath, sizeof(ipath), "%s/initramfs.cpio", c.build);
		if (access(kpath, R_OK) || access(ipath, R_OK)) {
			fprintf(stderr, "crashtest: no %s or %s: run 'make kernels images'\n", kpath, ipath);
			return 2;
		}
		c.accel_auto = !strcmp(c.accel, "auto");
		if (accel_resolve(c.accel, &q, harness_cache_dir(), accel, sizeof(accel), why, sizeof(why)) < 0)
			return 2;
		c.accel = accel;
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
	options = run_options(&c, fss, only, platform, program, check, mode, cflags, ldlibs);
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
		json_t *doc = json_pack("{s:i, s:s, s:s, s:{s:o}, s:[], s:{s:s, s:s}}", "schema", RUN_SCHEMA,
					"run_id", run_id, "kind", "crashtest", "kernels", c.kernel,
					run_kernel_info(c.build, c.kernel) ?: json_null(), "filesystems",
					"accel", "name", c.accel, "reason", why);
		char *list = strdup(fss), *fs, *sv;

		for (fs = strtok_r(list, " ,", &sv); fs; fs = strtok_r(NULL, " ,", &sv))
			json_array_append_new(json_object_get(doc, "filesystems"), json_string(fs));
		free(list);
		json_object_update_new(doc, run_environment());
		json_object_set(doc, "options", options);
		snprintf(path, sizeof(path), "%s/run.json", run_dir);
		if (json_write_atomic_why(path, doc, why, sizeof(why)) < 0) {
			int err = errno;

			json_decref(doc);
			if (!disk_full_errno(err)) {
				fprintf(stderr, "crashtest: %s\n", why);
				return 2;
			}
			/* Without run.json there is nothing to resume: no run is
			 * left behind, and the same command starts it again. */
			disk_full_writing(why, sizeof(why), run_dir, path, err);
			snprintf(path, sizeof(path), "%s/crash", run_dir);
			rmdir(path);
			rmdir(run_dir);
			fprintf(stderr, "crashtest: run %s stopped: %s; no scenario has run; free space, then run the same command again\n",
				run_id, why);
			return 1;
		}
		json_decref(doc);
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
		c.program = prog_bin;
		c.check = check ? check_bin : NULL;
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

		pool_opts = (struct checker_options){ .build = c.build, .accel = c.accel, .kernel = c.checker_kernel,
						      .golden = pool_golden, .dir = pool_dir, .check = c.check,
						      .parallel = c.checkers };
		snprintf(pool_golden, sizeof(pool_golden), "%s/images/%s.img", c.build, strtok_r(first, " ,", &save));
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
				c.pool = checker_pool_start(&pool_opts);
				pool_tried = 1;
			}
			fprintf(stderr, "crashtest: %s on %s (%s) ...\n", sc[i].name, tok, sc[i].mode);
			if (!program && scenario_is_program(&sc[i])) {
				if (program_row_begin(&c, &sc[i], run_dir, &pool_opts, &row_opts, prog_bin, check_bin,
						      sizeof(prog_bin)) < 0) {
					failures++;
					continue;
				}
			}
			row = run_scenario(&c, &sc[i], tok, run_dir);
			if (!program)
				c.program = c.check = NULL, c.row_checker = NULL;
			snprintf(where, sizeof(where), "%s on %s", sc[i].name, tok);
			if (!row && c.disk_full[0]) {
				say_stopped(where, c.disk_full, 1, held, 0, run_dir, run_id);
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
			doc = json_pack("{s:i, s:s, s:s, s:s, s:O, s:b}", "schema", 1, "run_id", run_id, "accel", c.accel,
					"kernel", c.kernel, "scenarios", rows, "complete", 0);
			rc = save_summary(run_dir, doc, why, sizeof(why), &full);
			json_decref(doc);
			if (rc < 0) {
				say_stopped(where, why, full, held, 0, run_dir, run_id);
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

		if (c.pool)
			checker_pool_stop(c.pool, &guests, &boot_s);
		json_decref(rows);
		json_decref(options);
		crash_resume_free(&done);
		return 1;
	}
	{
		long long images = 0, twins = 0;
		double check_s = 0, boot_s = 0;
		int guests = 0;
		size_t k;
		json_t *row;
		int unexpected = 0;

		if (c.pool)
			checker_pool_stop(c.pool, &guests, &boot_s);

		json_array_foreach(rows, k, row) {
			images += json_integer_value(json_object_get(row, "images"));
			check_s += json_real_value(json_object_get(row, "check_seconds"));
			twins += json_integer_value(json_object_get(row, "deduplicated"));
			unexpected += json_array_size(json_object_get(row, "unexpected_images")) > 0 ||
				      json_is_true(json_object_get(row, "missed")) ||
				      json_object_get(row, "protocol_error") || json_object_get(row, "writer_failure") ||
				      json_is_true(json_object_get(row, "model_incomplete"));
		}
		doc = json_pack("{s:i, s:s, s:s, s:s, s:O, s:b, s:f, s:I, s:{s:i, s:i, s:f}}", "schema", 1, "run_id",
				run_id, "accel", c.accel, "kernel", c.kernel, "scenarios", rows, "complete", 1,
				"seconds", now_s() - t0, "images", (json_int_t)images, "checker", "parallel",
				c.checkers, "guests", guests, "boot_seconds", boot_s);
		if (resume)
			json_object_set_new(doc, "resumed", json_true());
		rc = save_summary(run_dir, doc, why, sizeof(why), &full);
		json_decref(doc);
		json_decref(options);
		crash_resume_free(&done);
		if (rc < 0) {
			/* Judged, but not saved as complete: no table or report
			 * claims it; a resume keeps every row and completes it. */
			snprintf(where, sizeof(where), "run %s", run_id);
			say_stopped(where, why, full, held, 1, run_dir, run_id);
			json_decref(rows);
			return 1;
		}
		verdict_table(rows, stdout, TABLE_TEXT);
		verdict_causes(rows, stdout, TABLE_TEXT);
		printf("\n%lld crash images in %.0f s (accelerator %s); checking took %.0f s in %d checker guest%s at once: "
		       "%.2f images/s, each with mount, verification and fsck", images, now_s() - t0, c.accel,
		       check_s, c.checkers, c.checkers > 1 ? "s" : "", check_s > 0 ? (images - twins) / check_s : 0.0);
		if (twins)
			printf(" (%lld more were identical to one checked and share its verdict)", twins);
		printf("\nresults: %s/crash\n", run_dir);
		report_and_say(run_dir);
		json_decref(rows);
		return failures || unexpected ? 1 : 0;
	}
}
