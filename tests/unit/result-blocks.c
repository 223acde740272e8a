// SPDX-License-Identifier: GPL-2.0
/* Unit test: a bench unit's result blocks from guest output (harness/result_blocks.c). */
#include <fcntl.h>
#include <string.h>

#include "result_blocks.h"
#include "tap.h"

/* Parse text quietly; the number of results, the failures in *failures. */
static size_t parse(const char *text, int *failures)
{
	char *copy = strdup(text);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	json_t *r;
	size_t n;

	dup2(null, 2);
	r = result_blocks_parse(copy, "unit", failures);
	dup2(saved, 2);
	close(saved);
	close(null);
	n = json_array_size(r);
	json_decref(r);
	free(copy);
	return n;
}

int main(void)
{
	static const char good[] = "booting\n@@begin writer aware faults\n{\"jobs\": []}\n@@end\n"
				   "@@begin fio shared throughput.v1\n{\"a\": 1}\n@@end\n";
	static const char *const refused[] = {
		"@@begin writer ../../etc faults\n{}\n@@end\n",		/* a path */
		"@@begin writer aware\n{}\n@@end\n",			/* two names */
		"@@begin writer aware faults extra\n{}\n@@end\n",	/* four */
		"@@begin writer aware $(id)\n{}\n@@end\n",		/* shell */
		"@@begin writer aware aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n{}\n@@end\n",
		"@@beginwriter aware faults x\n{}\n@@end\n",		/* no space */
		"@@begin writer aware faults\n{\"cut\": \n@@end\n",	/* not JSON */
		"@@begin writer aware faults\n{\"no\": \"end\"}\n",	/* cut off */
	};
	int failures, ok = 1;
	size_t n;

	tap_plan(4);
	n = parse(good, &failures);
	tap_result(n == 2 && failures == 0 ? TAP_PASS : TAP_FAIL, "two good blocks among other lines", NULL);

	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		if (parse(refused[i], &failures) != 0 || failures != 1) {
			tap_diag("case %zu: taken, or %d failures", i, failures);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL,
		   "refused and counted: unsafe, missing, extra and over-long names, bad JSON, no @@end", NULL);

	n = parse("x @@begin writer aware faults\n{}\n@@end\n@@failed writer aware x\n", &failures);
	tap_result(n == 0 && failures == 1 ? TAP_PASS : TAP_FAIL,
		   "a marker inside a line is not a block; an @@failed line counts", NULL);

	n = parse("@@begin writer aware faults\n{\"a\": 1}\r\n@@end\n@@begin a b\n@@begin writer sync faults\n{}\n@@end\n",
		  &failures);
	tap_result(n == 2 && failures == 1 ? TAP_PASS : TAP_FAIL,
		   "a bad header costs its block only: the next one is still read", NULL);
	return tap_exit();
}
