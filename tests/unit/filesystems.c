// SPDX-License-Identifier: GPL-2.0
/* Unit test: the filesystem table (vm-images/filesystems, lib/filesystems.c). */
#include <stdio.h>
#include <string.h>

#include "lib/filesystems.h"
#include "tap.h"

static int bad_line_of(const char *text)
{
	struct filesystem rows[4];
	int bad = 0;

	return fs_table_parse(text, rows, 4, &bad) < 0 ? bad : 0;
}

/* Whether every default of kind is offered to runs of run. */
static int defaults_offered(const char *kind, const char *run)
{
	char list[256], *save, *fs;

	snprintf(list, sizeof(list), "%s", fs_defaults(kind));
	for (fs = strtok_r(list, " ", &save); fs; fs = strtok_r(NULL, " ", &save))
		if (!fs_for(fs, run))
			return 0;
	return list[0] != '\0';
}

int main(void)
{
	struct filesystem rows[4];
	const struct filesystem *f;
	const char *held;
	int bad = 0, n;

	tap_plan(8);
	n = fs_table_parse("# comment\n\n  a | t | k | bench crashtest | ck -n | mk -q  | bench \nb|t2|k2|crashtest|c|m|-", rows, 4,
			   &bad);
	tap_result(n == 2 && !strcmp(rows[0].name, "a") && !strcmp(rows[0].mkfs, "mk -q") &&
		   !strcmp(rows[0].fsck, "ck -n") && !strcmp(rows[1].type, "t2") && !strcmp(rows[1].mkfs, "m") &&
		   !strcmp(rows[0].defaults, "bench") ?
		   TAP_PASS : TAP_FAIL, "rows parsed, blanks around columns trimmed, comments and blank lines skipped",
		   NULL);
	tap_result(bad_line_of("a|t|k|r|f|m\n") == 1 && bad_line_of("#\na|t|k|r|f|m|d|x\n") == 2 &&
		   bad_line_of("a| |k|r|f|m|d\n") == 1 && bad_line_of("a b|t|k|r|f|m|d\n") == 1 &&
		   bad_line_of("../x|t|k|r|f|m|d\n") == 1 ? TAP_PASS : TAP_FAIL,
		   "a row with a column missing, one too many, an empty one, or a name with a blank or '/' is refused",
		   NULL);
	tap_result(bad_line_of("a|t|k|r|f|m|d\nb|t|k|r|f|m|d\nc|t|k|r|f|m|d\nd|t|k|r|f|m|d\ne|t|k|r|f|m|d\n") == 5 ?
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
	held = fs_defaults("crashtest");
	tap_result(!strcmp(fs_defaults("bench"), "ext4 xfs") && !strcmp(fs_defaults("quick"), "ext4") &&
		   !strcmp(fs_defaults("crashtest"), "ext4 xfs xfs-reflink") &&
		   !strcmp(fs_defaults("program"), "ext4 xfs") && !strcmp(fs_defaults("xfstests"), "ext4 xfs") &&
		   !strcmp(fs_defaults("ext4"), "") && !strcmp(held, "ext4 xfs xfs-reflink") ? TAP_PASS : TAP_FAIL,
		   "default: the names each run takes unasked, in the order of the rows, kept across calls", NULL);
	tap_result(defaults_offered("bench", "bench") && defaults_offered("quick", "bench") &&
		   defaults_offered("crashtest", "crashtest") && defaults_offered("program", "crashtest") &&
		   defaults_offered("xfstests", "xfstests") ? TAP_PASS : TAP_FAIL,
		   "each run's defaults are offered to it", NULL);
	return tap_exit();
}
