// SPDX-License-Identifier: GPL-2.0
/* A guest's boot, done once: see saved_boot.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "saved_boot.h"

/* A file's identity in the key: where it is, its size and its last change. */
static int file_words(FILE *key, const char *what, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!path || !realpath(path, real) || stat(real, &st) < 0)
		return -1;
	fprintf(key, "%s %s %lld %lld.%09ld\n", what, real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		st.st_mtim.tv_nsec);
	return 0;
}

int saved_boot_path(const struct qemu_config *c, const char *nvdimm_source, const char *dir, char *path,
		    size_t len)
{
	static char version[64], version_of[PATH_MAX];
	char *text = NULL;
	size_t tlen = 0;
	FILE *key;
	int bad;

	/* One NVDIMM, and nothing else the guest could have written. */
	if (c->nvdimm2 || c->root_image || c->virtio_pmem || !c->nvdimm)
		return -1;
	/* Asked once per binary: it forks QEMU. */
	if (strcmp(version_of, c->binary)) {
		if (qemu_version(c->binary, version, sizeof(version)) < 0)
			return -1;
		snprintf(version_of, sizeof(version_of), "%s", c->binary);
	}
	key = open_memstream(&text, &tlen);
	if (!key)
		return -1;
	fprintf(key, "saved boot 1\nqemu %s %s\n", c->binary, version);
	bad = file_words(key, "kernel", c->kernel) | file_words(key, "initrd", c->initrd) |
	      file_words(key, "nvdimm", nvdimm_source);
	fprintf(key, "accel %s\ncpu %s\ncpus %u\nmem %u\nappend %s\nargs %s\npersistence %s\nnvdimm size %llu\n",
		c->accel, c->cpu ? c->cpu : "max", c->cpus, c->mem_mib, c->append ? c->append : "", c->kernel_args,
		c->nvdimm_persistence, c->nvdimm_size);
	if (fclose(key) || bad) {
		free(text);
		return -1;
	}
	snprintf(path, len, "%s/%016llx.state", dir, (unsigned long long)XXH64(text, tlen, 0));
	free(text);
	/* QEMU's file: URI ends its path at a comma. */
	return strchr(path, ',') ? -1 : 0;
}

static void remove_state(const char *path)
{
	char hello[PATH_MAX + 8];

	snprintf(hello, sizeof(hello), "%s.hello", path);
	unlink(path);
	unlink(hello);
}

/* Whether name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
	size_t l = strlen(name), s = strlen(suffix);

	return l >= s && !strcmp(name + l - s, suffix);
}

/*
 * Keep the SAVED_BOOTS_MAX most recently used: each is tens of MiB. Part
 * of a file an hour old is a save that was killed: it goes too.
 */
