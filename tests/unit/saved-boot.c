// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: which saved boot a guest is restored from (vm/saved_boot.c).
 * The file's name must change with everything the saved guest depends on
 * (QEMU, kernel, initrd, the NVDIMM's bytes, the machine and command line)
 * and not with what it does not (the plugin, the sockets), and a guest
 * that could have written elsewhere than its one NVDIMM gets none.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/saved_boot.h"
#include "tap.h"
#include "scratch.h"

static char top[] = "/tmp/unit-saved-boot.XXXXXX";

/* Stand-ins: the key's code is tested, not QEMU's. */
int qemu_version(const char *binary, char *buf, size_t size)
{
	snprintf(buf, size, "%s", strstr(binary, "9") ? "9.2.0" : "10.0.2");
	return 0;
}

int vm_run(struct vm_options *o, struct vm_result *r)
{
	(void)o;
	memset(r, 0, sizeof(*r));
	return -1;
}

static const char *in(const char *sub)
{
	return scratch_path(top, sub);
}

/* Write text into top/sub with a given modification time. */
static void put(const char *sub, const char *text, time_t mtime)
{
	struct timespec t[2] = { { mtime, 0 }, { mtime, 0 } };
	int fd = open(in(sub), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) < 0 || close(fd) < 0)
		exit(1);
	utimensat(AT_FDCWD, in(sub), t, 0);
}

static struct qemu_config base(void)
{
	static char kernel[512], initrd[512], nvdimm[512];
	struct qemu_config c = { 0 };

	snprintf(kernel, sizeof(kernel), "%s", in("bzImage"));
	snprintf(initrd, sizeof(initrd), "%s", in("initramfs-crash.cpio"));
	snprintf(nvdimm, sizeof(nvdimm), "%s", in("nvdimm.img"));
	c.binary = "qemu-system-x86_64";
	c.accel = "tcg";
	c.kernel = kernel;
	c.initrd = initrd;
	c.nvdimm = nvdimm;
	c.nvdimm_size = 1 << 20;
	c.mem_mib = 1024;
	c.cpus = 1;
	c.qmp_socket = "/run/a/qmp";
	return c;
}

/* The saved boot's file for c, or "" when it gets none. */
static const char *key(const struct qemu_config *c, const char *source)
{
	static char paths[2][1024];
	static int i;

	i = (i + 1) % 2;
	if (saved_boot_path(c, in(source), top, paths[i], sizeof(paths[i])) < 0)
		paths[i][0] = '\0';
	return paths[i];
}

static void differs(const struct qemu_config *c, const char *source, const char *what)
{
	struct qemu_config b = base();
	char first[1024];

	snprintf(first, sizeof(first), "%s", key(&b, "golden.img"));
	tap_result(first[0] && key(c, source)[0] && strcmp(first, key(c, source)) ? TAP_PASS : TAP_FAIL, what, NULL);
}

int main(void)
{
	struct qemu_config c;
	char first[1024];

	if (!mkdtemp(top))
		return 1;
	tap_plan(12);
	put("bzImage", "kernel", 1000);
	put("initramfs-crash.cpio", "initrd", 1000);
	put("nvdimm.img", "copy", 1000);
	put("golden.img", "golden", 1000);
	put("golden-xfs.img", "golden", 1000);

	c = base();
	snprintf(first, sizeof(first), "%s", key(&c, "golden.img"));
	tap_result(first[0] && !strncmp(first, top, strlen(top)) && strstr(first, ".state") &&
			   !strcmp(first, key(&c, "golden.img")) ?
			   TAP_PASS :
			   TAP_FAIL,
		   "the same configuration is saved in the same file, in the directory given", NULL);

	c.plugin = "build/plugins/adr-cache.so,seed=7";
	c.qmp_socket = "/run/b/qmp";
	tap_result(!strcmp(first, key(&c, "golden.img")) ? TAP_PASS : TAP_FAIL,
		   "the plugin and the sockets are not in the key: an ADR writer restores what a boot without the model saved",
		   NULL);

	c = base();
	c.binary = "/opt/qemu-9/bin/qemu-system-x86_64";
	differs(&c, "golden.img", "another QEMU, another saved boot");

	put("bzImage", "kernel", 2000);
	c = base();
	tap_result(strcmp(first, key(&c, "golden.img")) ? TAP_PASS : TAP_FAIL,
		   "a rebuilt kernel (its file changed) gets another saved boot", NULL);
	put("bzImage", "kernel", 1000);

	put("initramfs-crash.cpio", "initrd, bigger", 1000);
	tap_result(strcmp(first, key(&c, "golden.img")) ? TAP_PASS : TAP_FAIL,
		   "a rebuilt initramfs gets another saved boot", NULL);
	put("initramfs-crash.cpio", "initrd", 1000);

	differs(&c, "golden-xfs.img", "another golden image on the NVDIMM, another saved boot");

	c = base();
	c.append = "nokaslr";
	differs(&c, "golden.img", "another kernel command line (the ADR writer's nokaslr), another saved boot");

	c = base();
	c.cpu = "max,erms=off,fsrm=off,sse4.2=off";
	differs(&c, "golden.img", "another CPU model (the checkers'), another saved boot");

	c = base();
	snprintf(c.nvdimm_persistence, sizeof(c.nvdimm_persistence), "cpu");
	differs(&c, "golden.img", "another platform (nvdimm-persistence), another saved boot");

	c = base();
	c.nvdimm2 = c.nvdimm;
	c.nvdimm2_size = c.nvdimm_size;
	tap_result(!key(&c, "golden.img")[0] ? TAP_PASS : TAP_FAIL,
		   "a guest with a second NVDIMM gets no saved boot: its bytes are not known", NULL);

	c = base();
	tap_result(!key(&c, "missing.img")[0] ? TAP_PASS : TAP_FAIL,
		   "an NVDIMM source that is not there: no saved boot", NULL);

	{
		char comma[] = "/tmp/unit-saved-boot,XXXXXX", path[1024];

		c = base();
		tap_result(mkdtemp(comma) && saved_boot_path(&c, in("golden.img"), comma, path, sizeof(path)) < 0 ?
				   TAP_PASS :
				   TAP_FAIL,
			   "a directory with a comma gets none: QEMU's file: URI would end the path there", NULL);
		rmdir(comma);
	}

	unlink(in("bzImage"));
	unlink(in("initramfs-crash.cpio"));
	unlink(in("nvdimm.img"));
	unlink(in("golden.img"));
	unlink(in("golden-xfs.img"));
	rmdir(top);
	return tap_exit();
}
