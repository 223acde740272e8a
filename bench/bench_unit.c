// SPDX-License-Identifier: GPL-2.0
/*
 * One bench unit: a fresh guest for (kernel, filesystem, repetition) that
 * runs every mode x job of the run's matrix, in this process. It writes only
 * its own directory, unit.json last and atomically, with its results, its
 * guest's vm.json and how many guests shared its host meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../results/summary.h"
#include "bench.h"
#include "bench_insns.h"
#include "../lib/diskfull.h"
#include "../vm/guest_run.h"
#include "../vm/host_share.h"
#include "../vm/vm.h"
#include "../lib/jsonio.h"
#include "unit_docs.h"
#include "../lib/rundir.h"
#include "../lib/textfile.h"
#include "../workloads/pmem_map.h"

#define UNIT_TIMEOUT 900
/*
 * Room a unit needs on the results disk besides its copy of the golden
 * image: what the guest writes into that copy (QEMU maps it, and a full
 * disk kills QEMU with SIGBUS there), its logs and its results.
 */
#define UNIT_RESERVE ((off_t)64 << 20)
#define UNIT_INODES 64

void bench_unit_dir(const struct bench *b, const char *kernel, const char *fs, int rep, char *buf, size_t size)
{
	snprintf(buf, size, "%s/units/%s__%s__rep%d", b->run_dir, kernel, fs, rep);
}

int bench_unit_done(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/unit.json", dir);
	return !access(path, R_OK);
}

/* A job file as planned (the run's jobs/ copy), or where it was named. */
static const char *job_path(const struct bench *b, const char *path, char *planned, size_t size)
{
	char name[128];

	snprintf(planned, size, "%s/jobs/%s.fio", b->run_dir, bench_job_name(path, name, sizeof(name)));
	return access(planned, R_OK) ? path : planned;
}

/*
 * The guest job for one unit: the parameters of
 * vm-images/guest/bench-unit.sh, which runs every mode x job, then the fio
 * peer; its job files go as data (run_guest: /tmp/in/NAME.fio). Names were checked (bench_parse), so they need no quoting.
 */
static char *unit_script(const struct bench *b, const char *kernel, int rep)
{
	char *s = NULL, name[128];
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int port = bench_kernel_has_port(b, kernel), i, nm = 0;
	const char *order[4];

	for (i = 0; i < b->modes.n && nm < 4; i++)
		if (port || !map_mode_find(b->modes.v[i])->aware)
			order[nm++] = b->modes.v[i];
	/* The mode order rotates by repetition, so that drift favours no mode. */
	fprintf(f, "export PMEM_BENCH_MODES='");
	for (i = 0; i < nm; i++)
		fprintf(f, "%s%s", i ? " " : "", order[(i + rep - 1) % nm]);
	fprintf(f, "' PMEM_BENCH_JOBS='");
	for (i = 0; i < b->jobs.n; i++)
		fprintf(f, "%s%s", i ? " " : "", bench_job_name(b->jobs.v[i], name, sizeof(name)));
	fprintf(f, "' PMEM_BENCH_PEER=%d\nexec sh /usr/share/pmem/bench-unit.sh\n", b->peer);
	fclose(f);
	return s;
}

/* The guest's answers (bench/unit_docs.h) from a unit's log. */
static json_t *parse_results(const char *log_path, int *failures)
{
	char *text = read_text_file(log_path);
	json_t *results = unit_docs_parse(text, log_path, failures);

	free(text);
	return results;
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
	char golden[PATH_MAX];
	struct stat st;

	snprintf(golden, sizeof(golden), "%s/images/%s.img", b->build, fs);
	if (!stat(golden, &st))
		need += (off_t)st.st_blocks * 512;
	if (disk_free(b->run_dir, &avail, &inodes) < 0)
		return 1;
	if (inodes < UNIT_INODES)
		run_error_set(&b->disk_full, ENOSPC,
			      "the disk under %s is full: %s%llu inodes free, and a guest needs %d (its logs and results)",
			      b->run_dir, after, inodes, UNIT_INODES);
	else if (avail < need)
		run_error_set(&b->disk_full, ENOSPC,
			      "the disk under %s is full: %s%lld MiB free, and a guest needs %lld MiB (its copy of the golden image, what it writes there, its logs and results)",
			      b->run_dir, after, (long long)(avail >> 20), (long long)((need + (1 << 20) - 1) >> 20));
	else
		return 1;
	return 0;
}

