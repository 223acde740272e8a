// SPDX-License-Identifier: GPL-2.0
/*
 * One guest's life. The harness listens on three unix sockets in a private
 * 0700 directory (QMP, the "pmem.ctl" port, the "pmem.out" port); QEMU
 * connects to them as a client, so no connection races the guest's boot.
 * The console arrives on QEMU's stdout and is logged and scanned line by line;
 * a panic, oops or BUG ends the guest at once. QEMU is always ended through
 * the pid we forked, never by name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/fd_write.h"
#include "../proto/job_files.h"
#include "guest_events.h"
#include "qmp.h"
#include "vm.h"

#define QEMU_CONNECT_MS 15000
#define POWEROFF_GRACE_MS 15000
/* What one guest may write to each log before it is stopped as a flood:
 * far more than any job of ours prints, far less than a shared disk. */
#define LOG_MAX_DEFAULT (256ULL << 20)
/* What a NUL byte from the guest becomes in a line: DEL, which no protocol
 * line holds and quotes print as '?'. */
#define LINE_NUL '\x7f'

/* The longest line a log or port is split into by default; longer ones
 * reach their reader in pieces of this size. */
#define LINE_MAX_DEFAULT 8191

/* A line being received: buf grows on demand up to max + 1 bytes. */
struct linebuf {
	char *buf;
	size_t len, cap;
	size_t max;		/* the longest line taken whole */
	size_t seen;		/* bytes of buf already searched for '\n' */
};

