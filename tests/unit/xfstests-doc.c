// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: what the host takes from an xfstests guest (results/xfstests.c).
 * A document is taken only when every field is as the protocol says; the
 * test list refuses bad names; each kernel is set beside its -stock
 * baseline, and a fail where the baseline passed is a regression.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "results/xfstests.h"

static int parse(const char *line, struct xt_doc *d)
{
	char why[256];
	int ret = xt_parse_line(line, strlen(line), d, why, sizeof(why));

	if (ret < 0)
		tap_diag("refused: %s", why);
	return ret;
}

static void documents(void)
{
	struct xt_doc d;
	char *big;
	int ret;

	ret = parse("{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"fail\","
		    "\"seconds\":12.5,\"reason\":\"- output mismatch\",\"aware_mappings\":3,\"files\":{\"out.bad\":\"x\",\"dmesg\":\"\"}}", &d);
	tap_result(ret == XT_DOC_TEST && !strcmp(d.test, "generic/413") && d.status == XT_FAIL &&
		   d.seconds == 12.5 && !strcmp(d.reason, "- output mismatch") && d.aware_mappings == 3 &&
		   !strcmp(json_string_value(json_object_get(d.files, "out.bad")), "x")
		   ? TAP_PASS : TAP_FAIL, "a test document is taken field by field", NULL);
	xt_doc_free(&d);
	tap_result(parse("plain output from a test", &d) == XT_DOC_NONE ? TAP_PASS : TAP_FAIL,
		   "a line that is no document is left in guest.log", NULL);
	ret = parse("{\"kind\":\"xfstests-error\",\"version\":1,\"message\":\"no /dev/pmem1\"}", &d);
	tap_result(ret == XT_DOC_ERROR && !strcmp(d.reason, "no /dev/pmem1") ? TAP_PASS : TAP_FAIL,
		   "an error document gives its message", NULL);

	static const char *const bad[] = {
		/* the test name becomes a file name on the host */
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"../../etc/x\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\\n\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/4130000\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"passed\",\"seconds\":1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"pass\",\"seconds\":-1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"pass\",\"seconds\":1e300,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"a\\u0000b\",\"files\":{}}",
		/* only the four result files, never a path */
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"fail\",\"seconds\":1,\"reason\":\"\",\"files\":{\"../x\":\"y\"}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"fail\",\"seconds\":1,\"reason\":\"\",\"files\":{\"full\":7}}",
		"{\"kind\":\"xfstests-test\",\"version\":2,\"test\":\"generic/413\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"test\":\"generic/414\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"files\":{}}",
		"{\"kind\":\"xfstests-test\"",
		"{\"a\":[1,2,3]}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"aware_mappings\":-1,\"files\":{}}",
		"{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\",\"status\":\"pass\",\"seconds\":1,\"reason\":\"\",\"aware_mappings\":\"7\",\"files\":{}}",
	};
	size_t i, refused = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = parse(bad[i], &d);
		refused += ret == -1;
		xt_doc_free(&d);
	}
	tap_result(refused == sizeof(bad) / sizeof(bad[0]) ? TAP_PASS : TAP_FAIL,
		   "names with '/', '..' or newlines, unknown statuses, durations out of range, NULs, "
		   "unknown files, other versions, duplicate keys, broken JSON and negative or non-integer aware counts are refused", NULL);

	/* A reason longer than the protocol allows, and a document over the line cap. */
	big = malloc(XT_LINE_MAX + 64);
	snprintf(big, XT_LINE_MAX + 64, "{\"kind\":\"xfstests-test\",\"version\":1,\"test\":\"generic/413\","
		 "\"status\":\"fail\",\"seconds\":1,\"files\":{},\"reason\":\"%0*d\"}", XT_REASON_MAX, 0);
	ret = parse(big, &d);
	memset(big, ' ', XT_LINE_MAX + 10);
	big[0] = '{';
	big[XT_LINE_MAX + 10] = '\0';
	tap_result(ret == -1 && xt_parse_line(big, strlen(big), &d, (char[64]){ 0 }, 64) == -1
		   ? TAP_PASS : TAP_FAIL, "an overlong reason and a line over the document cap are refused", NULL);
	free(big);
}

