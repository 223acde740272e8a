// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness bench: the benchmark matrix.
 *
 * A cell is (kernel flavour, filesystem, mapping mode, job file). Each
 * repetition of a (kernel, filesystem) pair is one fresh guest, which runs
 * every mode x job of that pair on a fresh copy of the golden image, modes in
 * an order rotated per repetition so that drift does not favour one mode.
 * Guests on the stock kernel run only the modes it has (shared, sync).
 *
 * results/runs/<run-id>/
 *   run.json                      what ran where (kernels, QEMU, accel, host, git)
 *   units/<kernel>__<fs>__rep<N>/  one guest: vm.json, logs, unit.json
 *   cells/<kernel>__<fs>__<mode>__<job>.json   one document per cell, all reps
 *
 * unit.json is written last and atomically: a unit that has one is done, and
 * --resume skips it. Cell documents are rebuilt from the units after each
 * guest, so an interrupted run leaves consistent cells (bench_resume.c reads
 * what an interrupted run left). A full results disk stops the run in one
 * line: every unit after it would fail the same way.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../results/summary.h"
#include "bench_resume.h"
#include "builtin.h"
#include "diskfull.h"
#include "jsonio.h"
#include "names.h"
#include "textfile.h"
#include "qemu.h"
#include "result_blocks.h"
#include "runinfo.h"
#include "rundir.h"

#define MAX_LIST 16
#define UNIT_TIMEOUT 900
/*
 * Room a unit needs on the results disk besides its copy of the golden
 * image: what the guest writes into that copy (QEMU maps it, and a full
 * disk kills QEMU with SIGBUS there), its logs and its results.
 */
#define UNIT_RESERVE ((off_t)64 << 20)
#define UNIT_INODES 64

struct list {
	char *v[MAX_LIST];
	int n;
};

struct bench {
	struct list kernels, fss, modes, jobs;
	int reps, peer, quick, resume;
	const char *build, *accel, *plugin;
	char run_id[64], run_dir[512];
	char harness[512];
	char disk_full[1400];	/* the results disk has no room: the run stops */
};

static const char *const all_modes[] = { "shared", "sync", "aware", "sync+aware" };

static void split(struct list *l, const char *s)
{
	char *copy = strdup(s), *tok, *save;

	l->n = 0;
	for (tok = strtok_r(copy, " ,", &save); tok && l->n < MAX_LIST; tok = strtok_r(NULL, " ,", &save))
		l->v[l->n++] = strdup(tok);
	free(copy);
}

static const char *job_name(const char *path, char *buf, size_t size)
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
static int kernel_has_port(const struct bench *b, const char *kernel)
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
		asked |= !strcmp(b->modes.v[i], "aware") || !strcmp(b->modes.v[i], "sync+aware");
	for (i = 0; i < b->kernels.n && asked; i++) {
		json_t *k = run_kernel_info(b->build, b->kernels.v[i]);
		json_t *probed = json_object_get(k, "map_pmem_aware");
		const char *name = b->kernels.v[i];
		int has = kernel_has_port(b, name);

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

static int run_child(char *const argv[], int quiet, char **err);

static int validate(struct bench *b)
{
	char path[1024], writer[1024];
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
		if (strcmp(b->fss.v[i], "ext4") && strcmp(b->fss.v[i], "xfs")) {
			fprintf(stderr, "bench: unknown filesystem '%s' (ext4, xfs)\n", b->fss.v[i]);
			return -1;
		}
		if (access(path, R_OK)) {
			fprintf(stderr, "bench: no golden %s image: run 'make images'\n", b->fss.v[i]);
			return -1;
		}
	}
	for (i = 0; i < b->modes.n; i++) {
		size_t k;
		int ok = 0;

		for (k = 0; k < 4; k++)
			ok |= !strcmp(b->modes.v[i], all_modes[k]);
		if (!ok) {
			fprintf(stderr, "bench: unknown mode '%s' (shared, sync, aware, sync+aware)\n", b->modes.v[i]);
			return -1;
		}
	}
	/* The writer itself checks the job files: one parser, one set of messages.
	 * No shell: a job path is an argument, never a word on a command line. */
	snprintf(writer, sizeof(writer), "%s/guest/pmem-writer", b->build);
	for (i = 0; i < b->jobs.n; i++) {
		char *argv[] = { writer, "--check", b->jobs.v[i], NULL };

		if (run_child(argv, 1, NULL) != 0) {
			fprintf(stderr, "bench: job file %s is not valid (message above)\n", b->jobs.v[i]);
			return -1;
		}
	}
	return 0;
}

