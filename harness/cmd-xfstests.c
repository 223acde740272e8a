// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness xfstests: the filesystems' own DAX and mmap tests in guests,
 * each kernel beside its stock baseline.
 *
 * One unit per (kernel, filesystem): a guest boots the xfstests root image
 * (vm-images/build-xfstests.sh) with two blank NVDIMMs, which its runner makes
 * fsdax namespaces, TEST_DEV and SCRATCH_DEV, and runs xfstests/guest-run.sh
 * on the tests of the list that apply to the filesystem. The guest announces each
 * test on the control port; a test that outlives its timeout there is taken
 * for a hung kernel, QEMU is killed, the test counts as failed and a new guest
 * goes on with the rest. A panic or oops does the same.
 *
 * results/runs/<run-id>/: run.json, xfstests.json (every result, rewritten
 * after each unit), summary.md (the table), and per unit
 * xfstests/<kernel>/<fs>/: guest-N/ (console, guest output), and for each
 * failed test <dir>-<num>.{out.bad,full,dmesg,check} as the guest sent them.
 * Exit status: 0, 1 when a kernel fails a test its baseline passes, 2 when
 * the run could not start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../results/xfstests.h"
#include "accel.h"
#include "builtin.h"
#include "jsonio.h"
#include "names.h"
#include "rundir.h"
#include "runinfo.h"
#include "vm.h"

#define MAX_KERNELS 15
#define MAX_FS 2
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
	char dir[1024];
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
	char base[XT_NAME_MAX], path[1200];
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

