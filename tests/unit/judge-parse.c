// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the checker's document on an image as the host loads it
 * (crash-inject/judge/judge.c), including documents a hostile or broken guest
 * could send; and the guest's own writer of a file's entry
 * (workloads/record_verify.c) read back by the loader.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workloads/json_out.h"
#include "workloads/record.h"
#include "workloads/record_verify.h"
#include "crash-inject/judge/check_phases.h"
#include "crash-inject/judge/judge.h"
#include "tap.h"

#define HEAD "{\"schema\":1,\"kind\":\"check\",\"image\":7,"
#define FILE_OF(slots) "\"files\":[{\"name\":\"crash/data\",\"missing\":false,\"size\":16384,\"slots\":[" slots "]}]"

static char why[200];

static int load(const char *text, struct check_report *r)
{
	return check_report_load(text, strlen(text), 7, r, NULL, why, sizeof(why));
}

/* Whether text is refused (and leaves nothing to free). */
static int refused(const char *text)
{
	struct check_report r;

	if (load(text, &r) == 0) {
		check_report_free(&r);
		return 0;
	}
	return !r.slots && !r.seqs;
}

/* The guest's entry for a file of records: 0, 1 valid, 2 zero, 3 torn. */
static int round_trip(struct check_report *r)
{
	char path[] = "/tmp/judge-parse.XXXXXX", *text = NULL, rec[4096];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int fd = mkstemp(path), ret;

	if (fd < 0 || !out)
		return -1;
	for (int i = 0; i < 4; i++) {
		memset(rec, 0, sizeof(rec));
		if (i != 2)
			record_fill(rec, sizeof(rec), i + 10, i * sizeof(rec));
		if (i == 3)
			rec[100] ^= 1;
		if (write(fd, rec, sizeof(rec)) != sizeof(rec))
			return -1;
	}
	close(fd);
	fputs(HEAD "\"mounted\":true,\"files\":[", out);
	record_verify_json(path, "crash/\"da\\ta\"\n\xff", sizeof(rec), out);
	fputs(",", out);
	record_verify_json("/nonexistent/judge-parse", "gone", sizeof(rec), out);
	fputs("],\"umount_error\":", out);
	json_put_string(out, "/mnt: \x01\x7f\"");
	fputs(",\"fsck\":0}", out);
	fclose(out);
	unlink(path);
	ret = load(text, r);
	if (ret < 0)
		tap_diag("refused: %s: %s", why, text);
	free(text);
	return ret;
}

