// SPDX-License-Identifier: GPL-2.0
/*
 * The writer phase of a crash scenario: the guest runs the scenario's job
 * (vm-images/guest/crash-writer.sh). Every "ack" line is logged on the host
 * before it is answered. Right after chosen acks, and at random times, the
 * guest is paused (QMP stop), the NVDIMM backing file copied (a crash image
 * that records how many acks were logged) and the guest resumed; under ADR
 * the cache model holds the vCPU at a crash point instead, and a point's
 * images are made once its ack line has come (crash_images.c). The checker
 * guests take each image as it is made (crash_check.c). When the job is
 * done the guest asks "done" and QEMU is killed with SIGKILL before
 * anything else runs: the last crash image.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../proto/ack_line.h"
#include "../../proto/print_line.h"
#include "../image.h"
#include "crash.h"
#include "../../lib/cache_dir.h"
#include "../../lib/diskfull.h"
#include "../../lib/shell_word.h"
#include "../../lib/textfile.h"
#include "../../vm/saved_boot.h"

void crash_writer_begin(struct crash_scenario_state *st, const char *platform)
{
	st->nacks = st->nimages = st->npoints = 0;
	st->points_imaged = st->deduped = st->twins = 0;
	/* Its own stream, apart from the writer's draws (crash.h). */
	st->subset_rng = st->rng ^ 0x9e3779b9u;
	st->done = st->base_checked = st->have_last_rec = 0;
	st->acks_checked = st->acks_unlocated = st->acks_pending = 0;
	st->snapshot_seconds = 0;
	st->t_launch = st->t_model_start = st->t_done = 0;
	st->model_error[0] = st->protocol_error[0] = '\0';
	run_error_clear(&st->disk_full);
	run_error_clear(&st->log_error);
	st->ack_log_len = 0;
	if (st->printed_log)
		fclose(st->printed_log);
	st->printed_log = NULL;
	for (size_t i = 0; i < st->nprinted; i++)
		free(st->printed[i]);
	st->nprinted = 0;
	st->printed_dropped = 0;
	st->fences_offered = st->user_fences_offered = 0;
	st->fence_stride = 1;
	st->fence_pick = 0;
	st->fence_window_taken = 0;
	st->point_files = st->points_skipped = 0;
	st->aware_mappings = -1;
	ack_stream_free(&st->stream);
	st->platform = platform;
	/* The first claim is always a crash point: a program with few acks must
	 * still be judged at one. (Under eADR a boot used to put the first time
	 * point there; a guest restored from a saved boot acks before it.) */
	st->next_ack_crash = 1;
	st->next_time_crash = now_s() + 3;
}

/* Pause, copy, resume: one crash image, if the disk has room for it. */
static void take_image(struct crash_scenario_state *st, struct vm *vm, const char *why, int paused_already)
{
	struct image *im = crash_image_new(st);
	int copied;

	if (!im || st->disk_full.code)
		return;
	snprintf(im->path, sizeof(im->path), "%s/images/%03zu.img", st->dir, st->nimages);
	if (!paused_already && vm_pause(vm) < 0)
		return;
	if (!crash_room_for(st, image_allocated(vm_nvdimm(vm)))) {
		vm_kill(vm);
		return;
	}
	copied = image_copy(vm_nvdimm(vm), im->path);
	if (copied == 0) {
		st->checks[st->nimages].acked = st->nacks;
		st->checks[st->nimages].printed = st->nprinted;
		im->why = why;
		st->nimages++;
	} else if (disk_full_errno(errno)) {
		int err = errno;

		unlink(im->path);
		run_error_set(&st->disk_full, err, "the disk under %s is full: copying image %zu failed", st->dir,
			      st->nimages);
		vm_kill(vm);
		return;
	}
	if (!paused_already)
		vm_resume(vm);
}

