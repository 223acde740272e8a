/* SPDX-License-Identifier: GPL-2.0 */
/* What every run records about where it ran (run.json of bench and crashtest). */
#ifndef HARNESS_RUNINFO_H
#define HARNESS_RUNINFO_H

#include <jansson.h>

/* { qemu: {version, plugin_api_v4}, host: {cpu, kernel, nodename}, git, date } */
json_t *run_environment(void);
/* build/kernels/KERNEL/kernel.json (source, patches and their hashes), or NULL. */
json_t *run_kernel_info(const char *build, const char *kernel);
/*
 * The short git revision of the tree that holds dir, "-dirty" when it has
 * changes, or "unknown" outside git (run.json's "git", pmem-harness --version).
 */
void git_revision(const char *dir, char *rev, size_t size);

#endif
