// SPDX-License-Identifier: GPL-2.0
/*
 * Choose the accelerator. /dev/kvm answering is not enough: under nested
 * virtualisation without hardware support a guest hangs in decompression.
 * So "auto" boots a trivial job under KVM with a short timeout and falls
 * back to TCG when it does not come back.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "accel.h"
#include "../lib/rundir.h"

#define KVM_PROBE_TIMEOUT 20

static int probe_kvm(const struct qemu_config *base, char *why, size_t wsize)
{
	char dir[] = "/tmp/pmem-kvm-probe.XXXXXX";
	struct vm_options o = {
		.qemu = *base,
		.script = "exit 0\n",
		.boot_timeout = KVM_PROBE_TIMEOUT,
		.run_timeout = KVM_PROBE_TIMEOUT,
	};
	struct vm_result r;
	int ok;

	if (!mkdtemp(dir))
		return 0;
	o.run_dir = dir;
	o.qemu.accel = "kvm";
	o.qemu.nvdimm = NULL;
	ok = vm_run(&o, &r) == 0 && r.guest_exit == 0;
	if (ok)
		snprintf(why, wsize, "KVM probe booted a guest in %.1f s", r.boot_seconds);
	else
		snprintf(why, wsize, "KVM probe failed (%s), using TCG", vm_status_name(r.status));
	if (run_dir_remove(dir) < 0)
		fprintf(stderr, "harness: could not remove %s: %m\n", dir);
	return ok;
}

int accel_resolve(const char *requested, const struct qemu_config *base,
		  const char *cache_dir, char *out, size_t size, char *why, size_t wsize)
{
	char version[64] = "?", key[256], path[PATH_MAX], line[256];
	struct utsname u;
	FILE *f;
	int kvm;

	if (!strcmp(requested, "tcg") || !strcmp(requested, "kvm")) {
		snprintf(out, size, "%s", requested);
		snprintf(why, wsize, "requested");
		return 0;
	}
	if (strcmp(requested, "auto")) {
		fprintf(stderr, "harness: unknown accelerator '%s' (auto, kvm, tcg)\n", requested);
		return -1;
	}
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		snprintf(out, size, "tcg");
		snprintf(why, wsize, "/dev/kvm is not usable");
		return 0;
	}
	qemu_version(base->binary, version, sizeof(version));
	uname(&u);
	snprintf(key, sizeof(key), "qemu-%s host-%s", version, u.release);
	snprintf(path, sizeof(path), "%s/accel-probe", cache_dir);
	f = fopen(path, "r");
	if (f) {
		int hit = fgets(line, sizeof(line), f) && !strncmp(line, key, strlen(key));

		fclose(f);
		if (hit) {
			kvm = strstr(line + strlen(key), " kvm") != NULL;
			snprintf(out, size, "%s", kvm ? "kvm" : "tcg");
			snprintf(why, wsize, "cached KVM probe (%s); delete it to re-probe", path);
			return 0;
		}
	}
	kvm = probe_kvm(base, why, wsize);
	snprintf(out, size, "%s", kvm ? "kvm" : "tcg");
	mkdir(cache_dir, 0755);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s %s\n", key, out);
		fclose(f);
	}
	return 0;
}
