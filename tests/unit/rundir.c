// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: run directories are made private and must be ours, and are
 * removed without a shell, links as links (lib/rundir.c).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/rundir.h"
#include "tap.h"
#include "scratch.h"

static char top[] = "/tmp/unit-rundir.XXXXXX";

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? -1 : (int)(st.st_mode & 07777);
}

/* A path under top. */
static const char *in(const char *sub)
{
	return scratch_path(top, sub);
}

static void touch(const char *sub)
{
	int fd = open(in(sub), O_WRONLY | O_CREAT, 0644);

	if (fd >= 0)
		close(fd);
}

static int make(const char *sub, char *why, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", top, sub);
	return run_dir_make(path, why, len);
}

int main(void)
{
	char why[512] = "", path[256];
	int rc;

	if (!mkdtemp(top))
		return 1;
	tap_plan(10);

	rc = make("results/run-1/crash", why, sizeof(why));
	snprintf(path, sizeof(path), "%s/results/run-1/crash", top);
	tap_result(rc == 0 && mode_of(path) == 0700 ? TAP_PASS : TAP_FAIL,
		   "a new run directory and its missing parents are made; the directory is 0700", NULL);

	snprintf(path, sizeof(path), "%s/old", top);
	mkdir(path, 0755);
	rc = make("old", why, sizeof(why));
	tap_result(rc == 0 && mode_of(path) == 0700 ? TAP_PASS : TAP_FAIL,
		   "an existing 0755 run directory is tightened to 0700", NULL);

	snprintf(path, sizeof(path), "%s/file", top);
	fclose(fopen(path, "w"));
	rc = make("file", why, sizeof(why));
	tap_diag("%s", why);
	tap_result(rc < 0 && strstr(why, "is not a directory") ? TAP_PASS : TAP_FAIL,
		   "a file in the run directory's place is refused", NULL);

	snprintf(path, sizeof(path), "%s/target", top);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/link", top);
	if (symlink("target", path) < 0)
		return 1;
	rc = make("link", why, sizeof(why));
	tap_diag("%s", why);
	tap_result(rc < 0 && strstr(why, "symbolic link") && mode_of(path) == 0755 ? TAP_PASS : TAP_FAIL,
		   "a symbolic link in its place is refused, its target left as it was", NULL);

	/* Someone else's directory: as root make one for nobody; otherwise
	 * "/" is root's. */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/theirs", top);
		if (mkdir(path, 0777) < 0 || chown(path, 65534, 65534) < 0 || chmod(path, 0777) < 0)
			return 1;
		rc = make("theirs", why, sizeof(why));
	} else {
		snprintf(path, sizeof(path), "/");
		rc = run_dir_make("/", why, sizeof(why));
	}
	tap_diag("%s", why);
	tap_result(rc < 0 && strstr(why, "not by you") && mode_of(path) == (geteuid() ? 0755 : 0777) ?
		   TAP_PASS : TAP_FAIL, "a directory another user owns is refused and left as it was", NULL);

	tap_result(run_dir_make("", why, sizeof(why)) < 0 ? TAP_PASS : TAP_FAIL, "an empty name is refused", NULL);

	/* A tree three deep with files at each level. */
	rc = make("tree/a/b/c", why, sizeof(why));
	touch("tree/f");
	touch("tree/a/f");
	touch("tree/a/b/c/f");
	rc |= run_dir_remove(in("tree"));
	tap_result(rc == 0 && access(in("tree"), F_OK) < 0 ? TAP_PASS : TAP_FAIL,
		   "a tree of directories and files is removed", NULL);

	/* A link to a directory outside: removed as a link, its target kept. */
	mkdir(in("outside"), 0755);
	touch("outside/keep");
	mkdir(in("linked"), 0755);
	rc = symlink("../outside", in("linked/out"));
	rc |= run_dir_remove(in("linked"));
	tap_result(rc == 0 && access(in("linked"), F_OK) < 0 && access(in("outside/keep"), F_OK) == 0 ?
		   TAP_PASS : TAP_FAIL, "a link to a directory outside is removed as a link, its target left", NULL);

	/* rm -rf '<dir>' through sh ran what followed a quote in the name. */
	if (chdir(top) < 0)
		return 1;
	mkdir(in("it's $(touch ran)"), 0755);
	touch("it's $(touch ran)/f");
	rc = run_dir_remove(in("it's $(touch ran)"));
	tap_result(rc == 0 && access(in("it's $(touch ran)"), F_OK) < 0 && access("ran", F_OK) < 0 ?
		   TAP_PASS : TAP_FAIL, "a name with a quote and $(touch ran) in it is removed, and nothing run", NULL);

	{
		char dir[PATH_MAX], long_results[RUN_DIR_MAX + 1];

		memset(long_results, 'a', RUN_DIR_MAX);
		long_results[RUN_DIR_MAX] = '\0';
		long_results[RUN_DIR_MAX - 4] = '\0';
		rc = run_dir_name(dir, sizeof(dir), long_results, "r1", why, sizeof(why));
		long_results[RUN_DIR_MAX - 4] = 'a';
		tap_result(rc == 0 && strlen(dir) == RUN_DIR_MAX - 1 &&
			   run_dir_name(dir, sizeof(dir), long_results, "r1", why, sizeof(why)) < 0 && !dir[0] &&
			   strstr(why, "shorter") && run_dir_name(dir, sizeof(dir), "results/x", NULL, why, sizeof(why)) == 0 &&
			   !strcmp(dir, "results/x") ? TAP_PASS : TAP_FAIL,
			   "a run directory that leaves PATH_MAX no room for its files is refused in one line", NULL);
	}

	if (run_dir_remove(top) < 0)
		return 1;
	return tap_exit();
}