/* The guest job for one unit: every mode x job, then the fio peer. */
static char *unit_script(const struct bench *b, const char *kernel, int rep)
{
	char *s = NULL, name[128];
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int port = kernel_has_port(b, kernel), i, k, nm = 0;
	const char *order[4];

	for (i = 0; i < b->modes.n; i++)
		if (port || (strcmp(b->modes.v[i], "aware") && strcmp(b->modes.v[i], "sync+aware")))
			order[nm++] = b->modes.v[i];
	/* The helpers are a file in the guest image (vm-images/guest/bench-lib.sh). */
	fprintf(f, ". /usr/share/pmem/bench.sh\n");
	/*
	 * The golden ext4 image's inode tables were never zeroed, so every
	 * mount starts ext4lazyinit, which zeroes them in the background for
	 * the whole unit and holds a journal handle while it does: faults
	 * that run meanwhile cost less (no wake-up at the handle's end).
	 */
	fprintf(f, "! grep -q ' /mnt ext4 ' /proc/mounts || mount -o remount,noinit_itable /mnt\n");
	for (i = 0; i < b->jobs.n; i++) {
		char *text = read_text_file(b->jobs.v[i]);

		fprintf(f, "cat >/tmp/jobs/%s.fio <<'PMEM_JOB_EOF'\n%s\nPMEM_JOB_EOF\n",
			job_name(b->jobs.v[i], name, sizeof(name)), text ? text : "");
		free(text);
	}
	/* Rotate the mode order by repetition. */
	for (i = 0; i < nm; i++) {
		const char *mode = order[(i + rep - 1) % nm];

		for (k = 0; k < b->jobs.n; k++) {
			job_name(b->jobs.v[k], name, sizeof(name));
			if (strcmp(name, "peer"))
				fprintf(f, "writer '%s' '%s'\n", mode, name);
		}
	}
	for (k = 0; k < b->jobs.n && b->peer; k++) {
		job_name(b->jobs.v[k], name, sizeof(name));
		if (strcmp(name, "peer"))
			continue;
		fprintf(f, "writer shared peer\nfio_peer mmap peer\n");
		fprintf(f, "writer shared peer libpmem\nfio_peer libpmem peer\n");
	}
	fprintf(f, "pmem_umount\n");
	fclose(f);
	return s;
}

/*
 * Kernel functions whose calls the plugin counts apart from the faulting
 * task's own instructions (its apart= argument), because what they cost
 * depends on state that differs between runs of one cell rather than on
 * the fault path:
 *   slab    SLOB's first-fit walk of the heap's free lists (6.1's config),
 *           SLUB taking a slab page from the page allocator or giving one
 *           back (6.12's), which happens when the heap says so;
 *   clock   the inode timestamp update, work only when the coarse clock
 *           ticked since the file's last write;
 *   sched   the scheduler, when the task sleeps (a MAP_SYNC fault waits
 *           for the log), yields or wakes a worker: its load tracking
 *           decays per elapsed millisecond;
 *   random  the random number batches, refilled every so many calls from
 *           anywhere (xfs draws one per log ticket).
 * A symbol counts under its name and with a compiler suffix
 * (slob_alloc.isra.0). "switch" is no class: __switch_to(prev, next) tells
 * the plugin the tasks (its switch= argument).
 */
static const struct {
	const char *cls, *fn;
} insn_syms[] = {
	{ "switch", "__switch_to" },
	{ "slab", "slob_alloc" },
	{ "slab", "slob_free" },
	{ "slab", "new_slab" },
	{ "slab", "free_slab" },
	{ "slab", "__free_slab" },
	{ "clock", "file_update_time" },
	{ "sched", "__schedule" },
	{ "sched", "try_to_wake_up" },
	{ "random", "get_random_u8" },
	{ "random", "get_random_u16" },
	{ "random", "get_random_u32" },
	{ "random", "get_random_u64" },
	{ "random", "get_random_bytes" },
	{ "random", "_get_random_bytes" },
};

#define INSN_SYMS_N (sizeof(insn_syms) / sizeof(insn_syms[0]))
#define APPEND(buf, len, size, ...) \
	((len) += snprintf((buf) + (len), (len) < (size) ? (size) - (len) : 0, __VA_ARGS__))

/*
 * ",switch=ADDR,apart=CLASS:ADDR..." for the plugin from the kernel's
 * System.map, or "" without one. Addresses are link-time: a kernel with
 * KASLR gets none.
 */
