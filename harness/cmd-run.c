// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness run: boot one guest for (kernel flavour, filesystem, job
 * script), pass the job's output through, and record vm.json in the run
 * directory. The exit status is the job's, or 125 when the guest failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accel.h"
#include "builtin.h"
#include "jsonio.h"
#include "rundir.h"
#include "textfile.h"
#include "vm.h"

#define EXIT_GUEST_FAILED 125

/* Filesystems a golden NVDIMM image exists for (vm-images/make-golden.sh). */
static const char *const filesystems[] = { "ext4", "xfs", "xfs-reflink", NULL };

struct run_opts {
	const char *flavour, *fs, *script_path, *out, *accel, *qemu, *append;
	const char *plugin;
	const char *build_dir, *cache_dir;
	int boot_timeout, run_timeout, quiet, keep_image;
	unsigned int mem;
	unsigned long long raw_size;
};

/*
 * The job as the guest runs it: the user's script after a preamble that says
 * what it runs on (PMEM_FLAVOUR, PMEM_FS, PMEM_PATCH_SETS from kernel.json).
 */
static char *job_script(const struct run_opts *ro)
{
	char path[4096], sets[256] = "", *user, *job;
	json_t *kernel, *set;
	int aware = 0;
	size_t i;

	user = read_text_file(ro->script_path);
	if (!user)
		return NULL;
	snprintf(path, sizeof(path), "%s/kernels/%s/kernel.json", ro->build_dir, ro->flavour);
	kernel = json_load_file(path, 0, NULL);
	/* Ours carry the port as a patch set; a user's kernel was probed for it. */
	json_array_foreach(json_object_get(kernel, "patch_sets"), i, set) {
		snprintf(sets + strlen(sets), sizeof(sets) - strlen(sets), "%s%s", i ? " " : "",
			 json_string_value(set));
		aware |= !strcmp(json_string_value(set) ?: "", "aware");
	}
	aware |= json_is_true(json_object_get(kernel, "map_pmem_aware"));
	json_decref(kernel);
	if (asprintf(&job, "export PMEM_FLAVOUR='%s' PMEM_FS='%s' PMEM_PATCH_SETS='%s' PMEM_HAS_AWARE=%d\n%s",
		     ro->flavour, ro->fs, sets, aware, user) < 0)
		job = NULL;
	free(user);
	return job;
}

static int known_fs(const char *fs)
{
	int i;

	if (!strcmp(fs, "none") || !strcmp(fs, "raw"))
		return 1;
	for (i = 0; filesystems[i]; i++)
		if (!strcmp(fs, filesystems[i]))
			return 1;
	return 0;
}

