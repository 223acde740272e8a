// SPDX-License-Identifier: GPL-2.0
/* Unit test: what an interrupted crashtest left, read back (crash-inject/run/crash_resume.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crash-inject/run/crash_resume.h"
#include "lib/rundir.h"
#include "tap.h"

static char top[] = "/tmp/unit-crash-resume.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		exit(1);
}

/* Run f with stderr in a file; returns f's result, the first line in line. */
static int quietly(int (*f)(const json_t *), const json_t *arg, char *line, size_t len)
{
	char path[256];
	FILE *err;
	int saved = dup(2), ret;

	snprintf(path, sizeof(path), "%s/stderr", top);
	err = fopen(path, "w+");
	dup2(fileno(err), 2);
	ret = f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	if (!fgets(line, (int)len, err))
		line[0] = '\0';
	fclose(err);
	return ret;
}

static struct crash_resume r;

static int open_run(const json_t *options)
{
	crash_resume_free(&r);
	return crash_resume_open(top, "r", options, &r);
}

int main(void)
{
	json_t *opts = json_pack("{s:s, s:[s, s], s:I}", "kernel", "6.1-aware", "filesystems", "ext4", "xfs",
				 "seed", (json_int_t)1);
	json_t *other = json_pack("{s:s, s:[s, s], s:I}", "kernel", "6.1-aware", "filesystems", "ext4", "xfs",
				  "seed", (json_int_t)2);
	char line[512], path[256];
	struct stat st;

	if (!mkdtemp(top))
		return 1;
	snprintf(path, sizeof(path), "%s/crash", top);
	mkdir(path, 0700);
	tap_plan(7);

	put("run.json", "{\"kind\": \"crashtest\", \"options\": {\"kernel\": \"6.1-aware\", "
			"\"filesystems\": [\"ext4\", \"xfs\"], \"seed\": 1}}");
	put("crash/summary.json", "{\"complete\": false, \"scenarios\": [{\"scenario\": \"program\", "
				  "\"fs\": \"ext4\", \"images\": 3}]}");
	tap_result(quietly(open_run, opts, line, sizeof(line)) == 0 && !r.complete &&
		   crash_resume_row(&r, "program", "ext4") && !crash_resume_row(&r, "program", "xfs") ?
		   TAP_PASS : TAP_FAIL, "the same options: the finished ext4 row is found, xfs is not", NULL);

	tap_result(quietly(open_run, other, line, sizeof(line)) < 0 && strstr(line, "another seed") ?
		   TAP_PASS : TAP_FAIL, "another seed is refused, by name", NULL);
	tap_diag("%s", strtok(line, "\n"));

	put("crash/summary.json", "{\"complete\": false, \"scenarios\": [{\"scen");
	tap_result(quietly(open_run, opts, line, sizeof(line)) < 0 && strstr(line, "cannot be read") ?
		   TAP_PASS : TAP_FAIL, "a summary that does not parse is not taken for an empty one", NULL);

	snprintf(path, sizeof(path), "%s/crash/summary.json", top);
	unlink(path);
	tap_result(quietly(open_run, opts, line, sizeof(line)) == 0 && json_array_size(r.rows) == 0 ?
		   TAP_PASS : TAP_FAIL, "no summary: cut off in its first scenario, every row to run", NULL);

	put("run.json", "{\"kind\": \"crashtest\"}");
	tap_result(quietly(open_run, opts, line, sizeof(line)) < 0 && strstr(line, "older harness") ?
		   TAP_PASS : TAP_FAIL, "a run without recorded options cannot be resumed", NULL);

	put("run.json", "{\"kind\": \"bench\", \"options\": {}}");
	tap_result(quietly(open_run, opts, line, sizeof(line)) < 0 && strstr(line, "no crashtest run") ?
		   TAP_PASS : TAP_FAIL, "a bench run is not a crashtest to resume", NULL);

	/* A cut-off scenario's directory goes; what a link in it names stays. */
	snprintf(path, sizeof(path), "%s/keep", top);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/crash/program__xfs", top);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/crash/program__xfs/images", top);
	mkdir(path, 0700);
	put("crash/program__xfs/images/000.img", "x");
	put("crash/program__xfs/image-000.json", "{}");
	put("keep/precious", "y");
	snprintf(path, sizeof(path), "%s/crash/program__xfs/link", top);
	if (symlink("../../keep", path) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/crash/program__xfs", top);
	{
		char kept[256];
		int rc = crash_resume_clear(path);

		snprintf(kept, sizeof(kept), "%s/keep/precious", top);
		tap_result(rc == 0 && stat(path, &st) < 0 && stat(kept, &st) == 0 && crash_resume_clear(path) == 0 ?
			   TAP_PASS : TAP_FAIL, "a cut-off scenario is removed, not what a link in it names", NULL);
	}

	crash_resume_free(&r);
	json_decref(opts);
	json_decref(other);
	if (run_dir_remove(top) < 0)
		return 1;
	return tap_exit();
}