static void names_and_list(void)
{
	char path[] = "/tmp/unit-xfstests.XXXXXX", why[512];
	struct xt_list *l = calloc(1, sizeof(*l));
	int fd;
	FILE *f;

	tap_result(xt_name_valid("generic/413") && xt_name_valid("xfs/1234") && !xt_name_valid("generic/41") &&
		   !xt_name_valid("Generic/413") && !xt_name_valid("generic/413 ") && !xt_name_valid("/413") &&
		   !xt_name_valid("generic/../413")
		   ? TAP_PASS : TAP_FAIL, "test names: a lower-case directory and 3 or 4 digits", NULL);
	tap_result(xt_test_applies("generic/413", "xfs") && xt_test_applies("ext4/030", "ext4") &&
		   !xt_test_applies("ext4/030", "xfs") && !xt_test_applies("xfs/166", "ext4")
		   ? TAP_PASS : TAP_FAIL, "generic/ runs everywhere, ext4/ and xfs/ on their own filesystem", NULL);
	tap_result(xt_list_load("xfstests/tests", l, why, sizeof(why)) == 0 && l->n >= 17 &&
		   !strcmp(l->name[0], "generic/413")
		   ? TAP_PASS : TAP_FAIL, "the tree's test list loads", why);

	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs("# comment\ngeneric/413 a reason\ngeneric/413; rm -rf / because\n", f);
	fclose(f);
	tap_result(xt_list_load(path, l, why, sizeof(why)) < 0 && strstr(why, ":3:") ? TAP_PASS : TAP_FAIL,
		   "a list line that is no test name is refused with its line number", NULL);
	tap_diag("%s", why);
	f = fopen(path, "w");
	fputs("generic/413\n", f);
	fclose(f);
	tap_result(xt_list_load(path, l, why, sizeof(why)) < 0 && strstr(why, "no reason") ? TAP_PASS : TAP_FAIL,
		   "a test without its reason is refused", NULL);
	f = fopen(path, "w");
	fputs("generic/413 one\ngeneric/413 two\n", f);
	fclose(f);
	tap_result(xt_list_load(path, l, why, sizeof(why)) < 0 && strstr(why, "twice") ? TAP_PASS : TAP_FAIL,
		   "a test listed twice is refused", NULL);
	unlink(path);
	free(l);
}

static void baselines_and_table(void)
{
	static const char *const kernels[] = { "6.1-stock", "6.1-aware", "6.12-aware", "user-linux-abc" };
	json_t *results, *k, *fs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int reg;

	tap_result(!strcmp(xt_baseline("6.1-aware", kernels, 4) ?: "", "6.1-stock") &&
		   !xt_baseline("6.1-stock", kernels, 4) && !xt_baseline("6.12-aware", kernels, 4) &&
		   !xt_baseline("user-linux-abc", kernels, 4)
		   ? TAP_PASS : TAP_FAIL, "a kernel's baseline is the -stock kernel of its version, when run", NULL);

	results = json_pack("[{s:s,s:s,s:s,s:s}, {s:s,s:s,s:s,s:s}, {s:s,s:s,s:s,s:s}, {s:s,s:s,s:s,s:s}]",
			    "kernel", "6.1-stock", "fs", "ext4", "test", "generic/413", "status", "pass",
			    "kernel", "6.1-aware", "fs", "ext4", "test", "generic/413", "status", "fail",
			    "kernel", "6.1-stock", "fs", "ext4", "test", "generic/<b>", "status", "notrun",
			    "kernel", "6.1-aware", "fs", "ext4", "test", "generic/<b>", "status", "pass");
	xt_compare_baselines(results, kernels, 2);
	tap_result(json_is_true(json_object_get(json_array_get(results, 1), "regression")) &&
		   !json_object_get(json_array_get(results, 0), "regression") &&
		   json_is_true(json_object_get(json_array_get(results, 3), "differs")) &&
		   json_is_false(json_object_get(json_array_get(results, 3), "regression"))
		   ? TAP_PASS : TAP_FAIL, "aware failing what stock passes is a regression; notrun to pass only differs",
		   NULL);
	k = json_pack("[s,s]", "6.1-stock", "6.1-aware");
	fs = json_pack("[s]", "ext4");
	f = open_memstream(&buf, &len);
	reg = xt_table(f, results, k, fs);
	fclose(f);
	tap_result(reg == 1 && strstr(buf, "| generic/413 | pass | fail **REGRESSION** |") &&
		   strstr(buf, "notrun | pass (differs)") && !strstr(buf, "<b>")
		   ? TAP_PASS : TAP_FAIL, "the table flags the regression and the difference, names inert", NULL);
	tap_diag("%s", buf);
	free(buf);
	json_decref(results);
	json_decref(k);
	json_decref(fs);
}

int main(void)
{
	tap_plan(14);
	documents();
	names_and_list();
	baselines_and_table();
	return tap_exit();
}
