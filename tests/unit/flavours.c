// SPDX-License-Identifier: GPL-2.0
/* Unit test: the default kernels of the flavour table (vm-images/flavours, lib/flavours.c). */
#include <stdio.h>
#include <string.h>

#include "lib/flavours.h"
#include "tap.h"

/* Whether the defaults of kind in text are want. */
static int defaults_are(const char *text, const char *kind, const char *want)
{
	char out[64];

	return !flavour_defaults_of(text, kind, out, sizeof(out)) && !strcmp(out, want);
}

int main(void)
{
	static const char text[] =
		"# name version sets\n"
		"a  6.1  -  default=bench,xfstests\n"
		"\n"
		"  b\t6.1  p q  x=1 default=bench  nvdimm-persistence=cpu\n"
		"c  6.12 -  benchdefault=bench default\n"
		"d  6.12 -  default=quick,bench\n";
	char small[4];
	const char *held;

	tap_plan(5);
	tap_result(defaults_are(text, "bench", "a b d") && defaults_are(text, "quick", "d") &&
		   defaults_are(text, "xfstests", "a") ? TAP_PASS : TAP_FAIL,
		   "a kind's defaults are the rows whose default= word names it, in the order of the rows", NULL);
	tap_result(defaults_are(text, "bencher", "") && defaults_are(text, "ench", "") &&
		   defaults_are(text, "default", "") && defaults_are(text, "", "") ? TAP_PASS : TAP_FAIL,
		   "whole kinds only, and only in a default= word: none for another kind", NULL);
	tap_result(flavour_defaults_of(text, "bench", small, sizeof(small)) < 0 ? TAP_PASS : TAP_FAIL,
		   "defaults longer than the room given are refused, not cut", NULL);

	/* The tree's own table, as the build compiled it in. */
	tap_result(!strcmp(flavour_defaults("bench"), "6.1-stock 6.1-aware") &&
		   !strcmp(flavour_defaults("quick"), "6.1-aware") && !strcmp(flavour_defaults("crashtest"), "6.1-aware") &&
		   !strcmp(flavour_defaults("stock"), "6.1-stock") &&
		   !strcmp(flavour_defaults("xfstests"), "6.1-stock 6.1-aware 6.12-stock 6.12-aware") &&
		   !strcmp(flavour_defaults("nope"), "") ? TAP_PASS : TAP_FAIL,
		   "the tree's table gives each kind of run the kernels it took before the table said so", NULL);
	held = flavour_defaults("bench");
	flavour_defaults("quick");
	tap_result(held == flavour_defaults("bench") && !strcmp(held, "6.1-stock 6.1-aware") ? TAP_PASS : TAP_FAIL,
		   "a kind's list stays put while another kind is asked for", NULL);
	return tap_exit();
}
