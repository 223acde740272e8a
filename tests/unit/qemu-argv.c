// SPDX-License-Identifier: GPL-2.0
/* Unit test: the QEMU command line built from a struct, and the accelerator chosen. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/accel.h"
#include "vm/qemu.h"
#include "lib/rundir.h"
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

/*
 * The KVM side, which cannot run here (a guest hangs under this machine's
 * nested KVM): the command line a KVM guest gets, and accel_resolve()'s
 * choice, with vm_run() replaced by a stand-in that boots nothing and
 * answers as a working or a hanging KVM would.
 */
static enum vm_status kvm_answer;
static int probes;
static struct argv probe_argv;

int vm_run(struct vm_options *o, struct vm_result *r)
{
	o->qemu.qmp_socket = "/run/x/qmp";
	o->qemu.ctl_socket = "/run/x/ctl";
	o->qemu.out_socket = "/run/x/out";
	argv_free(&probe_argv);
	qemu_build_argv(&o->qemu, &probe_argv);
	probes++;
	memset(r, 0, sizeof(*r));
	r->status = kvm_answer;
	r->boot_seconds = 1.5;
	return kvm_answer == VM_OK ? 0 : -1;
}

const char *vm_status_name(enum vm_status s)
{
	return s == VM_OK ? "ok" : "boot-timeout";
}

static void kvm_tests(void)
{
	struct qemu_config c = base;
	char dir[] = "/tmp/unit-qemu-argv.XXXXXX", out[16], why[512], cmd[128];
	struct argv a;
	const char *s;
	int ok;

	c.accel = "kvm";
	ok = qemu_build_argv(&c, &a) == 0;
	tap_result(ok && arg_after(&a, "-accel", "kvm") && !arg_after(&a, "-accel", "tcg")
		   ? TAP_PASS : TAP_FAIL, "KVM: -accel kvm", NULL);
	/* -cpu host aborts on MSR 0x10a under nested KVM; max is what both get. */
	tap_result(ok && arg_after(&a, "-cpu", "max") && !arg_after(&a, "-cpu", "host")
		   ? TAP_PASS : TAP_FAIL, "KVM: -cpu max, not host", NULL);
	s = arg_after(&a, "-object", "memory-backend-file");
	tap_result(ok && s && strstr(s, "share=on") && arg_after(&a, "-M", "q35,nvdimm=on") &&
		   arg_after(&a, "-device", "nvdimm") && arg_after(&a, "-nic", "none")
		   ? TAP_PASS : TAP_FAIL, "KVM: the same NVDIMM, machine and no network as TCG", NULL);
	argv_free(&a);
	c.plugin = "/p/insn-per-fault.so";
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL,
		   "KVM: a TCG plugin is refused", NULL);

	c = base;
	c.binary = "/nonexistent/qemu-system-x86_64";
	tap_result(accel_resolve("kvm", &c, "/nonexistent", out, sizeof(out), why, sizeof(why)) == 0 &&
		   !strcmp(out, "kvm") && !strcmp(why, "requested") && probes == 0
		   ? TAP_PASS : TAP_FAIL, "--accel kvm is taken as asked, without a probe", NULL);
	tap_result(accel_resolve("hvf", &c, "/nonexistent", out, sizeof(out), why, sizeof(why)) < 0
		   ? TAP_PASS : TAP_FAIL, "unknown --accel refused", NULL);
	if (access("/dev/kvm", R_OK | W_OK) != 0 || !mkdtemp(dir)) {
		tap_result(TAP_SKIP, "auto: a KVM that boots is chosen and cached", "no usable /dev/kvm");
		tap_result(TAP_SKIP, "auto: a KVM that hangs falls back to TCG", "no usable /dev/kvm");
		return;
	}
	kvm_answer = VM_OK;
	ok = accel_resolve("auto", &c, dir, out, sizeof(out), why, sizeof(why)) == 0 &&
	     !strcmp(out, "kvm") && strstr(why, "booted") && probes == 1 &&
	     arg_after(&probe_argv, "-accel", "kvm") && arg_after(&probe_argv, "-cpu", "max") &&
	     !arg_after(&probe_argv, "-device", "nvdimm");
	ok = ok && accel_resolve("auto", &c, dir, out, sizeof(out), why, sizeof(why)) == 0 &&
	     !strcmp(out, "kvm") && strstr(why, "cached") && probes == 1;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "auto: a KVM that boots is chosen and cached", NULL);
	snprintf(cmd, sizeof(cmd), "%s/accel-probe", dir);
	unlink(cmd);
	kvm_answer = VM_BOOT_TIMEOUT;
	ok = accel_resolve("auto", &c, dir, out, sizeof(out), why, sizeof(why)) == 0 &&
	     !strcmp(out, "tcg") && strstr(why, "using TCG") && probes == 2;
	tap_diag("%s", why);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "auto: a KVM that hangs falls back to TCG", NULL);
	unlink(cmd);
	rmdir(dir);
	argv_free(&probe_argv);
}

