// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: a record acknowledged without an address, placed in the ADR
 * region by the checker's data_map (crash-inject/judge/place.c), and the
 * data_map as the host loads it from a report (crash-inject/judge/judge.c),
 * bounds included: the guest sends it.
 */
#include <stdint.h>
#include <string.h>

#include "crash-inject/judge/judge.h"
#include "crash-inject/judge/place.h"
#include "tap.h"

#define BASE 0x100000000ULL
#define REGION (256ULL << 20)
#define DOC(map) "{\"schema\":1,\"kind\":\"check\",\"image\":3,\"mounted\":true,\"fsck\":0,\"data_map\":" map "}"

static char why[200];

static int load(const char *text, struct check_report *r)
{
	return check_report_load(text, strlen(text), 3, r, NULL, why, sizeof(why));
}

int main(void)
{
	/* The device starts 2 MiB into the region; the file is two extents:
	 * [0, 8 KiB) at device byte 1 MiB, [8 KiB, 16 KiB) at 4 MiB. */
	struct data_map m = { .dev_phys = BASE + (2 << 20), .n = 2 };
	struct adr_record r;
	struct check_report rep;
	uint64_t got;
	int ok;

	tap_plan(9);
	m.ext[0].logical = 0, m.ext[0].physical = 1 << 20, m.ext[0].len = 8192;
	m.ext[1].logical = 8192, m.ext[1].physical = 4 << 20, m.ext[1].len = 8192;

	got = record_place(&m, BASE, REGION, 7, 4096, 4096, &r);
	ok = got == 4096 && r.seq == 7 && r.len == 4096 && r.n == 1 && r.ext[0].rec_off == 0 &&
	     r.ext[0].region_off == (3 << 20) + 4096 && r.ext[0].len == 4096;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a record inside one extent lies at device start + physical + offset", NULL);

	got = record_place(&m, BASE, REGION, 8, 6144, 4096, &r);
	ok = got == 4096 && r.n == 2 && r.ext[0].rec_off == 0 && r.ext[0].len == 2048 &&
	     r.ext[0].region_off == (3 << 20) + 6144 && r.ext[1].rec_off == 2048 && r.ext[1].len == 2048 &&
	     r.ext[1].region_off == 6 << 20;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a record across two extents is placed in two pieces", NULL);

	got = record_place(&m, BASE, REGION, 9, 12288, 8192, &r);
	tap_result(got == 4096 && r.n == 1 ? TAP_PASS : TAP_FAIL, "the part of a record past the file's extents (a hole) is not placed", NULL);

	m.dev_phys = BASE + REGION - 4096;
	got = record_place(&m, BASE, REGION, 7, 0, 4096, &r);
	tap_result(got == 0 && r.n == 0 ? TAP_PASS : TAP_FAIL, "an extent that would lie past the region places nothing", NULL);
	m.dev_phys = BASE - (8 << 20);
	got = record_place(&m, BASE, REGION, 7, 0, 4096, &r);
	tap_result(got == 0 && r.n == 0 ? TAP_PASS : TAP_FAIL, "an extent below the region places nothing", NULL);
	m.dev_phys = BASE;
	got = record_place(&m, BASE, REGION, 7, UINT64_MAX - 10, UINT64_MAX, &r);
	tap_result(got == 0 ? TAP_PASS : TAP_FAIL, "an ack whose end would wrap places nothing, and does not wrap", NULL);

	ok = load(DOC("{\"file\":\"crash/data\",\"dev_phys\":4297064448,\"extents\":[[0,2097152,262144],[262144,0,4096]]}"),
		  &rep) == 0 && rep.map && rep.map->n == 2 && rep.map->dev_phys == 4297064448ULL &&
	     rep.map->ext[0].physical == 2097152 && rep.map->ext[0].len == 262144 && rep.map->ext[1].logical == 262144;
	if (!ok)
		tap_diag("refused: %s", why);
	check_report_free(&rep);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a report's data_map loads", NULL);

	ok = load(DOC("{\"file\":\"crash/data\",\"dev_phys\":1,\"extents\":[[0,0,0]]}"), &rep) < 0 &&
	     load(DOC("{\"file\":\"crash/data\",\"dev_phys\":1,\"extents\":[[0,-1,4096]]}"), &rep) < 0 &&
	     load(DOC("{\"file\":\"crash/data\",\"dev_phys\":4503599627370497,\"extents\":[]}"), &rep) < 0 &&
	     load(DOC("{\"file\":\"crash/data\",\"dev_phys\":1,\"extents\":[[0,4503599627370497,1]]}"), &rep) < 0 &&
	     load(DOC("{\"file\":\"crash/data\",\"dev_phys\":1,\"extents\":[[0,1]]}"), &rep) < 0 &&
	     load(DOC("{\"dev_phys\":1,\"extents\":[]}"), &rep) < 0 && load(DOC("[]"), &rep) < 0;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a data_map with an empty, negative, huge or short extent, or no file, is refused", NULL);

	{
		char doc[8192];
		size_t n = snprintf(doc, sizeof(doc), "{\"schema\":1,\"kind\":\"check\",\"image\":3,\"mounted\":true,"
				    "\"fsck\":0,\"data_map\":{\"file\":\"d\",\"dev_phys\":1,\"extents\":[");

		for (int i = 0; i <= CHECK_MAX_EXTENTS; i++)
			n += snprintf(doc + n, sizeof(doc) - n, "%s[%d,0,4096]", i ? "," : "", i * 4096);
		snprintf(doc + n, sizeof(doc) - n, "]}}");
		ok = load(doc, &rep) < 0;
		tap_result(ok ? TAP_PASS : TAP_FAIL, "a data_map of more than CHECK_MAX_EXTENTS extents is refused", NULL);
	}
	return tap_exit();
}