static void insn_plugin_args(const char *build, const char *kernel, char *buf, size_t size)
{
	char path[1024], line[512], sym[256], type, have[INSN_SYMS_N][64] = { { 0 } };
	unsigned long long addr;
	char *config;
	size_t len = 0, i, k;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/kernels/%s/config", build, kernel);
	config = read_text_file(path);
	if (config && strstr(config, "\nCONFIG_RANDOMIZE_BASE=y")) {
		free(config);
		return;
	}
	free(config);
	snprintf(path, sizeof(path), "%s/kernels/%s/System.map", build, kernel);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		for (i = 0; i < INSN_SYMS_N; i++) {
			size_t n = strlen(insn_syms[i].fn), hl = strlen(have[i]);

			if (!strncmp(sym, insn_syms[i].fn, n) && (!sym[n] || sym[n] == '.'))
				snprintf(have[i] + hl, sizeof(have[i]) - hl, ":%llx", addr);
		}
	}
	fclose(f);
	for (i = 0; i < INSN_SYMS_N; i++) {
		if (!have[i][0])
			continue;
		if (!strcmp(insn_syms[i].cls, "switch")) {
			/* The first: __switch_to has no compiler variants. */
			APPEND(buf, len, size, ",switch=%.*s", (int)strcspn(have[i] + 1, ":"),
			       have[i] + 1);
			continue;
		}
		/* One apart= per class, its functions after its name. */
		for (k = 0; k < i; k++)
			if (!strcmp(insn_syms[k].cls, insn_syms[i].cls) && have[k][0])
				break;
		if (k < i)
			continue;
		APPEND(buf, len, size, ",apart=%s", insn_syms[i].cls);
		for (k = i; k < INSN_SYMS_N; k++)
			if (!strcmp(insn_syms[k].cls, insn_syms[i].cls) && have[k][0])
				APPEND(buf, len, size, "%s", have[k]);
	}
	if (len >= size)
		buf[0] = '\0';
}

#define INSN_MAX_CLASSES 8

/*
 * The plugin's intervals, in execution order: ncls numbers per interval,
 * named by the header (version 1 wrote one, all instructions, as "own").
 */
struct insn_intervals {
	double *v;
	size_t n;
	int ncls;
	char cls[INSN_MAX_CLASSES][32];
};

/* "# insn-per-fault v2 ...: vcpu own irq other ...": the column names. */
static void read_columns(char *line, struct insn_intervals *iv)
{
	const char *key = "between markers: vcpu ";
	char *cols = strstr(line, key), *save, *tok;

	if (strncmp(line, "# insn-per-fault v2 ", 20) || !cols)
		return;
	iv->ncls = 0;
	for (tok = strtok_r(cols + strlen(key), " \n", &save); tok && iv->ncls < INSN_MAX_CLASSES;
	     tok = strtok_r(NULL, " \n", &save))
		snprintf(iv->cls[iv->ncls++], sizeof(iv->cls[0]), "%s", tok);
}

static int read_intervals(const char *path, struct insn_intervals *iv)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	char line[512];

	memset(iv, 0, sizeof(*iv));
	if (!f)
		return -1;
	iv->ncls = 1;
	snprintf(iv->cls[0], sizeof(iv->cls[0]), "own");
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		int c = 0;

		if (line[0] == '#') {
			read_columns(line, iv);
			continue;
		}
		strtol(p, &end, 10);	/* the vCPU */
		if (end == p || !iv->ncls)
			continue;
		if (iv->n == cap) {
			cap = cap ? cap * 2 : 1024;
			iv->v = realloc(iv->v, cap * iv->ncls * sizeof(*iv->v));
		}
		for (p = end; c < iv->ncls; c++, p = end) {
			iv->v[iv->n * iv->ncls + c] = strtoull(p, &end, 10);
			if (end == p)
				break;
		}
		if (c == iv->ncls)
			iv->n++;
	}
	fclose(f);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * What the plugin counted apart from the faulting task's own instructions
 * in count intervals from row: per class its mean per fault, maximum and
 * how many faults it hit, their sum's mean, and the median of everything
 * (what the one figure was before the split).
 */
