/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel instructions per fault from the insn-per-fault TCG plugin: the
 * plugin's arguments for a kernel, and its intervals shared out to the
 * writer's job sections of one unit.
 */
#ifndef HARNESS_BENCH_INSNS_H
#define HARNESS_BENCH_INSNS_H

#include <jansson.h>
#include <stddef.h>

/* ",switch=ADDR,apart=CLASS:ADDR..." from the kernel's System.map, or "". */
void insn_plugin_args(const char *build, const char *kernel, char *buf, size_t size);

/* Give each writer section of results its median of the plugin's file at path. */
void insn_attach_file(json_t *results, const char *path);

#endif