static void add_ack(struct crash_scenario_state *st, uint64_t seq, uint64_t off, size_t len)
{
	if (st->nacks == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 4096;
		st->acks = realloc(st->acks, st->cap * sizeof(*st->acks));
		st->records = realloc(st->records, st->cap * sizeof(*st->records));
		if (!st->acks || !st->records)
			abort();
	}
	st->records[st->nacks].n = 0;
	st->acks[st->nacks++] = (struct ack_rec){ seq, off, len };
}

/*
 * ADR: the model holds the vCPU at a crash point until we answer. Ack points
 * come before the ack's system call, so the record being acknowledged counts
 * as acknowledged in the image: the program has claimed it durable.
 */
/*
 * Every ack point, sampled or not: are lines of the record being
 * acknowledged still pending? Exhaustive over the acks, and no image is
 * needed: such a line is lost in the strict-ADR image of this point.
 */
static void check_ack(struct crash_scenario_state *st)
{
	struct adr_line first;
	int n;

	/* ack() sends the marker with no address: its record has no extent,
	 * and there is nothing to compare (nor when no page of it resolved). */
	if (!st->model.have_rec || !st->model.rec.n) {
		st->acks_unlocated++;
		return;
	}
	n = adr_pending_in_record(&st->model, &st->model.rec, &first);
	if (n < 0) {
		if (!st->model_error[0])
			snprintf(st->model_error, sizeof(st->model_error),
				 "the model state could not be read at ack %llu", (unsigned long long)st->model.rec.seq);
		return;
	}
	st->acks_checked++;
	if (n && !st->acks_pending++) {
		st->first_pending_seq = st->model.rec.seq;
		st->first_pending = first;
	}
}

/*
 * Black box: the fence points are the model's own events, one in
 * --fence-period of the fences that write lines back. The host keeps one
 * point in each window of fence_stride of those offered, at a random place
 * in the window: a fixed place (every 16th) aliases with a program that
 * fences in a regular pattern, and can miss one kind of fence entirely.
 * When the kept ones fill --fence-points, the windows double and one of
 * each two points kept in a new window stays, at random. The sample is
 * spread over the whole run, and the summary states its rate.
 */
static int keep_fence_point(struct crash_scenario_state *st)
{
	uint64_t pos, window;
	size_t kept = 0, j = 0;
	long prev = -1;

	st->fences_offered++;
	st->user_fences_offered += st->model.point_user;
	if (!st->opt->adr.fence_max)
		return 0;
	pos = (st->fences_offered - 1) % st->fence_stride;
	if (pos == 0) {
		st->fence_pick = rand_r(&st->rng) % st->fence_stride;
		st->fence_window_taken = 0;
	}
	if (st->fence_window_taken || pos != st->fence_pick)
		return 0;
	for (size_t p = 0; p < st->npoints; p++)
		kept += !strcmp(st->points[p].kind, "fence");
	if (kept < st->opt->adr.fence_max) {
		st->fence_window_taken = 1;
		return 1;
	}
	st->fence_stride *= 2;
	for (size_t p = 0; p < st->npoints; p++) {
		struct adr_point *pt = &st->points[p];

		if (!strcmp(pt->kind, "fence")) {
			window = (pt->offered - 1) / st->fence_stride;
			if (prev >= 0 && (st->points[prev].offered - 1) / st->fence_stride == window) {
				/* Two in one window: one of them stays, at random. */
				if (rand_r(&st->rng) % 2) {
					unlink(st->points[prev].adr);
					adr_point_free(&st->points[prev]);
					memmove(&st->points[prev], &st->points[prev + 1],
						(j - prev - 1) * sizeof(st->points[0]));
					j--;
				} else {
					unlink(pt->adr);
					adr_point_free(pt);
					continue;
				}
			}
			prev = j;
		}
		st->points[j++] = *pt;
	}
	st->npoints = j;
	/* The window this fence is in now: taken, or a new place in the rest of it. */
	window = (st->fences_offered - 1) / st->fence_stride;
	st->fence_window_taken = prev >= 0 && (st->points[prev].offered - 1) / st->fence_stride == window;
	if (st->fence_window_taken)
		return 0;
	pos = (st->fences_offered - 1) % st->fence_stride;
	st->fence_pick = pos + rand_r(&st->rng) % (st->fence_stride - pos);
	st->fence_window_taken = st->fence_pick == pos;
	return st->fence_window_taken;
}

