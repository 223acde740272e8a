// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness run: boot one guest for (kernel flavour, filesystem, job
 * script), pass the job's output through, and record vm.json in the run
 * directory (guest_run.c). The exit status is the job's, or 125 when the
 * guest failed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/filesystems.h"
#include "builtin.h"
#include "../vm/guest_run.h"
#include "../vm/vm.h"

#define RUN_MAX_FILES 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmem-harness run --kernel FLAVOUR --fs FS --script FILE --out DIR\n"
		"                        [--accel auto|kvm|tcg] [--boot-timeout S] [--timeout S]\n"
		"                        [--mem MIB] [--append ARGS] [--plugin SO,ARGS] [--keep-image] [--quiet]\n"
		"                        [--virtio-pmem MIB] [--file NAME=PATH]...\n"
		"Boots FLAVOUR (build/kernels/FLAVOUR) on a copy of the golden FS NVDIMM image,\n"
		"runs the job script in the guest and exits with its status (125: guest failed).\n"
		"--file: PATH is sent to the guest as data, as /tmp/in/NAME (executable when PATH is).\n"
		"FS: %s (vm-images/filesystems), raw (the unformatted namespace) or none.\n",
		fs_names(NULL));
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
		{ "virtio-pmem", required_argument, NULL, 'V' },
		{ "keep-image", no_argument, NULL, 'K' },
		{ "plugin", required_argument, NULL, 'P' },
		{ "file", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct vm_file files[RUN_MAX_FILES];
	struct guest_run_opts ro;
	unsigned long mib;
	char *eq;
	char *end;
	int c;

	guest_run_defaults(&ro);
	optind = 1;
	while ((c = getopt_long(argc, argv, "k:f:s:o:a:b:t:m:A:R:V:P:F:Kqh", longopts, NULL)) != -1) {
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
		case 'V':
			mib = strtoul(optarg, &end, 10);
			if (*end || !mib || mib % 2 || mib > 4096) {
				fprintf(stderr, "run: --virtio-pmem takes an even number of MiB up to 4096, not '%s'\n", optarg);
				return 2;
			}
			ro.virtio_pmem_size = (unsigned long long)mib << 20;
			break;
		case 'F':
			eq = strchr(optarg, '=');
			if (!eq || ro.nfiles == RUN_MAX_FILES) {
				fprintf(stderr, "run: --file takes NAME=PATH, at most %d times, not '%.80s'\n",
					RUN_MAX_FILES, optarg);
				return 2;
			}
			*eq = '\0';
			files[ro.nfiles] = (struct vm_file){ .name = optarg, .path = eq + 1,
							    .mode = access(eq + 1, X_OK) ? 0644 : 0755 };
			ro.files = files;
			ro.nfiles++;
			break;
		case 'K': ro.keep_image = 1; break;
		case 'P': ro.plugin = optarg; break;
		case 'q': ro.quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	return guest_run(&ro);
}