/* qemu --version ran as "'<binary>' --version" through sh: $QEMU may be any path. */
static void version_tests(void)
{
	char dir[] = "/tmp/unit-qemu-version.XXXXXX", bin[256], ran[256], ver[64] = "", cwd[4096];
	FILE *f;
	int ok = 0;

	if (getcwd(cwd, sizeof(cwd)) && mkdtemp(dir)) {
		snprintf(bin, sizeof(bin), "%s/it's $(touch ran)", dir);
		snprintf(ran, sizeof(ran), "%s/ran", dir);
		f = fopen(bin, "w");
		if (f) {
			fputs("#!/bin/sh\necho 'QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-1)'\n", f);
			fclose(f);
			chmod(bin, 0755);
			/* Where the old command line would have run touch. */
			if (chdir(dir) == 0)
				ok = qemu_version(bin, ver, sizeof(ver)) == 0 && !strcmp(ver, "10.0.2") &&
				     access(ran, F_OK) < 0;
			if (chdir(cwd) < 0)
				ok = 0;
		}
		tap_diag("version: '%s'", ver);
		run_dir_remove(dir);
	}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "qemu --version of a binary whose path holds a quote, nothing else run",
		   NULL);
}

/* The xfstests guest: a private root NVDIMM, and two NVDIMMs under test. */
static void root_image_tests(void)
{
	struct qemu_config c = base;
	struct argv a;
	const char *s;
	size_t i, root = 0, nv0 = 0, nv1 = 0;
	int ok;

	c.root_image = "/c/root.img";
	c.root_size = 1ULL << 30;
	c.nvdimm2 = "/r/scratch.img";
	c.nvdimm2_size = c.nvdimm_size;
	ok = qemu_build_argv(&c, &a) == 0;
	for (i = 0; ok && i < a.n; i++) {
		root = !root && strstr(a.v[i], "nvdimm,id=root,") ? i : root;
		nv0 = !nv0 && strstr(a.v[i], "nvdimm,id=nv0,") ? i : nv0;
		nv1 = !nv1 && strstr(a.v[i], "nvdimm,id=nv1,") ? i : nv1;
	}
	/* Labels are valid only under the serial number QEMU derives from the slot. */
	tap_result(ok && root && nv0 && nv1 && strstr(a.v[nv0], "slot=0,") && strstr(a.v[nv1], "slot=1,") &&
		   strstr(a.v[root], "slot=2") && arg_after(&a, "-initrd", "/k/initramfs.cpio")
		   ? TAP_PASS : TAP_FAIL, "the NVDIMMs under test in slots 0 and 1, the root in slot 2", NULL);
	s = arg_after(&a, "-object", "memory-backend-file,id=rootmem");
	tap_result(s && strstr(s, "share=off") && strstr(s, "mem-path=/c/root.img") &&
		   !strstr(a.v[root], "label-size") ? TAP_PASS : TAP_FAIL,
		   "the root image is mapped private and has no labels (raw namespace)", NULL);
	s = arg_after(&a, "-append", "console=ttyS0");
	tap_result(s && strstr(s, "pmem.root=raw") && arg_after(&a, "-m", "1024M,slots=4")
		   ? TAP_PASS : TAP_FAIL, "the initrd is told to switch to the root image; a slot per NVDIMM", NULL);
	argv_free(&a);
	c.root_size = (1ULL << 30) + 4096;
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL,
		   "a root image that is not whole 2 MiB pages refused", NULL);
}

