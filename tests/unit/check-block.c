// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: a checker slot's report on one image, from the lines its guest
 * sends (harness/check_block.c), with the hostile ones a user's checker
 * could send on purpose; and what an empty report is judged.
 */
#include <stdlib.h>
#include <string.h>

#include "../crash-inject/judge.h"
#include "check_block.h"
#include "tap.h"

static struct check_block b;

/* Feed lines ("\n"-separated) for item; the report taken, or NULL if none. */
static const char *feed(long item, const char *lines)
{
	static char report[4096];
	char *copy = strdup(lines), *line, *save;
	const char *ret = NULL;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (check_block_line(&b, item, line)) {
			snprintf(report, sizeof(report), "%.*s", (int)(b.len < sizeof(report) ? b.len : 0), b.buf);
			ret = report;
			break;
		}
	free(copy);
	return ret;
}

int main(void)
{
	static const struct ack_rec acks[] = { { 0, 0, 4096 } };
	const char *r;
	char *line;
	struct check_report cr;
	json_t *v;
	int ok;

	b.buf = malloc(CHECK_BLOCK_MAX);
	line = malloc(1 << 20);
	if (!b.buf || !line)
		return 1;
	tap_plan(6);

	check_block_reset(&b);
	r = feed(3, "booting\n@@begin 3\nmount ok\n0 V 0\nfsck 0\n@@end 3\n");
	tap_result(r && !strcmp(r, "@@begin 3\nmount ok\n0 V 0\nfsck 0\n") ? TAP_PASS : TAP_FAIL,
		   "the block of the image, and nothing said before it", NULL);

	/* The next image: its guest ends a report it never began. */
	check_block_reset(&b);
	r = feed(4, "mount ok\n0 V 0\nfsck 0\n@@end 4\n");
	tap_result(r && !*r ? TAP_PASS : TAP_FAIL,
		   "an @@end with no @@begin: an empty report, not the previous image's", NULL);

	check_block_reset(&b);
	r = feed(5, "@@begin 4\nmount ok\n@@end 4\n@@begin 5x\nmount ok\n@@end 5\n");
	tap_result(r && !*r ? TAP_PASS : TAP_FAIL,
		   "a block begun for another image, or as '@@begin 5x', is not image 5's", NULL);

	check_block_reset(&b);
	r = feed(6, "@@begin 6\nmount ok\n@@begin 6\nfsck 0\n@@end 6\n");
	tap_result(r && !strcmp(r, "@@begin 6\nfsck 0\n") ? TAP_PASS : TAP_FAIL,
		   "an @@begin again starts the block over", NULL);

	/* Over the bound, 1 MiB lines at a time: empty, whatever came after. */
	check_block_reset(&b);
	memset(line, 'x', (1 << 20) - 1);
	line[(1 << 20) - 1] = '\0';
	ok = !check_block_line(&b, 7, "@@begin 7");
	for (unsigned int i = 0; i <= CHECK_BLOCK_MAX >> 20; i++)
		ok &= !check_block_line(&b, 7, line);
	ok &= !check_block_line(&b, 7, "mount ok") && check_block_line(&b, 7, "@@end 7") && b.len == 0;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a report over the bound is taken as empty", NULL);

	/* What the pool makes of an empty report. */
	v = check_report_parse("", &cr) == 0 ? judge(&cr, acks, 1) : NULL;
	tap_result(v && !strcmp(json_string_value(json_object_get(v, "verdict")) ?: "", "fs-corrupt") ? TAP_PASS : TAP_FAIL,
		   "an empty report is judged fs-corrupt", NULL);
	json_decref(v);
	check_report_free(&cr);
	free(line);
	free(b.buf);
	return tap_exit();
}