struct vm {
	struct vm_options *o;
	struct vm_result *r;
	char rundir[64];
	char qmp_path[128], ctl_path[128], out_path[128];
	int qmp_lfd, ctl_lfd, out_lfd;
	int con_fd, qmp_fd, ctl_fd, out_fd;
	FILE *console_log, *guest_log;
	unsigned long long log_max, console_bytes, guest_bytes;
	pid_t pid;
	int exited;		/* QEMU reaped */
	int wstatus;		/* and how it ended */
	int reported;		/* guest sent "exit" */
	int booted;
	int killed;		/* by a hook, on purpose */
	double t_start, t_hello, t_exit, t_tick;
	int *fault_fd;		/* PMEM_FAULT_PORT: the port to shut down, or NULL */
	const char *fault_port;
	unsigned long fault_after, ctl_lines;	/* control lines before the fault; so far */
	struct qmp qmp;
	struct linebuf con_line, ctl_line;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void set_message(struct vm *vm, enum vm_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_message(struct vm *vm, enum vm_status s, const char *fmt, ...)
{
	va_list ap;

	if (vm->r->message[0])
		return; /* keep the first cause */
	vm->r->status = s;
	va_start(ap, fmt);
	vsnprintf(vm->r->message, sizeof(vm->r->message), fmt, ap);
	va_end(ap);
}

static int reap(struct vm *vm, int options)
{
	if (vm->exited)
		return 1;
	if (waitpid(vm->pid, &vm->wstatus, options) == vm->pid) {
		vm->exited = 1;
		return 1;
	}
	return 0;
}

/* Accept QEMU's connection on one socket, watching that QEMU still lives. */
static int accept_from_qemu(struct vm *vm, int lfd)
{
	double deadline = now() + QEMU_CONNECT_MS / 1000.0;

	while (now() < deadline) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		if (poll(&p, 1, 200) > 0)
			return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (reap(vm, WNOHANG))
			return -1;
	}
	return -1;
}

static int spawn_qemu(struct vm *vm, struct argv *argv)
{
	char path[PATH_MAX];
	int pipefd[2], errfd;
	pid_t parent;

	snprintf(path, sizeof(path), "%s/qemu.log", vm->o->run_dir);
	errfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (errfd < 0 || pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	parent = getpid();
	vm->pid = fork();
	if (vm->pid < 0)
		return -1;
	if (vm->pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		/* QEMU dies with us: a harness killed with -9 leaves no guest
		 * behind to hold the NVDIMM file and a core. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);

		dup2(devnull, 0);
		dup2(pipefd[1], 1);
		dup2(errfd, 2);
		execvp(argv->v[0], argv->v);
		dprintf(2, "exec %s: %s\n", argv->v[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	close(errfd);
	vm->con_fd = pipefd[0];
	return 0;
}

/* One input file: its line, then its bytes; 0, or -1 with why. */
static int send_file(struct vm *vm, const struct vm_file *f, char *why, size_t whylen)
{
	char buf[65536];
	struct stat st;
	size_t n;
	FILE *in;
	int rc = 0;

	if (!job_file_name_ok(f->name) || !job_file_mode_ok(f->mode)) {
		snprintf(why, whylen, "%.64s is no name for a guest's input file", f->name);
		return -1;
	}
	if (!f->path) {
		dprintf(vm->ctl_fd, JOB_FILE_FMT, f->name, f->mode, f->len);
		return write_all(vm->ctl_fd, f->data, f->len) ? snprintf(why, whylen, "the guest took no more"), -1 : 0;
	}
	in = fopen(f->path, "rb");
	if (!in || fstat(fileno(in), &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > JOB_FILE_MAX) {
		snprintf(why, whylen, "%s is not a readable file of at most %lu MiB", f->path, JOB_FILE_MAX >> 20);
		if (in)
			fclose(in);
		return -1;
	}
	dprintf(vm->ctl_fd, JOB_FILE_FMT, f->name, f->mode, (size_t)st.st_size);
	for (size_t left = st.st_size; left && !rc; left -= n) {
		n = fread(buf, 1, left < sizeof(buf) ? left : sizeof(buf), in);
		rc = !n || write_all(vm->ctl_fd, buf, n) ? -1 : 0;
		if (!n)
			break;
	}
	fclose(in);
	if (rc)
		snprintf(why, whylen, "%s changed while it was sent, or the guest took no more", f->path);
	return rc;
}

/* The input files, then the job script (proto/job_files.h). */
static void send_script(struct vm *vm)
{
	size_t len = strlen(vm->o->script);
	char why[300];

	for (size_t i = 0; i < vm->o->nfiles; i++)
		if (send_file(vm, &vm->o->files[i], why, sizeof(why)) < 0) {
			set_message(vm, VM_NO_EXIT, "could not send the guest its input file %s: %s",
				    vm->o->files[i].name, why);
			return;
		}
	dprintf(vm->ctl_fd, "script %zu\n", len);
	if (write_all(vm->ctl_fd, vm->o->script, len) < 0)
		set_message(vm, VM_NO_EXIT, "could not send the job script to the guest");
}

/* "exit <status>": a shell's status, 0 to 255, and nothing else. */
static int parse_exit(const char *line, int *rc)
{
	char *end;
	long v;

	if (strncmp(line, "exit ", 5) || line[5] < '0' || line[5] > '9')
		return 0;
	errno = 0;
	v = strtol(line + 5, &end, 10);
	if (errno || *end || v > 255)
		return 0;
	*rc = (int)v;
	return 1;
}

static int vm_qmp_simple(struct vm *vm, const char *command);

/* Wait for QMP query's "status" to leave the states in busy (a
 * NULL-terminated list): the status, or NULL after timeout_ms. */
static const char *qmp_wait_status(struct vm *vm, const char *query, const char *const *busy, int timeout_ms,
				   char *status, size_t len)
{
	double deadline = now() + timeout_ms / 1000.0;

	while (now() < deadline) {
		json_t *ret = qmp_execute(&vm->qmp, query, NULL, 5000);
		const char *s = json_string_value(json_object_get(ret, "status"));
		int waiting = 0;

		snprintf(status, len, "%s", s ? s : "");
		json_decref(ret);
		if (!ret)
			return NULL;
		for (const char *const *b = busy; *b; b++)
			waiting |= !strcmp(status, *b);
		if (!waiting)
			return status;
		poll(NULL, 0, 10);
	}
	return NULL;
}

/* QEMU's migration leaves out shared memory (the NVDIMMs): set on both ends. */
static int ignore_shared(struct vm *vm)
{
	json_t *args = json_pack("{s:[{s:s, s:b}]}", "capabilities", "capability", "x-ignore-shared", "state", 1);
	json_t *ret = qmp_execute(&vm->qmp, "migrate-set-capabilities", args, 5000);

	json_decref(args);
	json_decref(ret);
	return ret ? 0 : -1;
}

/*
 * At the guest's hello: stop it, save it into o->save_state (a file beside
 * it first, renamed when whole, so a reader never sees half of one), its
 * kernel release into save_state.hello, and end QEMU.
 */
static void save_state(struct vm *vm)
{
	static const char *const busy[] = { "setup", "active", "device", "none", NULL };
	const char *path = vm->o->save_state;
	char tmp[PATH_MAX + 32], hello[PATH_MAX + 8], hello_tmp[PATH_MAX + 40], uri[PATH_MAX + 40], status[32];
	struct timespec ts;
	json_t *args, *ret;
	FILE *f;

	/* Unique among the guests saving the same boot at once. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(tmp, sizeof(tmp), "%s.%d.%ld.tmp", path, (int)getpid(), ts.tv_nsec);
	snprintf(hello, sizeof(hello), "%s.hello", path);
	snprintf(uri, sizeof(uri), "file:%s", tmp);
	if (vm_qmp_simple(vm, "stop") < 0 || ignore_shared(vm) < 0) {
		set_message(vm, VM_QEMU_FAILED, "could not stop the guest to save it; QEMU's messages are in %s/qemu.log",
			    vm->o->run_dir);
		vm->r->state_failed = 1;
		return;
	}
	args = json_pack("{s:s}", "uri", uri);
	ret = qmp_execute(&vm->qmp, "migrate", args, 5000);
	json_decref(args);
	json_decref(ret);
	if (!ret || !qmp_wait_status(vm, "query-migrate", busy, 120000, status, sizeof(status)) ||
	    strcmp(status, "completed")) {
		unlink(tmp);
		set_message(vm, VM_QEMU_FAILED, "could not save the guest into %s (migration %s); QEMU's messages are in %s/qemu.log",
			    path, ret ? status : "refused", vm->o->run_dir);
		vm->r->state_failed = 1;
		return;
	}
	/* The release beside it, whole before it is named, as the state is. */
	snprintf(hello_tmp, sizeof(hello_tmp), "%s.hello", tmp);
	f = fopen(hello_tmp, "w");
	if (!f || fprintf(f, "%s\n", vm->r->kernel_release) < 0 || fclose(f) || rename(hello_tmp, hello) < 0 ||
	    rename(tmp, path) < 0) {
		set_message(vm, VM_QEMU_FAILED, "could not write %s: %s", path, strerror(errno));
		vm->r->state_failed = 1;
		unlink(hello_tmp);
		unlink(tmp);
		return;
	}
	vm_kill(vm);
	vm->r->status = VM_SAVED;
}

/*
 * Start the guest o->restore_state holds and send it its job: it was saved
 * at its hello, so it waits for one. Its boot_seconds is the restore's.
 */
static int restore_state(struct vm *vm)
{
	static const char *const busy[] = { "inmigrate", NULL };
	char uri[PATH_MAX + 8], hello[PATH_MAX + 8], release[128] = "", status[32];
	json_t *args, *ret;
	FILE *f;

	snprintf(uri, sizeof(uri), "file:%s", vm->o->restore_state);
	snprintf(hello, sizeof(hello), "%s.hello", vm->o->restore_state);
	f = fopen(hello, "r");
	if (!f || !fgets(release, sizeof(release), f)) {
		if (f)
			fclose(f);
		set_message(vm, VM_QEMU_FAILED, "cannot read %s: the saved guest is incomplete", hello);
		vm->r->state_failed = 1;
		return -1;
	}
	fclose(f);
	release[strcspn(release, "\n")] = '\0';
	args = json_pack("{s:s}", "uri", uri);
	ret = ignore_shared(vm) < 0 ? NULL : qmp_execute(&vm->qmp, "migrate-incoming", args, 5000);
	json_decref(args);
	json_decref(ret);
	if (!ret || !qmp_wait_status(vm, "query-status", busy, 120000, status, sizeof(status)) ||
	    (strcmp(status, "running") && vm_qmp_simple(vm, "cont") < 0)) {
		set_message(vm, VM_QEMU_FAILED, "QEMU could not restore the saved guest %s (%s)", vm->o->restore_state,
			    !ret ? "migrate-incoming refused" : status[0] ? status : "QEMU ended");
		vm->r->state_failed = 1;
		return -1;
	}
	/* As if the guest had said hello (PMEM_FAULT_PORT counts it). */
	vm->ctl_lines++;
	vm->booted = 1;
	vm->t_hello = now();
	vm->r->boot_seconds = vm->t_hello - vm->t_start;
	snprintf(vm->r->kernel_release, sizeof(vm->r->kernel_release), "%s", release);
	send_script(vm);
	return 0;
}

static void on_ctl_line(struct vm *vm, const char *line)
{
	int rc;

	vm->ctl_lines++;
	/* Once each: a guest that says hello again would be sent the job again. */
	if (!strncmp(line, "hello ", 6) && !vm->booted) {
		vm->booted = 1;
		vm->t_hello = now();
		vm->r->boot_seconds = vm->t_hello - vm->t_start;
		snprintf(vm->r->kernel_release, sizeof(vm->r->kernel_release), "%s", line + 6);
		if (vm->o->save_state)
			save_state(vm);
		else
			send_script(vm);
	} else if (!vm->reported && parse_exit(line, &rc)) {
		vm->reported = 1;
		vm->t_exit = now();
		vm->r->guest_exit = rc;
		vm->r->run_seconds = now() - vm->t_hello;
	}
	else if (vm->o->hooks && vm->o->hooks->on_line) {
		vm->o->hooks->on_line(vm->o->hooks->ctx, vm, line);
	}
}

static void on_console_line(struct vm *vm, const char *line)
{
	enum console_event e = console_scan_line(line);

	if (e > vm->r->worst_event) {
		vm->r->worst_event = e;
		snprintf(vm->r->event_line, sizeof(vm->r->event_line), "%s", line);
	}
	if (console_event_is_fatal(e))
		set_message(vm, VM_KERNEL_FAILURE, "guest kernel %s: \"%s\"; console log: %s/console.log",
			    console_event_name(e), line, vm->o->run_dir);
}

/* Append to a log up to the guest's allowance; past it the guest is
 * stopped, and what it wrote so far stays for the user to read. */
static void log_guest(struct vm *vm, FILE *log, unsigned long long *bytes, const char *what,
		      const char *file, const char *buf, size_t n)
{
	if (*bytes + n > vm->log_max) {
		n = *bytes < vm->log_max ? vm->log_max - *bytes : 0;
		set_message(vm, VM_FLOODED,
			    "guest flooded its %s: more than %llu MiB, stopped; the first %llu MiB are in %s/%s",
			    what, vm->log_max >> 20, vm->log_max >> 20, vm->o->run_dir, file);
	}
	fwrite(buf, 1, n, log);
	*bytes += n;
}

/* Read what is there; split complete lines. Returns 0 on EOF. */
static int read_lines(int fd, struct linebuf *lb, FILE *log, struct vm *vm,
		      void (*fn)(struct vm *, const char *))
{
	char *start, *nl;
	ssize_t n;

	/* Room for a read of a few KiB, up to the longest line taken whole. */
	if (lb->cap - lb->len < 4097 && lb->cap < lb->max + 1) {
		size_t want = lb->cap ? 2 * lb->cap : 8192;
		char *more;

		if (want > lb->max + 1)
			want = lb->max + 1;
		more = realloc(lb->buf, want);
		if (!more)
			abort();
		lb->buf = more;
		lb->cap = want;
	}
	n = read(fd, lb->buf + lb->len, lb->cap - lb->len - 1);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0)
		return 0;
	if (log)
		log_guest(vm, log, &vm->console_bytes, "console", "console.log", lb->buf + lb->len, n);
	/* A NUL is no byte of any line the host reads: left in, it would end
	 * the line early for the parsers and hide the newline after it, and
	 * with it every line that follows (a hostile guest's stall, or a
	 * panic unseen). The logs keep the bytes as they came. */
	for (char *p = lb->buf + lb->len; (p = memchr(p, '\0', lb->buf + lb->len + n - p)); p++)
		*p = LINE_NUL;
	lb->len += n;
	lb->buf[lb->len] = '\0';
	/* Only the new bytes are searched: a long line arrives in many reads. */
	start = lb->buf;
	for (char *p = lb->buf + lb->seen; (nl = memchr(p, '\n', lb->buf + lb->len - p)); p = start = nl + 1) {
		*nl = '\0';
		if (nl > start && nl[-1] == '\r')
			nl[-1] = '\0';
		fn(vm, start);
	}
	lb->len -= start - lb->buf;
	memmove(lb->buf, start, lb->len + 1);
	lb->seen = lb->len;
	if (lb->len == lb->max) { /* an endless line: take it as is */
		fn(vm, lb->buf);
		lb->len = lb->seen = 0;
	}
	return 1;
}

static int copy_out(struct vm *vm)
{
	char buf[8192];
	ssize_t n = read(vm->out_fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0)
		return 0;
	log_guest(vm, vm->guest_log, &vm->guest_bytes, "output", "guest.log", buf, n);
	if (vm->o->echo) {
		fwrite(buf, 1, n, vm->o->echo);
		fflush(vm->o->echo);
	}
	return 1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Whether QEMU is gone: its sockets close a moment before it can be reaped. */
static int qemu_gone(struct vm *vm)
{
	for (int i = 0; i < 100 && !vm->exited; i++)
		if (!reap(vm, WNOHANG))
			usleep(10000);
	return vm->exited;
}

/*
 * How QEMU ended, for the user's line: "" while it runs or when it exited
 * cleanly. Here the harness has not ended it: a signal came from outside (a
 * user, the OOM killer) or from the kernel (SIGBUS: the disk under the
 * NVDIMM file it maps filled up).
 */
static void qemu_end(struct vm *vm, char *buf, size_t size)
{
	int sig;

	buf[0] = '\0';
	if (!qemu_gone(vm))
		return;
	if (WIFSIGNALED(vm->wstatus)) {
		sig = WTERMSIG(vm->wstatus);
		snprintf(buf, size, ": QEMU (pid %d) was killed by signal %d (%s), not by the harness%s", (int)vm->pid,
			 sig, strsignal(sig), sig == SIGBUS ? "; is the disk under its NVDIMM file full?" : "");
	} else if (WIFEXITED(vm->wstatus) && WEXITSTATUS(vm->wstatus)) {
		snprintf(buf, size, ": QEMU (pid %d) exited with status %d (its messages: %s/qemu.log)", (int)vm->pid,
			 WEXITSTATUS(vm->wstatus), vm->o->run_dir);
	}
}

/*
 * A port lost while QEMU still runs: the guest can no longer be steered,
 * heard or paused, and waiting for its exit report would take the whole
 * run timeout. After the report, or when QEMU itself is gone, it is not.
 */
static void port_closed(struct vm *vm, int *fd, const char *port)
{
	close_fd(fd);
	if (vm->reported || vm->killed || vm->r->message[0] || qemu_gone(vm))
		return;
	set_message(vm, VM_PORT_CLOSED, "the %s to the guest closed while QEMU still ran; console log: %s/console.log",
		    port, vm->o->run_dir);
}

static void fault_setup(struct vm *vm)
{
	static char spec[256];
	const char *env = getenv("PMEM_FAULT_PORT");
	char *port, *lines, *dir, *save;

	if (!env || !vm->o->run_dir)
		return;
	snprintf(spec, sizeof(spec), "%s", env);
	port = strtok_r(spec, ":", &save);
	lines = strtok_r(NULL, ":", &save);
	dir = strtok_r(NULL, "", &save);
	if (!port || !lines || !dir || !strstr(vm->o->run_dir, dir))
		return;
	vm->fault_fd = !strcmp(port, "qmp") ? &vm->qmp_fd : !strcmp(port, "ctl") ? &vm->ctl_fd :
		       !strcmp(port, "out") ? &vm->out_fd : NULL;
	vm->fault_port = port;
	vm->fault_after = strtoul(lines, NULL, 10);
}

static void fault_inject(struct vm *vm)
{
	if (!vm->fault_fd || vm->ctl_lines < vm->fault_after)
		return;
	fprintf(stderr, "pmem-harness: PMEM_FAULT_PORT: shutting down the %s port of the guest in %s after %lu control lines\n",
		vm->fault_port, vm->o->run_dir, vm->ctl_lines);
	shutdown(*vm->fault_fd, SHUT_RDWR);
	vm->fault_fd = NULL;
}

/* Run until the job reports and QEMU powers off, or something fails. */
static void watch(struct vm *vm)
{
	for (;;) {
		const struct vm_hooks *h = vm->o->hooks;
		struct pollfd p[4 + VM_MORE_FDS] = {
			{ .fd = vm->con_fd, .events = POLLIN },
			{ .fd = vm->ctl_fd, .events = POLLIN },
			{ .fd = vm->out_fd, .events = POLLIN },
			{ .fd = h && h->poll_fd ? h->poll_fd(h->ctx) : -1, .events = POLLIN },
		};
		double deadline, t = now();
		int timeout, more = h && h->more_fds ? h->more_fds(h->ctx, p + 4, VM_MORE_FDS) : 0;

		if (vm->r->message[0])
			return;
		if (vm->reported && vm->con_fd < 0 && vm->out_fd < 0)
			return; /* powered off and drained */
		if (vm->reported)
			deadline = vm->t_exit + POWEROFF_GRACE_MS / 1000.0;
		else if (vm->booted)
			deadline = vm->t_hello + vm->o->run_timeout;
		else
			deadline = vm->t_start + vm->o->boot_timeout;
		if (t >= deadline) {
			if (vm->reported)
				return; /* slow to power off: cleanup ends it */
			if (!vm->booted)
				set_message(vm, VM_BOOT_TIMEOUT,
					    "guest did not boot within %d s (accelerator %s); console log: %s/console.log",
					    vm->o->boot_timeout, vm->o->qemu.accel, vm->o->run_dir);
			else
				set_message(vm, VM_RUN_TIMEOUT,
					    "guest job did not finish within %d s; console log: %s/console.log, output: %s/guest.log",
					    vm->o->run_timeout, vm->o->run_dir, vm->o->run_dir);
			return;
		}
		timeout = (int)((deadline - t) * 1000) + 1;
		if (vm->o->hooks && vm->o->hooks->tick_ms && timeout > vm->o->hooks->tick_ms)
			timeout = vm->o->hooks->tick_ms;
		if (poll(p, 4 + more, timeout) < 0 && errno != EINTR)
			return;
		if (more > 0 && h->on_more)
			h->on_more(h->ctx, vm, p + 4, more);
		if (p[3].fd >= 0 && p[3].revents && h->on_fd)
			h->on_fd(h->ctx, vm);
		if (p[0].revents &&
		    !read_lines(vm->con_fd, &vm->con_line, vm->console_log, vm, on_console_line))
			close_fd(&vm->con_fd);
		if (p[1].revents && !read_lines(vm->ctl_fd, &vm->ctl_line, NULL, vm, on_ctl_line))
			port_closed(vm, &vm->ctl_fd, "control port");
		if (p[2].revents && !copy_out(vm))
			port_closed(vm, &vm->out_fd, "output port");
		fault_inject(vm);
		/* Console EOF means QEMU is gone; without a report that is a failure. */
		if (vm->o->hooks && vm->o->hooks->on_tick && vm->booted && !vm->reported &&
		    !vm->killed && now() >= vm->t_tick) {
			vm->t_tick = now() + vm->o->hooks->tick_ms / 1000.0;
			vm->o->hooks->on_tick(vm->o->hooks->ctx, vm);
		}
		if (vm->r->status == VM_SAVED)
			return;
		if (vm->killed) {
			vm->r->status = VM_KILLED;
			return;
		}
		if (vm->con_fd < 0 && !vm->reported) {
			char how[256];

			qemu_end(vm, how, sizeof(how));
			set_message(vm, VM_NO_EXIT,
				    "guest stopped without reporting an exit status%s; console log: %s/console.log",
				    how, vm->o->run_dir);
			return;
		}
	}
}

/* Ask QEMU to quit, then kill it by its pid; always reap it. */
static void end_qemu(struct vm *vm)
{
	double deadline;

	if (vm->pid <= 0)
		return;
	/* A guest that reported is powering off: give it a moment first. */
	deadline = now() + (vm->reported ? 2 : 0);
	while (!reap(vm, WNOHANG) && now() < deadline)
		usleep(10000);
	if (vm->exited)
		return;
	if (vm->qmp_fd >= 0 && !vm->qmp.lost) {
		json_t *ret = qmp_execute(&vm->qmp, "quit", NULL, 2000);

		json_decref(ret);
	}
	deadline = now() + 3;
	while (now() < deadline && !reap(vm, WNOHANG))
		usleep(20000);
	if (!vm->exited) {
		kill(vm->pid, SIGKILL);
		reap(vm, 0);
	}
}

static void cleanup(struct vm *vm)
{
	end_qemu(vm);
	close_fd(&vm->con_fd);
	close_fd(&vm->ctl_fd);
	close_fd(&vm->out_fd);
	close_fd(&vm->qmp_fd);
	close_fd(&vm->qmp_lfd);
	close_fd(&vm->ctl_lfd);
	close_fd(&vm->out_lfd);
	if (vm->console_log)
		fclose(vm->console_log);
	if (vm->guest_log)
		fclose(vm->guest_log);
	free(vm->con_line.buf);
	free(vm->ctl_line.buf);
	unlink(vm->qmp_path);
	unlink(vm->ctl_path);
	unlink(vm->out_path);
	rmdir(vm->rundir);
}

static FILE *open_log(struct vm *vm, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", vm->o->run_dir, name);
	f = fopen(path, "we");
	if (f)
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

int vm_run(struct vm_options *o, struct vm_result *r)
{
	struct vm vm = {
		.o = o, .r = r, .qmp_lfd = -1, .ctl_lfd = -1, .out_lfd = -1,
		.con_fd = -1, .qmp_fd = -1, .ctl_fd = -1, .out_fd = -1,
	};
	const char *tmp = getenv("XDG_RUNTIME_DIR");
	struct argv argv;
	struct qemu_config qemu;

	memset(r, 0, sizeof(*r));
	r->guest_exit = -1;
	/* mkdtemp makes the directory 0700: only we can reach the sockets. */
	snprintf(vm.rundir, sizeof(vm.rundir), "%s/pmem-vm.XXXXXX",
		 tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(vm.rundir)) {
		set_message(&vm, VM_QEMU_FAILED, "cannot create a runtime directory: %s", strerror(errno));
		return -1;
	}
	snprintf(vm.qmp_path, sizeof(vm.qmp_path), "%s/qmp", vm.rundir);
	snprintf(vm.ctl_path, sizeof(vm.ctl_path), "%s/ctl", vm.rundir);
	snprintf(vm.out_path, sizeof(vm.out_path), "%s/out", vm.rundir);
	/* The sockets live as long as this call: QEMU's configuration gets
	 * them in a copy, and the caller's options never point into it. */
	qemu = o->qemu;
	qemu.qmp_socket = vm.qmp_path;
	qemu.ctl_socket = vm.ctl_path;
	qemu.out_socket = vm.out_path;
	qemu.incoming = o->restore_state != NULL;

	vm.con_line.max = LINE_MAX_DEFAULT;
	vm.ctl_line.max = o->hooks && o->hooks->line_max ? o->hooks->line_max : LINE_MAX_DEFAULT;
	vm.log_max = getenv("PMEM_GUEST_LOG_MAX") ? strtoull(getenv("PMEM_GUEST_LOG_MAX"), NULL, 0) : 0;
	if (!vm.log_max)
		vm.log_max = LOG_MAX_DEFAULT;
	vm.console_log = open_log(&vm, "console.log");
	vm.guest_log = open_log(&vm, "guest.log");
	vm.qmp_lfd = listen_unix(vm.qmp_path);
	vm.ctl_lfd = listen_unix(vm.ctl_path);
	vm.out_lfd = listen_unix(vm.out_path);
	if (!vm.console_log || !vm.guest_log || vm.qmp_lfd < 0 || vm.ctl_lfd < 0 || vm.out_lfd < 0) {
		set_message(&vm, VM_QEMU_FAILED, "cannot set up logs in %s or sockets in %s: %s",
			    o->run_dir, vm.rundir, strerror(errno));
		goto out;
	}
	if (qemu_build_argv(&qemu, &argv) < 0) {
		set_message(&vm, VM_QEMU_FAILED, "incomplete QEMU configuration");
		goto out;
	}
	vm.t_start = now();
	if (spawn_qemu(&vm, &argv) < 0) {
		argv_free(&argv);
		set_message(&vm, VM_QEMU_FAILED, "cannot start %s: %s", o->qemu.binary, strerror(errno));
		goto out;
	}
	argv_free(&argv);
	/* QEMU connects its chardevs in command-line order: QMP, ctl, out. */
	vm.qmp_fd = accept_from_qemu(&vm, vm.qmp_lfd);
	vm.ctl_fd = vm.qmp_fd < 0 ? -1 : accept_from_qemu(&vm, vm.ctl_lfd);
	vm.out_fd = vm.ctl_fd < 0 ? -1 : accept_from_qemu(&vm, vm.out_lfd);
	if (vm.out_fd < 0 || qmp_handshake(&vm.qmp, vm.qmp_fd, 5000) < 0) {
		set_message(&vm, VM_QEMU_FAILED, "QEMU did not start; its messages are in %s/qemu.log",
			    o->run_dir);
		goto out;
	}
	if (o->restore_state && restore_state(&vm) < 0)
		goto out;
	fault_setup(&vm);
	watch(&vm);
	if (r->status == VM_SAVED)
		goto out;
	if (!r->message[0] && !vm.killed) {
		r->status = vm.reported ? VM_OK : VM_NO_EXIT;
		if (!vm.reported)
			set_message(&vm, VM_NO_EXIT, "guest did not report; console log: %s/console.log",
				    o->run_dir);
	}
out:
	cleanup(&vm);
	guest_events_record(o->run_dir, r);
	return r->status == VM_OK || r->status == VM_KILLED ? 0 : -1;
}

const char *vm_status_name(enum vm_status s)
{
	switch (s) {
	case VM_OK: return "ok";
	case VM_BOOT_TIMEOUT: return "boot-timeout";
	case VM_RUN_TIMEOUT: return "run-timeout";
	case VM_KERNEL_FAILURE: return "kernel-failure";
	case VM_NO_EXIT: return "no-exit";
	case VM_QEMU_FAILED: return "qemu-failed";
	case VM_KILLED: return "killed";
	case VM_FLOODED: return "flooded";
	case VM_PORT_CLOSED: return "port-closed";
	case VM_SAVED: return "saved";
	}
	return "unknown";
}

int vm_reply(struct vm *vm, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (vm->ctl_fd < 0 || len < 0 || (size_t)len >= sizeof(buf))
		return -1;
	return write(vm->ctl_fd, buf, len) == len ? 0 : -1;
}

/* The hooks' descriptor, served while a QMP reply is awaited. */
static void qmp_side_ready(void *ctx)
{
	struct vm *vm = ctx;
	const struct vm_hooks *h = vm->o->hooks;

	h->on_fd(h->ctx, vm);
	vm->qmp.side_fd = h->poll_fd(h->ctx);
}

/*
 * One QMP command, serving the hooks' descriptor meanwhile: "stop" waits
 * for every vCPU, and the ADR model holds one at a crash point until the
 * hook answers it, so waiting on QMP alone could only time out.
 */
static json_t *vm_qmp(struct vm *vm, const char *command)
{
	const struct vm_hooks *h = vm->o->hooks;
	json_t *ret;

	if (h && h->poll_fd && h->on_fd) {
		vm->qmp.side_fd = h->poll_fd(h->ctx);
		vm->qmp.side_ready = qmp_side_ready;
		vm->qmp.side_ctx = vm;
	}
	ret = qmp_execute(&vm->qmp, command, NULL, 5000);
	vm->qmp.side_fd = -1;
	vm->qmp.side_ready = NULL;
	return ret;
}

static int vm_qmp_simple(struct vm *vm, const char *command)
{
	json_t *ret;

	if (vm->qmp_fd < 0 || vm->exited)
		return -1;
	ret = vm_qmp(vm, command);
	if (!ret && vm->qmp.lost)
		port_closed(vm, &vm->qmp_fd, "QMP socket");
	json_decref(ret);
	return ret ? 0 : -1;
}

int vm_pause(struct vm *vm)
{
	return vm_qmp_simple(vm, "stop");
}

int vm_resume(struct vm *vm)
{
	return vm_qmp_simple(vm, "cont");
}

void vm_kill(struct vm *vm)
{
	if (vm->pid > 0 && !vm->exited) {
		kill(vm->pid, SIGKILL);
		reap(vm, 0);
	}
	vm->killed = 1;
}

const char *vm_nvdimm(const struct vm *vm)
{
	return vm->o->qemu.nvdimm;
}

json_t *vm_query(struct vm *vm, const char *command)
{
	json_t *ret;

	if (vm->qmp_fd < 0 || vm->exited)
		return NULL;
	ret = vm_qmp(vm, command);
	if (!ret && vm->qmp.lost)
		port_closed(vm, &vm->qmp_fd, "QMP socket");
	return ret;
}

int vm_options_flavour(struct vm_options *o, const char *build, const char *flavour, const char *accel,
		       const char *initramfs, const char *nvdimm, char kpath[PATH_MAX], char ipath[PATH_MAX])
{
	struct stat st;

	snprintf(kpath, PATH_MAX, "%s/kernels/%s/bzImage", build, flavour);
	snprintf(ipath, PATH_MAX, "%s/%s", build, initramfs);
	if (access(kpath, R_OK) || access(ipath, R_OK) || stat(nvdimm, &st) < 0) {
		fprintf(stderr, "pmem-harness: missing %s, %s or %s: run 'make kernels images'\n", kpath, ipath,
			nvdimm);
		return -1;
	}
	memset(o, 0, sizeof(*o));
	o->qemu.binary = getenv("QEMU") ? getenv("QEMU") : "qemu-system-x86_64";
	if (vm_flavour_boot(build, flavour, &o->qemu) < 0)
		return -1;
	o->qemu.accel = accel;
	o->qemu.kernel = kpath;
	o->qemu.initrd = ipath;
	o->qemu.mem_mib = 1024;
	o->qemu.cpus = 1;
	o->qemu.nvdimm = nvdimm;
	o->qemu.nvdimm_size = st.st_size;
	return 0;
}

/* One line that build-kernel.sh wrote from vm-images/flavours into
 * build/kernels/<flavour>/<name>, into buf; "" and 0 when there is no such
 * file, -1 with one line on stderr when it cannot be read or holds more
 * than the table allows. */
static int flavour_file(const char *build, const char *flavour, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t n, i;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/kernels/%s/%s", build, flavour, name);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "pmem-harness: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	/* vm-images/flavours allows these characters only; anything else is
	 * not ours. */
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=- ", buf[i])) {
			fprintf(stderr, "pmem-harness: %s holds more than vm-images/flavours allows: run 'make test-kernels' again\n",
				path);
			buf[0] = '\0';
			return -1;
		}
	return 0;
}

int vm_flavour_boot(const char *build, const char *flavour, struct qemu_config *c)
{
	if (flavour_file(build, flavour, "cmdline", c->kernel_args, sizeof(c->kernel_args)) < 0 ||
	    flavour_file(build, flavour, "nvdimm-persistence", c->nvdimm_persistence,
			 sizeof(c->nvdimm_persistence)) < 0)
		return -1;
	if (c->nvdimm_persistence[0] && strcmp(c->nvdimm_persistence, "cpu") &&
	    strcmp(c->nvdimm_persistence, "mem-ctrl")) {
		fprintf(stderr, "pmem-harness: %s/kernels/%s/nvdimm-persistence says '%s', not cpu or mem-ctrl: run 'make test-kernels' again\n",
			build, flavour, c->nvdimm_persistence);
		c->nvdimm_persistence[0] = '\0';
		return -1;
	}
	return 0;
}
