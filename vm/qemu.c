// SPDX-License-Identifier: GPL-2.0
/* Build the QEMU command line for one guest: see qemu.h. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/child.h"
#include "qemu.h"

void argv_free(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static void argv_add(struct argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void argv_add(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		if (!a->v)
			abort();
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/*
 * A path inside a QEMU option list: QEMU reads a comma as the start of the
 * next option, and ",," as one comma. Returned string is the caller's.
 */
static char *opt_path(const char *path)
{
	char *out = malloc(2 * strlen(path) + 1), *o = out;

	if (!out)
		abort();
	for (; *path; path++) {
		*o++ = *path;
		if (*path == ',')
			*o++ = ',';
	}
	*o = '\0';
	return out;
}

/* A chardev that connects to a socket the harness already listens on. */
static void add_port(struct argv *a, const char *id, const char *path, const char *name)
{
	char *p = opt_path(path);

	argv_add(a, "-chardev");
	argv_add(a, "socket,id=%s,path=%s", id, p);
	free(p);
	argv_add(a, "-device");
	argv_add(a, "virtserialport,bus=vser.0,chardev=%s,name=%s", id, name);
}

/*
 * A labelled NVDIMM on a shared backing file, whose writes reach the file. Its
 * slot is fixed: QEMU derives the DIMM's serial number from it, and the
 * namespace labels a guest writes are valid only under that serial number.
 */
static void add_nvdimm(struct argv *a, const char *id, int slot, const char *path, unsigned long long size)
{
	char *p = opt_path(path);

	/* No pmem=on: the backing file is on an ordinary filesystem. */
	argv_add(a, "-object");
	argv_add(a, "memory-backend-file,id=%smem,share=on,mem-path=%s,size=%llu", id, p, size);
	free(p);
	argv_add(a, "-device");
	argv_add(a, "nvdimm,id=%s,memdev=%smem,slot=%d,label-size=%llu", id, id, slot, NVDIMM_LABEL_SIZE);
}

