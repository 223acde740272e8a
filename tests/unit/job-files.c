// SPDX-License-Identifier: GPL-2.0
/* Unit test: which names and modes an input file of a guest may have (proto/job_files.h). */
#include <stdio.h>

#include "proto/job_files.h"
#include "tap.h"

int main(void)
{
	static const char *const good[] = { "job.fio", "prog", "check", "faults.fio", "a+b-c_d.1" };
	static const char *const bad[] = { "", ".", "..", ".hidden", "a/b", "../prog", "a b", "x;y", "$(id)",
					   "0123456789012345678901234567890123456789012345678901234567890123" };
	char line[128];
	int ok = 1;

	tap_plan(3);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok &= job_file_name_ok(good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (job_file_name_ok(bad[i])) {
			tap_diag("'%s' passed", bad[i]);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "one path component of safe characters, not a dot name, under 64 bytes",
		   NULL);
	tap_result(job_file_mode_ok(0644) && job_file_mode_ok(0755) && !job_file_mode_ok(04755) &&
		   !job_file_mode_ok(0777) && !job_file_mode_ok(0) ? TAP_PASS : TAP_FAIL,
		   "modes 644 and 755 only", NULL);
	snprintf(line, sizeof(line), JOB_FILE_FMT, "job.fio", 0644u, (size_t)12);
	tap_result(!strcmp(line, "file job.fio 644 12\n") ? TAP_PASS : TAP_FAIL,
		   "the line the host sends and the agent reads: file <name> <octal mode> <len>", NULL);
	return tap_exit();
}
