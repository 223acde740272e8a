// SPDX-License-Identifier: GPL-2.0
/* Unit test: errors that stop a run (lib/error.h). */
#include <errno.h>
#include <string.h>

#include "lib/error.h"
#include "tap.h"

int main(void)
{
	struct run_error e = { 0 };

	tap_plan(2);
	run_error_set(&e, ENOSPC, "the disk under %s is full", "/r");
	run_error_set(&e, EACCES, "cannot write %s", "/r/x");
	tap_result(e.code == EACCES && !strcmp(e.context, "cannot write /r/x") ? TAP_PASS : TAP_FAIL,
		   "an error keeps its errno and one line; a second replaces the first", NULL);
	run_error_clear(&e);
	tap_result(!e.code && !e.context[0] ? TAP_PASS : TAP_FAIL, "cleared: no code, no line", NULL);
	return tap_exit();
}
