// SPDX-License-Identifier: GPL-2.0
/*
 * One guest for (kernel flavour, filesystem, job script): the job's script
 * after a preamble saying what it runs on, a fresh copy of the golden
 * NVDIMM image, vm_run(), and vm.json in the run directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accel.h"
#include "../lib/cache_dir.h"
#include "../lib/diskfull.h"
#include "guest_run.h"
#include "../lib/filesystems.h"
#include "../lib/jsonio.h"
#include "../lib/rundir.h"
#include "../lib/textfile.h"
#include "vm.h"

/*
 * The job as the guest runs it: the user's script after a preamble that says
 * what it runs on (PMEM_FLAVOUR, PMEM_FS, PMEM_PATCH_SETS from kernel.json).
 */
static char *job_script(const struct guest_run_opts *ro)
{
	char path[PATH_MAX], sets[256] = "", *user, *job;
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

/* A golden NVDIMM image exists for each row of the table (make-golden.sh). */
static int known_fs(const char *fs)
{
	return !strcmp(fs, "none") || !strcmp(fs, "raw") || fs_find(fs);
}

/*
 * cp --sparse=always: a 512 MiB image is mostly holes. Its complaint goes
 * nowhere: the caller says in one line what failed, and a full disk is
 * said once, by whoever runs the guest.
 */
static int copy_sparse(const char *src, const char *dst)
{
	char *const argv[] = { "cp", "--sparse=always", (char *)src, (char *)dst, NULL };
	posix_spawn_file_actions_t quiet;
	int status, rc;
	pid_t pid;

	posix_spawn_file_actions_init(&quiet);
	posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "cp", &quiet, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&quiet);
	if (rc != 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Every run starts from a copy of the golden image: runs never share state. */
static int prepare_nvdimm(const struct guest_run_opts *ro, char *path, size_t size,
			  unsigned long long *bytes)
{
	char golden[PATH_MAX];
	struct stat st;

	snprintf(path, size, "%s/nvdimm.img", ro->out);
	if (!strcmp(ro->fs, "raw")) {
		FILE *f = fopen(path, "w");

		if (!f || ftruncate(fileno(f), ro->raw_size) < 0) {
			fprintf(ro->msg, "pmem-harness: cannot create %s: %s\n", path, strerror(errno));
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
		fprintf(ro->msg, "pmem-harness: no golden %s image at %s: run 'make images'\n",
			ro->fs, golden);
		return -1;
	}
	if (copy_sparse(golden, path) != 0) {
		/* A copy cut short by a full disk holds the room it took. */
		unlink(path);
		fprintf(ro->msg, "pmem-harness: copying %s to %s failed (disk full?)\n", golden, path);
		return -1;
	}
	*bytes = st.st_size;
	return 0;
}

/* A blank, sparse virtio-pmem backing file; the guest makes its own filesystem. */
static int prepare_virtio_pmem(const struct guest_run_opts *ro, char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/virtio-pmem.img", ro->out);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)ro->virtio_pmem_size) < 0) {
		fprintf(ro->msg, "pmem-harness: cannot create %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static json_t *vm_json(const struct guest_run_opts *ro, const struct vm_options *o,
		       const struct vm_result *r, const char *qemu_version, const char *why)
{
	char path[PATH_MAX];
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


void guest_run_defaults(struct guest_run_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->fs = "none";
	ro->accel = "auto";
	ro->boot_timeout = 120;
	ro->run_timeout = 900;
	ro->mem = 1024;
	ro->raw_size = (512ULL << 20) + NVDIMM_LABEL_SIZE;
	ro->build_dir = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	ro->cache_dir = cache_dir();
	ro->qemu = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64";
	ro->msg = stderr;
}

int guest_run(struct guest_run_opts *ro)
{
	char vpmem[PATH_MAX];
	char kernel[PATH_MAX], initrd[PATH_MAX], nvdimm[PATH_MAX], accel[16], why[WHY_MAX], version[64] = "unknown";
	struct vm_options o = { 0 };
	struct vm_result r;
	json_t *doc;

	if (!ro->flavour || !ro->script_path || !ro->out) {
		fprintf(ro->msg, "pmem-harness run: --kernel, --script and --out are required (see --help)\n");
		return 2;
	}
	if (!known_fs(ro->fs)) {
		fprintf(ro->msg, "pmem-harness run: unknown filesystem '%s' (%s, raw, none)\n", ro->fs,
			fs_names(NULL));
		return 2;
	}
	if (ro->boot_timeout <= 0 || ro->run_timeout <= 0 || ro->mem < 256) {
		fprintf(ro->msg, "pmem-harness run: timeouts must be positive and --mem at least 256\n");
		return 2;
	}
	snprintf(kernel, sizeof(kernel), "%s/kernels/%s/bzImage", ro->build_dir, ro->flavour);
	if (access(kernel, R_OK)) {
		fprintf(ro->msg, "pmem-harness run: no kernel for flavour '%s' at %s: run 'make kernels' (flavours: vm-images/build-kernel.sh --list)\n",
			ro->flavour, kernel);
		return 2;
	}
	snprintf(initrd, sizeof(initrd), "%s/" BENCH_INITRAMFS, ro->build_dir);
	if (access(initrd, R_OK)) {
		fprintf(ro->msg, "pmem-harness run: no initramfs at %s: run 'make images'\n", initrd);
		return 2;
	}
	o.script = job_script(ro);
	if (!o.script) {
		fprintf(ro->msg, "pmem-harness run: cannot read job script %s: %s\n",
			ro->script_path, strerror(errno));
		return 2;
	}
	if (run_dir_make(ro->out, why, sizeof(why)) < 0) {
		fprintf(ro->msg, "pmem-harness run: %s\n", why);
		free((char *)o.script);
		return 2;
	}
	if (qemu_version(ro->qemu, version, sizeof(version)) < 0) {
		fprintf(ro->msg, "pmem-harness run: %s does not run: run 'apt-get install qemu-system-x86'\n",
			ro->qemu);
		free((char *)o.script);
		return 2;
	}

	if (vm_flavour_boot(ro->build_dir, ro->flavour, &o.qemu) < 0) {
		free((char *)o.script);
		return 2;
	}
	o.qemu.binary = ro->qemu;
	o.qemu.kernel = kernel;
	o.qemu.initrd = initrd;
	o.qemu.append = ro->append;
	o.qemu.plugin = ro->plugin;
	o.qemu.mem_mib = ro->mem;
	o.qemu.cpus = 1;
	/* A TCG plugin needs TCG whatever KVM could do. */
	if (ro->plugin && !strcmp(ro->accel, "auto"))
		ro->accel = "tcg";
	if (accel_resolve(ro->accel, &o.qemu, ro->cache_dir, accel, sizeof(accel), why, sizeof(why)) < 0) {
		free((char *)o.script);
		return 2;
	}
	o.qemu.accel = accel;
	if (strcmp(ro->fs, "none")) {
		if (prepare_nvdimm(ro, nvdimm, sizeof(nvdimm), &o.qemu.nvdimm_size) < 0) {
			free((char *)o.script);
			return 2;
		}
		o.qemu.nvdimm = nvdimm;
	}
	if (ro->virtio_pmem_size) {
		if (prepare_virtio_pmem(ro, vpmem, sizeof(vpmem)) < 0) {
			/* The NVDIMM's copy is half a gigabyte of nothing now. */
			if (o.qemu.nvdimm)
				unlink(nvdimm);
			free((char *)o.script);
			return 2;
		}
		o.qemu.virtio_pmem = vpmem;
		o.qemu.virtio_pmem_size = ro->virtio_pmem_size;
	}
	o.files = ro->files;
	o.nfiles = ro->nfiles;
	o.run_dir = ro->out;
	o.boot_timeout = ro->boot_timeout;
	o.run_timeout = ro->run_timeout;
	o.echo = ro->quiet ? NULL : stdout;

	vm_run(&o, &r);
	doc = vm_json(ro, &o, &r, version, why);
	snprintf(kernel, sizeof(kernel), "%s/vm.json", ro->out);
	/* A full disk is the caller's to say, in the one line that stops its run
	 * (the guest failed for it too); anything else is said here. */
	if (json_write_atomic_why(kernel, doc, why, sizeof(why)) < 0 && !disk_full_errno(errno))
		fprintf(ro->msg, "pmem-harness: %s\n", why);
	json_decref(doc);
	if (o.qemu.nvdimm && !ro->keep_image)
		unlink(nvdimm);
	if (o.qemu.virtio_pmem && !ro->keep_image)
		unlink(vpmem);
	free((char *)o.script);
	if (r.status != VM_OK) {
		fprintf(ro->msg, "pmem-harness: %s\n", r.message);
		return EXIT_GUEST_FAILED;
	}
	if (r.worst_event == CONSOLE_WARNING)
		fprintf(ro->msg, "pmem-harness: guest kernel warning: \"%s\" (see %s/console.log)\n",
			r.event_line, ro->out);
	return r.guest_exit;
}