int main(void)
{
	static const char *const hostile[] = {
		/* Before the bound, a slot of 2^64 - 1 made the host double its
		 * buffer size until it wrapped to zero, and then loop forever. */
		HEAD "\"mounted\":true," FILE_OF("[18446744073709551615,18446744073709551615,\"V\",1]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[9223372036854775807,9223372036854775807,\"V\",1]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[0,4194304,\"Z\",0]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[9,3,\"Z\",0]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[3,3,\"Q\",0]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[3,3,\"VV\",0]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[3,3,\"\",0]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[-1,3,\"V\",0]") ",\"fsck\":0}",
		HEAD "\"mounted\":true," FILE_OF("[0,3,\"V\",-5]") ",\"fsck\":0}",
		/* Runs that overlap to make the host write slots for ever. */
		HEAD "\"mounted\":true," FILE_OF("[0,4194303,\"Z\",0],[0,4194303,\"Z\",0],[0,4194303,\"Z\",0]") ",\"fsck\":0}",
	};
	static const char *const mistyped[] = {
		HEAD "\"mounted\":true," FILE_OF("[3,3,\"V\"]") ",\"fsck\":0}",		/* a run of three */
		HEAD "\"mounted\":true," FILE_OF("[3,3,\"V\",0,1]") ",\"fsck\":0}",		/* of five */
		HEAD "\"mounted\":true," FILE_OF("{\"first\":3}") ",\"fsck\":0}",		/* an object */
		HEAD "\"mounted\":true," FILE_OF("[\"3\",3,\"V\",0]") ",\"fsck\":0}",		/* a string */
		HEAD "\"mounted\":true," FILE_OF("[3.5,4,\"V\",0]") ",\"fsck\":0}",		/* a real */
		HEAD "\"mounted\":true," FILE_OF("[3,3,86,0]") ",\"fsck\":0}",			/* 'V' as a number */
		HEAD "\"mounted\":true,\"files\":{\"name\":\"crash/data\"},\"fsck\":0}",	/* not an array */
		HEAD "\"mounted\":true,\"files\":[\"crash/data\"],\"fsck\":0}",
		HEAD "\"mounted\":true,\"files\":[{\"name\":\"d\",\"missing\":\"no\",\"size\":1,\"slots\":[]}],\"fsck\":0}",
		HEAD "\"mounted\":true,\"files\":[{\"name\":\"d\",\"missing\":false,\"slots\":[]}],\"fsck\":0}",
		HEAD "\"mounted\":true,\"files\":[{\"name\":\"d\",\"missing\":false,\"size\":1,\"slots\":{}}],\"fsck\":0}",
		HEAD "\"mounted\":true,\"files\":[{\"name\":7,\"missing\":true}],\"fsck\":0}",
		HEAD "\"mounted\":true,\"files\":[{\"name\":\"d\",\"missing\":true,\"error\":5}],\"fsck\":0}",
		HEAD "\"mounted\":\"yes\",\"fsck\":0}",
		HEAD "\"mounted\":1,\"fsck\":0}",
		HEAD "\"mounted\":true,\"fsck\":\"0\"}",
		HEAD "\"mounted\":true,\"fsck\":-1}",
		HEAD "\"mounted\":true,\"fsck\":256}",
		HEAD "\"mounted\":true}",							/* no fsck */
		HEAD "\"fsck\":0}",								/* no mounted */
		HEAD "\"mounted\":true,\"user_check\":-3,\"fsck\":0}",
		HEAD "\"mounted\":true,\"user_check\":true,\"fsck\":0}",
		HEAD "\"mounted\":false,\"mount_error\":[\"x\"],\"fsck\":0}",
		HEAD "\"mounted\":true,\"umount_error\":1,\"fsck\":0}",
		HEAD "\"mounted\":true,\"flush_errors\":\"x\",\"fsck\":0}",
	};
	static const char *const others[] = {
		"{\"schema\":1,\"kind\":\"check\",\"image\":6,\"mounted\":true,\"fsck\":0}",	/* another image */
		"{\"schema\":1,\"kind\":\"check\",\"image\":\"7\",\"mounted\":true,\"fsck\":0}",
		"{\"schema\":1,\"kind\":\"check\",\"mounted\":true,\"fsck\":0}",
		"{\"schema\":1,\"kind\":\"writer\",\"image\":7,\"mounted\":true,\"fsck\":0}",	/* another kind */
		"{\"schema\":1,\"image\":7,\"mounted\":true,\"fsck\":0}",
		"{\"schema\":2,\"kind\":\"check\",\"image\":7,\"mounted\":true,\"fsck\":0}",	/* another schema */
		"{\"schema\":\"1\",\"kind\":\"check\",\"image\":7,\"mounted\":true,\"fsck\":0}",
		"{\"kind\":\"check\",\"image\":7,\"mounted\":true,\"fsck\":0}",
	};
	static const char *const bad_json[] = {
		"",
		"mount ok",
		"@@begin 7",
		"[1,2]",
		"{\"schema\":1,\"kind\":\"check\",\"image\":7,\"mounted\":true,\"fsck\":0",	/* cut short */
		"{\"schema\":1,\"kind\":\"check\",\"image\":7,\"mounted\":true,\"fsck\":0} {}",	/* two */
		"{\"schema\":1,\"kind\":\"check\",\"image\":7,\"image\":7,\"mounted\":true,\"fsck\":0}",
		"{\"schema\":1,\"kind\":\"check\",\"image\":7,\"mounted\":true,\"mount_error\":\"\xff\",\"fsck\":0}",
		"{\"schema\":1,\"kind\":\"check\",\"image\":7,\"mounted\":true,\"mount_error\":\"a\\u0000b\",\"fsck\":0}",
	};
	struct check_report r;
	struct check_phases ph = { .ms = { 5 } };
	static const struct ack_rec acks[] = { { 0, 0, 4096 }, { 1, 4096, 4096 }, { 2, 8192, 4096 } };
	const char *text;
	json_t *v;
	int ok;
	size_t i;

	tap_plan(17);
	ok = load(HEAD "\"mounted\":true," FILE_OF("[0,0,\"V\",0],[1,1,\"V\",1],[2,3,\"Z\",0]") ",\"fsck\":0}", &r) == 0 &&
	     r.mounted && r.fsck_status == 0 && r.nslots == 4 && !memcmp(r.slots, "VVZZ", 4) && r.seqs[1] == 1 &&
	     r.size == 16384 && !r.nofile && r.user_check == -1;
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

	ok = load(HEAD "\"mounted\":true," FILE_OF("[0,1023,\"Z\",0],[5,5,\"T\",5]") ",\"fsck\":0}", &r) == 0 &&
	     r.nslots == 1024 && r.slots[5] == 'T' && r.slots[1023] == 'Z';
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a later run overrides a slot of an earlier one", NULL);
	check_report_free(&r);

	ok = load(HEAD "\"mounted\":true,\"files\":[{\"name\":\"crash/data\",\"missing\":true}],\"fsck\":0}", &r) == 0 &&
	     r.nofile && r.nslots == 0;
	v = ok ? judge(&r, acks, 1) : NULL;
	tap_result(v && !strcmp(json_string_value(json_object_get(v, "verdict")), "lost") ? TAP_PASS : TAP_FAIL,
		   "a missing data file: every acknowledged record lost", NULL);
	json_decref(v);
	check_report_free(&r);

	ok = load(HEAD "\"mounted\":false,\"mount_error\":\"ext4 /dev/pmem0 on /mnt: Invalid argument\",\"fsck\":8,"
		  "\"flush_errors\":[\"/dev/pmem0: x\"],\"future_field\":{\"a\":[1]}}", &r) == 0 && !r.mounted;
	v = ok ? judge(&r, acks, 1) : NULL;
	tap_result(v && !strcmp(json_string_value(json_object_get(v, "verdict")), "fs-corrupt") ? TAP_PASS : TAP_FAIL,
		   "no mount: fs-corrupt; a field the loader does not know is ignored", NULL);
	json_decref(v);
	check_report_free(&r);

	ok = load(HEAD "\"mounted\":true,\"user_check\":3,\"fsck\":0}", &r) == 0 && r.user_check == 3;
	v = ok ? judge(&r, acks, 1) : NULL;
	tap_result(v && !strcmp(json_string_value(json_object_get(v, "verdict")), "lost") ? TAP_PASS : TAP_FAIL,
		   "a user's checker that says no: lost", NULL);
	json_decref(v);
	check_report_free(&r);

	ok = 1;
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		if (!refused(hostile[i])) {
			tap_diag("taken: %s", hostile[i]);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "slots past JUDGE_MAX_SLOTS, runs backwards, states not V, Z, T or X, "
		   "negative numbers and endless overlapping runs are refused, not allocated", NULL);

	ok = 1;
	for (i = 0; i < sizeof(mistyped) / sizeof(mistyped[0]); i++)
		if (!refused(mistyped[i])) {
			tap_diag("taken: %s", mistyped[i]);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a field of the wrong type, nested or not, or a required one missing: refused",
		   NULL);

	ok = 1;
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!refused(others[i])) {
			tap_diag("taken: %s", others[i]);
			ok = 0;
		}
	ok &= load(others[5], &r) < 0 && strstr(why, "make images");
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a document on another image, of another kind or schema: refused", NULL);

	ok = 1;
	for (i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++)
		if (!refused(bad_json[i])) {
			tap_diag("taken: %s", bad_json[i]);
			ok = 0;
		}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "bad JSON, an old report, duplicate keys and invalid UTF-8: refused", NULL);

	/* The slot passes over another image's or kind's document, takes the rest. */
	ok = 1;
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		json_t *doc = json_loads(others[i], 0, NULL);

		ok &= check_doc_is_other(doc, 7) == (i == 0 || i == 3);
		json_decref(doc);
	}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "only schema-1 documents of another image or kind are plainly another's",
		   NULL);

	/* The phases come with the report, believed only when sane. */
	text = HEAD "\"mounted\":true,\"fsck\":0,\"phase\":{\"mount\":40.5,\"verify\":2,\"umount\":3,\"fsck\":90}}";
	ok = check_report_load(text, strlen(text), 7, &r, &ph, why, sizeof(why)) == 0 && ph.have_guest &&
	     ph.ms[PHASE_MOUNT] == 40.5 && ph.ms[PHASE_FSCK] == 90 && ph.ms[PHASE_WRITE] == 5;
	check_report_free(&r);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "the phases are read with the report, the host's write kept", NULL);

	text = HEAD "\"mounted\":true,\"fsck\":0,\"phase\":\"fast\"}";
	ok = check_report_load(text, strlen(text), 7, &r, &ph, why, sizeof(why)) == 0 && !ph.have_guest;
	check_report_free(&r);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "phases of the wrong type are not believed, the report still judged", NULL);

	/* The guest's writer, read back: what the seam carries both ways. */
	ok = round_trip(&r) == 0 && r.mounted && r.nofile && r.nslots == 4 && !memcmp(r.slots, "VVZT", 4) &&
	     r.seqs[0] == 10 && r.seqs[1] == 11 && r.seqs[3] == 13 && r.size == 4 * 4096;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "record_verify_json's entries, a hostile name and a missing file, load back",
		   NULL);
	check_report_free(&r);

	/* The length given is the document: nothing after it is read. */
	text = HEAD "\"mounted\":true,\"fsck\":0}";
	ok = check_report_load(HEAD "\"mounted\":true,\"fsck\":0}garbage", strlen(text), 7, &r, NULL, why,
			       sizeof(why)) == 0;
	check_report_free(&r);
	tap_result(ok ? TAP_PASS : TAP_FAIL, "the document is the len bytes given: what follows is not read", NULL);

	ok = check_report_load("", 0, 7, &r, NULL, why, sizeof(why)) < 0 && why[0];
	tap_result(ok ? TAP_PASS : TAP_FAIL, "an empty report is refused, with a reason", NULL);
	return tap_exit();
}
