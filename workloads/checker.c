// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-checker DEV MNT [CHECK]: the checker guest's loop over crash images,
 * in one process.
 *
 * It asks the host for the next image on the control port; the host has
 * already written that image into the NVDIMM under us, and says which
 * filesystem it holds (one guest serves every scenario of a run, ext4 and
 * xfs alike: the golden images share one namespace layout). Each image gets the
 * whole check: the block device's cached buffers dropped, a real
 * `mount -o dax` (journal or log replay by the kernel), every record slot of
 * the crash files read back (record_verify.h) or the user's CHECK program
 * run in the mounted crash directory, umount, and the filesystem's own
 * read-only fsck. Its report on image N is one line, the JSON document the
 * host's judge loads (schema and fields in crash-inject/judge/judge.h), with the
 * guest milliseconds per step in "phase". The line goes to the host on the
 * control port, in order with the next request, so the host judges each
 * image as soon as its check ends; a copy goes to stdout (guest.log).
 *
 * The shell loop it replaces spent most of each image starting programs
 * (pmem-agent, blockdev twice, mount, pmem-verify, umount) under TCG; here
 * only fsck and a user's CHECK are separate programs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "../lib/filesystems.h"
#include "../proto/check_report.h"
#include "json_out.h"
#include "record_verify.h"


struct target {
	const char *fs;		/* this image's: ext4, xfs or xfs-reflink */
	const char *dev;
	const char *mnt;
	const char *check;	/* the user's checker, or NULL for the record verifier */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The media changed under the kernel: drop every cached block of it.
 * 0, or the errno of the failure. */
static int flush_buffers(const char *dev)
{
	int fd = open(dev, O_RDONLY), err = 0;

	if (fd < 0 || ioctl(fd, BLKFLSBUF, 0) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Run argv with stdout and stderr into log, from directory dir; its exit
 * status, or 128 + the signal that killed it. */
static int run(char *const argv[], const char *dir, const char *log, const char *acked)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || (dir && chdir(dir) < 0))
			_exit(127);
		if (acked)
			setenv("PMEM_ACKED", acked, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int fsck(const struct target *t)
{
	/* The table's read-only check, then the device. */
	const struct filesystem *f = fs_find(t->fs);
	char cmd[sizeof(f->fsck)], *argv[16], *save;
	int n = 0;

	if (!f)
		return 127;
	snprintf(cmd, sizeof(cmd), "%s", f->fsck);
	for (char *w = strtok_r(cmd, " ", &save); w && n < 14; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n++] = (char *)t->dev;
	argv[n] = NULL;
	return run(argv, NULL, "/tmp/fsck.log", NULL);
}

/* The contents of the image: the user's checker ("user_check"), or every
 * crash file's slots ("files"). */
static void verify(const struct target *t, const char *bs, const char *acked, char *files, FILE *out)
{
	char path[4096], *f, *save;
	const char *sep = "";

	if (t->check) {
		char *argv[] = { (char *)t->check, NULL };

		snprintf(path, sizeof(path), "%s/crash", t->mnt);
		fprintf(out, ",\"user_check\":%d", run(argv, path, "/tmp/check.log", acked));
		return;
	}
	fputs(",\"files\":[", out);
	for (f = strtok_r(files, " ", &save); f; f = strtok_r(NULL, " ", &save), sep = ",") {
		fputs(sep, out);
		snprintf(path, sizeof(path), "%s/%s", t->mnt, f);
		record_verify_json(path, f, strtoul(bs, NULL, 0), out);
	}
	fputs("]", out);
}

/* "key":"<what>: <strerror(err)>" after the fields before it. */
static void put_error(FILE *out, const char *key, const char *what, int err)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err));
	fprintf(out, ",\"%s\":", key);
	json_put_string(out, msg);
}

/* Send the document on one image to the host, and a copy to guest.log. */
static int send_report(int ctl, const char *buf, size_t len)
{
	fwrite(buf, 1, len, stdout);
	fflush(stdout);
	while (len) {
		ssize_t n = write(ctl, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static int check_image(int ctl, const struct target *t, unsigned long id, const char *bs, const char *acked,
		       char *files)
{
	const char *type = fs_find(t->fs)->type; /* the host names only rows, checked below */
	double t0 = now_ms(), t1, t2, t3;
	char *buf = NULL, what[512];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int flush_err[2], ret;

	if (!out)
		return -1;
	fprintf(out, "{\"schema\":%d,\"kind\":\"%s\",\"image\":%lu", CHECK_DOC_SCHEMA, CHECK_DOC_KIND, id);
	flush_err[0] = flush_buffers(t->dev);
	if (mount(t->dev, t->mnt, type, 0, "dax") == 0) {
		fputs(",\"mounted\":true", out);
		t1 = now_ms();
		verify(t, bs, acked, files, out);
		t2 = now_ms();
		if (umount(t->mnt) < 0)
			put_error(out, "umount_error", t->mnt, errno);
	} else {
		int err = errno;

		snprintf(what, sizeof(what), "%s %s on %s", type, t->dev, t->mnt);
		fputs(",\"mounted\":false", out);
		put_error(out, "mount_error", what, err);
		t1 = t2 = now_ms();
	}
	t3 = now_ms();
	flush_err[1] = flush_buffers(t->dev);
	if (flush_err[0] || flush_err[1]) {
		const char *sep = "";

		fputs(",\"flush_errors\":[", out);
		for (int k = 0; k < 2; k++) {
			if (!flush_err[k])
				continue;
			snprintf(what, sizeof(what), "%s: %s", t->dev, strerror(flush_err[k]));
			fputs(sep, out);
			json_put_string(out, what);
			sep = ",";
		}
		fputs("]", out);
	}
	fprintf(out, ",\"fsck\":%d", fsck(t));
	fprintf(out, ",\"phase\":{\"mount\":%.2f,\"verify\":%.2f,\"umount\":%.2f,\"fsck\":%.2f}}\n",
		t1 - t0, t2 - t1, t3 - t2, now_ms() - t3);
	fclose(out);
	ret = send_report(ctl, buf, len);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	struct target t;
	char line[4096];
	int ctl;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: pmem-checker DEV MNT [CHECK]\n");
		return 2;
	}
	t = (struct target){ NULL, argv[1], argv[2], argc == 4 ? argv[3] : NULL };
	ctl = channel_open(CHANNEL_CTL);
	if (ctl < 0)
		return 1;
	for (;;) {
		char fs[16], bs[32], acked[32];
		unsigned long id;
		int n = 0;

		if (channel_printf(ctl, "next\n") < 0 || channel_read_line(ctl, line, sizeof(line)) < 0)
			return 1;
		if (!strcmp(line, "done"))
			return 0;
		if (sscanf(line, "image %lu %15s %31s %31s %n", &id, fs, bs, acked, &n) != 4 || !n ||
		    !fs_find(fs)) {
			fprintf(stderr, "pmem-checker: unexpected reply '%s'\n", line);
			return 1;
		}
		t.fs = fs;
		if (check_image(ctl, &t, id, bs, acked, line + n) < 0)
			return 1;
	}
}
