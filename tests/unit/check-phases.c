// SPDX-License-Identifier: GPL-2.0
/* Unit test: the checker's phase line and its summary (crash-inject/check_phases.c). */
#include <string.h>

#include "check_phases.h"
#include "tap.h"

int main(void)
{
	struct check_phases p[3] = { { .ms = { 10 } }, { .ms = { 30 } }, { .ms = { 20 } } };
	json_t *doc, *mount;

	tap_plan(6);
	check_phases_parse("@@begin 1\nmount ok\nphase mount 40.5 verify 2 umount 3 fsck 90\n", &p[0]);
	tap_result(p[0].have_guest && p[0].ms[PHASE_MOUNT] == 40.5 && p[0].ms[PHASE_FSCK] == 90 &&
		   p[0].ms[PHASE_WRITE] == 10 ? TAP_PASS : TAP_FAIL, "a phase line is read, the host's write kept", NULL);
	check_phases_parse("phase mount 1e400 verify 2 umount 3 fsck 4\n", &p[1]);
	tap_result(!p[1].have_guest ? TAP_PASS : TAP_FAIL, "an infinite figure is not believed", NULL);
	check_phases_parse("phase mount -1 verify 2 umount 3 fsck 4\n", &p[1]);
	tap_result(!p[1].have_guest ? TAP_PASS : TAP_FAIL, "a negative figure is not believed", NULL);
	check_phases_parse("phase mount 5 verify 2\n", &p[2]);
	tap_result(!p[2].have_guest ? TAP_PASS : TAP_FAIL, "a short phase line is not believed", NULL);
	doc = check_phases_json(p, 3);
	mount = json_object_get(doc, "mount");
	tap_result(json_real_value(json_object_get(json_object_get(doc, "write"), "median_ms")) == 20 &&
		   json_integer_value(json_object_get(mount, "n")) == 1 ? TAP_PASS : TAP_FAIL,
		   "medians over the images that reported: write of 3, mount of 1", NULL);
	json_decref(doc);
	/* The host's round trip counts only where the guest asked again after the image. */
	p[0].ms[PHASE_ROUND] = 200;
	p[0].have_round = 1;
	p[1].ms[PHASE_ROUND] = 999; /* the checker died on it: never asked again */
	doc = check_phases_json(p, 3);
	tap_result(json_integer_value(json_object_get(json_object_get(doc, "round"), "n")) == 1 &&
		   json_real_value(json_object_get(json_object_get(doc, "round"), "median_ms")) == 200 ?
		   TAP_PASS : TAP_FAIL, "round trips only of the images the guest asked past", NULL);
	json_decref(doc);
	return tap_exit();
}
