// SPDX-License-Identifier: GPL-2.0
/* Fuzz target: fio-style job files (workloads/job.c), as a user writes them. */
#include "fuzz.h"
#include "job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct job_file jf;
	char *text = fuzz_text(data, size);

	job_file_parse_string(text, &jf);
	free(text);
	return 0;
}
