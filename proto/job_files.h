/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest's job as the host sends it on the control port, both sides of
 * it: vm/vm.c sends, workloads/agent.c receives. After the guest's
 * "hello <release>" the host sends its input files as data, then the job:
 *
 *   file <name> <mode> <len>\n<len bytes>   zero or more: /tmp/in/<name>
 *   script <len>\n<len bytes>               the job, which sh runs
 *
 * Job files, a user's program and its checker travel as files; the script
 * that follows only names them (and the parameters of a fixed script of
 * the image in /usr/share/pmem/). A name is one path component of
 * JOB_FILE_NAME_CHARS, not starting with '.'; the mode is 644 or 755.
 */
#ifndef PMEM_PROTO_JOB_FILES_H
#define PMEM_PROTO_JOB_FILES_H

#include <stddef.h>
#include <string.h>

#define JOB_FILE_DIR		"/tmp/in"
#define JOB_FILE_NAME_MAX	64
#define JOB_FILE_MAX		(512UL << 20)
#define JOB_FILE_NAME_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"
/* "file <name> <mode> <len>": the mode in octal. */
#define JOB_FILE_FMT		"file %s %o %zu\n"

/* Whether name may become /tmp/in/<name>. */
static inline int job_file_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < JOB_FILE_NAME_MAX && name[0] != '.' && strspn(name, JOB_FILE_NAME_CHARS) == n;
}

static inline int job_file_mode_ok(unsigned int mode)
{
	return mode == 0644 || mode == 0755;
}

#endif