static void prune(const char *dir)
{
	time_t now = time(NULL);

	for (;;) {
		char oldest[PATH_MAX] = "", path[PATH_MAX];
		struct timespec t_oldest = { 0 };
		struct dirent *e;
		struct stat st;
		int n = 0;
		DIR *d = opendir(dir);

		if (!d)
			return;
		while ((e = readdir(d))) {
			int part = ends_with(e->d_name, ".tmp") || ends_with(e->d_name, ".tmp.hello");

			if (!part && !ends_with(e->d_name, ".state"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (stat(path, &st) < 0)
				continue;
			if (part) {
				if (now - st.st_mtim.tv_sec > 3600)
					unlink(path);
				continue;
			}
			n++;
			if (!oldest[0] || st.st_mtim.tv_sec < t_oldest.tv_sec ||
			    (st.st_mtim.tv_sec == t_oldest.tv_sec && st.st_mtim.tv_nsec < t_oldest.tv_nsec)) {
				t_oldest = st.st_mtim;
				snprintf(oldest, sizeof(oldest), "%s", path);
			}
		}
		closedir(d);
		if (n <= SAVED_BOOTS_MAX)
			return;
		remove_state(oldest);
	}
}

/*
 * Whether the NVDIMM still holds nvdimm_source's bytes: a restored guest
 * gets a fresh copy of them, so a boot that wrote to its NVDIMM before its
 * hello cannot be restored (its kernel would remember what is not there).
 */
static int same_bytes(const char *a, const char *b)
{
	char x[65536], y[65536];
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	size_t n = 0;
	int same = fa && fb;

	while (same && (n = fread(x, 1, sizeof(x), fa)) > 0)
		same = fread(y, 1, n, fb) == n && !memcmp(x, y, n);
	same = same && !ferror(fa) && fread(y, 1, 1, fb) == 0;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * Boot a guest of o's configuration up to its hello and save it in path:
 * 0; 1 when it booted but is not saved (said), so the caller boots; -1
 * when the boot itself failed, as r says.
 */
static int save(const struct vm_options *o, const char *nvdimm_source, const char *dir, const char *path,
		struct vm_result *r)
{
	char boot_dir[PATH_MAX];
	struct vm_options so = *o;

	snprintf(boot_dir, sizeof(boot_dir), "%s/boot", o->run_dir);
	if (mkdir(boot_dir, 0755) < 0 && errno != EEXIST)
		return 1;
	/* Neither the job nor the hooks: the guest is saved before either. */
	so.qemu.plugin = NULL;
	so.hooks = NULL;
	so.files = NULL;
	so.nfiles = 0;
	so.run_dir = boot_dir;
	so.save_state = path;
	so.restore_state = NULL;
	vm_run(&so, r);
	if (r->status == VM_QEMU_FAILED && r->state_failed) {
		/* A full cache disk, say: the guests boot as they did. */
		fprintf(stderr, "pmem-harness: %s; booting instead: free room under %s, or set PMEM_SAVED_BOOTS=0 to stop saving\n",
			r->message, dir);
		return 1;
	}
	if (r->status != VM_SAVED)
		return -1;
	if (!same_bytes(o->qemu.nvdimm, nvdimm_source)) {
		fprintf(stderr, "pmem-harness: the guest saved in %s wrote to its NVDIMM before its hello (%s differs from %s): not kept\n",
			path, o->qemu.nvdimm, nvdimm_source);
		remove_state(path);
		return 1;
	}
	prune(dir);
	return 0;
}

int vm_run_saved(struct vm_options *o, const char *nvdimm_source, const char *dir, struct vm_result *r)
{
	const char *off = getenv("PMEM_SAVED_BOOTS");
	char path[PATH_MAX];
	int rc;

	/* PMEM_SAVED_BOOTS=0: every guest boots (to compare, or to rule this out). */
	if ((off && !strcmp(off, "0")) || (mkdir(dir, 0755) < 0 && errno != EEXIST) ||
	    saved_boot_path(&o->qemu, nvdimm_source, dir, path, sizeof(path)) < 0)
		return vm_run(o, r);
	if (access(path, R_OK)) {
		rc = save(o, nvdimm_source, dir, path, r);
		if (rc < 0)
			return -1;	/* the boot failed: r says how, as vm_run would */
		if (rc > 0)
			return vm_run(o, r);
	}
	o->restore_state = path;
	rc = vm_run(o, r);
	o->restore_state = NULL;
	if (r->status == VM_QEMU_FAILED && r->state_failed) {
		char from[PATH_MAX + 16], to[PATH_MAX + 24];

		/* Its QEMU's messages, kept from the boot that follows. */
		snprintf(from, sizeof(from), "%s/qemu.log", o->run_dir);
		snprintf(to, sizeof(to), "%s/qemu-restore.log", o->run_dir);
		rename(from, to);
		fprintf(stderr, "pmem-harness: %s, QEMU's messages in %s; removed it, booting instead\n", r->message, to);
		remove_state(path);
		return vm_run(o, r);
	}
	utimensat(AT_FDCWD, path, NULL, 0);
	return rc;
}
