// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness probe: say which QEMU was found (and whether its TCG plugin
 * API is new enough for instruction counting) and which accelerator runs
 * guests here.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../vm/accel.h"
#include "../lib/flavours.h"
#include "../lib/cache_dir.h"
#include "builtin.h"

int cmd_probe(int argc, char **argv)
{
	const char *build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	const char *flavour = argc > 1 ? argv[1] : flavour_defaults("stock");
	char kernel[PATH_MAX], initrd[PATH_MAX], version[64], accel[16], why[256];
	struct qemu_config q = {
		.binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64",
		.mem_mib = 1024, .cpus = 1,
	};

	if (argc > 1 && is_help_arg(argv[1])) {
		printf("usage: pmem-harness probe [FLAVOUR]\n");
		return 0;
	}
	if (qemu_version(q.binary, version, sizeof(version)) < 0) {
		fprintf(stderr, "pmem-harness: %s does not run: run 'apt-get install qemu-system-x86'\n",
			q.binary);
		return 1;
	}
	printf("qemu: %s %s (TCG plugin API v4: %s)\n", q.binary, version,
	       qemu_has_plugin_api_v4(version) ? "yes" :
	       "no; instruction counts need QEMU >= 10 from bookworm-backports");
	snprintf(kernel, sizeof(kernel), "%s/kernels/%s/bzImage", build, flavour);
	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", build);
	if (access(kernel, R_OK) || access(initrd, R_OK)) {
		fprintf(stderr, "pmem-harness: probing needs %s and %s: run 'make kernels images'\n",
			kernel, initrd);
		return 1;
	}
	q.kernel = kernel;
	q.initrd = initrd;
	if (accel_resolve(getenv("ACCEL") ? getenv("ACCEL") : "auto", &q, cache_dir(),
			  accel, sizeof(accel), why, sizeof(why)) < 0)
		return 1;
	printf("accel: %s (%s)\n", accel, why);
	return 0;
}
