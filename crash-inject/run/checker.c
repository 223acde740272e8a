// SPDX-License-Identifier: GPL-2.0
/*
 * Checker guests, host side: see checker.h; the guest side is
 * workloads/checker.c.
 *
 * Each guest slot is a child process that runs checker guests, one after
 * another (a fresh one when one dies), and relays between its guest and the
 * pool over a socketpair:
 *
 *   slot -> pool   "next <nvdimm>"          the guest wants an image, written there
 *                  "report <i> <len>" + len bytes   the guest's report on item i
 *                  "failed <i> <kind> <why>"   the guest died on item i (-1: none);
 *                                           kind "image": it hung or its kernel failed
 *                                           there; "guest": QEMU went away without
 *                                           a kernel failure (killed from outside)
 *                  "boot <seconds>"         a guest came up
 *   pool -> slot   "image <i> <fs> <bs> <acked> <printed> <files>"   written, check it,
 *                  then <printed> lines "> <text>": what the program printed
 *                  "done"                   let the guest power off
 *
 * The report is the one line, a JSON document on item i (schema in
 * crash-inject/judge/judge.h), the guest sent on the control port; the slot
 * bounds it and the pool loads and judges it, so an image's verdict exists
 * as soon as its check ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../image.h"
#include "../judge/layout.h"
#include "../judge/check_block.h"
#include "checker.h"
#include "../../lib/shell_word.h"
#include "../../proto/print_line.h"
#include "../../lib/cache_dir.h"
#include "../../lib/fd_write.h"
#include "../../lib/rundir.h"
#include "../../vm/saved_boot.h"
#include "../../vm/vm.h"

#define CHECK_BOOT_TIMEOUT 120
/* Seconds one image may take in the checker; PMEM_CHECK_IMAGE_TIMEOUT overrides. */
#define CHECK_IMAGE_TIMEOUT 60
/* Guests a slot boots before it gives up: each death has cost one image. */
#define SLOT_MAX_GUESTS 16

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the slot: one child process, its guests one after another ---- */

struct slot {
	const struct checker_options *o;
	int fd;			/* to the pool */
	FILE *from_pool;
	char nvdimm[PATH_MAX];
	long current;		/* item being checked, or -1 */
	double t_start, t_served, limit;
	int asked, hung, stop;
	struct check_block block;	/* the report being received */
};

static void slot_tick(void *ctx, struct vm *vm)
{
	struct slot *sl = ctx;

	if (sl->current >= 0 && now_s() - sl->t_served > sl->limit) {
		sl->hung = 1;
		vm_kill(vm);
	}
}

static void slot_ask(struct slot *sl, struct vm *vm)
{
	char line[4096], *nl;
	size_t printed;

	if (!sl->asked) {
		dprintf(sl->fd, "boot %.3f\n", now_s() - sl->t_start);
		sl->asked = 1;
	}
	dprintf(sl->fd, "next %s\n", sl->nvdimm);
	if (!fgets(line, sizeof(line), sl->from_pool) || !strcmp(line, "done\n")) {
		sl->stop = 1;
		sl->current = -1;
		vm_reply(vm, "done\n");
		return;
	}
	if ((nl = strchr(line, '\n')))
		*nl = '\0';
	sl->current = strtol(line + 6, NULL, 10);
	sl->t_served = now_s();
	vm_reply(vm, "%s\n", line);
	/* The lines the program printed go after it (proto/print_line.h). */
	if (sscanf(line, "image %*u %*s %*s %*s %zu", &printed) == 1)
		for (size_t k = 0; k < printed && fgets(line, sizeof(line), sl->from_pool); k++)
			vm_reply(vm, "%s", line);
}

static void slot_line(void *ctx, struct vm *vm, const char *line)
{
	struct slot *sl = ctx;

	if (!strcmp(line, "next")) {
		slot_ask(sl, vm);
		return;
	}
	if (sl->current >= 0 && check_block_line(&sl->block, sl->current, line)) {
		dprintf(sl->fd, "report %ld %zu\n", sl->current, sl->block.len);
		write_all(sl->fd, sl->block.doc, sl->block.len);
		sl->current = -1;
	}
}

/* The checker's job is a file in the guest image (vm-images/guest/checker-job.sh);
 * a user's checker goes with it as data, /tmp/in/check. */
static const char checker_job[] = "exec sh /usr/share/pmem/checker-job.sh\n";