static json_t *insn_interference(const struct insn_intervals *iv, size_t row, size_t count)
{
	json_t *sources = json_object();
	double *all = malloc(count * sizeof(*all)), sum = 0;
	size_t i;
	int c;

	for (i = 0; i < count; i++) {
		all[i] = 0;
		for (c = 0; c < iv->ncls; c++)
			all[i] += iv->v[(row + i) * iv->ncls + c];
		sum += all[i] - iv->v[(row + i) * iv->ncls];
	}
	for (c = 1; c < iv->ncls; c++) {
		double total = 0, max = 0, x;
		json_int_t hit = 0;

		for (i = 0; i < count; i++) {
			x = iv->v[(row + i) * iv->ncls + c];
			total += x;
			max = x > max ? x : max;
			hit += x > 0;
		}
		json_object_set_new(sources, iv->cls[c], json_pack("{s:f, s:f, s:I}",
				    "mean", total / count, "max", max, "hit", hit));
	}
	qsort(all, count, sizeof(*all), cmp_double);
	sum /= count;
	sources = json_pack("{s:f, s:f, s:o}", "mean", sum, "all_median", median_sorted(all, count),
			    "sources", sources);
	free(all);
	return sources;
}

/*
 * Give every writer job section its share of the plugin's intervals: the
 * writer brackets each first touch with the markers, and sections run one
 * after another on one vCPU, so the k-th section owns the next `count`.
 * insn_per_fault is the faulting task's own instructions (the first
 * column); insn_interference the rest, when the plugin split it off.
 */
static void attach_insns(json_t *results, const struct insn_intervals *iv)
{
	size_t used = 0, i, k, j;
	json_t *r, *section;

	json_array_foreach(results, i, r) {
		if (strcmp(json_string_value(json_object_get(r, "kind")), "writer"))
			continue;
		json_array_foreach(json_object_get(json_object_get(r, "result"), "jobs"), k, section) {
			json_t *pm = json_object_get(section, "pmem");
			size_t count = json_integer_value(json_object_get(json_object_get(pm, "first_touch"), "count"));
			double *slice;

			if (!pm || !count)
				continue;
			if (!iv->v || used + count > iv->n) {
				json_object_set_new(pm, "insn_per_fault", json_null());
				continue;
			}
			slice = malloc(count * sizeof(*slice));
			for (j = 0; j < count; j++)
				slice[j] = iv->v[(used + j) * iv->ncls];
			qsort(slice, count, sizeof(*slice), cmp_double);
			json_object_set_new(pm, "insn_per_fault", json_pack("{s:f, s:f, s:f, s:I}",
				"median", median_sorted(slice, count),
				"min", slice[0], "max", slice[count - 1], "N", (json_int_t)count));
			if (iv->ncls > 1)
				json_object_set_new(pm, "insn_interference",
						    insn_interference(iv, used, count));
			free(slice);
			used += count;
		}
	}
}

/* The guest's result blocks (result_blocks.h) from a unit's log. */
static json_t *parse_results(const char *log_path, int *failures)
{
	char *text = read_text_file(log_path);
	json_t *results = result_blocks_parse(text, log_path, failures);

	free(text);
	return results;
}