/* The guest itself, its one-line messages kept in *msg for the caller. */
static int run_guest(struct bench *b, const char *kernel, const char *fs, const char *dir,
		     const char *script_path, char **msg)
{
	char insn_args[800], *plugin_arg = NULL;
	char names[BENCH_MAX_LIST][140], paths[BENCH_MAX_LIST][PATH_MAX], job[128];
	struct vm_file files[BENCH_MAX_LIST];
	struct guest_run_opts ro;
	size_t len = 0;
	int rc;

	guest_run_defaults(&ro);
	for (int i = 0; i < b->jobs.n; i++) {
		snprintf(names[i], sizeof(names[i]), "%s.fio", bench_job_name(b->jobs.v[i], job, sizeof(job)));
		files[i] = (struct vm_file){ .name = names[i], .mode = 0644,
					     .path = job_path(b, b->jobs.v[i], paths[i], sizeof(paths[i])) };
	}
	ro.files = files;
	ro.nfiles = b->jobs.n;
	ro.build_dir = b->build;
	ro.flavour = kernel;
	ro.fs = fs;
	ro.script_path = script_path;
	ro.out = dir;
	ro.accel = b->plugin ? "tcg" : b->accel;
	ro.run_timeout = UNIT_TIMEOUT;
	ro.quiet = 1;
	if (b->plugin) {
		insn_plugin_args(b->build, kernel, insn_args, sizeof(insn_args));
		/* Two paths and the symbols: allocated, never cut. */
		if (asprintf(&plugin_arg, "%s,out=%s/insn.txt%s", b->plugin, dir, insn_args) < 0)
			return -1;
		ro.plugin = plugin_arg;
	}
	ro.msg = open_memstream(msg, &len);
	if (!ro.msg) {
		free(plugin_arg);
		return -1;
	}
	rc = guest_run(&ro);
	fclose(ro.msg);
	free(plugin_arg);
	return rc;
}

int bench_run_unit(struct bench *b, const char *kernel, const char *fs, int rep)
{
	char dir[PATH_MAX], script_path[PATH_MAX], path[PATH_MAX], why[WHY_MAX];
	char *script, *err = NULL;
	struct host_share share;
	json_t *unit, *results, *vm, *host;
	int rc, failures;
	FILE *f;

	bench_unit_dir(b, kernel, fs, rep, dir, sizeof(dir));
	/* Checked ahead: a guest on a full disk dies of SIGBUS or loses its logs. */
	if (!room_for_unit(b, fs, ""))
		return -1;
	if (run_dir_make(dir, path, sizeof(path)) < 0) {
		if (disk_full_errno(errno))
			run_error_set(&b->disk_full, errno, "the disk under %s is full: %s", b->run_dir, path);
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
			disk_full_writing(&b->disk_full, b->run_dir, script_path, errno);
		else
			fprintf(stderr, "bench: cannot write %s: %s\n", script_path, strerror(errno));
		free(script);
		return -1;
	}
	free(script);
	host_share_start(&share);
	rc = run_guest(b, kernel, fs, dir, script_path, &err);
	host = host_share_stop(&share);
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
		if (room_for_unit(b, fs, "the guest failed with only ")) {
			fputs(err ? err : "", stderr);
			fprintf(stderr, "bench: %s/%s rep %d failed (%s%d job failures); see %s/guest.log and %s/console.log\n",
				kernel, fs, rep, rc ? "guest failed, " : "", failures, dir, dir);
		}
		free(err);
		json_decref(results);
		json_decref(vm);
		json_decref(host);
		return -1;
	}
	fputs(err ? err : "", stderr);
	free(err);
	if (b->plugin) {
		snprintf(path, sizeof(path), "%s/insn.txt", dir);
		insn_attach_file(results, path);
	}
	unit = json_pack("{s:i, s:s, s:s, s:i, s:o, s:o, s:o}", "schema", RUN_SCHEMA, "kernel", kernel,
			 "fs", fs, "rep", rep, "vm", vm, "host", host, "results", results);
	snprintf(path, sizeof(path), "%s/unit.json", dir);
	rc = json_write_atomic_why(path, unit, why, sizeof(why));
	if (rc < 0 && disk_full_errno(errno))
		disk_full_writing(&b->disk_full, b->run_dir, path, errno);
	else if (rc < 0)
		fprintf(stderr, "bench: %s\n", why);
	json_decref(unit);
	return rc;
}