static int slot_main(const struct checker_options *o, int index, int fd)
{
	const char *env = getenv("PMEM_CHECK_IMAGE_TIMEOUT");
	struct slot sl = { .o = o, .fd = fd, .current = -1, .limit = env ? atof(env) : CHECK_IMAGE_TIMEOUT };
	/* The report is one line, up to the bound: taken whole. */
	struct vm_hooks hooks = { .ctx = &sl, .on_line = slot_line, .line_max = CHECK_BLOCK_MAX,
				  .on_tick = slot_tick, .tick_ms = 500 };
	struct vm_file files[2];
	char boots[PATH_MAX];
	char *script = NULL;
	size_t nfiles = 0, slen = 0;
	FILE *f;
	int attempt;

	/* A user's checker and a black-box program's recovery go as data. */
	if (o->check)
		files[nfiles++] = (struct vm_file){ .name = "check", .mode = 0755, .path = o->check };
	if (o->recover)
		files[nfiles++] = (struct vm_file){ .name = "recover", .mode = 0755, .path = o->recover };
	f = open_memstream(&script, &slen);
	if (!f)
		return 1;
	if (o->recover) {
		fputs("export PMEM_RECOVER_ARGS=", f);
		shell_word(f, o->recover_args ? o->recover_args : "");
		fputc('\n', f);
		/* How long a recovery may run in the guest (30 s unless set). */
		if (getenv("PMEM_RECOVER_TIMEOUT") && atoi(getenv("PMEM_RECOVER_TIMEOUT")) > 0)
			fprintf(f, "export PMEM_RECOVER_TIMEOUT=%d\n", atoi(getenv("PMEM_RECOVER_TIMEOUT")));
	}
	fputs(checker_job, f);
	fclose(f);
	sl.from_pool = fdopen(dup(fd), "r");
	if (!sl.from_pool)
		return 1;
	snprintf(boots, sizeof(boots), "%s/saved-boots", cache_dir());
	for (attempt = 0; !sl.stop && attempt < SLOT_MAX_GUESTS; attempt++) {
		char rdir[PATH_MAX], kpath[PATH_MAX], ipath[PATH_MAX];
		struct vm_options vo;
		struct vm_result r;

		snprintf(rdir, sizeof(rdir), "%s/checker-%d.%d", o->dir, index, attempt);
		if (run_dir_make(rdir, sl.nvdimm, sizeof(sl.nvdimm)) < 0) {
			dprintf(fd, "failed -1 guest %s\n", sl.nvdimm);
			break;
		}
		snprintf(sl.nvdimm, sizeof(sl.nvdimm), "%s/nvdimm.img", rdir);
		if (image_copy(o->golden, sl.nvdimm) < 0 ||
		    vm_options_flavour(&vo, o->build, o->kernel, o->accel, CRASH_INITRAMFS, sl.nvdimm, kpath, ipath) < 0) {
			dprintf(fd, "failed -1 guest cannot set up a checker guest in %s\n", rdir);
			break;
		}
		/* A console that only says what the watchdog looks for
		 * (warnings and worse): under TCG every byte of boot chatter
		 * on the serial port costs. */
		vo.qemu.append = "loglevel=5";
		/* Reading an image's log and metadata costs less (vm.h). */
		vo.qemu.cpu = CRASH_CPU;
		vo.boot_timeout = CHECK_BOOT_TIMEOUT;
		vo.run_timeout = 7 * 24 * 3600; /* it waits for the pool between sets */
		vo.script = script;
		vo.files = nfiles ? files : NULL;
		vo.nfiles = nfiles;
		vo.run_dir = rdir;
		vo.hooks = &hooks;
		sl.t_start = now_s();
		sl.asked = sl.hung = 0;
		vm_run_saved(&vo, o->golden, boots, &r);
		unlink(sl.nvdimm);
		if (r.status == VM_OK && sl.stop)
			break;
		/* A fresh guest goes on; the pool decides what the image gets. */
		dprintf(fd, "failed %ld %s %s\n", sl.current,
			!sl.hung && (r.status == VM_NO_EXIT || r.status == VM_QEMU_FAILED) ? "guest" : "image",
			sl.hung ? "the checker hung on this image and was killed" :
			r.message[0] ? r.message : vm_status_name(r.status));
		sl.current = -1;
	}
	free(script);
	return 0;
}

/* ---- the pool ---- */

