// SPDX-License-Identifier: GPL-2.0
/* Unit test: errors that stop a run (lib/error.h, lib/diskfull.c's line). */
#include <errno.h>
#include <string.h>

#include "lib/diskfull.h"
#include "lib/error.h"
#include "tap.h"

int main(void)
{
	struct run_error e = { 0 };

	tap_plan(3);
	disk_full_writing(&e, "/r", "/r/run.json", ENOSPC);
	tap_result(e.code == ENOSPC && disk_full_errno(e.code) &&
		   !strcmp(e.context, "the disk under /r is full: writing /r/run.json failed: No space left on device") ?
		   TAP_PASS : TAP_FAIL, "a full disk keeps its errno and the one line the user reads", NULL);
	run_error_set(&e, EACCES, "cannot write %s", "/r/x");
	tap_result(e.code == EACCES && !disk_full_errno(e.code) && !strcmp(e.context, "cannot write /r/x") ?
		   TAP_PASS : TAP_FAIL, "a second error replaces the first; another errno is not a full disk", NULL);
	run_error_clear(&e);
	tap_result(!e.code && !e.context[0] ? TAP_PASS : TAP_FAIL, "cleared: no code, no line", NULL);
	return tap_exit();
}
