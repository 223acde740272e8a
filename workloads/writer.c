// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-writer: fio-style mmap write workloads in the four mapping modes.
 *
 *   pmem-writer [--output FILE] [--map MODE] [--persist METHOD] [--check] JOBFILE
 *
 * --map and --persist override every job of the file; --check only parses
 * it and lists the job sections.
 *
 * Each job maps its file in its mode, writes bs-sized records (sequential
 * or random, with an optional read mix), persists every persist_every
 * writes with its method, and measures: each write, each persistence call,
 * and separately the first-touch write fault of every page (or 2 MiB
 * region with fault_size=pmd), bracketed by the instruction-count markers.
 * fs_dax tracepoints are counted per file. Output is fio's JSON shape with
 * a "pmem" extension object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "insn_marker.h"
#include "job.h"
#include "persist/persist.h"
#include "pmem_map.h"
#include "record.h"
#include "stats.h"
#include "tracefs.h"

#define PAGE 4096UL
#define PMD_SIZE (2UL << 20)
#define WRITER_VERSION "pmem-writer-1"

struct range {
	size_t off, len;
	unsigned long long seq;
};

struct job_state {
	const struct job *job;
	int index;			/* of numjobs */
	char path[512];
	int fd;
	unsigned char *map;
	const struct map_mode *mode;
	const struct persist_ops *ops;
	struct persist_ctx pctx;
	size_t granule;			/* first-touch unit: page or PMD */
	unsigned char *touched;		/* one byte per granule */
	struct range *pending;		/* written since the last persist */
	size_t npending;
	unsigned long long writes, reads, bytes_written, bytes_read;
	unsigned long long persists, syncs;
	struct lat wlat, rlat, plat, flat, slat;
	uint64_t t_start, t_end;
	uint64_t rng;
	unsigned long ino;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int die_errno(const struct job_state *s, const char *what)
{
	fprintf(stderr, "pmem-writer: [%s] %s %s: %s\n", s->job->name, what, s->path, strerror(errno));
	return -1;
}

static int prepare_file(struct job_state *s)
{
	const struct job *j = s->job;

	if (j->filename[0])
		snprintf(s->path, sizeof(s->path), "%s", j->filename);
	else
		snprintf(s->path, sizeof(s->path), "%s/%s.%d.0", j->directory, j->name, s->index);
	/* A second section writing another region of the same file keeps it. */
	if (!(j->filename[0] && j->offset))
		unlink(s->path);
	s->fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return die_errno(s, "open");
	switch (j->prealloc) {
	case PREALLOC_NONE:
		if (ftruncate(s->fd, j->offset + j->size) < 0)
			return die_errno(s, "ftruncate");
		break;
	case PREALLOC_FALLOCATE:
		if (fallocate(s->fd, 0, j->offset, j->size) < 0)
			return die_errno(s, "fallocate");
		break;
	case PREALLOC_WRITE: {
		static char zero[1 << 16];
		size_t off;

		for (off = 0; off < j->size; off += sizeof(zero)) {
			size_t n = j->size - off < sizeof(zero) ? j->size - off : sizeof(zero);

			if (pwrite(s->fd, zero, n, j->offset + off) != (ssize_t)n)
				return die_errno(s, "pwrite (prealloc=write)");
		}
		break;
	}
	}
	/* Start every job from a clean file: nothing dirty, metadata committed. */
	if (fsync(s->fd) < 0)
		return die_errno(s, "fsync");
	{
		struct stat st;

		fstat(s->fd, &st);
		s->ino = st.st_ino;
	}
	return 0;
}

static int map_file(struct job_state *s)
{
	const struct job *j = s->job;

	s->map = map_mode_map(s->mode, s->fd, j->offset + j->size);
	if (s->map == MAP_FAILED) {
		int e = errno;

		fprintf(stderr, "pmem-writer: [%s] mmap map=%s %s: %s%s\n", j->name, s->mode->name,
			s->path, strerror(e),
			e == EOPNOTSUPP ? " (kernel without MAP_PMEM_AWARE/MAP_SYNC, or file not on a DAX mount)" : "");
		return -1;
	}
	/* DAX PMD faults need a 2 MiB aligned mapping and no MADV_NOHUGEPAGE. */
	if (madvise(s->map, j->offset + j->size, j->fault_size == FAULT_PTE ? MADV_NOHUGEPAGE : MADV_HUGEPAGE) < 0)
		return die_errno(s, "madvise");
	s->granule = j->fault_size == FAULT_PMD && !((uintptr_t)s->map % PMD_SIZE) ? PMD_SIZE : PAGE;
	s->touched = calloc((j->offset + j->size) / s->granule + 1, 1);
	s->pending = calloc(j->persist_every + 1, sizeof(*s->pending));
	if (!s->touched || !s->pending)
		return die_errno(s, "calloc");
	s->pctx = (struct persist_ctx){ .fd = s->fd, .map = s->map, .map_len = j->offset + j->size };
	if (s->ops->init && s->ops->init(&s->pctx) < 0)
		return -1;
	return 0;
}

/* Time the first write fault of every granule [off, off + len) touches. */
static void first_touch(struct job_state *s, size_t off, size_t len)
{
	size_t g;

	for (g = off / s->granule; g * s->granule < off + len; g++) {
		volatile unsigned char *p;
		uint64_t t0;

		if (s->touched[g])
			continue;
		s->touched[g] = 1;
		/* Touch inside the record, so the value is overwritten anyway. */
		p = s->map + (g * s->granule > off ? g * s->granule : off);
		t0 = now_ns();
		insn_mark_start();
		*p = 0;
		insn_mark_stop();
		lat_add(&s->flat, now_ns() - t0);
	}
}

static int persist_batch(struct job_state *s)
{
	uint64_t t0 = now_ns();
	size_t i;

	for (i = 0; i < s->npending; i++)
		if (s->ops->persist(&s->pctx, s->map + s->pending[i].off, s->pending[i].len) < 0)
			return die_errno(s, s->ops->name);
	if (s->ops->persist(&s->pctx, NULL, 0) < 0)
		return die_errno(s, s->ops->name);
	lat_add(&s->plat, now_ns() - t0);
	/* verify=1: acknowledge each record only now that it is persisted. */
	for (i = 0; s->job->verify && i < s->npending; i++)
		if (ack_at(s->pending[i].seq, s->pending[i].off, s->pending[i].len,
			   s->map + s->pending[i].off) < 0) {
			fprintf(stderr, "pmem-writer: [%s] ack %llu failed\n", s->job->name, s->pending[i].seq);
			return -1;
		}
	s->npending = 0;
	s->persists++;
	return 0;
}

static int do_write(struct job_state *s, size_t off, unsigned char *buf)
{
	const struct job *j = s->job;
	uint64_t t0;

	first_touch(s, off, j->bs);
	/* A recognisable record: sequence number and offset up front. */
	if (j->verify)
		record_fill(buf, j->bs, s->writes, off);
	else {
		memcpy(buf, &s->writes, sizeof(s->writes));
		memcpy(buf + 8, &off, sizeof(off));
	}
	t0 = now_ns();
	if (s->ops->store)
		s->ops->store(&s->pctx, s->map + off, buf, j->bs);
	else
		memcpy(s->map + off, buf, j->bs);
	lat_add(&s->wlat, now_ns() - t0);
	s->pending[s->npending++] = (struct range){ off, j->bs, s->writes };
	s->writes++;
	s->bytes_written += j->bs;
	if (s->npending == j->persist_every && persist_batch(s) < 0)
		return -1;
	if ((j->fsync_every && s->writes % j->fsync_every == 0) ||
	    (j->fdatasync_every && s->writes % j->fdatasync_every == 0)) {
		t0 = now_ns();
		if ((j->fsync_every ? fsync(s->fd) : fdatasync(s->fd)) < 0)
			return die_errno(s, "fsync");
		lat_add(&s->slat, now_ns() - t0);
		s->syncs++;
	}
	return 0;
}

static void do_read(struct job_state *s, size_t off, unsigned char *buf)
{
	uint64_t t0 = now_ns();

	memcpy(buf, s->map + off, s->job->bs);
	lat_add(&s->rlat, now_ns() - t0);
	s->reads++;
	s->bytes_read += s->job->bs;
}

static int run_io(struct job_state *s)
{
	const struct job *j = s->job;
	size_t nblocks = j->size / j->bs, i, *order;
	int random = j->rw == RW_RANDWRITE || j->rw == RW_RANDRW;
	int mixed = j->rw == RW_READWRITE || j->rw == RW_RANDRW;
	uint64_t deadline = j->runtime ? now_ns() + j->runtime * 1000000000ULL : 0;
	unsigned char *buf = malloc(j->bs);
	unsigned int loop;
	int ret = 0;

	order = malloc(nblocks * sizeof(*order));
	if (!buf || !order)
		return die_errno(s, "malloc");
	memset(buf, 0xa5, j->bs);
	s->rng = j->randseed * 2654435761ULL + s->index + 1;
	s->t_start = now_ns();
	for (loop = 0; j->time_based || loop < j->loops; loop++) {
		for (i = 0; i < nblocks; i++)
			order[i] = i;
		/* Like fio's random map: every block once per pass, in random order. */
		for (i = nblocks - 1; random && i > 0; i--) {
			size_t k = xorshift(&s->rng) % (i + 1), t = order[i];

			order[i] = order[k];
			order[k] = t;
		}
		for (i = 0; i < nblocks && !ret; i++) {
			size_t off = j->offset + order[i] * j->bs;

			if (mixed && xorshift(&s->rng) % 100 < j->rwmixread)
				do_read(s, off, buf);
			else
				ret = do_write(s, off, buf);
			if (deadline && now_ns() >= deadline)
				break;
		}
		if (ret || (deadline && now_ns() >= deadline))
			break;
	}
	if (!ret && s->npending)
		ret = persist_batch(s);
	s->t_end = now_ns();
	free(buf);
	free(order);
	return ret;
}

static json_t *rw_json(unsigned long long ios, unsigned long long bytes, uint64_t ns, struct lat *clat)
{
	double secs = ns / 1e9;

	return json_pack("{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:o}",
			 "io_bytes", (json_int_t)bytes,
			 "io_kbytes", (json_int_t)(bytes >> 10),
			 "bw_bytes", (json_int_t)(secs > 0 ? bytes / secs : 0),
			 "bw", (json_int_t)(secs > 0 ? bytes / 1024.0 / secs : 0),
			 "iops", secs > 0 ? ios / secs : 0.0,
			 "runtime", (json_int_t)(ns / 1000000),
			 "total_ios", (json_int_t)ios,
			 "clat_ns", lat_json(clat));
}

static json_t *job_json(struct job_state *s, const struct dax_counts *dc)
{
	const struct job *j = s->job;
	uint64_t ns = s->t_end - s->t_start;
	json_t *tp = json_object(), *o;
	struct rusage ru;
	int e;

	getrusage(RUSAGE_SELF, &ru);
	for (e = 0; e < EV_COUNT; e++)
		json_object_set_new(tp, dax_event_name(e), dc ? json_integer(dc->n[e]) : json_null());
	o = json_pack("{s:s, s:i, s:i, s:{s:s, s:s, s:s, s:I, s:I}, s:o, s:o, s:{s:I, s:o}, s:I, s:I, s:I}",
		      "jobname", j->name, "groupid", 0, "error", 0,
		      "job options", "rw", rw_name(j->rw), "map", j->map, "persist", j->persist,
		      "bs", (json_int_t)j->bs, "size", (json_int_t)j->size,
		      "read", rw_json(s->reads, s->bytes_read, ns, &s->rlat),
		      "write", rw_json(s->writes, s->bytes_written, ns, &s->wlat),
		      "sync", "total_ios", (json_int_t)s->syncs, "lat_ns", lat_json(&s->slat),
		      "job_runtime", (json_int_t)(ns / 1000000),
		      "minf", (json_int_t)ru.ru_minflt, "majf", (json_int_t)ru.ru_majflt);
	json_object_set_new(o, "pmem", json_pack(
		"{s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:I, s:{s:I, s:I, s:o}, s:{s:I, s:I, s:o}, s:o}",
		"map", s->mode->name, "persist", s->ops->name,
		"persist_every", (json_int_t)j->persist_every,
		"prealloc", j->prealloc == PREALLOC_NONE ? "none" :
			    j->prealloc == PREALLOC_FALLOCATE ? "fallocate" : "write",
		"fault_size", j->fault_size == FAULT_PMD ? "pmd" : "pte",
		"flush_insn", cpu_flush_insn(), "file", s->path, "ino", (json_int_t)s->ino,
		"first_touch", "granule", (json_int_t)s->granule, "count", (json_int_t)s->flat.n,
		"lat_ns", lat_json(&s->flat),
		"persist_calls", "calls", (json_int_t)s->persists,
		"dirty_pages_per_call", (json_int_t)((j->persist_every * j->bs + PAGE - 1) / PAGE),
		"lat_ns", lat_json(&s->plat),
		"tracepoints", tp));
	return o;
}

static void job_state_free(struct job_state *s)
{
	if (s->ops && s->ops->cleanup && s->map && s->map != MAP_FAILED)
		s->ops->cleanup(&s->pctx);
	if (s->map && s->map != MAP_FAILED)
		munmap(s->map, s->job->offset + s->job->size);
	if (s->fd > 0)
		close(s->fd);
	free(s->touched);
	free(s->pending);
	lat_free(&s->wlat);
	lat_free(&s->rlat);
	lat_free(&s->plat);
	lat_free(&s->flat);
	lat_free(&s->slat);
}

/*
 * One job instance, in a child process; its JSON goes to result_path. Its
 * tracepoint counts are filled in by run_job once every instance stopped.
 */
static int run_instance(const struct job *j, int index, const char *result_path)
{
	struct job_state s = { .job = j, .index = index, .fd = -1 };
	json_t *o;
	int ret;

	s.mode = map_mode_find(j->map);
	s.ops = persist_find(j->persist);
	ret = prepare_file(&s) || map_file(&s) || run_io(&s) ? -1 : 0;
	if (!ret) {
		o = job_json(&s, NULL);
		ret = json_dump_file(o, result_path, JSON_COMPACT);
		json_decref(o);
	}
	job_state_free(&s);
	return ret ? 1 : 0;
}

/* Run numjobs instances concurrently, as fio does, and collect their JSON. */
static int run_job(const struct job *j, json_t *jobs, int tracing)
{
	pid_t pids[64];
	char path[64][64];
	unsigned int i;
	int failed = 0;

	if (tracing && tracefs_start() < 0)
		tracing = 0;
	for (i = 0; i < j->numjobs; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/pmem-writer.%d.%u.json", (int)getpid(), i);
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(run_instance(j, i, path[i]));
	}
	for (i = 0; i < j->numjobs; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	for (i = 0; i < j->numjobs && !failed; i++) {
		json_t *o = json_load_file(path[i], 0, NULL);
		struct dax_counts dc;
		json_t *tp;
		int e;

		if (!o) {
			failed = 1;
			break;
		}
		/* Count after all instances stopped: the buffer is complete, and each
		 * instance is counted by its own inode (they share the buffer). */
		tp = json_object_get(json_object_get(o, "pmem"), "tracepoints");
		if (tracing && tracefs_count(json_integer_value(json_object_get(json_object_get(o, "pmem"), "ino")), &dc) == 0)
			for (e = 0; e < EV_COUNT; e++)
				json_object_set_new(tp, dax_event_name(e), json_integer(dc.n[e]));
		json_array_append_new(jobs, o);
		unlink(path[i]);
	}
	return failed ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pmem-writer [--output FILE] [--map MODE] [--persist METHOD] [--no-trace] [--check] JOBFILE\n\noptions in job files:\n");
	job_options_help(f);
}

int main(int argc, char **argv)
{
	const char *output = NULL, *jobfile = NULL, *env, *map = NULL, *persist = NULL;
	int check_only = 0;
	struct job_file *jf = calloc(1, sizeof(*jf));
	json_t *doc, *jobs;
	struct utsname u;
	int i, tracing = 1, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--output") && i + 1 < argc)
			output = argv[++i];
		else if (!strcmp(argv[i], "--no-trace"))
			tracing = 0;
		else if (!strcmp(argv[i], "--map") && i + 1 < argc)
			map = argv[++i];
		else if (!strcmp(argv[i], "--persist") && i + 1 < argc)
			persist = argv[++i];
		else if (!strcmp(argv[i], "--check"))
			check_only = 1;
		else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] != '-' && !jobfile)
			jobfile = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!jobfile || !jf) {
		usage(stderr);
		return 2;
	}
	if (job_file_parse(jobfile, jf) < 0)
		return 2;
	if (map && !map_mode_find(map)) {
		fprintf(stderr, "pmem-writer: --map %s: expected shared, sync, aware, sync+aware\n", map);
		return 2;
	}
	if (persist && !persist_find(persist)) {
		fprintf(stderr, "pmem-writer: --persist %s: expected %s\n", persist, persist_names());
		return 2;
	}
	/* Overrides apply to every job: the harness runs one file in each mode. */
	for (i = 0; i < jf->njobs; i++) {
		if (map)
			snprintf(jf->jobs[i].map, sizeof(jf->jobs[i].map), "%s", map);
		if (persist)
			snprintf(jf->jobs[i].persist, sizeof(jf->jobs[i].persist), "%s", persist);
	}
	if (check_only) {
		for (i = 0; i < jf->njobs; i++)
			printf("%s\n", jf->jobs[i].name);
		free(jf);
		return 0;
	}
	if (tracing && access(TRACEFS "/events/fs_dax", F_OK)) {
		fprintf(stderr, "pmem-writer: no fs_dax tracepoints in %s; tracepoint counts omitted\n", TRACEFS);
		tracing = 0;
	}
	uname(&u);
	jobs = json_array();
	doc = json_pack("{s:s, s:I, s:o}", "fio version", WRITER_VERSION,
			"timestamp", (json_int_t)time(NULL), "jobs", jobs);
	for (i = 0; i < jf->njobs && !ret; i++)
		ret = run_job(&jf->jobs[i], jobs, tracing);
	env = getenv("PMEM_FLAVOUR");
	json_object_set_new(doc, "pmem", json_pack("{s:s, s:s, s:s, s:s, s:s}",
		"writer", WRITER_VERSION, "kernel_release", u.release,
		"flavour", env ? env : "unknown",
		"fs", getenv("PMEM_FS") ? getenv("PMEM_FS") : "unknown",
		"clock", "CLOCK_MONOTONIC inside the guest: emulated time under TCG, compare only as ratios"));
	if (!ret) {
		if (output)
			ret = json_dump_file(doc, output, JSON_INDENT(2)) ? 1 : 0;
		else {
			json_dumpf(doc, stdout, JSON_INDENT(2));
			putchar('\n');
		}
	}
	json_decref(doc);
	free(jf);
	return ret ? 1 : 0;
}