static void take_point(struct crash_scenario_state *st, struct vm *vm, const char *kind, int answer)
{
	int ack = !strcmp(kind, "ack");
	int want = !ack || st->nacks + 1 == st->next_ack_crash;
	struct adr_point *pt;

	/* A writer whose guest never ran the start marker was never modelled. */
	if (!strcmp(kind, "kill") && !st->model.started && !st->model_error[0])
		snprintf(st->model_error, sizeof(st->model_error),
			 "the writer guest never ran the ADR model's start marker (pmem-agent model-start, proto/adr_marker.h), so no store was modelled: its initramfs is older than the harness; run 'make images'");
	if (ack)
		check_ack(st);
	if (st->blackbox && !strcmp(kind, "fence"))
		want = keep_fence_point(st);
	pt = &st->points[st->npoints];
	/* The last place is the kill point's: the state after the program. */
	if (want && st->npoints + !!strcmp(kind, "kill") >= MAX_POINTS) {
		st->points_skipped++;
		want = 0;
	}
	if (want) {
		memset(pt, 0, sizeof(*pt));
		snprintf(pt->kind, sizeof(pt->kind), "%s", kind);
		snprintf(pt->adr, sizeof(pt->adr), "%s/images/p%03zu.adr", st->dir, st->point_files++);
		pt->acked = st->nacks + ack;
		pt->printed = st->nprinted;
		pt->offered = st->fences_offered;
		if (ack && st->model.have_rec) {
			pt->rec = st->model.rec;
			pt->has_rec = 1;
		}
		double t0 = now_s();
		int saved = adr_snapshot(&st->model, vm_nvdimm(vm), pt);

		st->snapshot_seconds += now_s() - t0;
		if (saved == 0) {
			st->npoints++;
		} else if (disk_full_errno(errno)) {
			/* No point is dropped without a word: the run stops here,
			 * as a full disk stops it anywhere else. */
			disk_full_writing(&st->disk_full, st->dir, pt->adr, errno);
			unlink(pt->adr);
			vm_kill(vm);
			return;
		} else if (!st->model_error[0]) {
			snprintf(st->model_error, sizeof(st->model_error),
				 "crash point %zu (%s) could not be saved (%s): the model's images miss it",
				 st->npoints, kind, strerror(errno));
		}
	}
	if (ack && st->nacks + 1 == st->next_ack_crash)
		st->next_ack_crash += 15 + rand_r(&st->rng) % 30;
	/* The record's place is kept for its ack line, which comes next. */
	st->have_last_rec = ack && st->model.have_rec;
	if (st->have_last_rec)
		st->last_rec = st->model.rec;
	if (answer)
		adr_model_go(&st->model);
}

/* The checker pool's, while it checks images the writer made (crash_check.c). */
static int writer_more_fds(void *ctx, struct pollfd *fds, int max)
{
	return crash_check_fds(ctx, fds, max);
}

static void writer_more(void *ctx, struct vm *vm, const struct pollfd *fds, int n)
{
	(void)vm;
	crash_check_step(ctx, fds, n);
}

static int writer_poll_fd(void *ctx)
{
	struct crash_scenario_state *st = ctx;

	return is_adr(st) ? adr_model_poll_fd(&st->model) : -1;
}

static void writer_fd(void *ctx, struct vm *vm)
{
	struct crash_scenario_state *st = ctx;
	char kind[16];

	if (adr_model_read(&st->model, kind, sizeof(kind)) == ADR_EV_POINT)
		take_point(st, vm, kind, 1);
	if (st->model.started && !st->t_model_start)
		st->t_model_start = now_s();
}

/* The guest broke the protocol: it is not trusted to go on. The images
 * taken so far are judged against the acks logged before this line. */
