// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a writer guest's control-port lines (crash-inject/
 * ack_stream.c), one stream per input, split at newlines as vm.c does.
 */
#include "crash-inject/judge/ack_stream.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ack_stream s = { .limit = 512ULL << 20, .max_acks = 4096 };
	char *text = fuzz_text(data, size), *line = text, *nl, why[256], quoted[96];
	struct ack_rec rec;

	do {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (ack_stream_take(&s, line, &rec, why, sizeof(why)) == ACK_TAKEN &&
		    (rec.len == 0 || rec.off % rec.len || rec.off + rec.len > s.limit))
			abort(); /* taken, yet outside what the protocol allows */
		ack_quote(line, quoted, sizeof(quoted));
		line = nl ? nl + 1 : NULL;
	} while (nl);
	ack_stream_free(&s);
	free(text);
	return 0;
}
