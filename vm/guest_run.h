/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One guest of a kernel flavour on a copy of a golden NVDIMM image, running
 * one job script: what `pmem-harness run` does, callable in process (bench's
 * units run their guest this way).
 */
#ifndef HARNESS_GUEST_RUN_H
#define HARNESS_GUEST_RUN_H

#include <stddef.h>
#include <stdio.h>

struct vm_file;

#define EXIT_GUEST_FAILED 125

struct guest_run_opts {
	const char *flavour, *fs, *script_path, *out, *accel, *qemu, *append;
	const struct vm_file *files;	/* input files sent before the script (vm.h) */
	size_t nfiles;
	const char *plugin;		/* "SO,ARGS" for QEMU's -plugin, or NULL */
	const char *build_dir, *cache_dir;
	int boot_timeout, run_timeout, quiet, keep_image;
	unsigned int mem;
	unsigned long long raw_size;	/* the NVDIMM's size for fs "raw" */
	unsigned long long virtio_pmem_size;	/* a blank virtio-pmem device of this size, or 0 */
	FILE *msg;			/* where its one-line messages go (stderr) */
};

/* Defaults: no filesystem, auto accelerator, 120 s boot, 900 s job, 1 GiB. */
void guest_run_defaults(struct guest_run_opts *ro);

/*
 * Boot, run, record vm.json in ro->out, and end the guest. The job's exit
 * status; EXIT_GUEST_FAILED when the guest failed (vm.json says how); 2
 * when the options cannot run (one line said on ro->msg).
 */
int guest_run(struct guest_run_opts *ro);

#endif
