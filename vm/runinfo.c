// SPDX-License-Identifier: GPL-2.0
/* Where a run ran: see runinfo.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "../lib/child.h"
#include "qemu.h"
#include "runinfo.h"

json_t *run_kernel_info(const char *build, const char *kernel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/kernels/%s/kernel.json", build, kernel);
	return json_load_file(path, 0, NULL);
}

void git_revision(const char *dir, char *rev, size_t size)
{
	char *head_argv[] = { "git", "-C", (char *)dir, "rev-parse", "--short", "HEAD", NULL };
	char *dirty_argv[] = { "git", "-C", (char *)dir, "status", "--porcelain", NULL };
	char head[48], dirty[2];

	snprintf(rev, size, "unknown");
	/* A dirty tree is marked: its results may not match the commit. */
	if (child_output(head_argv, head, sizeof(head)) == 0 && head[0])
		snprintf(rev, size, "%.*s%s", (int)strcspn(head, "\n"), head,
			 child_output(dirty_argv, dirty, sizeof(dirty)) == 0 && dirty[0] ? "-dirty" : "");
}

json_t *run_environment(void)
{
	char qver[64] = "unknown", rev[64], cpu[256] = "unknown", line[512];
	struct utsname u;
	FILE *p;

	qemu_version(getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64", qver, sizeof(qver));
	git_revision(".", rev, sizeof(rev));
	p = fopen("/proc/cpuinfo", "r");
	while (p && fgets(line, sizeof(line), p))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(cpu, sizeof(cpu), "%.*s", (int)strcspn(strchr(line, ':') + 2, "\n"),
				 strchr(line, ':') + 2);
			break;
		}
	if (p)
		fclose(p);
	uname(&u);
	return json_pack("{s:{s:s, s:b}, s:{s:s, s:s, s:s}, s:s, s:I}",
			 "qemu", "version", qver, "plugin_api_v4", qemu_has_plugin_api_v4(qver),
			 "host", "cpu", cpu, "kernel", u.release, "nodename", u.nodename,
			 "git", rev, "date", (json_int_t)time(NULL));
}
