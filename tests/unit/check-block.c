// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: a checker slot's report on one image, from the lines its guest
 * sends (crash-inject/judge/check_block.c), with the hostile ones a user's checker
 * could send on purpose; and what an empty report is judged.
 */
#include <stdlib.h>
#include <string.h>

#include "crash-inject/judge/judge.h"
#include "crash-inject/judge/check_block.h"
#include "tap.h"

#define DOC(i) "{\"schema\":1,\"kind\":\"check\",\"image\":" #i ",\"mounted\":true,\"files\":[{\"name\":\"crash/data\"," \
	       "\"missing\":false,\"size\":4096,\"slots\":[[0,0,\"V\",0]]}],\"fsck\":0}"

static struct check_block b;

/* Feed lines ("\n"-separated) for item; the report taken, or NULL if none. */
static const char *feed(long item, const char *lines)
{
	static char report[4096];
	char *copy = strdup(lines), *line, *save;
	const char *ret = NULL;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (check_block_line(&b, item, line)) {
			snprintf(report, sizeof(report), "%.*s", (int)(b.len < sizeof(report) ? b.len : 0), b.doc);
			ret = report;
			break;
		}
	free(copy);
	return ret;
}

/* What the pool makes of a report taken for item. */
static const char *verdict_of(const char *report, long item, json_t **v)
{
	static const struct ack_rec acks[] = { { 0, 0, 4096 } };
	struct check_report cr;
	char why[200];

	*v = NULL;
	if (check_report_load(report, strlen(report), item, &cr, NULL, why, sizeof(why)) < 0)
		return "fs-corrupt"; /* as the pool's failure() has it */
	*v = judge(&cr, acks, 1);
	check_report_free(&cr);
	return json_string_value(json_object_get(*v, "verdict")) ?: "";
}

int main(void)
{
	const char *r;
	char *line;
	json_t *v;
	int ok;

	line = malloc(CHECK_BLOCK_MAX + 1);
	if (!line)
		return 1;
	tap_plan(9);

	r = feed(3, "booting\nmount ok\n" DOC(3) "\n" DOC(3) "x\n");
	ok = r && !strcmp(r, DOC(3)) && !strcmp(verdict_of(r, 3, &v), "intact");
	json_decref(v);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "the document on the image, and nothing said before it", NULL);

	/* The next image: its guest sends the previous image's document again. */
	r = feed(4, DOC(3) "\n@@end 4\n" DOC(4) "\n");
	tap_result(r && !strcmp(r, DOC(4)) ? TAP_PASS : TAP_FAIL,
		   "a document on another image is passed over, not taken for this one", NULL);

	r = feed(5, "@@begin 5\nmount ok\nfsck 0\n@@end 5\n");
	tap_result(!r ? TAP_PASS : TAP_FAIL, "the old text block is no report at all", NULL);

	r = feed(5, "{\"schema\":1,\"kind\":\"log\",\"image\":5}\n{\"schema\":1,\"kind\":\"check\",\"image\":6}\n" DOC(5));
	tap_result(r && !strcmp(r, DOC(5)) ? TAP_PASS : TAP_FAIL,
		   "documents of another kind, or on another image, are passed over", NULL);

	/* Taken, so that the image's verdict says why it was refused. */
	r = feed(6, "{\"schema\":2,\"kind\":\"check\",\"image\":6,\"mounted\":true,\"fsck\":0}\n" DOC(6));
	ok = r && strstr(r, "\"schema\":2") && !strcmp(verdict_of(r, 6, &v), "fs-corrupt");
	r = feed(6, "{\"schema\":1,\"kind\":\"check\",\"image\":6,\"mounted\":tru\n" DOC(6));
	ok &= r && strstr(r, "tru") && !strcmp(verdict_of(r, 6, &v), "fs-corrupt");
	r = feed(6, "{\"schema\":1,\"kind\":\"check\",\"image\":\"6\",\"mounted\":true,\"fsck\":0}\n" DOC(6));
	ok &= r && strstr(r, "\"6\"") && !strcmp(verdict_of(r, 6, &v), "fs-corrupt");
	tap_result(ok ? TAP_PASS : TAP_FAIL,
		   "another schema, bad JSON or an image that is no number: taken, and judged fs-corrupt", NULL);

	/* Over the bound (the guest's runner hands such a line over in pieces
	 * of CHECK_BLOCK_MAX bytes): empty, whatever came after. */
	memset(line, '{', CHECK_BLOCK_MAX);
	line[CHECK_BLOCK_MAX] = '\0';
	ok = check_block_line(&b, 7, line) && b.len == 0;
	memcpy(line, DOC(7), sizeof(DOC(7)) - 1);
	ok &= check_block_line(&b, 7, line) && b.len == 0;
	line[CHECK_BLOCK_MAX - 1] = '\0';
	memset(line + sizeof(DOC(7)) - 1, ' ', CHECK_BLOCK_MAX - sizeof(DOC(7)));
	ok &= check_block_line(&b, 7, line) && b.len == CHECK_BLOCK_MAX - 1;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a report of CHECK_BLOCK_MAX bytes or more is taken as empty; "
		   "one byte less is whole", NULL);

	line[0] = 'x';
	ok = !check_block_line(&b, 7, line) && !check_block_line(&b, 7, "") && !check_block_line(&b, 7, " {");
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a long line, an empty one, or one that does not start with '{': "
		   "passed over", NULL);

	/* What the pool makes of an empty report. */
	tap_result(!strcmp(verdict_of("", 7, &v), "fs-corrupt") ? TAP_PASS : TAP_FAIL,
		   "an empty report is judged fs-corrupt", NULL);

	r = feed(8, "{\"schema\":1,\"kind\":\"check\",\"image\":8,\"mounted\":true,\"files\":{},\"fsck\":0}\n");
	ok = r && !strcmp(verdict_of(r, 8, &v), "fs-corrupt");
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a document on the image of the wrong shape is judged fs-corrupt", NULL);
	free(line);
	return tap_exit();
}
