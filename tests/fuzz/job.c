// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: fio-style job files (workloads/job.c), as a user writes them.
 * A file that parses has at least one job, and its job names are safe for
 * paths (lib/names.h) and distinct.
 */
#include "fuzz.h"
#include "job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct job_file jf;
	char *text = fuzz_text(data, size);

	if (job_file_parse_string(text, &jf) == 0) {
		if (jf.njobs < 1 || jf.njobs > JOB_MAX)
			abort();
		for (int i = 0; i < jf.njobs; i++) {
			const char *n = jf.jobs[i].name;

			if (!*n || *n == '.' || n[strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")])
				abort();
			for (int k = 0; k < i; k++)
				if (!strcmp(n, jf.jobs[k].name))
					abort();
		}
	}
	free(text);
	return 0;
}
