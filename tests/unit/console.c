// SPDX-License-Identifier: GPL-2.0
/* Unit test: console lines that must and must not end a guest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/console.h"
#include "vm/guest_events.h"
#include "tap.h"

static const struct {
	const char *line;
	enum console_event want;
} cases[] = {
	{ "[    3.123456] Kernel panic - not syncing: Attempted to kill init!", CONSOLE_PANIC },
	{ "Kernel panic - not syncing: VFS: Unable to mount root fs", CONSOLE_PANIC },
	{ "[   12.000001] BUG: kernel NULL pointer dereference, address: 0000000000000008", CONSOLE_BUG },
	{ "[   12.000001] kernel BUG at fs/dax.c:897!", CONSOLE_BUG },
	{ "[   12.000002] Oops: 0002 [#1] PREEMPT SMP NOPTI", CONSOLE_OOPS },
	{ "[    5.5] general protection fault, probably for non-canonical address", CONSOLE_OOPS },
	{ "[    7.1] WARNING: CPU: 0 PID: 1 at fs/dax.c:895 dax_insert_entry+0x1/0x2", CONSOLE_WARNING },
	/* lockdep and might_sleep splats are a WARNING and a BUG. */
	{ "[    9.2] WARNING: possible circular locking dependency detected", CONSOLE_WARNING },
	{ "[    9.3] BUG: sleeping function called from invalid context at mm/memory.c:5812", CONSOLE_BUG },
	/* Ordinary boot chatter, including words that merely contain the patterns. */
	{ "[    0.000000] Linux version 6.1.192 (pmem-aware@harness)", CONSOLE_NONE },
	{ "[    1.2] pmem0: detected capacity change from 0 to 1040187392", CONSOLE_NONE },
	{ "[    1.3] EXT4-fs (pmem0): DAX enabled. Warning: EXPERIMENTAL, use at your own risk", CONSOLE_NONE },
	{ "[    1.4] Run /init as init process", CONSOLE_NONE },
	{ "the guest printed BUG: in the middle of a line", CONSOLE_NONE },
	{ "", CONSOLE_NONE },
	{ "[ unterminated timestamp", CONSOLE_NONE },
};

/* guest_events_record(): what a guest printed cannot add a field or a line. */
static int events_record_is_one_line(void)
{
	char path[] = "/tmp/unit-console-events.XXXXXX", buf[1024] = "";
	struct vm_result r = { .worst_event = CONSOLE_WARNING };
	const char *want = "warning\t/runs/x\t[ 1.0] WARNING: a?tab?newline?end\n";
	FILE *f;
	int fd = mkstemp(path), ok;

	if (fd < 0)
		return 0;
	close(fd);
	snprintf(r.event_line, sizeof(r.event_line), "[ 1.0] WARNING: a\ttab\nnewline\x01" "end");
	setenv("PMEM_GUEST_EVENTS", path, 1);
	guest_events_record("/runs/x", &r);
	r.worst_event = CONSOLE_NONE;
	guest_events_record("/runs/y", &r);	/* nothing to record */
	unsetenv("PMEM_GUEST_EVENTS");
	f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = 0;
		fclose(f);
	}
	unlink(path);
	ok = !strcmp(buf, want);
	if (!ok)
		tap_diag("recorded '%s', want '%s'", buf, want);
	return ok;
}

int main(void)

{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	tap_plan(n + 3);
	for (i = 0; i < n; i++) {
		enum console_event got = console_scan_line(cases[i].line);

		if (got != cases[i].want)
			tap_diag("'%s': got %s, want %s", cases[i].line, console_event_name(got),
				 console_event_name(cases[i].want));
		tap_result(got == cases[i].want ? TAP_PASS : TAP_FAIL,
			   cases[i].line[0] ? cases[i].line : "(empty line)", NULL);
	}
	tap_result(console_event_is_fatal(CONSOLE_BUG) && console_event_is_fatal(CONSOLE_PANIC) &&
		   console_event_is_fatal(CONSOLE_OOPS) ? TAP_PASS : TAP_FAIL,
		   "panic, oops and BUG end the guest", NULL);
	tap_result(!console_event_is_fatal(CONSOLE_WARNING) ? TAP_PASS : TAP_FAIL,
		   "a warning does not end the guest", NULL);
	tap_result(events_record_is_one_line() ? TAP_PASS : TAP_FAIL,
		   "a splat is recorded for the suite as one tab-separated line, the guest's bytes made safe", NULL);
	return tap_exit();
}
