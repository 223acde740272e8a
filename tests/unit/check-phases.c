// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the checker's phases, read with its document on an image
 * (crash-inject/judge/judge.c), and their summary (crash-inject/judge/check_phases.c).
 */
#include <string.h>

#include "crash-inject/judge/check_phases.h"
#include "crash-inject/judge/judge.h"
#include "tap.h"

#define DOC(phase) "{\"schema\":1,\"kind\":\"check\",\"image\":1,\"mounted\":true,\"fsck\":0,\"phase\":" phase "}"

/* Load the phases of text into p: whether the report itself was taken. */
static int phases(const char *text, struct check_phases *p)
{
	struct check_report r;
	char why[200];

	if (check_report_load(text, strlen(text), 1, &r, p, why, sizeof(why)) < 0)
		return 0;
	check_report_free(&r);
	return 1;
}

int main(void)
{
	struct check_phases p[3] = { { .ms = { 10 } }, { .ms = { 30 } }, { .ms = { 20 } } };
	json_t *doc, *mount;
	int ok;

	tap_plan(8);
	phases(DOC("{\"mount\":40.5,\"verify\":2,\"umount\":3,\"fsck\":90}"), &p[0]);
	tap_result(p[0].have_guest && p[0].ms[PHASE_MOUNT] == 40.5 && p[0].ms[PHASE_FSCK] == 90 &&
		   p[0].ms[PHASE_WRITE] == 10 ? TAP_PASS : TAP_FAIL, "the phases are read, the host's write kept", NULL);
	/* JSON has no infinity: a figure too large for a double is refused
	 * by the parser, the document with it. */
	ok = !phases(DOC("{\"mount\":1e400,\"verify\":2,\"umount\":3,\"fsck\":4}"), &p[1]) && !p[1].have_guest;
	ok &= phases(DOC("{\"mount\":3600000,\"verify\":2,\"umount\":3,\"fsck\":4}"), &p[1]) && !p[1].have_guest;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "an infinite figure, or an hour and more, is not believed", NULL);
	ok = phases(DOC("{\"mount\":-1,\"verify\":2,\"umount\":3,\"fsck\":4}"), &p[1]) && !p[1].have_guest;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a negative figure is not believed, the report still taken", NULL);
	ok = phases(DOC("{\"mount\":5,\"verify\":2}"), &p[2]) && !p[2].have_guest;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "phases with steps missing are not believed", NULL);
	ok = phases(DOC("{\"mount\":\"5\",\"verify\":2,\"umount\":3,\"fsck\":4}"), &p[2]) && !p[2].have_guest;
	ok &= phases(DOC("[5,2,3,4]"), &p[2]) && !p[2].have_guest;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "phases of the wrong type are not believed", NULL);
	ok = !phases("{\"schema\":1,\"kind\":\"check\",\"image\":2,\"mounted\":true,\"fsck\":0,"
		     "\"phase\":{\"mount\":5,\"verify\":2,\"umount\":3,\"fsck\":4}}", &p[2]) && !p[2].have_guest;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "the phases of a document on another image are not this image's", NULL);
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
