// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness crashcheck: judge kept crash images again, in one checker
 * guest, in the order given (the same image may come twice). Every image
 * JSON of a crash run holds the command that does it.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../crash-inject/image.h"
#include "builtin.h"
#include "../crash-inject/run/checker.h"
#include "../lib/flavours.h"
#include "../lib/rundir.h"

#define MAX_RECHECK 64

struct recheck {
	const char *paths[MAX_RECHECK];
};

static int write_kept(void *ctx, size_t i, const char *dst)
{
	const struct recheck *r = ctx;

	return image_rewrite(r->paths[i], dst);
}

/* Identical images (the same content hash) are checked once, as crashtest does. */
static void find_twins(const struct recheck *r, struct check_item *items, size_t n)
{
	struct image_sum sums[MAX_RECHECK];
	int hashed[MAX_RECHECK] = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (image_sum(r->paths[i], &sums[i]) < 0)
			continue; /* unreadable: checked on its own, and judged so */
		hashed[i] = 1;
		for (size_t j = 0; j < i; j++)
			if (hashed[j] && items[j].same_as < 0 && sums[j].hi == sums[i].hi && sums[j].lo == sums[i].lo) {
				items[i].same_as = j;
				break;
			}
	}
}

int cmd_crashcheck(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fs", required_argument, NULL, 'f' }, { "image", required_argument, NULL, 'i' },
		{ "acks", required_argument, NULL, 'a' }, { "acked", required_argument, NULL, 'n' },
		{ "kernel", required_argument, NULL, 'k' }, { "checkers", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' }, { 0 }
	};
	static struct check_item items[MAX_RECHECK];
	struct recheck kept = { { 0 } };
	struct check_set s = { .items = items, .write_image = write_kept,
			       .ctx = &kept };
	/* One guest unless told: the images are checked in the order given. */
	struct checker_options o = { .kernel = flavour_defaults("crashtest"), .accel = "tcg", .parallel = 1 };
	int dedup = 0;
	char golden[PATH_MAX];
	const char *acks = NULL;
	char tmp[] = "/tmp/pmem-crashcheck.XXXXXX";
	struct ack_rec *log;
	size_t acked = (size_t)-1, i;
	int opt, bad = 0, missing = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "f:i:a:n:k:c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': s.fs = optarg; break;
		case 'i':
			if (s.nitems == MAX_RECHECK) {
				fprintf(stderr, "crashcheck: more than %d images: run it again for the rest\n",
					MAX_RECHECK);
				return 2;
			}
			kept.paths[s.nitems++] = optarg;
			break;
		case 'a': acks = optarg; break;
		case 'n': acked = strtoul(optarg, NULL, 0); break;
		case 'k': o.kernel = optarg; break;
		case 'c':
			o.parallel = atoi(optarg);
			dedup = 1;
			break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: pmem-harness crashcheck --fs FS --acks ACKS.LOG [--acked N] [--kernel FLAVOUR]\n"
				"                               [--checkers N] --image IMG [--image IMG2 ...]\n"
				"Without --checkers, one guest checks the images in the order given. With it,\n"
				"N guests share them as crashtest does, and identical images are checked once.\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!s.fs || !s.nitems || !acks) {
		fprintf(stderr, "crashcheck: --fs, --image and --acks are required\n");
		return 2;
	}
	if (ack_log_load(acks, &log, &s.nacks) < 0) {
		fprintf(stderr, "crashcheck: %s is not a readable ack log (one \"seq offset length\" per line)\n", acks);
		return 2;
	}
	s.acks = log;
	o.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	snprintf(golden, sizeof(golden), "%s/images/%s.img", o.build, s.fs);
	o.golden = golden;
	if (!mkdtemp(tmp))
		return 1;
	o.dir = tmp;
	for (i = 0; i < s.nitems; i++)
		items[i] = (struct check_item){ .acked = acked < s.nacks ? acked : s.nacks, .same_as = -1 };
	if (dedup)
		find_twins(&kept, items, s.nitems);
	checker_run(&o, &s);
	for (i = 0; i < s.nitems; i++) {
		json_t *v = items[i].verdict;

		if (!v && items[i].same_as >= 0 && items[items[i].same_as].verdict) {
			v = items[i].verdict = json_deep_copy(items[items[i].same_as].verdict);
			json_object_set_new(v, "same_as", json_string(kept.paths[items[i].same_as]));
		}

		if (!v) {
			fprintf(stderr, "crashcheck: no verdict for %s (logs in %s)\n", kept.paths[i], tmp);
			bad = missing = 1;
			continue;
		}
		json_object_set_new(v, "image", json_string(kept.paths[i]));
		json_dumpf(v, stdout, JSON_COMPACT);
		putchar('\n');
		bad |= strcmp(json_string_value(json_object_get(v, "verdict")), "intact") != 0;
	}
	/* Keep the checker's logs only when a verdict is missing. */
	if (!missing && run_dir_remove(tmp) < 0)
		fprintf(stderr, "crashcheck: could not remove %s: %m\n", tmp);
	free(log);
	return bad;
}