struct share {
	pid_t pid;
	int fd;
	char *buf;		/* what the slot sent, not yet handled */
	size_t len, cap;
	char nvdimm[PATH_MAX];
	struct check_set *set;	/* of the item it checks */
	long current;		/* that item, or -1 */
	double t_served;
	int waiting;		/* asked for an image, not yet answered */
	int guests;
	double boot_s;
};

struct checker_pool {
	struct checker_options o;
	struct share shares[CHECK_MAX_PARALLEL];
	int n;
	/* the set being checked */
	struct check_set *set;
	size_t next;		/* the first item not yet handed out */
	size_t outstanding;	/* handed out, not yet judged */
	/* Items whose guest was killed from outside go again, once, to another. */
	size_t retry[64], nretry;
	int draining;		/* hand out nothing more: the set is given up */
	/* Seconds during which some item was out with a guest, up to t_busy */
	double busy_s, t_busy;
};

static json_t *failure(const char *why)
{
	return json_pack("{s:s, s:s}", "verdict", "fs-corrupt", "checker_failure", why);
}

struct checker_pool *checker_pool_start(const struct checker_options *o)
{
	struct checker_pool *p = calloc(1, sizeof(*p));
	int want = o->parallel > 1 ? o->parallel : 1;
	pid_t parent = getpid();

