// SPDX-License-Identifier: GPL-2.0
/* Crash-test verdicts as tables: see verdicts.h. */
#include <stdio.h>
#include <string.h>

#include "verdicts.h"

static long long num(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

/* A black-box row (a program judged by its own recovery): its result. */
static const char *blackbox_result(json_t *row)
{
	json_t *b = json_object_get(row, "blackbox");

	if (json_object_get(b, "target_problem"))
		return "TARGET PROBLEM: RECOVER fails on the state after a clean exit (not a crash bug; see the summary)";
	if (json_array_size(json_object_get(row, "unexpected_images")))
		return "UNEXPECTED: crash bugs, recovery fails where it passes without the crash (see the image JSONs)";
	if (json_is_true(json_object_get(row, "missed")))
		return "MISSED: the planted bug made no recovery fail";
	if (json_is_true(json_object_get(row, "model_incomplete")))
		return "MODEL INCOMPLETE: see the summary's model counters";
	if (num(b, "crash_bugs"))
		return "caught: recovery fails where it passes without the crash (why: below)";
	if (num(b, "fail_without_crash"))
		return "as expected: every failure fails without the crash too (see the summary)";
	return "as expected: every image recovered";
}

const char *verdict_result(json_t *row)
{
	long long lost, torn;

	if (json_object_get(row, "blackbox") && !json_object_get(row, "protocol_error") &&
	    !json_object_get(row, "writer_failure"))
		return blackbox_result(row);
	if (json_object_get(row, "protocol_error"))
		return "PROTOCOL ERROR: the guest sent a line the host refused (see the summary)";
	if (json_object_get(row, "writer_failure"))
		return "WRITER FAILED: its job did not finish (see the summary)";
	if (json_array_size(json_object_get(row, "unexpected_images")))
		return "UNEXPECTED: see the image JSONs";
	if (num(row, "acked_not_durable") && !strcmp(str(row, "expect"), "intact"))
		return "UNEXPECTED: records acknowledged with lines not durable (see the summary's model)";
	if (json_is_true(json_object_get(row, "missed")))
		return "MISSED: the planted bug lost nothing";
	if (json_is_true(json_object_get(row, "model_incomplete")))
		return "MODEL INCOMPLETE: see the summary's model counters";
	lost = num(json_object_get(row, "verdicts"), "lost");
	torn = num(json_object_get(row, "verdicts"), "torn");
	if ((lost || torn) && !strcmp(str(row, "expect"), "lost"))
		return "caught: acknowledged records lost (why: below)";
	if (num(row, "acked_not_durable") && !strcmp(str(row, "expect"), "lost"))
		return "caught at the ack: records acknowledged with lines not durable";
	if (lost && torn)
		return "as allowed: acknowledged records were lost and torn";
	if (lost || torn)
		return lost ? "as allowed: acknowledged records were lost" : "as allowed: acknowledged records were torn";
	return "as expected";
}

void verdict_table(json_t *rows, FILE *out, enum table_format fmt)
{
	static const char *const header[] = { "scenario", "fs", "mode", "platform", "expect", "images",
					      "intact", "lost", "torn", "fscor", "acks", "result" };
	static const int width[] = { 24, 5, 11, 8, 9, 6, 6, 5, 5, 5, 8, 0 };
	char n[7][24];
	const char *cells[12];
	struct table t;
	json_t *row;
	size_t i;
	int any = 0;

	json_array_foreach(rows, i, row)
		any |= !json_object_get(row, "blackbox");
	if (!any)
		return;
	table_begin(&t, out, fmt, NULL, 12, header, width);
	json_array_foreach(rows, i, row) {
		json_t *v = json_object_get(row, "verdicts");

		if (json_object_get(row, "blackbox"))
			continue;
		snprintf(n[0], sizeof(n[0]), "%lld", num(row, "images"));
		snprintf(n[1], sizeof(n[1]), "%lld", num(v, "intact"));
		snprintf(n[2], sizeof(n[2]), "%lld", num(v, "lost"));
		snprintf(n[3], sizeof(n[3]), "%lld", num(v, "torn"));
		snprintf(n[4], sizeof(n[4]), "%lld", num(v, "fs-corrupt"));
		snprintf(n[5], sizeof(n[5]), "%lld", num(row, "acks"));
		cells[0] = str(row, "scenario");
		cells[1] = str(row, "fs");
		cells[2] = str(row, "mode");
		/* Runs from before the ADR model were all eADR. */
		cells[3] = json_object_get(row, "platform") ? str(row, "platform") : "eadr";
		cells[4] = str(row, "expect");
		for (int k = 0; k < 6; k++)
			cells[5 + k] = n[k];
		cells[11] = verdict_result(row);
		table_row(&t, cells);
	}
	table_end(&t);
}

void verdict_matrix(json_t *rows, FILE *out, enum table_format fmt, const char *caption)
{
	char mode[48];
	const char *fss[8], *header[11] = { "scenario", "mode", "expect" }, *cells[11];
	char text[8][160];
	int nfs = 0, f;
	struct table t;
	json_t *row, *other;
	size_t i, k;

	json_array_foreach(rows, i, row) {
		for (f = 0; f < nfs && strcmp(fss[f], str(row, "fs")); f++)
			;
		if (f == nfs && nfs < 8)
			fss[nfs++] = str(row, "fs");
	}
	for (f = 0; f < nfs; f++)
		header[3 + f] = fss[f];
	table_begin(&t, out, fmt, caption, 3 + nfs, header, NULL);
	json_array_foreach(rows, i, row) {
		/* A scenario's row is made at its first filesystem. */
		for (k = 0; k < i; k++)
			if (!strcmp(str(json_array_get(rows, k), "scenario"), str(row, "scenario")))
				break;
		if (k < i)
			continue;
		cells[0] = str(row, "scenario");
		/* An ADR row says so; eADR rows (and older runs) read as before. */
		snprintf(mode, sizeof(mode), "%s%s", str(row, "mode"),
			 strcmp(json_string_value(json_object_get(row, "platform")) ?: "eadr", "adr") ? "" : " (adr)");
		cells[1] = mode;
		cells[2] = str(row, "expect");
		for (f = 0; f < nfs; f++) {
			snprintf(text[f], sizeof(text[f]), "-");
			json_array_foreach(rows, k, other) {
				json_t *v = json_object_get(other, "verdicts");

				if (strcmp(str(other, "scenario"), cells[0]) || strcmp(str(other, "fs"), fss[f]))
					continue;
				snprintf(text[f], sizeof(text[f]), "%lld intact, %lld lost, %lld torn, %lld fs-corrupt of %lld: %s",
					 num(v, "intact"), num(v, "lost"), num(v, "torn"), num(v, "fs-corrupt"),
					 num(other, "images"), verdict_result(other));
			}
			cells[3 + f] = text[f];
		}
		table_row(&t, cells);
	}
	table_end(&t);
}

void verdict_causes(json_t *rows, FILE *out, enum table_format fmt)
{
	static const char *const header[] = { "scenario", "fs", "images", "records", "e.g.", "stored at", "why lost" };
	static const int width[] = { 24, 11, 6, 7, 8, 44, 0 };
	char n[3][24];
	const char *cells[7];
	struct table t;
	json_t *row, *cause;
	size_t i, k;
	int any = 0;

	json_array_foreach(rows, i, row)
		any |= json_array_size(json_object_get(row, "causes")) > 0;
	if (!any)
		return;
	table_note(out, fmt, "Why ADR images lost records: the dropped cache lines that lay inside each lost or torn "
			     "record, by the store that last wrote them (user code as file:line, kernel code as "
			     "function+offset); where a user's checker names no record, the lines its images dropped. "
			     "Each image's JSON names its own.");
	table_begin(&t, out, fmt, NULL, 7, header, width);
	json_array_foreach(rows, i, row) {
		json_array_foreach(json_object_get(row, "causes"), k, cause) {
			snprintf(n[0], sizeof(n[0]), "%lld", num(cause, "images"));
			/* A user's checker names no record (records 0, seq -1). */
			snprintf(n[1], sizeof(n[1]), num(cause, "records") ? "%lld" : "-", num(cause, "records"));
			snprintf(n[2], sizeof(n[2]), num(cause, "seq") >= 0 ? "#%lld" : "-", num(cause, "seq"));
			cells[0] = str(row, "scenario");
			cells[1] = str(row, "fs");
			cells[2] = n[0];
			cells[3] = n[1];
			cells[4] = n[2];
			cells[5] = str(cause, "site");
			cells[6] = str(cause, "why");
			table_row(&t, cells);
		}
	}
	table_end(&t);
}

void verdict_blackbox_table(json_t *rows, FILE *out, enum table_format fmt)
{
	static const char *const header[] = { "program", "fs", "platform", "images", "recovered", "rec-failed",
					      "pool-bad", "fscor", "bugs", "no-crash", "result" };
	static const int width[] = { 10, 5, 8, 6, 9, 10, 8, 5, 5, 8, 0 };
	char n[8][24];
	const char *cells[11];
	struct table t;
	json_t *row;
	size_t i;
	int any = 0;

	json_array_foreach(rows, i, row)
		any |= json_object_get(row, "blackbox") != NULL;
	if (!any)
		return;
	table_note(out, fmt, "Programs judged black-box by their own recovery: a failure is a crash bug only where "
			     "the same recovery passes on the uncrashed state at the same point (under ADR the eADR "
			     "image of its crash point, under eADR the state after a clean exit).");
	table_begin(&t, out, fmt, NULL, 11, header, width);
	json_array_foreach(rows, i, row) {
		json_t *v = json_object_get(row, "verdicts"), *b = json_object_get(row, "blackbox");

		if (!b)
			continue;
		snprintf(n[0], sizeof(n[0]), "%lld", num(row, "images"));
		snprintf(n[1], sizeof(n[1]), "%lld", num(v, "recovered"));
		snprintf(n[2], sizeof(n[2]), "%lld", num(v, "recovery-failed"));
		snprintf(n[3], sizeof(n[3]), "%lld", num(v, "pool-corrupt"));
		snprintf(n[4], sizeof(n[4]), "%lld", num(v, "fs-corrupt"));
		snprintf(n[5], sizeof(n[5]), "%lld", num(b, "crash_bugs"));
		snprintf(n[6], sizeof(n[6]), "%lld", num(b, "fail_without_crash"));
		cells[0] = str(row, "scenario");
		cells[1] = str(row, "fs");
		cells[2] = str(row, "platform");
		for (int k = 0; k < 7; k++)
			cells[3 + k] = n[k];
		cells[10] = verdict_result(row);
		table_row(&t, cells);
	}
	table_end(&t);
	/* What failed without the crash, by what the recovery said. */
	json_array_foreach(rows, i, row) {
		json_t *why = json_object_get(json_object_get(row, "blackbox"), "why_without_crash"), *n;
		const char *key;
		char text[600];

		json_object_foreach(why, key, n) {
			snprintf(text, sizeof(text), "%s/%s: %lld image%s fail without the crash too: %s", str(row, "scenario"),
				 str(row, "fs"), (long long)json_integer_value(n), json_integer_value(n) == 1 ? "" : "s",
				 key);
			table_note(out, fmt, text);
		}
	}
}
