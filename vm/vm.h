/* SPDX-License-Identifier: GPL-2.0 */
/* One guest's life: start QEMU, hand it a job, watch it, end it. */
#ifndef HARNESS_VM_H
#define HARNESS_VM_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>

#include "console.h"
#include "qemu.h"

enum vm_status {
	VM_OK,			/* the job ran and reported its exit status */
	VM_BOOT_TIMEOUT,	/* no "hello" from the guest in time */
	VM_RUN_TIMEOUT,		/* the job did not finish in time */
	VM_KERNEL_FAILURE,	/* panic, oops or BUG on the console */
	VM_NO_EXIT,		/* the guest stopped without reporting */
	VM_QEMU_FAILED,		/* QEMU did not start or connect */
	VM_KILLED,		/* a hook killed QEMU on purpose (a crash point) */
	VM_FLOODED,		/* the guest wrote more than its logs may hold */
	VM_PORT_CLOSED,		/* QMP, control or output port lost while QEMU ran */
	VM_SAVED,		/* the guest was saved at its hello (save_state) and ended */
};

/*
 * Fault injection for tests: PMEM_FAULT_PORT=PORT:LINES:DIR shuts down the
 * host's end of PORT (qmp, ctl or out) once the guest whose run directory
 * contains DIR has sent LINES control lines (hello, then its acks), as if
 * QEMU had closed it. Counting lines, not seconds, makes it land at the
 * same point of the job however fast the machine is.
 */

/* The runner's handle for hooks; see vm_ctl_* below. */
struct vm;

struct pollfd;
#define VM_MORE_FDS 8

/*
 * Hooks let a caller take part in a run: crash injection answers "ack" lines
 * and pauses the guest; the crash checker serves images on request.
 */
struct vm_hooks {
	void *ctx;
	/* A control line the runner does not handle itself (not hello/exit). */
	void (*on_line)(void *ctx, struct vm *vm, const char *line);
	/* The longest control line on_line takes whole (0: 8191 bytes); a
	 * longer one reaches it in pieces of exactly line_max bytes, the rest of
	 * the line after them. */
	size_t line_max;
	/* Called every tick_ms while the job runs (0: never). */
	void (*on_tick)(void *ctx, struct vm *vm);
	int tick_ms;
	/* One more descriptor to watch (the ADR model's socket): poll_fd returns
	 * it, or -1 for none; on_fd is called when it is readable or hung up. */
	int (*poll_fd)(void *ctx);
	void (*on_fd)(void *ctx, struct vm *vm);
	/* The caller's own descriptors, watched besides (a checker pool's):
	 * more_fds fills at most VM_MORE_FDS and returns how many; on_more gets
	 * them back after each poll, revents set (none of them may be ready). */
	int (*more_fds)(void *ctx, struct pollfd *fds, int max);
	void (*on_more)(void *ctx, struct vm *vm, const struct pollfd *fds, int n);
};

/* One input file for the guest, sent as data before the job script
 * (proto/job_files.h): /tmp/in/<name>, from a host file or from memory. */
struct vm_file {
	const char *name;
	unsigned int mode;		/* 0644 or 0755 */
	const char *path;		/* a host file, or NULL: */
	const char *data;		/* these len bytes */
	size_t len;
};

struct vm_options {
	struct qemu_config qemu;	/* its socket paths are vm_run's own */
	const char *script;		/* job script text sent to the guest */
	const struct vm_file *files;	/* sent before it, nfiles of them */
	size_t nfiles;
	const char *run_dir;		/* console.log, guest.log, qemu.log go here */
	int boot_timeout;		/* seconds until the guest says hello */
	int run_timeout;		/* seconds for the job itself */
	FILE *echo;			/* copy of the job's output, or NULL */
	/*
	 * A guest saved at its hello and restored, to skip the boot: save_state
	 * (a file to create) ends the guest at its hello, saved there, and sends
	 * no job; restore_state (a file save_state made, with the same QEMU
	 * configuration but for the plugin) starts QEMU from it and sends the job
	 * at once. The NVDIMMs are not in the file (they are shared memory): the
	 * guest must get the same contents as the saved one had. NULL: neither.
	 */
	const char *save_state, *restore_state;
	const struct vm_hooks *hooks;	/* or NULL */
};

struct vm_result {
	enum vm_status status;
	int guest_exit;			/* valid when status == VM_OK */
	double boot_seconds;		/* QEMU start to the guest's hello */
	double run_seconds;		/* hello to the job's exit report */
	char kernel_release[128];
	enum console_event worst_event;
	char event_line[256];		/* first console line of worst_event */
	char message[512];		/* one line for the user when not OK */
	/* VM_QEMU_FAILED in saving the guest (save_state) or starting it from
	 * restore_state: the guest itself did not fail. */
	int state_failed;
};

int vm_run(struct vm_options *o, struct vm_result *r);

/* For hooks: answer the guest on the control port. */
int vm_reply(struct vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For hooks: pause and resume the guest's vCPUs (QMP stop/cont). */
int vm_pause(struct vm *vm);
int vm_resume(struct vm *vm);
/* For hooks: kill -9 QEMU now; the run ends with VM_KILLED. */
void vm_kill(struct vm *vm);
/* For hooks: a QMP query (no arguments); the "return" value, or NULL. */
json_t *vm_query(struct vm *vm, const char *command);
/* The NVDIMM backing file, or NULL. */
const char *vm_nvdimm(const struct vm *vm);
const char *vm_status_name(enum vm_status s);

/* What a flavour's guests boot with, from the files build-kernel.sh writes
 * from its row of vm-images/flavours into build/kernels/<flavour>/: its
 * kernel parameters (cmdline) into c->kernel_args, the platform QEMU says
 * it is (nvdimm-persistence) into c->nvdimm_persistence; "" for a file it
 * has not. 0, or -1 with one line on stderr when a file cannot be read or
 * holds anything else. */
int vm_flavour_boot(const char *build, const char *flavour, struct qemu_config *c);

/* The guests' images under the build directory (the Makefile makes them):
 * everything a bench guest runs, and the small one the crash guests (writer
 * and checkers) boot, which xfstests boots to reach its root. */
#define BENCH_INITRAMFS "initramfs.cpio"
#define CRASH_INITRAMFS "initramfs-crash.cpio"

/*
 * The crash checkers' CPU model. Without ERMS and FSRM the kernel copies
 * and clears with rep movsq/stosq, not rep movsb/stosb, which TCG runs one
 * byte per iteration. Without SSE4.2 the kernel's crc32c is the
 * table-driven C code, not crc32c-intel, whose crc32 instruction TCG runs
 * bit by bit (helper_crc32: a quarter of a checker's host time in a perf
 * profile). Which code the kernel picks changes how it computes, not what
 * it replays or checks. The writer keeps the full model: its kernel is
 * what is tested, and with ERMS, as on the hardware of today, its DAX CoW
 * copy is copy_mc_enhanced_fast_string (tests/adr.t and docs/findings.md
 * name that store; without ERMS it is another).
 */
#define CRASH_CPU "max,erms=off,fsrm=off,sse4.2=off"

/* Options for one guest of a flavour under build/kernels, one vCPU, 1 GiB,
 * booting build/initramfs (BENCH_INITRAMFS or CRASH_INITRAMFS), with nvdimm
 * as its NVDIMM; kpath and ipath hold the paths it names. The caller sets
 * the job, timeouts and hooks. */
int vm_options_flavour(struct vm_options *o, const char *build, const char *flavour, const char *accel,
		       const char *initramfs, const char *nvdimm, char kpath[PATH_MAX], char ipath[PATH_MAX]);

#endif
