// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the checker's report as the host parses it (crash-inject/
 * judge.c), including reports a hostile or broken guest could send.
 */
#include <string.h>

#include "judge.h"
#include "tap.h"

static int parse(const char *text, struct check_report *r)
{
	return check_report_parse(text, r);
}

int main(void)
{
	struct check_report r;
	static const struct ack_rec acks[] = { { 0, 0, 4096 }, { 1, 4096, 4096 }, { 2, 8192, 4096 } };
	json_t *v;
	int ok;

	tap_plan(8);
	ok = parse("mount ok\nfile crash/data\nsize 16384\n0 V 0\n1 V 1\n2-3 Z 0\nfsck 0\n", &r) == 0 &&
	     r.mounted && r.fsck_status == 0 && r.nslots == 4 && !memcmp(r.slots, "VVZZ", 4) &&
	     r.seqs[1] == 1;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "single slots and a run of zero slots", NULL);
	v = judge(&r, acks, 2);
	tap_result(!strcmp(json_string_value(json_object_get(v, "verdict")), "intact") ? TAP_PASS : TAP_FAIL,
		   "two acknowledged records present: intact", NULL);
	json_decref(v);
	v = judge(&r, acks, 3);
	tap_result(!strcmp(json_string_value(json_object_get(v, "verdict")), "lost") ? TAP_PASS : TAP_FAIL,
		   "the third acknowledged record inside the zero run: lost", NULL);
	json_decref(v);
	check_report_free(&r);

	ok = parse("mount ok\n0-1023 Z 0\n5 T 5\nfsck 0\n", &r) == 0 && r.nslots == 1024 && r.slots[5] == 'T' &&
	     r.slots[1023] == 'Z';
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a later line overrides a slot of a run", NULL);
	check_report_free(&r);

	/* Before the bound, a slot of 2^64 - 1 made the host double its buffer
	 * size until it wrapped to zero, and then loop forever. */
	tap_result(parse("mount ok\n18446744073709551615 V 1\n", &r) < 0 ? TAP_PASS : TAP_FAIL,
		   "a slot past JUDGE_MAX_SLOTS is refused, not allocated", NULL);
	tap_result(parse("mount ok\n0-4194304 Z 0\n", &r) < 0 ? TAP_PASS : TAP_FAIL,
		   "a run ending past JUDGE_MAX_SLOTS is refused", NULL);
	tap_result(parse("mount ok\n9-3 Z 0\n", &r) < 0 ? TAP_PASS : TAP_FAIL,
		   "a run that ends before it starts is refused", NULL);
	tap_result(parse("mount ok\n3 Q 0\n", &r) < 0 ? TAP_PASS : TAP_FAIL,
		   "a state that is not V, Z, T or X is refused", NULL);
	return tap_exit();
}
