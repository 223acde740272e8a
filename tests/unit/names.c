// SPDX-License-Identifier: GPL-2.0
/* Unit test: which names may become parts of host paths (lib/names.c). */
#include "lib/names.h"
#include "tap.h"

int main(void)
{
	static const char *const good[] = { "6.1-aware", "sync+aware", "xfs", "faults", "job_2.v1" };
	static const char *const bad[] = { "", ".", "..", "../../etc/passwd", "a/b", ".hidden", "a b",
					   "x;rm", "$(id)", "a'b", "a\nb", "<script>", "|t|" };
	int ok = 1;

	tap_plan(3);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok &= name_is_safe(good[i], 64);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "flavour, mode, filesystem and job names pass", NULL);
	ok = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (name_is_safe(bad[i], 64)) {
			tap_diag("'%s' passed", bad[i]);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "paths, dot names, spaces, shell and markup characters are refused", NULL);
	tap_result(!name_is_safe("abcdefgh", 8) && name_is_safe("abcdefg", 8) && !name_is_safe(NULL, 8) ?
		   TAP_PASS : TAP_FAIL, "a name must leave room for its NUL; NULL is refused", NULL);
	return tap_exit();
}
