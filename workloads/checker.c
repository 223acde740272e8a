// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-checker DEV MNT [CHECK|- [RECOVER [ARG...]]]: the checker guest's loop
 * over crash images, in one process.
 *
 * It asks the host for the next image on the control port; the host has
 * already written that image into the NVDIMM under us, and says which
 * filesystem it holds (one guest serves every scenario of a run, ext4 and
 * xfs alike: the golden images share one namespace layout). Each image gets the
 * whole check: the block device's cached buffers dropped, a real
 * `mount -o dax` (journal or log replay by the kernel), every record slot of
 * the crash files read back (record_verify.h) or the user's CHECK program
 * run in the mounted crash directory (for a black-box program: first its
 * RECOVER, then pmempool check on every PMDK pool there), umount, and the
 * filesystem's own read-only fsck. Its report on image N is one line, the JSON document the
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
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "../lib/filesystems.h"
#include "../proto/check_report.h"
#include "../proto/print_line.h"
#include "data_map.h"
#include "json_out.h"
#include "record_verify.h"


struct target {
	const char *fs;		/* this image's: a row of vm-images/filesystems */
	const char *dev;
	const char *mnt;
	const char *check;	/* the user's checker, or NULL for the record verifier */
	char **recover;	/* a black-box program's own recovery and its arguments, or NULL */
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

/*
 * Run argv with stdout and stderr into log, from directory dir, with
 * PMEM_ACKED and PMEM_PRINTED (what the program had acknowledged and printed
 * before the crash) when given; its exit status, or 128 + the signal that
 * killed it. After timeout seconds (0: none) it and what it started are
 * killed, and *timed_out says so.
 */
static int run(char *const argv[], const char *dir, const char *log, const char *acked, const char *printed,
	       int timeout, int *timed_out)
{
	double t0 = now_ms();
	pid_t pid;
	int status;

	if (timed_out)
		*timed_out = 0;

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
		if (printed)
			setenv("PMEM_PRINTED", printed, 1);
		setpgid(0, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (timeout) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (w < 0)
			return 127;
		if (now_ms() - t0 > timeout * 1e3) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			*timed_out = 1;
			break;
		}
		usleep(2000);
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
	return run(argv, NULL, "/tmp/fsck.log", NULL, NULL, 0, NULL);
}

/* What the program printed before the crash, for its recovery and checker. */
#define PRINTED_PATH "/tmp/printed"
/* Seconds a recovery may run; PMEM_RECOVER_TIMEOUT overrides (the host
 * gives a whole image 60 s). */
#define RECOVER_TIMEOUT 30

/* The first lines of a log (at most max bytes), and the first line that
 * reports a failed assertion: PMDK's ASSERT and assert(3) both say so. */
static void log_head(const char *path, char *head, size_t max, char *assertion, size_t amax)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t used = 0;
	int lines = 0;

	head[0] = assertion[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (lines++ < 10 && used < max)
			used += snprintf(head + used, max - used, "%s", line);
		if (!assertion[0] && strstr(line, "ssertion")) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(assertion, amax, "%s", line);
		}
	}
	if (f)
		fclose(f);
}

/* The program's own recovery, in the crash directory: "recover". */
static void recover(const struct target *t, const char *acked, FILE *out)
{
	const char *env = getenv("PMEM_RECOVER_TIMEOUT");
	char dir[PATH_MAX], head[1024], assertion[320];
	int timed_out, status;

	snprintf(dir, sizeof(dir), "%s/crash", t->mnt);
	/* A crash before the program made its directory durable leaves none:
	 * a restart would start from nothing, as the recovery does here. */
	mkdir(dir, 0755);
	status = run(t->recover, dir, "/tmp/recover.log", acked, PRINTED_PATH, env ? atoi(env) : RECOVER_TIMEOUT,
		     &timed_out);
	log_head("/tmp/recover.log", head, sizeof(head), assertion, sizeof(assertion));
	fprintf(out, ",\"recover\":{\"status\":%d,\"timed_out\":%s,\"output\":", status,
		timed_out ? "true" : "false");
	json_put_string(out, head);
	if (assertion[0]) {
		fputs(",\"assertion\":", out);
		json_put_string(out, assertion);
	}
	fputs("}", out);
}

/* A PMDK pool, by the signature its header starts with. */
static int is_pool(const char *path)
{
	char sig[11] = { 0 };
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, sig, sizeof(sig)) : -1;

	if (fd >= 0)
		close(fd);
	return (n >= 8 && (!memcmp(sig, "PMEMOBJ", 8) || !memcmp(sig, "PMEMBLK", 8) || !memcmp(sig, "PMEMLOG", 8))) ||
	       (n == 11 && !memcmp(sig, "PMEMPOOLSET", 11));
}