/* What a child says on stderr, up to 64 KiB; the rest is read and dropped. */
static char *read_all(int fd)
{
	size_t len = 0, cap = 64 << 10;
	char *buf = malloc(cap + 1), sink[4096];
	ssize_t n;

	for (;;) {
		n = read(fd, len < cap ? buf + len : sink, len < cap ? cap - len : sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < cap)
			len += n;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * A program as a child, without a shell (no name is quoted into a command
 * line), and killed with us: a bench killed with -9 must leave no unit
 * running that a resume would run again beside it. quiet: its stdout goes
 * to /dev/null. err: its stderr is kept there (malloc'd) for the caller to
 * pass on, or not when the disk turned out full. The child's exit status,
 * or -1.
 */
static int run_child(char *const argv[], int quiet, char **err)
{
	pid_t parent = getpid(), pid;
	int status, pfd[2] = { -1, -1 };

	if (err && pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		if (err) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		if (quiet && dup2(open("/dev/null", O_WRONLY | O_CLOEXEC), 1) < 0)
			_exit(127);
		if (err && dup2(pfd[1], 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (err) {
		close(pfd[1]);
		*err = read_all(pfd[0]);
		close(pfd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Whether the results disk has room for a guest on fs: its copy of the
 * golden image as allocated, and the reserve. If not, say so in
 * b->disk_full, after what ("" before the guest runs).
 */
static int room_for_unit(struct bench *b, const char *fs, const char *after)
{
	off_t need = UNIT_RESERVE, avail;
	unsigned long long inodes;
	char golden[1024];
	struct stat st;

	snprintf(golden, sizeof(golden), "%s/images/%s.img", b->build, fs);
	if (!stat(golden, &st))
		need += (off_t)st.st_blocks * 512;
	if (disk_free(b->run_dir, &avail, &inodes) < 0)
		return 1;
	if (inodes < UNIT_INODES)
		snprintf(b->disk_full, sizeof(b->disk_full),
			 "the disk under %s is full: %s%llu inodes free, and a guest needs %d (its logs and results)",
			 b->run_dir, after, inodes, UNIT_INODES);
	else if (avail < need)
		snprintf(b->disk_full, sizeof(b->disk_full),
			 "the disk under %s is full: %s%lld MiB free, and a guest needs %lld MiB (its copy of the golden image, what it writes there, its logs and results)",
			 b->run_dir, after, (long long)(avail >> 20), (long long)((need + (1 << 20) - 1) >> 20));
	else
		return 1;
	return 0;
}

/*
 * The one line a full disk stops the run with: what is kept, and what to
 * do. A run without run.json cannot be resumed, only started again.
 */
static void say_disk_full(const struct bench *b, const char *where, int resumable)
{
	char pattern[1200];
	size_t kept = 0;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/units/*/unit.json", b->run_dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		kept = g.gl_pathc;
		globfree(&g);
	}
	if (!resumable) {
		fprintf(stderr, "bench: %s stopped: %s; free space, then run bench again\n", where, b->disk_full);
		return;
	}
	fprintf(stderr, "bench: %s stopped: %s; the %zu guest%s done before %s kept (%s/units); free space, then finish the run with --resume %s (make bench RESUME=%s)\n",
		where, b->disk_full, kept, kept == 1 ? "" : "s", kept == 1 ? "is" : "are", b->run_dir,
		b->run_id, b->run_id);
}

static int run_unit(struct bench *b, const char *kernel, const char *fs, int rep, const char *dir)
{
	char script_path[1024], timeout[16], plugin_arg[2000] = "", path[1024], why[4200];
	char insn_args[800];
	char *script, *err = NULL;
	json_t *unit, *results, *vm;
	int rc, failures;
	FILE *f;

	/* Checked ahead: a guest on a full disk dies of SIGBUS or loses its logs. */
	if (!room_for_unit(b, fs, ""))
		return -1;
	if (run_dir_make(dir, path, sizeof(path)) < 0) {
		if (disk_full_errno(errno))
			snprintf(b->disk_full, sizeof(b->disk_full), "the disk under %s is full: %s", b->run_dir, path);
		else
			fprintf(stderr, "bench: %s\n", path);
		return -1;
	}
	snprintf(script_path, sizeof(script_path), "%s/job.sh", dir);
	script = unit_script(b, kernel, rep);
	f = fopen(script_path, "w");
	rc = !f || fputs(script, f) < 0;
	if ((f && fclose(f)) || rc) {
		if (disk_full_errno(errno))
			disk_full_writing(b->disk_full, sizeof(b->disk_full), b->run_dir, script_path, errno);
		else
			fprintf(stderr, "bench: cannot write %s: %s\n", script_path, strerror(errno));
		free(script);
		return -1;
	}
	free(script);
	snprintf(timeout, sizeof(timeout), "%d", UNIT_TIMEOUT);
	insn_plugin_args(b->build, kernel, insn_args, sizeof(insn_args));
	snprintf(plugin_arg, sizeof(plugin_arg), "%s,out=%s/insn.txt%s", b->plugin ? b->plugin : "",
		 dir, insn_args);
	{
		char *argv[] = { (char *)b->harness, "run", "--kernel", (char *)kernel, "--fs", (char *)fs,
				 "--script", script_path, "--out", (char *)dir, "--accel",
				 (char *)(b->plugin ? "tcg" : b->accel), "--timeout", timeout, "--quiet",
				 b->plugin ? "--plugin" : NULL, plugin_arg, NULL };

		rc = run_child(argv, 0, &err);
	}
	snprintf(path, sizeof(path), "%s/guest.log", dir);
	results = parse_results(path, &failures);
	snprintf(path, sizeof(path), "%s/vm.json", dir);
	vm = json_load_file(path, 0, NULL);
	if (rc != 0 || !vm || failures) {
		/*
		 * A guest that failed on a full disk (QEMU's SIGBUS, a lost
		 * log, a copy cut short) failed for the disk, not for the
		 * kernel: one line says so, instead of its guest's lines.
		 */
		if (!room_for_unit(b, fs, "the guest failed with only ")) {
			free(err);
			json_decref(results);
			json_decref(vm);
			return -1;
		}
		fputs(err ? err : "", stderr);
		free(err);
		fprintf(stderr, "bench: %s/%s rep %d failed (%s%d job failures); see %s/guest.log and %s/console.log\n",
			kernel, fs, rep, rc ? "guest failed, " : "", failures, dir, dir);
		json_decref(results);
		json_decref(vm);
		return -1;
	}
	fputs(err ? err : "", stderr);
	free(err);
	if (b->plugin) {
		struct insn_intervals iv;

		snprintf(path, sizeof(path), "%s/insn.txt", dir);
		read_intervals(path, &iv);
		attach_insns(results, &iv);
		free(iv.v);
	}
	unit = json_pack("{s:i, s:s, s:s, s:i, s:o, s:o}", "schema", RUN_SCHEMA, "kernel", kernel,
			 "fs", fs, "rep", rep, "vm", vm, "results", results);
	snprintf(path, sizeof(path), "%s/unit.json", dir);
	rc = json_write_atomic_why(path, unit, why, sizeof(why));
	if (rc < 0 && disk_full_errno(errno))
		disk_full_writing(b->disk_full, sizeof(b->disk_full), b->run_dir, path, errno);
	else if (rc < 0)
		fprintf(stderr, "bench: %s\n", why);
	json_decref(unit);
	return rc;
}

static json_t *run_json(struct bench *b)
{
	json_t *kernels = json_object(), *jobs = json_array(), *doc;
	int i;

	for (i = 0; i < b->kernels.n; i++)
		json_object_set_new(kernels, b->kernels.v[i], run_kernel_info(b->build, b->kernels.v[i]));
	for (i = 0; i < b->jobs.n; i++)
		json_array_append_new(jobs, json_string(b->jobs.v[i]));
	doc = json_pack("{s:i, s:s, s:o, s:[], s:[], s:o, s:i, s:b}",
			"schema", RUN_SCHEMA, "run_id", b->run_id, "kernels", kernels,
			"filesystems", "modes", "jobs", jobs, "reps", b->reps, "quick", b->quick);
	json_object_update_new(doc, run_environment());
	for (i = 0; i < b->fss.n; i++)
		json_array_append_new(json_object_get(doc, "filesystems"), json_string(b->fss.v[i]));
	for (i = 0; i < b->modes.n; i++)
		json_array_append_new(json_object_get(doc, "modes"), json_string(b->modes.v[i]));
	json_object_set_new(doc, "insn_per_fault", json_string(b->plugin ? "TCG plugin insn-per-fault" :
		"unavailable: needs QEMU >= 10 (plugin API v4) and build/plugins/insn-per-fault.so"));
	return doc;
}

static void fmt_duration(double s, char *buf, size_t size)
{
	if (s < 0 || isnan(s))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmem-harness bench [--kernels LIST] [--fs LIST] [--modes LIST] [--jobs FILES]\n"
		"                          [--reps N] [--quick] [--run-id ID] [--resume ID] [--no-peer]\n"
		"                          [--accel auto|kvm|tcg] [--results DIR]\n"
		"--quick: 6.1-aware, ext4, faults + persist jobs, 3 reps (explicit options win).\n"
		"Runs each (kernel, fs) pair REPS times in fresh guests, every mode x job in each,\n"
		"and prints the summary. --resume ID finishes an interrupted run, skipping done guests.\n");
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kernels", required_argument, NULL, 'k' }, { "fs", required_argument, NULL, 'f' },
		{ "modes", required_argument, NULL, 'm' }, { "jobs", required_argument, NULL, 'j' },
		{ "reps", required_argument, NULL, 'r' }, { "quick", no_argument, NULL, 'q' },
		{ "run-id", required_argument, NULL, 'i' }, { "resume", required_argument, NULL, 'R' },
		{ "no-peer", no_argument, NULL, 'n' }, { "accel", required_argument, NULL, 'a' },
		{ "results", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct bench b = { .reps = 5, .peer = 1, .accel = "auto" };
	const char *kernels = "6.1-stock 6.1-aware", *fss = "ext4 xfs", *modes = "shared sync aware sync+aware";
	const char *jobs = "workloads/jobs/*.fio", *results = "results/runs", *id = NULL;
	char path[1024], plugin[1024], why[1200];
	int c, i, k, rep, nunits, done = 0, failed = 0;
	double t0 = now_s(), unit_time = 0;
	json_t *doc;
	glob_t g;

	optind = 1;
	while ((c = getopt_long(argc, argv, "k:f:m:j:r:qi:R:na:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kernels = optarg; break;
		case 'f': fss = optarg; break;
		case 'm': modes = optarg; break;
		case 'j': jobs = optarg; break;
		case 'r': b.reps = atoi(optarg); break;
		case 'q': b.quick = 1; break;
		case 'i': id = optarg; break;
		case 'R': id = optarg; b.resume = 1; break;
		case 'n': b.peer = 0; break;
		case 'a': b.accel = optarg; break;
		case 'o': results = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	/* A run id becomes a directory name under --results. */
	if (id && !name_is_safe(id, sizeof(b.run_id))) {
		fprintf(stderr, "bench: run id '%.80s' cannot name a directory: use up to %zu letters, digits, '.', '_', '+' or '-', not starting with '.'\n",
			id, sizeof(b.run_id) - 1);
		return 2;
	}
	/* QUICK: a first look in about three minutes. Explicit options still win. */
	if (b.quick) {
		static const char *const q[] = { "--kernels", "--fs", "--jobs", "--reps", "--no-peer" };
		int given[5] = { 0 };
		size_t a;

		for (i = 1; i < argc; i++)
			for (a = 0; a < 5; a++)
				given[a] |= !strncmp(argv[i], q[a], strlen(q[a]));
		if (!given[0])
			kernels = "6.1-aware";
		if (!given[1])
			fss = "ext4";
		if (!given[2])
			jobs = "workloads/jobs/faults.fio workloads/jobs/persist.fio";
		if (!given[3])
			b.reps = 3;
	}
	if (b.reps < 1 || b.reps > SERIES_MAX_REPS) {
		fprintf(stderr, "bench: --reps must be 1..%d\n", SERIES_MAX_REPS);
		return 2;
	}
	b.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	snprintf(b.harness, sizeof(b.harness), "%s/pmem-harness", b.build);
	split(&b.kernels, kernels);
	split(&b.fss, fss);
	split(&b.modes, modes);
	/* Job files: a glob or a list of paths. */
	b.jobs.n = 0;
	{
		struct list pats;

		split(&pats, jobs);
		for (i = 0; i < pats.n; i++) {
			if (glob(pats.v[i], GLOB_NOCHECK, NULL, &g) != 0)
				continue;
			for (k = 0; k < (int)g.gl_pathc && b.jobs.n < MAX_LIST; k++)
				b.jobs.v[b.jobs.n++] = strdup(g.gl_pathv[k]);
			globfree(&g);
		}
	}
	if (!b.kernels.n || !b.fss.n || !b.modes.n || !b.jobs.n) {
		fprintf(stderr, "bench: empty matrix: give at least one kernel, filesystem, mode and job file\n");
		return 2;
	}
	if (validate(&b) < 0)
		return 2;
	say_ports(&b);
	snprintf(plugin, sizeof(plugin), "%s/plugins/insn-per-fault.so", b.build);
	b.plugin = !access(plugin, R_OK) && strcmp(b.accel, "kvm") ? plugin : NULL;
	if (!b.plugin)
		fprintf(stderr, "bench: no %s: instruction counts per fault will be reported as unavailable\n", plugin);

	if (id)
		snprintf(b.run_id, sizeof(b.run_id), "%s", id);
	else {
		time_t t = time(NULL);

		strftime(b.run_id, sizeof(b.run_id), "%Y%m%d-%H%M%S", localtime(&t));
	}
	snprintf(b.run_dir, sizeof(b.run_dir), "%s/%s", results, b.run_id);
	snprintf(path, sizeof(path), "%s/run.json", b.run_dir);
	if (b.resume) {
		json_t *old, *now;

		/* Only a run that is there is checked: nothing is made for a typo. */
		if (!access(b.run_dir, F_OK) && run_dir_make(b.run_dir, why, sizeof(why)) < 0) {
			fprintf(stderr, "bench: %s\n", why);
			return 2;
		}
		old = json_load_file(path, 0, NULL);
		now = run_json(&b);
		if (!old) {
			fprintf(stderr, "bench: nothing to resume at %s\n", b.run_dir);
			return 2;
		}
		/* Resuming with another matrix would mix incomparable cells. */
		if (!bench_same_matrix(old, now)) {
			fprintf(stderr, "bench: run %s was made with another matrix or other kernels; start a new run instead\n",
				b.run_id);
			json_decref(old);
			json_decref(now);
			return 2;
		}
		json_decref(now);
		doc = old;
	} else {
		if (!access(path, F_OK)) {
			fprintf(stderr, "bench: run %s exists: use --resume %s to finish it, or another --run-id\n",
				b.run_id, b.run_id);
			return 2;
		}
		snprintf(path, sizeof(path), "%s/units", b.run_dir);
		if (run_dir_make(b.run_dir, why, sizeof(why)) < 0 || run_dir_make(path, why, sizeof(why)) < 0) {
			fprintf(stderr, "bench: %s\n", why);
			return 2;
		}
		doc = run_json(&b);
	}
	/* The accelerator is resolved once, by the first guest; record it. */
	snprintf(path, sizeof(path), "%s/run.json", b.run_dir);
	if (json_write_atomic_why(path, doc, why, sizeof(why)) < 0) {
		if (!disk_full_errno(errno)) {
			fprintf(stderr, "bench: %s\n", why);
			return 1;
		}
		disk_full_writing(b.disk_full, sizeof(b.disk_full), b.run_dir, path, errno);
		snprintf(why, sizeof(why), "run %s", b.run_id);
		say_disk_full(&b, why, b.resume);
		json_decref(doc);
		return 1;
	}

	nunits = b.reps * b.kernels.n * b.fss.n;
	fprintf(stderr, "bench: run %s: %d guests (%d kernels x %d filesystems x %d reps), %d job files\n",
		b.run_id, nunits, b.kernels.n, b.fss.n, b.reps, b.jobs.n);
	for (rep = 1; rep <= b.reps; rep++)
		for (i = 0; i < b.kernels.n; i++)
			for (k = 0; k < b.fss.n; k++) {
				char dir[1024], el[32], eta[32];
				double t1;

				snprintf(dir, sizeof(dir), "%s/units/%s__%s__rep%d", b.run_dir,
					 b.kernels.v[i], b.fss.v[k], rep);
				snprintf(path, sizeof(path), "%s/unit.json", dir);
				done++;
				if (!access(path, R_OK)) {
					fprintf(stderr, "bench: [%d/%d] %s %s rep %d: done before, skipped\n",
						done, nunits, b.kernels.v[i], b.fss.v[k], rep);
					continue;
				}
				t1 = now_s();
				if (run_unit(&b, b.kernels.v[i], b.fss.v[k], rep, dir) < 0)
					failed++;
				unit_time = unit_time ? 0.7 * unit_time + 0.3 * (now_s() - t1) : now_s() - t1;
				if (!b.disk_full[0] && bench_cells_write(b.run_dir, why, sizeof(why)) < 0) {
					if (disk_full_errno(errno))
						disk_full_writing(b.disk_full, sizeof(b.disk_full), b.run_dir,
								  "the cell documents", errno);
					else
						fprintf(stderr, "bench: %s\n", why);
				}
				/* No summary or report: they would be written on the same disk. */
				if (b.disk_full[0]) {
					snprintf(why, sizeof(why), "%s/%s rep %d", b.kernels.v[i], b.fss.v[k], rep);
					say_disk_full(&b, why, 1);
					json_decref(doc);
					return 1;
				}
				fmt_duration(now_s() - t0, el, sizeof(el));
				fmt_duration(unit_time * (nunits - done), eta, sizeof(eta));
				fprintf(stderr, "bench: [%d/%d] %s %s rep %d: %.0f s; elapsed %s, ETA %s\n",
					done, nunits, b.kernels.v[i], b.fss.v[k], rep, now_s() - t1, el, eta);
			}
	/* Record the accelerator the guests actually used. */
	snprintf(path, sizeof(path), "%s/units", b.run_dir);
	{
		char pattern[1200];

		snprintf(pattern, sizeof(pattern), "%s/*/vm.json", path);
		if (glob(pattern, 0, NULL, &g) == 0) {
			json_t *vm = json_load_file(g.gl_pathv[0], 0, NULL);

			json_object_set(doc, "accel", json_object_get(vm, "accel"));
			json_decref(vm);
			globfree(&g);
		}
	}
	snprintf(path, sizeof(path), "%s/run.json", b.run_dir);
	json_write_atomic(path, doc);
	json_decref(doc);
	if (bench_cells_write(b.run_dir, why, sizeof(why)) < 0)
		fprintf(stderr, "bench: %s\n", why);
	printf("\n");
	summary_print(b.run_dir, stdout);
	printf("\nresults: %s (cells/*.json, one per cell; units/ holds each guest's logs)\n", b.run_dir);
	report_and_say(b.run_dir);
	if (failed)
		fprintf(stderr, "bench: %d of %d guests failed; their cells lack those repetitions. "
			"Rerun with --resume %s after fixing the cause.\n", failed, nunits, b.run_id);
	return failed ? 1 : 0;
}