static void protocol_error(struct crash_scenario_state *st, struct vm *vm, const char *line, const char *why)
{
	char quoted[96];

	ack_quote(line, quoted, sizeof(quoted));
	snprintf(st->protocol_error, sizeof(st->protocol_error), "\"%s\": %s", quoted, why);
	vm_kill(vm);
}

/*
 * Log an ack in acks.log, all of its line or none: 0, or -1 when it could
 * not be written. The guest is then stopped without its answer and the
 * scenario is not judged: a full disk stops the run (st->disk_full), any
 * other failure only the scenario (st->log_error).
 */
static int log_ack(struct crash_scenario_state *st, struct vm *vm, const struct ack_rec *rec)
{
	char path[PATH_MAX];
	int n, err;

	n = fprintf(st->ack_log, "%llu %llu %zu\n", (unsigned long long)rec->seq, (unsigned long long)rec->off,
		    rec->len);
	if (n > 0 && !fflush(st->ack_log)) {
		st->ack_log_len += n;
		return 0;
	}
	err = errno;
	/*
	 * A line cut short is taken back, so the log holds whole lines (if
	 * that fails too, the scenario is still not judged, and a resume
	 * removes its log).
	 */
	__fpurge(st->ack_log);
	if (ftruncate(fileno(st->ack_log), st->ack_log_len) < 0)
		st->ack_log_len = -1;
	snprintf(path, sizeof(path), "%s/acks.log", st->dir);
	if (disk_full_errno(err))
		disk_full_writing(&st->disk_full, st->dir, path, err);
	else
		run_error_set(&st->log_error, err ? err : EIO, "cannot write %s: %s", path, strerror(err));
	vm_kill(vm);
	return -1;
}

/*
 * A line a black-box program printed (proto/print_line.h): kept in order,
 * as the guest sent it but printable and bounded, and in printed.log for
 * the user. Each crash point counts how many had arrived.
 */
