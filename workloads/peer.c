// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-peer: run the reference peer (real fio) under the conditions
 * pmem-writer gives its own job, and count what the kernel did for it.
 *
 *   pmem-peer [--no-thp] [--json FILE] -- COMMAND [ARG...]
 *
 * --no-thp   disable transparent huge pages for COMMAND and its children
 *            (prctl PR_SET_THP_DISABLE, kept across fork and exec). The
 *            kernel checks it where it checks MADV_NOHUGEPAGE, also for DAX
 *            mappings, so a DAX write fault stays a 4 KiB fault: what
 *            pmem-writer's fault_size=pte does with MADV_NOHUGEPAGE. fio
 *            has no option for it, and without it fio takes 2 MiB faults
 *            wherever the file's blocks are 2 MiB aligned.
 * --json     COMMAND's fio JSON output: once it exited, the fs_dax
 *            tracepoints counted while it ran are added to its one job as
 *            "pmem": {"tracepoints": {...}}, where pmem-writer puts its own,
 *            so a peer pair's cells hold both sides' counts. The counts are
 *            of every inode: the guest runs nothing else meanwhile.
 *
 * Exits with COMMAND's status (1 if it could not run or the JSON could not
 * be annotated).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracefs.h"

static int annotate(const char *path, const struct dax_counts *dc)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err), *jobs, *tp;
	int e, ret;

	if (!doc) {
		fprintf(stderr, "pmem-peer: %s: %s (line %d)\n", path, err.text, err.line);
		return -1;
	}
	jobs = json_object_get(doc, "jobs");
	if (json_array_size(jobs) != 1) {
		fprintf(stderr, "pmem-peer: %s: expected one job, found %zu: counts not added\n",
			path, json_array_size(jobs));
		json_decref(doc);
		return -1;
	}
	tp = json_object();
	for (e = 0; e < EV_COUNT; e++)
		json_object_set_new(tp, dax_event_name(e), json_integer(dc->n[e]));
	json_object_set_new(json_array_get(jobs, 0), "pmem",
			    json_pack("{s:o, s:s}", "tracepoints", tp,
				      "counted", "fs_dax events of every inode while the peer ran"));
	ret = json_dump_file(doc, path, JSON_INDENT(2));
	if (ret)
		fprintf(stderr, "pmem-peer: cannot write %s\n", path);
	json_decref(doc);
	return ret ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pmem-peer [--no-thp] [--json FILE] -- COMMAND [ARG...]\n");
}

int main(int argc, char **argv)
{
	const char *json = NULL;
	int i, nothp = 0, tracing, status;
	struct dax_counts dc;
	pid_t pid;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--no-thp"))
			nothp = 1;
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		usage(stderr);
		return 2;
	}
	if (nothp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) {
		fprintf(stderr, "pmem-peer: prctl(PR_SET_THP_DISABLE): %s\n", strerror(errno));
		return 1;
	}
	tracing = json && !access(TRACEFS "/events/fs_dax", F_OK) && tracefs_start() == 0;
	if (json && !tracing)
		fprintf(stderr, "pmem-peer: no fs_dax tracepoints: counts omitted\n");
	pid = fork();
	if (pid < 0) {
		perror("pmem-peer: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "pmem-peer: %s: %s\n", argv[i + 1], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("pmem-peer: waitpid");
		return 1;
	}
	/* Counts only for a run that completed. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !tracing) {
		if (tracing)
			tracefs_write("tracing_on", "0");
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	if (tracefs_count(0, &dc) < 0 || annotate(json, &dc) < 0)
		return 1;
	return 0;
}