int qemu_build_argv(const struct qemu_config *c, struct argv *a)
{
	char *qmp;

	if (!c->binary || !c->kernel || !c->initrd || !c->accel ||
	    !c->qmp_socket || !c->ctl_socket || !c->out_socket || !c->mem_mib)
		return -1;
	if (strcmp(c->accel, "kvm") && strcmp(c->accel, "tcg"))
		return -1;
	if (c->nvdimm && c->nvdimm_size <= NVDIMM_LABEL_SIZE)
		return -1;
	if (c->nvdimm2 && (!c->nvdimm || c->nvdimm2_size <= NVDIMM_LABEL_SIZE))
		return -1;
	/* QEMU maps an NVDIMM in whole 2 MiB pages. */
	if (c->root_image && (!c->root_size || c->root_size % (2ULL << 20)))
		return -1;
	if (c->virtio_pmem && (!c->virtio_pmem_size || c->virtio_pmem_size % (2ULL << 20)))
		return -1;
	/* Plugins instrument TCG translation only. */
	if (c->plugin && strcmp(c->accel, "tcg"))
		return -1;
	if (c->nvdimm_persistence[0] && strcmp(c->nvdimm_persistence, "cpu") &&
	    strcmp(c->nvdimm_persistence, "mem-ctrl"))
		return -1;

	memset(a, 0, sizeof(*a));
	argv_add(a, "%s", c->binary);
	argv_add(a, "-accel");
	argv_add(a, "%s", c->accel);
	/* -cpu host aborts on MSR 0x10a under nested KVM; max works for both. */
	argv_add(a, "-cpu");
	argv_add(a, "%s", c->cpu ? c->cpu : "max");
	argv_add(a, "-smp");
	argv_add(a, "%u", c->cpus ? c->cpus : 1);
	argv_add(a, "-M");
	if (!c->nvdimm && !c->root_image)
		argv_add(a, "q35");
	else if (c->nvdimm_persistence[0])
		argv_add(a, "q35,nvdimm=on,nvdimm-persistence=%s", c->nvdimm_persistence);
	else
		argv_add(a, "q35,nvdimm=on");
	argv_add(a, "-m");
	/* One slot per NVDIMM; the bench and crash guests keep the two they had. */
	argv_add(a, "%uM,slots=%d,maxmem=%uM", c->mem_mib, c->root_image || c->nvdimm2 ? 4 : 2,
		 c->mem_mib + 4096);
	argv_add(a, "-nodefaults");
	argv_add(a, "-no-user-config");
	argv_add(a, "-display");
	argv_add(a, "none");
	argv_add(a, "-no-reboot");
	argv_add(a, "-nic");
	argv_add(a, "none");
	/* Console on QEMU's stdout, which the harness reads and scans. */
	argv_add(a, "-chardev");
	argv_add(a, "stdio,id=con,signal=off");
	argv_add(a, "-serial");
	argv_add(a, "chardev:con");
	qmp = opt_path(c->qmp_socket);
	argv_add(a, "-chardev");
	argv_add(a, "socket,id=qmp,path=%s", qmp);
	free(qmp);
	argv_add(a, "-mon");
	argv_add(a, "chardev=qmp,mode=control");
	argv_add(a, "-device");
	argv_add(a, "virtio-serial-pci,id=vser");
	add_port(a, "ctl", c->ctl_socket, "pmem.ctl");
	add_port(a, "out", c->out_socket, "pmem.out");
	if (c->root_image) {
		char *root = opt_path(c->root_image);

		argv_add(a, "-object");
		argv_add(a, "memory-backend-file,id=rootmem,share=off,mem-path=%s,size=%llu",
			 root, c->root_size);
		free(root);
		argv_add(a, "-device");
		argv_add(a, "nvdimm,id=root,memdev=rootmem,slot=%d", NVDIMM_ROOT_SLOT);
	}
	if (c->nvdimm)
		add_nvdimm(a, "nv0", 0, c->nvdimm, c->nvdimm_size);
	if (c->nvdimm2)
		add_nvdimm(a, "nv1", 1, c->nvdimm2, c->nvdimm2_size);
	if (c->virtio_pmem) {
		char *path = opt_path(c->virtio_pmem);

		argv_add(a, "-object");
		argv_add(a, "memory-backend-file,id=vpmem,share=on,mem-path=%s,size=%llu", path,
			 c->virtio_pmem_size);
		free(path);
		argv_add(a, "-device");
		argv_add(a, "virtio-pmem-pci,memdev=vpmem,id=vpmem0");
	}
	if (c->plugin) {
		argv_add(a, "-plugin");
		argv_add(a, "%s", c->plugin);
	}
	if (c->incoming) {
		argv_add(a, "-incoming");
		argv_add(a, "defer");
	}
	argv_add(a, "-kernel");
	argv_add(a, "%s", c->kernel);
	argv_add(a, "-initrd");
	argv_add(a, "%s", c->initrd);
	argv_add(a, "-append");
	/* panic=-1 with -no-reboot: a panic that the console scan misses still
	 * ends QEMU instead of hanging until the timeout. no_timer_check: under
	 * TCG on a loaded host the timer IRQ can miss the boot-time IO-APIC
	 * check, which then panics ("IO-APIC + timer doesn't work!"); it tests
	 * the emulated board, not the kernel under test. */
	argv_add(a, "console=ttyS0 panic=-1 oops=panic no_timer_check%s%s%s%s%s",
		 c->root_image ? " pmem.root=raw" : "",
		 c->kernel_args[0] ? " " : "", c->kernel_args,
		 c->append ? " " : "", c->append ? c->append : "");
	return 0;
}

int qemu_version(const char *binary, char *buf, size_t size)
{
	/* The last binary asked about, and its answer: a crash run asks for
	 * run.json, then for each guest's saved-boot key (the checker slots,
	 * forked after, inherit it), and each answer cost a QEMU start. */
	static char last_binary[PATH_MAX], last_version[64];
	char *argv[] = { (char *)binary, "--version", NULL }, out[256];
	const char *v;

	if (last_version[0] && !strcmp(binary, last_binary)) {
		snprintf(buf, size, "%s", last_version);
		return 0;
	}
	/* An argv, not a command line: $QEMU may be any path. */
	if (child_output(argv, out, sizeof(out)) != 0)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	v = strstr(out, "version ");
	if (!v)
		return -1;
	v += strlen("version ");
	snprintf(buf, size, "%.*s", (int)strcspn(v, " \n("), v);
	snprintf(last_binary, sizeof(last_binary), "%s", binary);
	snprintf(last_version, sizeof(last_version), "%s", buf);
	return 0;
}

int qemu_has_plugin_api_v4(const char *version)
{
	int major = 0, minor = 0;

	if (sscanf(version, "%d.%d", &major, &minor) < 1)
		return 0;
	/*
	 * Checked: 10.0.2 has v4 (qemu_plugin_mem_get_value), 7.2 has v1.
	 * Versions in between are conservatively treated as lacking it.
	 */
	return major >= 10;
}