/* Every pool in the crash directory, checked by pmempool after the
 * recovery: "pools". pmempool check reads a pool's header and metadata,
 * not its objects. */
static void check_pools(const struct target *t, FILE *out)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const char *sep = "";
	struct dirent *e;
	struct stat sb;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/crash", t->mnt);
	d = opendir(dir);
	fputs(",\"pools\":[", out);
	while (d && (e = readdir(d)) && n < 16) {
		char *argv[] = { "pmempool", "check", path, NULL };
		int timed_out;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path) ||
		    e->d_name[0] == '.' || lstat(path, &sb) < 0 || !S_ISREG(sb.st_mode) || !is_pool(path))
			continue;
		fprintf(out, "%s{\"file\":", sep);
		json_put_string(out, e->d_name);
		fprintf(out, ",\"status\":%d}", run(argv, NULL, "/tmp/pmempool.log", NULL, NULL, 60, &timed_out));
		sep = ",";
		n++;
	}
	if (d)
		closedir(d);
	fputs("]", out);
}

/* The contents of the image: the user's checker ("user_check"), or every
 * crash file's slots ("files"). */
static void verify(const struct target *t, const char *bs, const char *acked, char *files, FILE *out)
{
	char path[PATH_MAX], first[PATH_MAX] = "", *f, *save, *name = NULL;
	const char *sep = "";

	if (t->check) {
		char *argv[] = { (char *)t->check, NULL };

		snprintf(path, sizeof(path), "%s/crash", t->mnt);
		fprintf(out, ",\"user_check\":%d", run(argv, path, "/tmp/check.log", acked, PRINTED_PATH, 0, NULL));
		return;
	}
	fputs(",\"files\":[", out);
	for (f = strtok_r(files, " ", &save); f; f = strtok_r(NULL, " ", &save), sep = ",") {
		fputs(sep, out);
		snprintf(path, sizeof(path), "%s/%s", t->mnt, f);
		record_verify_json(path, f, strtoul(bs, NULL, 0), out);
		if (!name) {
			name = f;
			snprintf(first, sizeof(first), "%s", path);
		}
	}
	fputs("]", out);
	/* Where its records lie, for an ADR run's ack() without an address. */
	if (name)
		data_map_json(first, name, t->dev, out);
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
		/* A black box: its recovery, then its pools; then its checker, if any. */
		if (t->recover) {
			recover(t, acked, out);
			check_pools(t, out);
		}
		if (!t->recover || t->check)
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

/* The lines the program printed before this image's crash point, which
 * follow the image's line, into PRINTED_PATH: 0, or -1. */
static int receive_printed(int ctl, size_t n)
{
	FILE *f = fopen(PRINTED_PATH, "w");
	char line[PRINT_TEXT_MAX + 64];
	int ret = f ? 0 : -1;

	for (size_t i = 0; i < n && !ret; i++) {
		if (channel_read_line(ctl, line, sizeof(line)) < 0 ||
		    strncmp(line, PRINTED_LINE_PREFIX, strlen(PRINTED_LINE_PREFIX)))
			ret = -1;
		else
			fprintf(f, "%s\n", line + strlen(PRINTED_LINE_PREFIX));
	}
	if (f && fclose(f))
		ret = -1;
	if (ret)
		fprintf(stderr, "pmem-checker: the %zu printed lines of an image did not come\n", n);
	return ret;
}

int main(int argc, char **argv)
{
	struct target t;
	char line[4096];
	int ctl;

	if (argc < 3) {
		fprintf(stderr, "usage: pmem-checker DEV MNT [CHECK|- [RECOVER [ARG...]]]\n");
		return 2;
	}
	t = (struct target){ NULL, argv[1], argv[2], argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL,
			     argc > 4 ? argv + 4 : NULL };
	ctl = channel_open(CHANNEL_CTL);
	if (ctl < 0)
		return 1;
	for (;;) {
		char fs[16], bs[32], acked[32];
		unsigned long id;
		size_t printed;
		int n = 0;

		if (channel_printf(ctl, "next\n") < 0 || channel_read_line(ctl, line, sizeof(line)) < 0)
			return 1;
		if (!strcmp(line, "done"))
			return 0;
		if (sscanf(line, "image %lu %15s %31s %31s %zu %n", &id, fs, bs, acked, &printed, &n) != 5 || !n ||
		    !fs_find(fs)) {
			fprintf(stderr, "pmem-checker: unexpected reply '%s'\n", line);
			return 1;
		}
		t.fs = fs;
		if (receive_printed(ctl, printed) < 0 || check_image(ctl, &t, id, bs, acked, line + n) < 0)
			return 1;
	}
}