struct run {
	const char *build, *accel, *root_image;
	int limit, verbose, force_aware;
};

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
static void run_unit(const struct run *run, struct unit *u)
{
	char kpath[1024], tdev[1100], sdev[1100], gdir[1100], log[1200], error[XT_REASON_MAX];
	char initrd[1100];
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
		if (vm_options_flavour(&o, run->build, u->kernel, run->accel, tdev, kpath, gdir) < 0) {
			snprintf(error, sizeof(error), "no kernel %s: run 'make kernels'", u->kernel);
			goto give_up;
		}
		/* The small initramfs: it only mounts the root image and switches to it. */
		snprintf(initrd, sizeof(initrd), "%s/initramfs-checker.cpio", run->build);
		o.qemu.initrd = initrd;
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

static int write_summary(const char *run_dir, json_t *doc, int *regressions)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/xfstests.json", run_dir);
	if (json_write_atomic(path, doc) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/summary.md", run_dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "xfstests: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	*regressions = xt_table(f, json_object_get(doc, "results"), json_object_get(doc, "kernels"),
				json_object_get(doc, "fs"));
	return fclose(f) ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pmem-harness xfstests [--kernels \"K...\"] [--fs \"ext4 xfs\"] [--tests FILE]\n"
		   "           [--only \"TEST...\"] [--timeout S] [--root-image IMG] [--run-id ID] [--results DIR]\n"
		   "           [--force-aware] [--accel A] [-v]\n"
		   "  Runs the tests of FILE (default xfstests/tests) in guests of each kernel on each\n"
		   "  filesystem, DAX on, and fails when a kernel fails a test its -stock baseline passes.\n"
		   "  --force-aware: every shared file mapping asks for MAP_PMEM_AWARE first (LD_PRELOAD).\n");
}

int cmd_xfstests(int argc, char **argv)
{
	const char *kernels_arg = "6.1-stock 6.1-aware 6.12-stock 6.12-aware", *fs_arg = "ext4 xfs";
	const char *list_path = "xfstests/tests", *only = NULL, *results = "results/runs", *accel = "auto";
	const char *root_arg = NULL;
	const char *kernels[MAX_KERNELS], *fss[MAX_FS];
	char run_id[64] = "", run_dir[1024], path[1200], why[512], acc[16], root[1024], *kbuf, *fbuf, *obuf = NULL,
	     *tok, *save;
	static const struct option opts[] = {
		{ "kernels", required_argument, NULL, 'k' }, { "fs", required_argument, NULL, 'f' },
		{ "tests", required_argument, NULL, 't' }, { "only", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 'T' }, { "run-id", required_argument, NULL, 'r' },
		{ "results", required_argument, NULL, 'R' }, { "accel", required_argument, NULL, 'a' },
		{ "root-image", required_argument, NULL, 'i' }, { "force-aware", no_argument, NULL, 'F' }, { "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' }, { 0 }
	};
	struct run run = { .limit = 600 };
	static struct xt_list list;
	size_t nk = 0, nf = 0, i, j, k;
	json_t *doc, *results_doc, *kj, *fj;
	int c, regressions = 0, failed = 0;
	struct unit *u;

	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernels_arg = optarg; break;
		case 'f': fs_arg = optarg; break;
		case 't': list_path = optarg; break;
		case 'o': only = optarg; break;
		case 'T': run.limit = atoi(optarg); break;
		case 'r':
			if (!name_is_safe(optarg, sizeof(run_id))) {
				fprintf(stderr, "xfstests: run id '%s' may hold only letters, digits, '.', '_', '+', '-'\n",
					optarg);
				return 2;
			}
			snprintf(run_id, sizeof(run_id), "%s", optarg);
			break;
		case 'R': results = optarg; break;
		case 'a': accel = optarg; break;
		case 'v': run.verbose = 1; break;
		case 'i': root_arg = optarg; break;
		case 'F': run.force_aware = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || run.limit < 10 || run.limit > 24 * 3600) {
		usage(stderr);
		return 2;
	}
	run.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	if (xt_list_load(list_path, &list, why, sizeof(why)) < 0) {
		fprintf(stderr, "xfstests: %s\n", why);
		return 2;
	}
	kbuf = strdup(kernels_arg);
	fbuf = strdup(fs_arg);
	for (tok = strtok_r(kbuf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		snprintf(path, sizeof(path), "%s/kernels/%s/bzImage", run.build, tok);
		if (!name_is_safe(tok, 64) || access(path, R_OK)) {
			fprintf(stderr, "xfstests: no kernel '%s' (%s): run 'make kernels' or give KERNELS=\n", tok, path);
			return 2;
		}
		if (nk == MAX_KERNELS) {
			fprintf(stderr, "xfstests: at most %d kernels\n", MAX_KERNELS);
			return 2;
		}
		kernels[nk++] = tok;
	}
	for (tok = strtok_r(fbuf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		if (strcmp(tok, "ext4") && strcmp(tok, "xfs")) {
			fprintf(stderr, "xfstests: unknown filesystem '%s' (ext4, xfs)\n", tok);
			return 2;
		}
		if (nf < MAX_FS)
			fss[nf++] = tok;
	}
	if (!nk || !nf) {
		usage(stderr);
		return 2;
	}
	if (only) {
		/* --only narrows the list; each name must be on it. */
		struct xt_list *sub = calloc(1, sizeof(*sub));

		obuf = strdup(only);
		for (tok = strtok_r(obuf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
			for (i = 0; i < list.n && strcmp(list.name[i], tok); i++)
				;
			if (i == list.n) {
				fprintf(stderr, "xfstests: '%.40s' is not in %s: add it there with its reason\n", tok,
					list_path);
				return 2;
			}
			if (sub->n < XT_MAX_TESTS)
				snprintf(sub->name[sub->n++], XT_NAME_MAX, "%s", tok);
		}
		list = *sub;
		free(sub);
	}
	if (root_arg)
		snprintf(root, sizeof(root), "%s", root_arg);
	else
		snprintf(root, sizeof(root), "%s/images/xfstests-root.img", run.build);
	if (access(root, R_OK)) {
		fprintf(stderr, "xfstests: no %s: run 'make xfstests-image' (or vm-images/build-xfstests.sh)\n", root);
		return 2;
	}
	run.root_image = root;
	snprintf(path, sizeof(path), "%s/initramfs-checker.cpio", run.build);
	if (access(path, R_OK)) {
		fprintf(stderr, "xfstests: no %s: run 'make images'\n", path);
		return 2;
	}
	{
		struct qemu_config q = { .binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
					 .mem_mib = 1024, .cpus = 1, .kernel = path, .initrd = path };

		snprintf(path, sizeof(path), "%s/kernels/%s/bzImage", run.build, kernels[0]);
		if (accel_resolve(accel, &q, harness_cache_dir(), acc, sizeof(acc), why, sizeof(why)) < 0)
			return 2;
		run.accel = acc;
	}
	if (!run_id[0]) {
		time_t t = time(NULL);

		strftime(run_id, sizeof(run_id), "%Y%m%d-%H%M%S-xfstests", localtime(&t));
	}
	snprintf(run_dir, sizeof(run_dir), "%s/%s", results, run_id);
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	if (!access(path, F_OK)) {
		fprintf(stderr, "xfstests: run %s exists: give another --run-id\n", run_id);
		return 2;
	}
	if (run_dir_make(run_dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "xfstests: %s\n", why);
		return 2;
	}
	kj = json_array();
	fj = json_array();
	for (i = 0; i < nk; i++)
		json_array_append_new(kj, json_string(kernels[i]));
	for (j = 0; j < nf; j++)
		json_array_append_new(fj, json_string(fss[j]));
	/* What build-xfstests.sh wrote beside the image: which tree it holds. */
	snprintf(path, sizeof(path), "%.*s.json", (int)(strlen(root) - (strlen(root) > 4 ? 4 : 0)), root);
	doc = json_pack("{s:i, s:s, s:s, s:s, s:O, s:O, s:i, s:b, s:o, s:o}", "schema", 1, "kind", "xfstests",
			"run_id", run_id, "accel", acc, "kernels", kj, "fs", fj, "timeout", run.limit, "force_aware",
			run.force_aware,
			"xfstests", json_load_file(path, 0, NULL) ?: json_null(), "environment", run_environment());
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	if (!doc || json_write_atomic(path, doc) < 0)
		return 2;
	json_decref(doc);
	results_doc = json_pack("{s:i, s:s, s:s, s:O, s:O, s:o, s:o}", "schema", 1, "kind", "xfstests", "run_id",
				run_id, "kernels", kj, "fs", fj, "results", json_array(), "environments",
				json_object());

	u = calloc(1, sizeof(*u));
	for (j = 0; j < nf; j++) {
		for (i = 0; i < nk; i++) {
			memset(u, 0, sizeof(*u));
			u->kernel = kernels[i];
			u->fs = fss[j];
			u->limit = run.limit;
			u->force_aware = run.force_aware;
			u->grace = getenv("PMEM_XFSTESTS_GRACE") ? atoi(getenv("PMEM_XFSTESTS_GRACE")) : HANG_GRACE_S;
			if (u->grace < 1)
				u->grace = HANG_GRACE_S;
			for (k = 0; k < list.n; k++)
				if (xt_test_applies(list.name[k], fss[j]))
					u->test[u->n++] = list.name[k];
			if (!u->n)
				continue;
			snprintf(u->dir, sizeof(u->dir), "%s/xfstests/%s/%s", run_dir, u->kernel, u->fs);
			if (run_dir_make(u->dir, why, sizeof(why)) < 0) {
				fprintf(stderr, "xfstests: %s\n", why);
				return 2;
			}
			fprintf(stderr, "xfstests: %s on %s: %zu tests\n", u->kernel, u->fs, u->n);
			run_unit(&run, u);
			for (k = 0; k < u->n; k++) {
				fprintf(stderr, "  %-12s %-6s %6.1f s  %s%s\n", u->test[k], xt_status_name(u->status[k]),
					u->seconds[k], u->aware[k] ? "" : u->reason[k],
					u->aware[k] ? aware_note(u->aware[k], u->reason[k]) : "");
				failed += u->status[k] == XT_FAIL;
			}
			if (u->protocol[0])
				fprintf(stderr, "xfstests: %s on %s: protocol error from the guest: %s\n", u->kernel,
					u->fs, u->protocol);
			add_results(json_object_get(results_doc, "results"), u);
			snprintf(path, sizeof(path), "%s/%s", u->kernel, u->fs);
			json_object_set_new(json_object_get(results_doc, "environments"), path,
					    json_pack("{s:O?, s:s?}", "guest", u->env, "protocol_error",
						      u->protocol[0] ? u->protocol : NULL));
			json_decref(u->env);
			xt_compare_baselines(json_object_get(results_doc, "results"), kernels, nk);
			if (write_summary(run_dir, results_doc, &regressions) < 0) {
				fprintf(stderr, "xfstests: stopped: results so far are in %s\n", run_dir);
				return 2;
			}
		}
	}
	json_object_set_new(results_doc, "complete", json_true());
	if (write_summary(run_dir, results_doc, &regressions) < 0)
		return 2;
	snprintf(path, sizeof(path), "%s/summary.md", run_dir);
	{
		char *md = NULL;
		size_t len = 0;
		FILE *f = fopen(path, "r");

		if (f && getdelim(&md, &len, '\0', f) > 0)
			fputs(md, stdout);
		free(md);
		if (f)
			fclose(f);
	}
	printf("\n%d failed; %d regression%s against the baseline (a -stock kernel of the same version). "
	       "Results: %s\n", failed, regressions, regressions == 1 ? "" : "s", run_dir);
	json_decref(results_doc);
	json_decref(kj);
	json_decref(fj);
	free(u);
	free(kbuf);
	free(fbuf);
	free(obuf);
	return regressions ? 1 : 0;
}