static void keep_printed(struct crash_scenario_state *st, const char *text)
{
	char *copy;

	if (st->nprinted == PRINT_LINES_MAX) {
		st->printed_dropped++;
		return;
	}
	if (st->nprinted == st->printed_cap) {
		st->printed_cap = st->printed_cap ? 2 * st->printed_cap : 1024;
		st->printed = realloc(st->printed, st->printed_cap * sizeof(*st->printed));
		if (!st->printed)
			abort();
	}
	copy = strndup(text, PRINT_TEXT_MAX);
	if (!copy)
		abort();
	for (char *c = copy; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	st->printed[st->nprinted++] = copy;
	/* The log is for the user; the checks use the lines kept here. */
	if (st->printed_log && fprintf(st->printed_log, "%s\n", copy) < 0) {
		fclose(st->printed_log);
		st->printed_log = NULL;
	}
}

/*
 * A black box's end: "done" when the program has exited, the crash right
 * after it (the guest paused meanwhile, then answered); "clean" once the
 * guest has synced and unmounted: the state after a clean exit, the
 * reference of the differential oracle (crash_judge.c), and then QEMU goes.
 */
static void blackbox_end(struct crash_scenario_state *st, struct vm *vm, const char *line)
{
	if (!strcmp(line, "done")) {
		st->t_done = now_s();
		if (vm_pause(vm) < 0)
			return;
		if (is_adr(st))
			take_point(st, vm, "kill", 0);
		else
			take_image(st, vm, "kill", 1);
		if (!st->disk_full.code && vm_resume(vm) == 0)
			vm_reply(vm, "ok\n");
		return;
	}
	if (vm_pause(vm) == 0)
		take_image(st, vm, "clean", 1);
	vm_kill(vm);
	st->done = 1;
}

static void writer_line(void *ctx, struct vm *vm, const char *line)
{
	struct crash_scenario_state *st = ctx;
	struct ack_rec rec;
	char why[200];

	if (st->protocol_error[0] || st->disk_full.code || st->log_error.code || st->done)
		return;
	if (!strncmp(line, PRINT_LINE_PREFIX, strlen(PRINT_LINE_PREFIX))) {
		keep_printed(st, line + strlen(PRINT_LINE_PREFIX));
		return;
	}
	switch (ack_stream_take(&st->stream, line, &rec, why, sizeof(why))) {
	case ACK_REFUSED:
		protocol_error(st, vm, line, why);
		return;
	case ACK_NOT_ACK:
		if (st->blackbox && (!strcmp(line, "done") || !strcmp(line, "clean")))
			blackbox_end(st, vm, line);
		else if (!strncmp(line, "aware ", 6) && strspn(line + 6, "0123456789") == strlen(line + 6) &&
			 strlen(line + 6) && strlen(line + 6) < 10) {
			/* How many mappings an -aware program made with MAP_PMEM_AWARE. */
			st->aware_mappings = strtol(line + 6, NULL, 10);
			vm_reply(vm, "ok\n");
		}
		else if (strcmp(line, "done"))
			protocol_error(st, vm, line, "not a line of the writer's protocol (ack, print, aware, done)");
		else {
			/* The last crash point: power off before any sync or unmount. */
			st->t_done = now_s();
			vm_kill(vm);
			if (is_adr(st))
				take_point(st, vm, "kill", 0);
			else
				take_image(st, vm, "kill", 1);
			st->done = 1;
		}
		return;
	case ACK_TAKEN:
		break;
	}
	/* Logged before it is answered, or not answered at all. */
	if (log_ack(st, vm, &rec) < 0)
		return;
	add_ack(st, rec.seq, rec.off, rec.len);
	if (is_adr(st)) {
		if (st->have_last_rec && st->last_rec.seq == rec.seq)
			st->records[st->nacks - 1] = st->last_rec;
		st->have_last_rec = 0;
	} else if (st->nacks == st->next_ack_crash) {
		/* The image is taken before the guest hears "ok": nothing
		 * after this persisted record can have run yet. */
		take_image(st, vm, "ack", 0);
		st->next_ack_crash += 15 + rand_r(&st->rng) % 30;
	}
	vm_reply(vm, ACK_REPLY_FMT, rec.seq);
	/* The image just taken, or the point this line completes, goes out. */
	crash_check_step(st, NULL, 0);
}

/* The model was told where the NVDIMM is; QEMU must agree. */
static void check_nvdimm_base(struct crash_scenario_state *st, struct vm *vm)
{
	json_t *devs = vm_query(vm, "query-memory-devices"), *d;
	size_t i;

	st->base_checked = 1;
	json_array_foreach(devs, i, d) {
		json_t *data = json_object_get(d, "data");

		if (strcmp(json_string_value(json_object_get(d, "type")) ?: "", "nvdimm"))
			continue;
		if ((uint64_t)json_integer_value(json_object_get(data, "addr")) == ADR_NVDIMM_BASE &&
		    (uint64_t)json_integer_value(json_object_get(data, "size")) == st->model.region_size) {
			json_decref(devs);
			return;
		}
		snprintf(st->model_error, sizeof(st->model_error),
			 "QEMU put the NVDIMM at 0x%llx (%lld bytes), not where the ADR model watches (0x%llx): ADR_NVDIMM_BASE in crash-inject/model/adr.h must follow vm/qemu.c's machine",
			 (long long)json_integer_value(json_object_get(data, "addr")),
			 (long long)json_integer_value(json_object_get(data, "size")), ADR_NVDIMM_BASE);
	}
	if (!st->model_error[0])
		snprintf(st->model_error, sizeof(st->model_error), "QMP query-memory-devices shows no NVDIMM");
	json_decref(devs);
	vm_kill(vm);
}

static void writer_tick(void *ctx, struct vm *vm)
{
	struct crash_scenario_state *st = ctx;

	if (st->disk_full.code || st->log_error.code)
		return;
	if (is_adr(st) && !st->base_checked)
		check_nvdimm_base(st, vm);
	/* A black-box program acknowledges nothing: its times count from the start. */
	if ((st->nacks || st->blackbox) && now_s() >= st->next_time_crash) {
		/* Under ADR the model takes it at the next store into the region. */
		if (is_adr(st))
			adr_model_request_time(&st->model);
		else
			take_image(st, vm, "time", 0);
		/* ADR points cost up to 22 images each: fewer of them. */
		st->next_time_crash = now_s() + (is_adr(st) ? 2.0 + (rand_r(&st->rng) % 3000) / 1000.0 :
						      0.2 + (rand_r(&st->rng) % 800) / 1000.0);
	}
}

/*
 * The writer guest's job: the parameters of vm-images/guest/crash-writer.sh,
 * which runs its input (the job file, or a user's program: writer_input()
 * sends it as data). The filesystem was checked (a row of the table), but a
 * mode is any word of the scenario table or --mode: both go as sh words.
 */
static char *writer_script(const struct crash_scenario_state *st, const struct scenario *sc, const char *fs)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	fputs("export PMEM_FS=", f);
	shell_word(f, fs);
	fputs(" PMEM_CRASH_MODE=", f);
	shell_word(f, sc->mode);
	fputs(" PMEM_CRASH_ARGS=", f);
	shell_word(f, st->program_args ? st->program_args : "");
	fprintf(f, " PMEM_CRASH_ADR=%d PMEM_CRASH_PROGRAM=%d PMEM_CRASH_PRINT=%d\nexec sh /usr/share/pmem/crash-writer.sh\n",
		is_adr(st), st->program != NULL, st->blackbox);
	fclose(f);
	return s;
}

