// SPDX-License-Identifier: GPL-2.0
/* Unit test: the QEMU command line built from a struct. */
#include <string.h>

#include "qemu.h"
#include "tap.h"

static const struct qemu_config base = {
	.binary = "qemu-system-x86_64", .accel = "tcg", .kernel = "/k/bzImage",
	.initrd = "/k/initramfs.cpio", .mem_mib = 1024, .cpus = 1,
	.qmp_socket = "/run/x/qmp", .ctl_socket = "/run/x/ctl", .out_socket = "/run/x/out",
	.nvdimm = "/r/nvdimm.img", .nvdimm_size = (512ULL << 20) + NVDIMM_LABEL_SIZE,
};

/* The argument that follows option opt, or NULL. */
static const char *arg_after(const struct argv *a, const char *opt, const char *prefix)
{
	size_t i;

	for (i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt) && !strncmp(a->v[i + 1], prefix, strlen(prefix)))
			return a->v[i + 1];
	return NULL;
}

static int has(const struct argv *a, const char *word)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], word))
			return 1;
	return 0;
}

int main(void)
{
	struct qemu_config c = base;
	struct argv a;
	const char *s;

	tap_plan(13);
	tap_result(qemu_build_argv(&c, &a) == 0 ? TAP_PASS : TAP_FAIL, "complete config builds", NULL);
	tap_result(a.v[a.n] == NULL ? TAP_PASS : TAP_FAIL, "argv is NULL-terminated", NULL);
	s = arg_after(&a, "-M", "q35");
	tap_result(s && !strcmp(s, "q35,nvdimm=on") ? TAP_PASS : TAP_FAIL, "q35 with nvdimm=on", NULL);
	s = arg_after(&a, "-object", "memory-backend-file");
	tap_result(s && strstr(s, "share=on") && strstr(s, "mem-path=/r/nvdimm.img") &&
		   strstr(s, "size=537001984") && !strstr(s, "pmem=on") ? TAP_PASS : TAP_FAIL,
		   "shared file backend, exact size, no pmem=on", NULL);
	s = arg_after(&a, "-device", "nvdimm");
	tap_result(s && strstr(s, "label-size=131072") ? TAP_PASS : TAP_FAIL, "nvdimm with labels", NULL);
	tap_result(has(&a, "-nic") && arg_after(&a, "-nic", "none") ? TAP_PASS : TAP_FAIL,
		   "no network", NULL);
	s = arg_after(&a, "-chardev", "socket,id=qmp");
	tap_result(s && strstr(s, "path=/run/x/qmp") && !strstr(s, "server") ? TAP_PASS : TAP_FAIL,
		   "QMP connects to the harness's socket", NULL);
	tap_result(arg_after(&a, "-device", "virtserialport,bus=vser.0,chardev=ctl,name=pmem.ctl") &&
		   arg_after(&a, "-device", "virtserialport,bus=vser.0,chardev=out,name=pmem.out")
		   ? TAP_PASS : TAP_FAIL, "control and output ports", NULL);
	s = arg_after(&a, "-append", "console=ttyS0");
	tap_result(s && strstr(s, "panic=-1") && has(&a, "-no-reboot") ? TAP_PASS : TAP_FAIL,
		   "a panic ends QEMU", NULL);
	tap_result(arg_after(&a, "-accel", "tcg") && arg_after(&a, "-cpu", "max") ? TAP_PASS : TAP_FAIL,
		   "TCG with -cpu max", NULL);
	argv_free(&a);

	c = base;
	c.nvdimm = NULL;
	qemu_build_argv(&c, &a);
	tap_result(!arg_after(&a, "-device", "nvdimm") && arg_after(&a, "-M", "q35") &&
		   !strcmp(arg_after(&a, "-M", "q35"), "q35") ? TAP_PASS : TAP_FAIL,
		   "no NVDIMM when none is asked for", NULL);
	argv_free(&a);

	c = base;
	c.accel = "hvf";
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL, "unknown accelerator refused", NULL);
	c = base;
	c.nvdimm_size = NVDIMM_LABEL_SIZE;
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL,
		   "NVDIMM no larger than its label area refused", NULL);
	return tap_exit();
}
