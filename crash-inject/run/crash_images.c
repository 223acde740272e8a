// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's crash images: copies of the writer's NVDIMM (eADR), or
 * descriptions of one (an ADR crash point and which of its pending lines
 * are kept) that become bytes only when the checker or the evidence needs
 * them. Identical images are checked once. None is taken without room for
 * it and DISK_RESERVE besides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../image.h"
#include "crash.h"
#include "../../lib/diskfull.h"

struct image *crash_image_new(struct crash_scenario_state *st)
{
	struct image *im;

	if (st->nimages == MAX_IMAGES)
		return NULL;
	im = &st->images[st->nimages];
	memset(im, 0, sizeof(*im));
	im->point = -1;
	st->checks[st->nimages] = (struct check_item){ .same_as = -1 };
	snprintf(im->variant, sizeof(im->variant), "eadr");
	return im;
}

off_t crash_free_bytes(const char *dir)
{
	off_t bytes;

	return disk_free(dir, &bytes, NULL) < 0 ? -1 : bytes;
}

int crash_room_for(struct crash_scenario_state *st, off_t need)
{
	off_t avail = crash_free_bytes(st->dir);

	if (avail < 0 || avail >= need + DISK_RESERVE)
		return 1;
	run_error_set(&st->disk_full, ENOSPC,
		      "the disk under %s is full: %lld MiB free, and %lld MiB are needed (the next image, %lld MiB, and %lld MiB kept for the results)",
		      st->dir, (long long)(avail >> 20), (long long)((need + DISK_RESERVE) >> 20), (long long)(need >> 20),
		      (long long)(DISK_RESERVE >> 20));
	return 0;
}

/* A crash point's images: its two boundaries and the subsets between. */
static void point_images(struct crash_scenario_state *st, size_t p)
{
	struct adr_point *pt = &st->points[p];
	struct adr_subset what[ADR_MAX_MASKS];
	size_t n = pt->nlines, width = n + pt->nversions, k, nmasks;
	/* Bounded: width * ADR_MAX_MASKS bytes, freed before the next point. */
	unsigned char *masks = malloc((width ? width : 1) * ADR_MAX_MASKS), *changed = malloc(n ? n : 1);
	struct image *im;

	if (!masks || !changed)
		abort();
	for (size_t i = 0; i < n; i++)
		changed[i] = adr_changed_words(pt, i);
	nmasks = adr_subsets(pt->lines, changed, n, &st->opt->adr, &st->subset_rng, masks, what, ADR_MAX_MASKS);
	free(changed);
	for (k = 0; k < nmasks + 2 && (im = crash_image_new(st)); k++) {
		/* Every line's byte, then every earlier value's (none laid over in the two boundaries). */
		im->keep = calloc(width ? width : 1, 1);
		if (!im->keep)
			abort();
		if (k == 0) {
			snprintf(im->variant, sizeof(im->variant), "eadr");
			memset(im->keep, ADR_KEEP, n);
		} else if (k == 1) {
			snprintf(im->variant, sizeof(im->variant), "adr");
		} else {
			adr_subset_name(&what[k - 2], im->variant, sizeof(im->variant));
			memcpy(im->keep, masks + (k - 2) * width, width);
		}
		snprintf(im->path, sizeof(im->path), "%s/images/p%03zu-%s.img", st->dir, p, im->variant);
		im->point = p;
		/* The marker comes before its ack line: a guest that died or
		 * was refused between the two claimed one record fewer. */
		st->checks[st->nimages].acked = pt->acked < st->nacks ? pt->acked : st->nacks;
		st->checks[st->nimages].printed = pt->printed;
		im->why = pt->kind;
		st->nimages++;
	}
	free(masks);
}

int crash_image_write(const struct crash_scenario_state *st, const struct image *im, const char *dst, int create)
{
	if (im->point >= 0)
		return adr_write_image(&st->points[im->point], im->keep, dst, create);
	return create ? image_copy(im->path, dst) : image_rewrite(im->path, dst);
}

/* The images not yet compared with those before them: each that equals one is its twin. */
static void dedup(struct crash_scenario_state *st)
{
	for (size_t i = st->deduped; i < st->nimages; i++) {
		struct image *im = &st->images[i];

		if (im->point >= 0)
			adr_image_key(&st->points[im->point], im->keep, im->hash, sizeof(im->hash));
		else {
			struct image_sum s;

			if (image_sum(im->path, &s) < 0)
				continue;
			image_sum_hex(&s, im->hash, sizeof(im->hash));
		}
		for (size_t j = 0; j < i; j++)
			if (st->checks[j].same_as < 0 && !strcmp(st->images[j].hash, im->hash) &&
			    st->checks[j].acked == st->checks[i].acked &&
			    st->checks[j].printed == st->checks[i].printed) {
				st->checks[i].same_as = j;
				st->twins++;
				break;
			}
	}
	st->deduped = st->nimages;
}

size_t crash_images_ready(struct crash_scenario_state *st, int all)
{
	/* A point's ack line comes after it: until then its record count is open. */
	while (st->points_imaged < st->npoints &&
	       (all || st->points[st->points_imaged].acked <= st->nacks))
		point_images(st, st->points_imaged++);
	dedup(st);
	return st->nimages;
}

void crash_images_drop(struct crash_scenario_state *st)
{
	for (size_t i = 0; i < st->nimages; i++) {
		if (st->images[i].point < 0)
			unlink(st->images[i].path);
		free(st->images[i].keep);
		st->images[i].keep = NULL;
	}
	for (size_t p = 0; p < st->npoints; p++) {
		unlink(st->points[p].adr);
		adr_point_free(&st->points[p]);
	}
	st->nimages = st->npoints = 0;
	st->points_imaged = st->deduped = st->twins = 0;
}

