// SPDX-License-Identifier: GPL-2.0
/* Unit test: a bench unit's answers, one JSON document per line (bench/unit_docs.c). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "bench/unit_docs.h"

/* Parse text quietly; the number of results, the failures in *failures. */
static size_t parse(const char *text, int *failures)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	json_t *r;
	size_t n;

	dup2(null, 2);
	r = unit_docs_parse(text, "unit", failures);
	dup2(saved, 2);
	close(saved);
	close(null);
	n = json_array_size(r);
	json_decref(r);
	return n;
}

int main(void)
{
	static const char good[] =
		"booting\n{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":{\"jobs\": []}}\n"
		"fio: a line of its own\n"
		"{\"schema\":1,\"kind\":\"fio\",\"mode\":\"fio-mmap\",\"job\":\"peer.v1\",\"result\":{\"a\": 1}}\r\n";
	static const char *const refused[] = {
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"../../etc\",\"result\":{}}\n", /* a path */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"result\":{}}\n",		/* no job */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"a b\",\"job\":\"faults\",\"result\":{}}\n",	/* a space */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"$(id)\",\"result\":{}}\n",	/* shell */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"result\":{}}\n",
		"{\"schema\":2,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":{}}\n",	/* schema */
		"{\"schema\":\"1\",\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":{}}\n",
		"{\"schema\":1,\"kind\":\"shell\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":{}}\n",	/* kind */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":[1]}\n",	/* result */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":{\"cut\":\n", /* cut */
		"{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"faults\",\"result\":{}} trailing\n",
	};
	int failures, ok = 1;
	size_t n;

	tap_plan(4);
	n = parse(good, &failures);
	tap_result(n == 2 && failures == 0 ? TAP_PASS : TAP_FAIL, "two good documents among other lines", NULL);

	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		if (parse(refused[i], &failures) != 0 || failures != 1) {
			tap_diag("case %zu: taken, or %d failures", i, failures);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL,
		   "refused and counted: unsafe, missing and over-long names, another schema or kind, "
		   "a result not an object, a cut line, trailing text", NULL);

	n = parse("x {\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"f\",\"result\":{}}\n"
		  "{\"schema\":1,\"kind\":\"failed\",\"tool\":\"writer\",\"mode\":\"aware\",\"job\":\"f\"}\n", &failures);
	tap_result(n == 0 && failures == 1 ? TAP_PASS : TAP_FAIL,
		   "a document inside a line is not one; a failed document counts", NULL);

	n = parse("{\"schema\":1,\"kind\":\"writer\",\"mode\":\"aware\",\"job\":\"f\",\"result\":{\"a\":1}}\n"
		  "{\"schema\":1,\"kind\":\n"
		  "{\"schema\":1,\"kind\":\"writer\",\"mode\":\"sync\",\"job\":\"f\",\"result\":{}}", &failures);
	tap_result(n == 2 && failures == 1 ? TAP_PASS : TAP_FAIL,
		   "a bad line costs itself only: the next one is still read, even without a newline", NULL);
	return tap_exit();
}
