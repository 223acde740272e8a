// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: an xfstests guest's output lines (results/xfstests.c), one
 * line per input as cmd-xfstests.c reads them from guest.log. A document
 * that is taken must hold only what the protocol allows: the host turns its
 * test name into a file name and its file names into file suffixes.
 */
#include "fuzz.h"
#include "results/xfstests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), why[256];
	struct xt_doc d;
	const char *key;
	json_t *v;

	if (xt_parse_line(text, strlen(text), &d, why, sizeof(why)) == XT_DOC_TEST) {
		if (!xt_name_valid(d.test) || strstr(d.test, "..") || d.status == XT_NONE || d.seconds < 0 ||
		    strlen(d.reason) >= XT_REASON_MAX)
			abort();
		json_object_foreach(d.files, key, v)
			if (strchr(key, '/') || !json_is_string(v) || json_string_length(v) > XT_FILE_MAX)
				abort();
	}
	xt_doc_free(&d);
	free(text);
	return 0;
}
