// SPDX-License-Identifier: GPL-2.0
/* Unit test: the filesystem table (vm-images/filesystems, lib/filesystems.c). */
#include <string.h>

#include "lib/filesystems.h"
#include "tap.h"

static int bad_line_of(const char *text)
{
	struct filesystem rows[4];
	int bad = 0;

	return fs_table_parse(text, rows, 4, &bad) < 0 ? bad : 0;
}

int main(void)
{
	struct filesystem rows[4];
	const struct filesystem *f;
	int bad = 0, n;

	tap_plan(6);
	n = fs_table_parse("# comment\n\n  a | t | k | bench crashtest | ck -n | mk -q  \nb|t2|k2|crashtest|c|m", rows, 4,
			   &bad);
	tap_result(n == 2 && !strcmp(rows[0].name, "a") && !strcmp(rows[0].mkfs, "mk -q") &&
		   !strcmp(rows[0].fsck, "ck -n") && !strcmp(rows[1].type, "t2") && !strcmp(rows[1].mkfs, "m") ?
		   TAP_PASS : TAP_FAIL, "rows parsed, blanks around columns trimmed, comments and blank lines skipped",
		   NULL);
	tap_result(bad_line_of("a|t|k|r|f\n") == 1 && bad_line_of("#\na|t|k|r|f|m|x\n") == 2 &&
		   bad_line_of("a| |k|r|f|m\n") == 1 && bad_line_of("a b|t|k|r|f|m\n") == 1 &&
		   bad_line_of("../x|t|k|r|f|m\n") == 1 ? TAP_PASS : TAP_FAIL,
		   "a row with a column missing, one too many, an empty one, or a name with a blank or '/' is refused",
		   NULL);
	tap_result(bad_line_of("a|t|k|r|f|m\nb|t|k|r|f|m\nc|t|k|r|f|m\nd|t|k|r|f|m\ne|t|k|r|f|m\n") == 5 ?
		   TAP_PASS : TAP_FAIL, "more rows than room is refused at the first that does not fit", NULL);

	/* The tree's own table, as the build compiled it in. */
	f = fs_find("ext4");
	tap_result(f && !strcmp(f->type, "ext4") && fs_find("xfs-reflink") && !fs_find("ext3") ?
		   TAP_PASS : TAP_FAIL, "the tree's table has ext4, xfs-reflink, and no ext3", NULL);
	tap_result(fs_for("xfs", "bench") && fs_for("xfs-reflink", "crashtest") && !fs_for("xfs-reflink", "bench") &&
		   !fs_for("xfs", "bencher") ? TAP_PASS : TAP_FAIL,
		   "runs: a filesystem is offered to the kinds its row names, whole words only", NULL);
	tap_result(!strcmp(fs_names("bench"), "ext4, xfs") &&
		   !strcmp(fs_names("crashtest"), "ext4, xfs, xfs-reflink, ext2") ? TAP_PASS : TAP_FAIL,
		   "the names offered to a kind, for messages", NULL);
	return tap_exit();
}