/* cp --sparse=always: a 512 MiB image is mostly holes. */
static int copy_sparse(const char *src, const char *dst)
{
	char *const argv[] = { "cp", "--sparse=always", (char *)src, (char *)dst, NULL };
	int status;
	pid_t pid;

	if (posix_spawnp(&pid, "cp", NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Every run starts from a copy of the golden image: runs never share state. */
static int prepare_nvdimm(const struct run_opts *ro, char *path, size_t size,
			  unsigned long long *bytes)
{
	char golden[4096];
	struct stat st;

	snprintf(path, size, "%s/nvdimm.img", ro->out);
	if (!strcmp(ro->fs, "raw")) {
		FILE *f = fopen(path, "w");

		if (!f || ftruncate(fileno(f), ro->raw_size) < 0) {
			fprintf(stderr, "pmem-harness: cannot create %s: %s\n", path, strerror(errno));
			if (f)
				fclose(f);
			return -1;
		}
		fclose(f);
		*bytes = ro->raw_size;
		return 0;
	}
	snprintf(golden, sizeof(golden), "%s/images/%s.img", ro->build_dir, ro->fs);
	if (stat(golden, &st) < 0) {
		fprintf(stderr, "pmem-harness: no golden %s image at %s: run 'make images'\n",
			ro->fs, golden);
		return -1;
	}
	if (copy_sparse(golden, path) != 0) {
		/* A copy cut short by a full disk holds the room it took. */
		unlink(path);
		fprintf(stderr, "pmem-harness: copying %s to %s failed (disk full?)\n", golden, path);
		return -1;
	}
	*bytes = st.st_size;
	return 0;
}

static json_t *vm_json(const struct run_opts *ro, const struct vm_options *o,
		       const struct vm_result *r, const char *qemu_version, const char *why)
{
	char path[4096];
	json_t *kernel, *doc;

	snprintf(path, sizeof(path), "%s/kernels/%s/kernel.json", ro->build_dir, ro->flavour);
	kernel = json_load_file(path, 0, NULL);
	doc = json_pack("{s:i, s:s, s:s, s:o, s:{s:s, s:s, s:b}, s:{s:s, s:s}, s:s, s:i, s:f, s:f, s:s, s:s, s:s}",
			"schema", 1,
			"flavour", ro->flavour,
			"fs", ro->fs,
			"kernel", kernel ? kernel : json_null(),
			"qemu", "binary", o->qemu.binary, "version", qemu_version,
			"plugin_api_v4", qemu_has_plugin_api_v4(qemu_version),
			"accel", "name", o->qemu.accel, "reason", why,
			"status", vm_status_name(r->status),
			"guest_exit", r->guest_exit,
			"boot_seconds", r->boot_seconds,
			"run_seconds", r->run_seconds,
			"kernel_release", r->kernel_release,
			"console_event", console_event_name(r->worst_event),
			"message", r->message);
	if (r->event_line[0])
		json_object_set_new(doc, "console_event_line", json_string(r->event_line));
	return doc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmem-harness run --kernel FLAVOUR --fs ext4|xfs|xfs-reflink|raw|none --script FILE --out DIR\n"
		"                        [--accel auto|kvm|tcg] [--boot-timeout S] [--timeout S]\n"
		"                        [--mem MIB] [--append ARGS] [--plugin SO,ARGS] [--keep-image] [--quiet]\n"
		"Boots FLAVOUR (build/kernels/FLAVOUR) on a copy of the golden FS NVDIMM image,\n"
		"runs the job script in the guest and exits with its status (125: guest failed).\n");
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "fs", required_argument, NULL, 'f' },
		{ "script", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "accel", required_argument, NULL, 'a' },
		{ "boot-timeout", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' },
		{ "mem", required_argument, NULL, 'm' },
		{ "append", required_argument, NULL, 'A' },
		{ "raw-size", required_argument, NULL, 'R' },
		{ "keep-image", no_argument, NULL, 'K' },
		{ "plugin", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct run_opts ro = {
		.fs = "none", .accel = "auto", .boot_timeout = 120, .run_timeout = 900,
		.mem = 1024, .raw_size = (512ULL << 20) + NVDIMM_LABEL_SIZE,
	};
	char kernel[4096], initrd[4096], nvdimm[4096], accel[16], why[1400], version[64] = "unknown";
	struct vm_options o = { 0 };
	struct vm_result r;
	json_t *doc;
	int c;

	ro.build_dir = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	ro.cache_dir = harness_cache_dir();
	ro.qemu = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64";
	optind = 1;
	while ((c = getopt_long(argc, argv, "k:f:s:o:a:b:t:m:A:R:P:Kqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': ro.flavour = optarg; break;
		case 'f': ro.fs = optarg; break;
		case 's': ro.script_path = optarg; break;
		case 'o': ro.out = optarg; break;
		case 'a': ro.accel = optarg; break;
		case 'b': ro.boot_timeout = atoi(optarg); break;
		case 't': ro.run_timeout = atoi(optarg); break;
		case 'm': ro.mem = strtoul(optarg, NULL, 0); break;
		case 'A': ro.append = optarg; break;
		case 'R': ro.raw_size = strtoull(optarg, NULL, 0); break;
		case 'K': ro.keep_image = 1; break;
		case 'P': ro.plugin = optarg; break;
		case 'q': ro.quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ro.flavour || !ro.script_path || !ro.out) {
		fprintf(stderr, "pmem-harness run: --kernel, --script and --out are required (see --help)\n");
		return 2;
	}
	if (!known_fs(ro.fs)) {
		fprintf(stderr, "pmem-harness run: unknown filesystem '%s' (ext4, xfs, xfs-reflink, raw, none)\n", ro.fs);
		return 2;
	}
	if (ro.boot_timeout <= 0 || ro.run_timeout <= 0 || ro.mem < 256) {
		fprintf(stderr, "pmem-harness run: timeouts must be positive and --mem at least 256\n");
		return 2;
	}
	snprintf(kernel, sizeof(kernel), "%s/kernels/%s/bzImage", ro.build_dir, ro.flavour);
	if (access(kernel, R_OK)) {
		fprintf(stderr, "pmem-harness run: no kernel for flavour '%s' at %s: run 'make kernels' (flavours: vm-images/build-kernel.sh --list)\n",
			ro.flavour, kernel);
		return 2;
	}
	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", ro.build_dir);
	if (access(initrd, R_OK)) {
		fprintf(stderr, "pmem-harness run: no initramfs at %s: run 'make images'\n", initrd);
		return 2;
	}
	o.script = job_script(&ro);
	if (!o.script) {
		fprintf(stderr, "pmem-harness run: cannot read job script %s: %s\n",
			ro.script_path, strerror(errno));
		return 2;
	}
	if (run_dir_make(ro.out, why, sizeof(why)) < 0) {
		fprintf(stderr, "pmem-harness run: %s\n", why);
		return 2;
	}
	if (qemu_version(ro.qemu, version, sizeof(version)) < 0) {
		fprintf(stderr, "pmem-harness run: %s does not run: run 'apt-get install qemu-system-x86'\n",
			ro.qemu);
		return 2;
	}

	o.qemu.binary = ro.qemu;
	o.qemu.kernel = kernel;
	o.qemu.initrd = initrd;
	o.qemu.append = ro.append;
	o.qemu.plugin = ro.plugin;
	o.qemu.mem_mib = ro.mem;
	o.qemu.cpus = 1;
	/* A TCG plugin needs TCG whatever KVM could do. */
	if (ro.plugin && !strcmp(ro.accel, "auto"))
		ro.accel = "tcg";
	if (accel_resolve(ro.accel, &o.qemu, ro.cache_dir, accel, sizeof(accel), why, sizeof(why)) < 0)
		return 2;
	o.qemu.accel = accel;
	if (strcmp(ro.fs, "none")) {
		if (prepare_nvdimm(&ro, nvdimm, sizeof(nvdimm), &o.qemu.nvdimm_size) < 0)
			return 2;
		o.qemu.nvdimm = nvdimm;
	}
	o.run_dir = ro.out;
	o.boot_timeout = ro.boot_timeout;
	o.run_timeout = ro.run_timeout;
	o.echo = ro.quiet ? NULL : stdout;

	vm_run(&o, &r);
	doc = vm_json(&ro, &o, &r, version, why);
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/vm.json", ro.out);
		json_write_atomic(path, doc);
	}
	json_decref(doc);
	if (o.qemu.nvdimm && !ro.keep_image)
		unlink(nvdimm);
	free((char *)o.script);
	if (r.status != VM_OK) {
		fprintf(stderr, "pmem-harness: %s\n", r.message);
		return EXIT_GUEST_FAILED;
	}
	if (r.worst_event == CONSOLE_WARNING)
		fprintf(stderr, "pmem-harness: guest kernel warning: \"%s\" (see %s/console.log)\n",
			r.event_line, ro.out);
	return r.guest_exit;
}