/* A virtio-pmem device: shared, so the guest's writes reach the file; whole 2 MiB pages. */
static void virtio_pmem_tests(void)
{
	struct qemu_config c = base;
	struct argv a;
	const char *s;

	c.virtio_pmem = "/r/v,pmem.img";
	c.virtio_pmem_size = 256ULL << 20;
	tap_result(qemu_build_argv(&c, &a) == 0 && (s = arg_after(&a, "-object", "memory-backend-file,id=vpmem,")) &&
		   strstr(s, "share=on") && strstr(s, "mem-path=/r/v,,pmem.img,") && strstr(s, "size=268435456") &&
		   arg_after(&a, "-device", "virtio-pmem-pci,memdev=vpmem") ? TAP_PASS : TAP_FAIL,
		   "a virtio-pmem device, shared, its path's comma doubled", NULL);
	argv_free(&a);
	c.virtio_pmem_size = (256ULL << 20) + 4096;
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL,
		   "a virtio-pmem device that is not whole 2 MiB pages refused", NULL);
}

int main(void)
{
	struct qemu_config c = base;
	struct argv a;
	const char *s;

	tap_plan(21 + 8 + 4 + 1 + 2);
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

	/* A flavour's boot parameter comes before the caller's own. */
	c = base;
	snprintf(c.kernel_args, sizeof(c.kernel_args), "dax_aware_test=nogate");
	c.append = "nokaslr";
	qemu_build_argv(&c, &a);
	s = arg_after(&a, "-append", "console=ttyS0");
	tap_result(s && strstr(s, " dax_aware_test=nogate nokaslr") ? TAP_PASS : TAP_FAIL,
		   "a flavour's boot parameters, then the caller's, on the kernel command line", NULL);
	argv_free(&a);

	/* A flavour's platform is a machine property, not a kernel parameter. */
	c = base;
	snprintf(c.nvdimm_persistence, sizeof(c.nvdimm_persistence), "cpu");
	qemu_build_argv(&c, &a);
	s = arg_after(&a, "-M", "q35");
	tap_result(s && !strcmp(s, "q35,nvdimm=on,nvdimm-persistence=cpu") ? TAP_PASS : TAP_FAIL,
		   "a flavour's nvdimm-persistence on the machine", s);
	s = arg_after(&a, "-append", "console=ttyS0");
	tap_result(s && !strstr(s, "persistence") ? TAP_PASS : TAP_FAIL,
		   "and not on the kernel command line", s);
	argv_free(&a);
	c.nvdimm = NULL;
	qemu_build_argv(&c, &a);
	s = arg_after(&a, "-M", "q35");
	tap_result(s && !strcmp(s, "q35") ? TAP_PASS : TAP_FAIL, "no nvdimm-persistence without an NVDIMM", s);
	argv_free(&a);
	c = base;
	snprintf(c.nvdimm_persistence, sizeof(c.nvdimm_persistence), "bogus");
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL, "an nvdimm-persistence QEMU refuses is refused",
		   NULL);

	c = base;
	c.nvdimm = NULL;
	qemu_build_argv(&c, &a);
	tap_result(!arg_after(&a, "-device", "nvdimm") && arg_after(&a, "-M", "q35") &&
		   !strcmp(arg_after(&a, "-M", "q35"), "q35") ? TAP_PASS : TAP_FAIL,
		   "no NVDIMM when none is asked for", NULL);
	argv_free(&a);

	/* A comma in a path is doubled, or QEMU reads the rest as options. */
	c = base;
	c.nvdimm = "/r/a,b/nvdimm.img";
	c.qmp_socket = "/run/x,y/qmp";
	c.cpu = "max,erms=off";
	qemu_build_argv(&c, &a);
	s = arg_after(&a, "-object", "memory-backend-file");
	tap_result(s && strstr(s, "mem-path=/r/a,,b/nvdimm.img,size=") ? TAP_PASS : TAP_FAIL,
		   "a comma in the NVDIMM's path is escaped", s);
	s = arg_after(&a, "-chardev", "socket,id=qmp");
	tap_result(s && !strcmp(s, "socket,id=qmp,path=/run/x,,y/qmp") ? TAP_PASS : TAP_FAIL,
		   "a comma in a socket path is escaped", s);
	tap_result(arg_after(&a, "-cpu", "max,erms=off") ? TAP_PASS : TAP_FAIL, "a CPU model given is used", NULL);
	argv_free(&a);

	c = base;
	c.accel = "hvf";
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL, "unknown accelerator refused", NULL);
	c = base;
	c.nvdimm_size = NVDIMM_LABEL_SIZE;
	tap_result(qemu_build_argv(&c, &a) < 0 ? TAP_PASS : TAP_FAIL,
		   "NVDIMM no larger than its label area refused", NULL);
	root_image_tests();
	virtio_pmem_tests();
	version_tests();
	kvm_tests();
	return tap_exit();
}