/* What the writer runs, as /tmp/in/prog or /tmp/in/job.fio: a user's program is
 * its own job (sc->job is then its source, not a job file). */
static struct vm_file writer_input(const struct crash_scenario_state *st, const struct scenario *sc)
{
	if (st->program)
		return (struct vm_file){ .name = "prog", .mode = 0755, .path = st->program };
	return (struct vm_file){ .name = "job.fio", .mode = 0644, .path = sc->job };
}

int crash_writer_run(struct crash_scenario_state *st, const struct scenario *sc, const char *fs,
		     const char *kernel, struct vm_result *r)
{
	const struct crash_options *opt = st->opt;
	char golden[PATH_MAX], nv[PATH_MAX], kpath[PATH_MAX], ipath[PATH_MAX], path[PATH_MAX];
	char plugin[2 * PATH_MAX];	/* two paths and short words */
	struct vm_hooks hooks = { .ctx = st, .on_line = writer_line, .on_tick = writer_tick, .tick_ms = 50,
				  .poll_fd = writer_poll_fd, .on_fd = writer_fd,
				  .more_fds = writer_more_fds, .on_more = writer_more };
	struct vm_options o;
	struct vm_file input;
	char *script;

	snprintf(golden, sizeof(golden), "%s/images/%s.img", opt->build, fs);
	/* The writer's NVDIMM and a first image; each next image is checked
	 * as it is taken, since how many a program makes is not known. */
	if (!crash_room_for(st, 2 * image_allocated(golden)))
		return -1;
	snprintf(path, sizeof(path), "%s/acks.log", st->dir);
	st->ack_log = fopen(path, "w");
	if (!st->ack_log) {
		if (disk_full_errno(errno))
			disk_full_writing(&st->disk_full, st->dir, path, errno);
		else
			fprintf(stderr, "crashtest: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (st->blackbox) {
		snprintf(path, sizeof(path), "%s/printed.log", st->dir);
		st->printed_log = fopen(path, "w");
	}
	snprintf(nv, sizeof(nv), "%s/nvdimm.img", st->dir);
	if (image_copy(golden, nv) < 0) {
		/* image_copy said why; a full disk stops the run. */
		if (disk_full_errno(errno))
			run_error_set(&st->disk_full, errno, "the disk under %s is full: copying the writer's NVDIMM failed",
				      st->dir);
		unlink(nv);
		fclose(st->ack_log);
		return -1;
	}
	if (vm_options_flavour(&o, opt->build, kernel, opt->accel, CRASH_INITRAMFS, nv, kpath, ipath) < 0) {
		unlink(nv);
		fclose(st->ack_log);
		return -1;
	}
	o.boot_timeout = 120;
	o.run_timeout = 600;
	/* No record of the data file lies past the namespace it is on. */
	st->stream.limit = o.qemu.nvdimm_size - NVDIMM_LABEL_SIZE;
	if (is_adr(st)) {
		/* A KVM host still runs the ADR rows of an "auto" run, under TCG. */
		if (opt->accel_auto)
			o.qemu.accel = "tcg";
		if (strcmp(o.qemu.accel, "tcg") || access(opt->adr_plugin, R_OK)) {
			fprintf(stderr, "crashtest: PLATFORM=adr needs TCG and %s (QEMU >= 10: run 'make plugins'; drop ACCEL=%s)\n",
				opt->adr_plugin, o.qemu.accel);
			fclose(st->ack_log);
			return -1;
		}
		/* A black-box run takes its fence points from all the model offers
		 * (keep_fence_point()); otherwise the model stops at fence_max. */
		struct adr_params adr = opt->adr;

		if (st->blackbox) {
			adr.fence_max = UINT64_MAX / 2;
			adr.fence_any = 1;
		}
		if (adr_model_start(&st->model, st->dir, nv, o.qemu.nvdimm_size - NVDIMM_LABEL_SIZE, &adr,
				    opt->adr_plugin, plugin, sizeof(plugin)) < 0) {
			fclose(st->ack_log);
			return -1;
		}
		o.qemu.plugin = plugin;
		o.qemu.append = "nokaslr";
	}
	script = writer_script(st, sc, fs);
	input = writer_input(st, sc);
	o.script = script;
	o.files = &input;
	o.nfiles = 1;
	o.run_dir = st->dir;
	o.hooks = &hooks;
	st->t_launch = now_s();
	snprintf(path, sizeof(path), "%s/saved-boots", cache_dir());
	vm_run_saved(&o, golden, path, r);
	free(script);
	fclose(st->ack_log);
	if (st->printed_log)
		fclose(st->printed_log);
	st->printed_log = NULL;
	if (is_adr(st)) {
		adr_model_stop(&st->model);
		if (st->model_error[0])
			fprintf(stderr, "crashtest: %s/%s: %s\n", sc->name, fs, st->model_error);
	}
	unlink(nv);
	return 0;
}

int crash_writer_failed(const struct crash_scenario_state *st, const struct vm_result *r, char *why, size_t len)
{
	const char *who = st->program ? "your program" : "the writer";
	int sig = r->guest_exit - 128;
	char when[160];

	if (st->done && (st->nacks || !st->program || st->blackbox))
		return 0;
	/* How far it came: in acks, or for a black box in fences and lines. */
	if (!st->blackbox)
		snprintf(when, sizeof(when), "after %zu acks", st->nacks);
	else if (is_adr(st) && !st->user_fences_offered)
		snprintf(when, sizeof(when), "before its first fence (%zu lines printed)", st->nprinted);
	else
		snprintf(when, sizeof(when), "after %llu fences and %zu lines printed",
			 (unsigned long long)st->fences_offered, st->nprinted);
	if (st->done)
		snprintf(why, len, "%s finished without acknowledging a record, so nothing it wrote can be checked: "
			 "call ack() (or pmem-ack) after each write it made durable, or give RECOVER= (--recover) "
			 "to judge it by its own recovery", who);
	else if (r->status == VM_OK && sig > 0 && sig < 65)
		snprintf(why, len, "%s was killed by signal %d (%s) %s; its output is in guest.log", who, sig,
			 strsignal(sig), when);
	else if (r->status == VM_OK)
		snprintf(why, len, "%s exited with status %d %s; its output is in guest.log", who, r->guest_exit,
			 when);
	else
		snprintf(why, len, "the writer did not finish (%s%s%s)", vm_status_name(r->status),
			 r->message[0] ? ": " : "", r->message);
	return 1;
}
