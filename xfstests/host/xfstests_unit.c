// SPDX-License-Identifier: GPL-2.0
/*
 * One xfstests unit (xfstests_run.h): a kernel on a filesystem. A guest
 * boots the xfstests root image (vm-images/build-xfstests.sh) with two blank
 * NVDIMMs, which its runner makes fsdax namespaces, TEST_DEV and
 * SCRATCH_DEV, and runs xfstests/guest-run.sh on the unit's tests. The guest
 * announces each test on the control port; a test that outlives its timeout
 * there is taken for a hung kernel, QEMU is killed, the test counts as
 * failed and a new guest goes on with the rest. A panic or oops does the
 * same. Its directory keeps guest-N/ (console, guest output), for each
 * failed test <dir>-<num>.{out.bad,full,dmesg,check} as the guest sent
 * them, and unit.json, written last.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../results/xfstests.h"
#include "../../lib/jsonio.h"
#include "../../lib/shell_word.h"
#include "../../lib/rundir.h"
#include "../../vm/vm.h"
#include "xfstests_run.h"

/*
 * Past its own timeout(1) a test gets this long before the host kills the
 * guest: timeout(1) sends SIGKILL 30 s after SIGTERM, so a test still there
 * after 120 s is stuck in the kernel. PMEM_XFSTESTS_GRACE=s overrides it for
 * the test that proves the host's side.
 */
#define HANG_GRACE_S 120
#define ROOT_MEM_MIB 1536
/* Each NVDIMM under test: room for xfstests' files, a label area at its end. */
#define DEV_BYTES ((1ULL << 30) + NVDIMM_LABEL_SIZE)

