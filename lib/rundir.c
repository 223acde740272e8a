// SPDX-License-Identifier: GPL-2.0
/* Run directories: made and removed without a shell, private, and ours (rundir.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"

/* The parents: the results root may be shared, so only dir is checked. */
static int make_parents(char *p)
{
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return 0;
}

int run_dir_make(const char *dir, char *why, size_t len)
{
	char p[4096];
	struct stat st;

	if (!dir[0] || strlen(dir) >= sizeof(p)) {
		snprintf(why, len, "run directory name is empty or too long");
		return -1;
	}
	snprintf(p, sizeof(p), "%s", dir);
	if (make_parents(p) < 0 || (mkdir(p, 0700) < 0 && errno != EEXIST)) {
		snprintf(why, len, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(p, &st) < 0) {
		snprintf(why, len, "cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, len, "%s is a symbolic link: give the real directory", dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s exists and is not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, len, "%s is owned by uid %u, not by you (uid %u): use a results directory of your own",
			 dir, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -1;
	}
	/* mkdir's mode passes through the umask, and an older run may be 0755. */
	if ((st.st_mode & 07777) != 0700 && chmod(p, 0700) < 0) {
		snprintf(why, len, "cannot make %s private: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The walk's first error; nftw() passes its callback no state of its own. */
static __thread int remove_errno;

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP || type == FTW_DNR ? rmdir(path) : unlink(path)) < 0 && !remove_errno)
		remove_errno = errno;
	return 0;
}

int run_dir_remove(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	remove_errno = 0;
	/* Depth first, links as links, and no other file system entered. */
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
		return -1;
	errno = remove_errno;
	return remove_errno ? -1 : 0;
}

int run_dir_name(char *out, size_t size, const char *results, const char *run_id, char *why, size_t len)
{
	int n = run_id ? snprintf(out, size, "%s/%s", results, run_id) : snprintf(out, size, "%s", results);

	if (n < 0 || (size_t)n >= size || n > RUN_DIR_MAX) {
		snprintf(why, len, "a run directory longer than %d bytes (use a shorter results directory): %s%s%s",
			 RUN_DIR_MAX, results, run_id ? "/" : "", run_id ? run_id : "");
		out[0] = '\0';
		return -1;
	}
	return 0;
}
