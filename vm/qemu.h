/* SPDX-License-Identifier: GPL-2.0 */
/* The QEMU command line as data: one struct in, an argv out. */
#ifndef HARNESS_QEMU_H
#define HARNESS_QEMU_H

#include <stddef.h>

/* The NVDIMM label area QEMU keeps at the end of the backing file. */
#define NVDIMM_LABEL_SIZE (128ULL << 10)
/* The root image's slot, after the two NVDIMMs under test (slots 0 and 1). */
#define NVDIMM_ROOT_SLOT 2

struct qemu_config {
	const char *binary;		/* qemu-system-x86_64 */
	const char *accel;		/* "kvm" or "tcg" */
	const char *kernel;		/* bzImage */
	const char *initrd;		/* cpio archive */
	const char *append;		/* extra kernel command line, may be NULL */
	/* The flavour's own boot parameters (build/kernels/<flavour>/cmdline:
	 * test-only flavours that share a build), "" for none. */
	char kernel_args[128];
	/* The platform the flavour runs on (build/kernels/<flavour>/
	 * nvdimm-persistence): QEMU's machine property nvdimm-persistence, "cpu"
	 * (eADR: the NFIT says the CPU caches are persistent, Linux's
	 * persistence_domain cpu_cache) or "mem-ctrl" (ADR); "" for QEMU's
	 * default, no platform capability at all (persistence_domain empty). A guest
	 * without an NVDIMM has no NFIT to say it in, and QEMU is not told. */
	char nvdimm_persistence[16];
	const char *nvdimm;		/* backing file, NULL for none */
	unsigned long long nvdimm_size;	/* backing file size, label included */
	unsigned int mem_mib;
	unsigned int cpus;
	/* -cpu MODEL[,features]; NULL means "max". */
	const char *cpu;
	const char *qmp_socket;		/* the harness listens, QEMU connects */
	const char *ctl_socket;
	const char *out_socket;
	const char *plugin;		/* "-plugin" argument (TCG only), or NULL */
	/* -incoming defer: QEMU waits for a saved guest (QMP migrate-incoming). */
	int incoming;
	/* A second NVDIMM like the first (xfstests' SCRATCH_DEV), or NULL. */
	const char *nvdimm2;
	unsigned long long nvdimm2_size;
	/*
	 * A root filesystem too big for an initrd: an ext4 image on a label-less
	 * NVDIMM (a raw namespace, no DAX), mapped private so that the cached
	 * image is never written. The initrd's /init mounts it and switches to
	 * it when the command line says pmem.root=raw.
	 */
	const char *root_image;
	unsigned long long root_size;
	/*
	 * A virtio-pmem device: DAX like an NVDIMM, but not synchronous (the
	 * guest flushes through the host), so MAP_SYNC is refused on it. NULL
	 * for none; its size is whole 2 MiB pages.
	 */
	const char *virtio_pmem;
	unsigned long long virtio_pmem_size;
};

struct argv {
	char **v;
	size_t n, cap;
};

void argv_free(struct argv *a);
/* Fill a NULL-terminated argv for execvp(); returns -1 on a bad config. */
int qemu_build_argv(const struct qemu_config *c, struct argv *a);
/* "10.0.2" from `qemu-system-x86_64 --version`; -1 if QEMU cannot run. */
int qemu_version(const char *binary, char *buf, size_t size);
/* Whether the TCG plugin API gives stored values and registers (v4). */
int qemu_has_plugin_api_v4(const char *version);

#endif