	if (!p)
		return NULL;
	p->o = *o;
	if (want > CHECK_MAX_PARALLEL)
		want = CHECK_MAX_PARALLEL;
	fflush(NULL);
	for (int k = 0; k < want; k++) {
		struct share *s = &p->shares[p->n];
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			break;
		s->pid = fork();
		if (s->pid == 0) {
			/* A slot, and so its guest, ends with crashtest. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
				_exit(1);
			close(sv[0]);
			signal(SIGPIPE, SIG_IGN);
			fflush(NULL);
			_exit(slot_main(&p->o, k, sv[1]));
		}
		close(sv[1]);
		if (s->pid < 0) {
			close(sv[0]);
			break;
		}
		s->fd = sv[0];
		s->current = -1;
		p->n++;
	}
	if (!p->n) {
		fprintf(stderr, "crashtest: no checker process could be started: %s\n", strerror(errno));
		free(p);
		return NULL;
	}
	return p;
}

static void judge_report(struct check_set *set, long i, const char *text, size_t len)
{
	struct check_item *it = &set->items[i];
	struct check_report r;
	char why[200], msg[512];

	if (check_report_load(text, len, i, &r, &it->phases, why, sizeof(why)) < 0) {
		if (!it->verdict) {
			snprintf(msg, sizeof(msg), "the checker's report on this image is refused (%s): "
				 "rerun it with the image's recheck command and read its guest.log", why);
			it->verdict = failure(msg);
		}
		return;
	}
	if (!it->verdict)
		it->verdict = judge(&r, set->acks, it->acked < set->nacks ? it->acked : set->nacks);
	/* Kept for the ADR attribution of records acknowledged without an address. */
	if (!it->map) {
		it->map = r.map;
		r.map = NULL;
	}
	check_report_free(&r);
}

/* The share's item is over, judged or not. */
static void finish(struct checker_pool *p, struct share *s, const char *why)
{
	if (s->current < 0)
		return;
	if (why && !s->set->items[s->current].verdict)
		s->set->items[s->current].verdict = failure(why);
	s->current = -1;
	if (p->outstanding)
		p->outstanding--;
}

/* Write item i into the share's guest and tell it; 0, or -1 (judged). */
static int hand_over(struct checker_pool *p, struct share *s, size_t i)
{
	struct check_set *set = p->set;
	struct check_item *it = &set->items[i];
	double t = now_s();

	if (set->write_image(set->ctx, i, s->nvdimm) < 0) {
		/* A full disk is the host's fault, not the image's. */
		if (errno == ENOSPC || errno == EDQUOT)
			run_error_set(&set->disk_full, errno, "writing image %zu into the checker's %s failed: %s",
				      i, s->nvdimm, strerror(errno));
		else
			it->verdict = failure("could not write the image into the checker");
		return -1;
	}
	it->phases.ms[PHASE_WRITE] = (now_s() - t) * 1e3;
	dprintf(s->fd, "image %zu %s %zu %zu %zu %s\n", i, set->fs, crash_record_size(set->acks, set->nacks),
		it->acked, set->printed ? it->printed : 0, CRASH_DATA_FILE);
	for (size_t k = 0; set->printed && k < it->printed; k++)
		dprintf(s->fd, PRINTED_LINE_PREFIX "%s\n", set->printed[k]);
	s->set = set;
	s->current = i;
	s->t_served = now_s();
	s->waiting = 0;
	p->outstanding++;
	return 0;
}

/* Hand the share the next image of the set (one to retry first), or park it. */
static void serve(struct checker_pool *p, struct share *s)
{
	struct check_set *set = p->draining ? NULL : p->set;

	while (set && !set->disk_full.code && p->nretry)
		if (hand_over(p, s, p->retry[--p->nretry]) == 0)
			return;
	for (; set && !set->disk_full.code && p->next < set->nready; p->next++) {
		struct check_item *it = &set->items[p->next];

		if (it->same_as >= 0 || it->verdict)
			continue;
		if (hand_over(p, s, p->next) == 0) {
			p->next++;
			return;
		}
	}
	s->waiting = 1;
}

/* One message from the slot, if whole: its length, or 0. */
static size_t handle(struct checker_pool *p, struct share *s)
{
	char *nl = memchr(s->buf, '\n', s->len), *line = s->buf;
	size_t head;
	long i;

	if (!nl)
		return 0;
	*nl = '\0';
	head = nl + 1 - s->buf;
	if (!strncmp(line, "next ", 5)) {
		if (s->current >= 0) {
			struct check_phases *ph = &s->set->items[s->current].phases;

			ph->ms[PHASE_ROUND] = (now_s() - s->t_served) * 1e3;
			ph->have_round = 1;
			finish(p, s, "the checker never reported on this image");
		}
		snprintf(s->nvdimm, sizeof(s->nvdimm), "%s", line + 5);
		serve(p, s);
	} else if (!strncmp(line, "report ", 7)) {
		size_t len;

		if (sscanf(line + 7, "%ld %zu", &i, &len) != 2 || len > CHECK_BLOCK_MAX)
			return head;
		if (s->len < head + len) {
			*nl = '\n';
			return 0; /* the rest is on its way */
		}
		if (i == s->current)
			judge_report(s->set, i, s->buf + head, len);
		return head + len;
	} else if (!strncmp(line, "failed ", 7)) {
		char *why;
		int outside;

		i = strtol(line + 7, &why, 10);
		while (*why == ' ')
			why++;
		outside = !strncmp(why, "guest ", 6);
		why += strcspn(why, " ");
		while (*why == ' ')
			why++;
		if (i >= 0 && i == s->current && outside && !s->set->items[i].retried &&
		    p->nretry < sizeof(p->retry) / sizeof(p->retry[0])) {
			/* Not the image's doing: it goes to the next guest that asks. */
			fprintf(stderr, "crashtest: checker %d stopped on image %ld (%s); retrying it in a fresh checker\n",
				(int)(s - p->shares), i, why);
			s->set->items[i].retried = 1;
			p->retry[p->nretry++] = i;
			s->current = -1;
			p->outstanding--;
		} else if (i >= 0 && i == s->current) {
			finish(p, s, why);
		} else if (i < 0) {
			fprintf(stderr, "crashtest: checker %d: %s\n", (int)(s - p->shares), why);
		}
		s->waiting = 0;
	} else if (!strncmp(line, "boot ", 5)) {
		s->guests++;
		s->boot_s += atof(line + 5);
	}
	return head;
}

/* Read what the share sent and handle every whole message; -1 at its end. */
static int pump(struct checker_pool *p, struct share *s)
{
	ssize_t n;
	size_t used;

	if (s->cap - s->len < 65536) {
		s->cap = s->cap ? 2 * s->cap : 1 << 20;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			abort();
	}
	n = read(s->fd, s->buf + s->len, s->cap - s->len);
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		close(s->fd);
		s->fd = -1;
		finish(p, s, "the checker's process ended on this image");
		return -1;
	}
	s->len += n;
	while (s->len && (used = handle(p, s))) {
		memmove(s->buf, s->buf + used, s->len - used);
		s->len -= used;
	}
	return 0;
}

/* Seconds with an item out, counted up to now. */
static void count_busy(struct checker_pool *p)
{
	double t = now_s();

	if (p->outstanding)
		p->busy_s += t - p->t_busy;
	p->t_busy = t;
}

void checker_pool_begin(struct checker_pool *p, struct check_set *s)
{
	p->set = s;
	p->next = 0;
	p->outstanding = 0;
	p->nretry = 0;
	p->draining = 0;
	p->busy_s = 0;
	p->t_busy = now_s();
	for (size_t i = 0; i < s->nitems; i++)
		s->items[i].retried = 0;
}

int checker_pool_fds(const struct checker_pool *p, struct pollfd *fds, int max)
{
	int k;

	for (k = 0; k < p->n && k < max; k++)
		fds[k] = (struct pollfd){ .fd = p->shares[k].fd, .events = POLLIN };
	return k;
}

void checker_pool_step(struct checker_pool *p, const struct pollfd *fds, int n)
{
	int k;

	count_busy(p);
	for (k = 0; fds && k < n && k < p->n; k++)
		if (fds[k].fd >= 0 && fds[k].fd == p->shares[k].fd && fds[k].revents)
			pump(p, &p->shares[k]);
	/* A parked guest takes the next ready image, or stays parked. */
	for (k = 0; k < p->n; k++)
		if (p->shares[k].fd >= 0 && p->shares[k].waiting)
			serve(p, &p->shares[k]);
	count_busy(p);
}

double checker_pool_end(struct checker_pool *p, int rest)
{
	struct check_set *s = p->set;

	p->draining = !rest;
	for (;;) {
		struct pollfd fds[CHECK_MAX_PARALLEL];
		int k, alive = 0, n;

		checker_pool_step(p, NULL, 0);
		for (k = 0; k < p->n; k++)
			alive += p->shares[k].fd >= 0;
		if (!alive || (!p->outstanding && (s->disk_full.code || p->draining ||
						   (!p->nretry && p->next >= s->nready))))
			break;
		n = checker_pool_fds(p, fds, CHECK_MAX_PARALLEL);
		if (poll(fds, n, 1000) < 0 && errno != EINTR)
			break;
		checker_pool_step(p, fds, n);
	}
	p->set = NULL;
	p->draining = 0;
	return p->busy_s;
}

void checker_pool_check(struct checker_pool *p, struct check_set *s)
{
	s->nready = s->nitems;
	checker_pool_begin(p, s);
	checker_pool_end(p, 1);
}

void checker_pool_ready(struct checker_pool *p)
{
	for (;;) {
		struct pollfd fds[CHECK_MAX_PARALLEL];
		int k, booting = 0;

		for (k = 0; k < p->n; k++) {
			fds[k] = (struct pollfd){ .fd = p->shares[k].fd, .events = POLLIN };
			booting += p->shares[k].fd >= 0 && !p->shares[k].waiting;
		}
		if (!booting || (poll(fds, p->n, 1000) < 0 && errno != EINTR))
			return;
		for (k = 0; k < p->n; k++)
			if (fds[k].fd >= 0 && fds[k].revents)
				pump(p, &p->shares[k]);
	}
}

void checker_pool_stop(struct checker_pool *p, int *guests, double *boot_s)
{
	int k, alive;

	*guests = 0;
	*boot_s = 0;
	p->set = NULL;
	do {
		struct pollfd fds[CHECK_MAX_PARALLEL];

		alive = 0;
		for (k = 0; k < p->n; k++) {
			struct share *s = &p->shares[k];

			if (s->fd >= 0 && s->waiting) {
				dprintf(s->fd, "done\n");
				s->waiting = 0;
			}
			fds[k] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
			alive += s->fd >= 0;
		}
		if (alive && poll(fds, p->n, 1000) >= 0)
			for (k = 0; k < p->n; k++)
				if (fds[k].fd >= 0 && fds[k].revents)
					pump(p, &p->shares[k]);
	} while (alive);
	for (k = 0; k < p->n; k++) {
		waitpid(p->shares[k].pid, NULL, 0);
		*guests += p->shares[k].guests;
		if (p->shares[k].boot_s > *boot_s)
			*boot_s = p->shares[k].boot_s;
		free(p->shares[k].buf);
	}
	free(p);
}

void checker_run(const struct checker_options *o, struct check_set *s)
{
	struct checker_pool *p = checker_pool_start(o);
	int guests;
	double boot;

	if (!p)
		return;
	checker_pool_check(p, s);
	checker_pool_stop(p, &guests, &boot);
}

int checker_default_parallel(void)
{
	const char *env = getenv("PMEM_CHECKERS");
	long n = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 4 && !env ? 4 : n > CHECK_MAX_PARALLEL ? CHECK_MAX_PARALLEL : (int)n;
}