struct unit {
	const char *kernel, *fs;
	char dir[PATH_MAX];
	const char *test[XT_MAX_TESTS];
	enum xt_status status[XT_MAX_TESTS];
	double seconds[XT_MAX_TESTS];
	long aware[XT_MAX_TESTS];		/* mappings made with the flag (FORCE_AWARE) */
	char reason[XT_MAX_TESTS][XT_REASON_MAX];
	size_t n;
	int limit;			/* seconds per test */
	int grace;			/* seconds past limit before the host kills */
	int force_aware;		/* shared file mappings ask for MAP_PMEM_AWARE */
	/* This guest's progress, from its control lines. */
	int announced;			/* index of the test the guest runs, or -1 */
	long long announced_ms;
	int hung;
	char protocol[256];		/* the first protocol error of the unit */
	json_t *env;			/* the guest's xfstests-env document */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void protocol_error(struct unit *u, const char *fmt, const char *arg)
{
	if (!u->protocol[0])
		snprintf(u->protocol, sizeof(u->protocol), fmt, arg);
}

/* "xfstests-start TEST": the next test without a result, and no other. */
static void on_line(void *ctx, struct vm *vm, const char *line)
{
	struct unit *u = ctx;
	size_t i;

	if (strncmp(line, "xfstests-start ", 15)) {
		protocol_error(u, "unexpected control line '%.80s'", line);
		vm_reply(vm, "error\n");
		return;
	}
	for (i = (size_t)(u->announced + 1); i < u->n && u->status[i] != XT_NONE; i++)
		;
	if (i == u->n || strcmp(line + 15, u->test[i])) {
		protocol_error(u, "the guest announced '%.80s', not the next test of its list", line + 15);
		vm_reply(vm, "error\n");
		vm_kill(vm);
		return;
	}
	u->announced = (int)i;
	u->announced_ms = now_ms();
	vm_reply(vm, "ok\n");
}

static void on_tick(void *ctx, struct vm *vm)
{
	struct unit *u = ctx;

	if (u->announced >= 0 && u->status[u->announced] == XT_NONE &&
	    now_ms() - u->announced_ms > (u->limit + u->grace) * 1000LL) {
		u->hung = 1;
		vm_kill(vm);
	}
}

/* '/' becomes '-': "generic/413" -> "generic-413", a safe file name. */
static void file_base(const char *test, char *out, size_t len)
{
	snprintf(out, len, "%s", test);
	out[strcspn(out, "/")] = '-';
}

/* Keep a failed test's files, as the guest sent them, in the unit's directory. */
static void keep_files(const struct unit *u, const char *test, json_t *files)
{
	char base[XT_NAME_MAX], path[PATH_MAX];
	const char *name;
	json_t *v;
	FILE *f;

	file_base(test, base, sizeof(base));
	json_object_foreach(files, name, v) {
		if (!json_string_length(v))
			continue;
		/* name is one of xt_parse_line's fixed file names. */
		snprintf(path, sizeof(path), "%s/%s.%s", u->dir, base, name);
		f = fopen(path, "w");
		if (!f || fwrite(json_string_value(v), 1, json_string_length(v), f) != json_string_length(v)) {
			fprintf(stderr, "xfstests: cannot write %s: %s\n", path, strerror(errno));
			if (f)
				fclose(f);
			continue;
		}
		if (fclose(f))
			fprintf(stderr, "xfstests: cannot write %s: %s\n", path, strerror(errno));
	}
}

/* Take the documents of one guest's output; returns how many tests it finished. */
static int read_documents(struct unit *u, const char *log_path, char *error, size_t errlen)
{
	char *line = malloc(XT_LINE_MAX + 2), why[256];
	size_t len, i;
	int done = 0, c;
	FILE *f = fopen(log_path, "r");
	struct xt_doc d;

	if (!f || !line) {
		if (f)
			fclose(f);
		free(line);
		return 0;
	}
	while (fgets(line, XT_LINE_MAX + 2, f)) {
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (len == XT_LINE_MAX + 1) {
			/* Longer than any document may be: skip the rest of it. */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			protocol_error(u, "%s", "a line longer than a document may be");
			continue;
		}
		switch (xt_parse_line(line, len, &d, why, sizeof(why))) {
		case XT_DOC_NONE:
			break;
		case XT_DOC_ENV:
			json_decref(u->env);
			u->env = json_incref(d.files);
			break;
		case XT_DOC_ERROR:
			snprintf(error, errlen, "%s", d.reason);
			break;
		case XT_DOC_TEST:
			for (i = 0; i < u->n && strcmp(u->test[i], d.test); i++)
				;
			if (i == u->n || u->status[i] != XT_NONE) {
				protocol_error(u, "a result for '%s', which was not asked for or has one", d.test);
				break;
			}
			u->status[i] = d.status;
			u->seconds[i] = d.seconds;
			u->aware[i] = d.aware_mappings;
			snprintf(u->reason[i], sizeof(u->reason[i]), "%s", d.reason);
			if (d.status == XT_FAIL)
				keep_files(u, d.test, d.files);
			done++;
			break;
		default:
			protocol_error(u, "a malformed document: %s", why);
		}
		xt_doc_free(&d);
	}
	fclose(f);
	free(line);
	return done;
}

/* The guest's job: parameters, then the runner that lives in the image. */
static char *job_script(const struct unit *u)
{
	size_t i, len = 256;
	char *s, *p;

	for (i = 0; i < u->n; i++)
		len += strlen(u->test[i]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	p += sprintf(p, "export XFSTESTS_FS=%s XFSTESTS_TIMEOUT=%d XFSTESTS_FORCE_AWARE=%d\n"
		     "exec bash /usr/share/pmem/xfstests-run.sh", u->fs, u->limit, u->force_aware);
	/* Names were checked by xt_name_valid(): no quoting is needed. */
	for (i = 0; i < u->n; i++)
		if (u->status[i] == XT_NONE)
			p += sprintf(p, " %s", u->test[i]);
	strcpy(p, "\n");
	return s;
}

/* A blank NVDIMM backing file: zeros (a hole) and an empty label area. */
static int blank_nvdimm(const char *path)
{
	int fd, ret;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	ret = ftruncate(fd, DEV_BYTES);
	if (close(fd) < 0)
		ret = -1;
	return ret;
}

/* Boot guests until every test of the unit has a result. */
static void run_unit(const struct xt_run *run, struct unit *u)
{
	char kpath[PATH_MAX], tdev[PATH_MAX], sdev[PATH_MAX], gdir[PATH_MAX], log[PATH_MAX], error[XT_REASON_MAX];
	char initrd[PATH_MAX];
	struct vm_hooks hooks = { .ctx = u, .on_line = on_line, .on_tick = on_tick, .tick_ms = 1000 };
	int attempt, remaining, done;
	size_t i;
	struct stat st;

	snprintf(tdev, sizeof(tdev), "%s/test.img", u->dir);
	snprintf(sdev, sizeof(sdev), "%s/scratch.img", u->dir);
	for (attempt = 1;; attempt++) {
		struct vm_options o;
		struct vm_result r;
		char *job;

		for (i = 0, remaining = 0; i < u->n; i++)
			remaining += u->status[i] == XT_NONE;
		if (!remaining)
			break;
		error[0] = '\0';
		/* Blank each time: the guest makes its namespaces and filesystems anew. */
		if (blank_nvdimm(tdev) < 0 || blank_nvdimm(sdev) < 0) {
			snprintf(error, sizeof(error), "cannot make NVDIMM files in %s: %s", u->dir, strerror(errno));
			goto give_up;
		}
		if (vm_options_flavour(&o, run->build, u->kernel, run->accel, CRASH_INITRAMFS, tdev, kpath, initrd) < 0) {
			snprintf(error, sizeof(error), "no kernel %s: run 'make kernels'", u->kernel);
			goto give_up;
		}
		/* The root: the small initramfs (CRASH_INITRAMFS) only mounts it
		 * and switches to it. */
		o.qemu.root_image = run->root_image;
		o.qemu.root_size = 0;
		if (stat(run->root_image, &st) == 0)
			o.qemu.root_size = st.st_size;
		o.qemu.nvdimm2 = sdev;
		o.qemu.nvdimm2_size = o.qemu.nvdimm_size;
		o.qemu.mem_mib = ROOT_MEM_MIB;
		snprintf(gdir, sizeof(gdir), "%s/guest-%d", u->dir, attempt);
		if (mkdir(gdir, 0700) < 0 && errno != EEXIST) {
			snprintf(error, sizeof(error), "cannot make %s: %s", gdir, strerror(errno));
			goto give_up;
		}
		job = job_script(u);
		o.script = job;
		o.run_dir = gdir;
		o.boot_timeout = 300;
		o.run_timeout = remaining * (u->limit + u->grace) + 300;
		o.echo = run->verbose ? stderr : NULL;
		o.hooks = &hooks;
		u->announced = -1;
		u->hung = 0;
		vm_run(&o, &r);
		free(job);
		snprintf(log, sizeof(log), "%s/guest.log", gdir);
		done = read_documents(u, log, error, sizeof(error));
		if (error[0])
			goto give_up;
		if (u->announced >= 0 && u->status[u->announced] == XT_NONE) {
			/* The test the guest was in when it stopped. */
			i = (size_t)u->announced;
			u->status[i] = XT_FAIL;
			if (u->hung)
				snprintf(u->reason[i], XT_REASON_MAX,
					 "no result %d s past its timeout: the guest was killed (console: %s/console.log)",
					 u->grace, gdir);
			else if (r.status == VM_KERNEL_FAILURE)
				snprintf(u->reason[i], XT_REASON_MAX, "kernel %s: %.200s",
					 console_event_name(r.worst_event), r.event_line);
			else
				snprintf(u->reason[i], XT_REASON_MAX, "the guest stopped without its result: %.300s",
					 r.status == VM_OK ? "the job ended early" : r.message);
			done++;
		}
		if (!done) {
			snprintf(error, sizeof(error), "the guest ran no test: %.300s",
				 r.status == VM_OK ? "it ended without results" : r.message);
			goto give_up;
		}
	}
	unlink(tdev);
	unlink(sdev);
	return;
give_up:
	/* Nothing a new guest would do differently: the rest fail with the reason. */
	for (i = 0; i < u->n; i++)
		if (u->status[i] == XT_NONE) {
			u->status[i] = XT_FAIL;
			snprintf(u->reason[i], XT_REASON_MAX, "%s", error);
		}
	unlink(tdev);
	unlink(sdev);
}

/* "(N mappings with MAP_PMEM_AWARE) reason", for the progress lines. */
static const char *aware_note(long n, const char *reason)
{
	static char buf[XT_REASON_MAX + 64];

	snprintf(buf, sizeof(buf), "(%ld mapping%s with MAP_PMEM_AWARE) %s", n, n == 1 ? "" : "s", reason);
	return buf;
}

static void add_results(json_t *results, const struct unit *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		json_array_append_new(results,
				      json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:I}", "kernel", u->kernel, "fs", u->fs,
						"test", u->test[i], "status", xt_status_name(u->status[i]),
						"seconds", u->seconds[i], "reason", u->reason[i],
						"aware_mappings", (json_int_t)u->aware[i]));
}

void xt_unit_dir(const char *run_dir, const char *kernel, const char *fs, char *out, size_t len)
{
	snprintf(out, len, "%s/xfstests/%s/%s", run_dir, kernel, fs);
}

int xt_unit_done(const char *dir)
{
	char path[PATH_MAX];
	json_t *doc;
	int done;

	snprintf(path, sizeof(path), "%s/unit.json", dir);
	doc = json_load_file(path, 0, NULL);
	done = json_is_array(json_object_get(doc, "results"));
	json_decref(doc);
	return done;
}

void xt_plan_line(FILE *f, const char *build, const char *run_dir, const char *kernel, const char *fs)
{
	char harness[PATH_MAX];

	snprintf(harness, sizeof(harness), "%s/pmem-harness", build);
	unit_command(f, harness, run_dir, kernel, fs, NULL);
}

int xt_unit_run(const struct xt_run *run, const char *run_dir, const char *kernel, const char *fs, json_t *tests,
		int *failed)
{
	char path[PATH_MAX], why[512];
	struct unit *u = calloc(1, sizeof(*u));
	json_t *doc, *t;
	size_t k;
	int rc;

	*failed = 0;
	if (!u)
		return -1;
	u->kernel = kernel;
	u->fs = fs;
	u->limit = run->limit;
	u->force_aware = run->force_aware;
	u->grace = getenv("PMEM_XFSTESTS_GRACE") ? atoi(getenv("PMEM_XFSTESTS_GRACE")) : HANG_GRACE_S;
	if (u->grace < 1)
		u->grace = HANG_GRACE_S;
	json_array_foreach(tests, k, t)
		if (u->n < XT_MAX_TESTS && json_is_string(t))
			u->test[u->n++] = json_string_value(t);
	xt_unit_dir(run_dir, kernel, fs, u->dir, sizeof(u->dir));
	if (run_dir_make(u->dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "xfstests: %s\n", why);
		free(u);
		return -1;
	}
	fprintf(stderr, "xfstests: %s on %s: %zu tests\n", u->kernel, u->fs, u->n);
	run_unit(run, u);
	for (k = 0; k < u->n; k++) {
		fprintf(stderr, "  %-12s %-6s %6.1f s  %s%s\n", u->test[k], xt_status_name(u->status[k]),
			u->seconds[k], u->aware[k] ? "" : u->reason[k],
			u->aware[k] ? aware_note(u->aware[k], u->reason[k]) : "");
		*failed += u->status[k] == XT_FAIL;
	}
	if (u->protocol[0])
		fprintf(stderr, "xfstests: %s on %s: protocol error from the guest: %s\n", u->kernel, u->fs,
			u->protocol);
	doc = json_pack("{s:i, s:s, s:s, s:[], s:{s:O?, s:s?}}", "schema", 1, "kernel", kernel, "fs", fs, "results",
			"environment", "guest", u->env, "protocol_error", u->protocol[0] ? u->protocol : NULL);
	add_results(json_object_get(doc, "results"), u);
	json_decref(u->env);
	snprintf(path, sizeof(path), "%s/unit.json", u->dir);
	rc = json_write_atomic_why(path, doc, why, sizeof(why));
	if (rc < 0)
		fprintf(stderr, "xfstests: %s on %s: %s\n", kernel, fs, why);
	json_decref(doc);
	free(u);
	return rc < 0 ? -1 : 0;
}
