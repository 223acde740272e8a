// SPDX-License-Identifier: GPL-2.0
/* The host's side of the ADR model: see adr.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>


#include "adr.h"
#include "../image.h"

int adr_model_start(struct adr_model *m, const char *dir, const char *media, uint64_t region_size,
		    const struct adr_params *p, const char *plugin_so, char *arg, size_t argsz)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *tmp = getenv("XDG_RUNTIME_DIR");
	int n;

	memset(m, 0, sizeof(*m));
	m->listen_fd = m->fd = -1;
	m->region_size = region_size;
	/*
	 * The model's files live in memory when they can (/dev/shm): the plugin
	 * writes the durable copy as the guest runs, and a disk busy with crash
	 * images would stall it. mkdtemp gives 0700: only we reach the socket.
	 */
	if (!access("/dev/shm", W_OK))
		tmp = "/dev/shm";
	snprintf(m->sock_dir, sizeof(m->sock_dir), "%s/pmem-adr.XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(m->sock_dir)) {
		fprintf(stderr, "adr: cannot create a directory for the model in %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(m->durable, sizeof(m->durable), "%s/nvdimm.durable", m->sock_dir);
	snprintf(m->state, sizeof(m->state), "%s/nvdimm.adr-state", m->sock_dir);
	/* The durable file starts as the media: nothing is pending at boot.
	 * The model starts at the guest's start marker (wait_start=1,
	 * proto/adr_marker.h), which makes it the media's copy again. */
	if (image_copy(media, m->durable) < 0) {
		adr_model_stop(m);
		return -1;
	}
	snprintf(m->sock_path, sizeof(m->sock_path), "%s/model", m->sock_dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", m->sock_path);
	m->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (m->listen_fd < 0 || bind(m->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(m->listen_fd, 1) < 0) {
		fprintf(stderr, "adr: cannot listen on %s: %s\n", m->sock_path, strerror(errno));
		adr_model_stop(m);
		return -1;
	}
	n = snprintf(arg, argsz, "%s,base=0x%llx,size=%" PRIu64 ",media=%s,durable=%s,state=%s,sock=%s,"
		     "fence_max=%" PRIu64 ",fence_period=%" PRIu64 ",fence_any=%d,seed=%u,wait_start=1",
		     plugin_so, ADR_NVDIMM_BASE, region_size, media, m->durable, m->state, m->sock_path,
		     p->fence_max, p->fence_period ? p->fence_period : 1, p->fence_any, p->seed);
	/* A cut argument would name another media file, or none. */
	if (n < 0 || (size_t)n >= argsz) {
		fprintf(stderr, "adr: the plugin's arguments (%s and %s) are longer than %zu bytes\n", plugin_so, media,
			argsz - 1);
		adr_model_stop(m);
		return -1;
	}
	return 0;
}

int adr_model_poll_fd(const struct adr_model *m)
{
	return m->fd >= 0 ? m->fd : m->listen_fd;
}

static void protocol_error(struct adr_model *m, const char *line)
{
	if (!m->protocol_error[0])
		snprintf(m->protocol_error, sizeof(m->protocol_error), "unexpected line from the model: '%.100s'",
			 line);
}

/* One line from the plugin; returns 1 for a point. Numbers are range-checked:
 * a record's address and length come from guest registers. */
static int take_line(struct adr_model *m, char *line, char *kind, size_t ksz)
{
	unsigned long long a, b, c;
	char k[16];

	if (sscanf(line, "record %llu %llu", &a, &b) == 2) {
		m->rec.seq = a;
		m->rec.len = b;
		m->rec.n = 0;
		m->have_rec = 1;
	} else if (sscanf(line, "extent %llu %llu %llu", &a, &b, &c) == 3) {
		if (!m->have_rec || m->rec.n == ADR_MAX_EXTENTS || b > m->region_size ||
		    c > m->region_size - b || a > m->rec.len || c > m->rec.len - a) {
			protocol_error(m, line);
			return 0;
		}
		m->rec.ext[m->rec.n].rec_off = a;
		m->rec.ext[m->rec.n].region_off = b;
		m->rec.ext[m->rec.n].len = c;
		m->rec.n++;
	} else if (!strcmp(line, "start")) {
		m->started = 1;
	} else if (sscanf(line, "point %15s %llu %llu", k, &a, &b) == 3) {
		snprintf(kind, ksz, "%s", k);
		/* A fence says whose it was: the program's or the kernel's. */
		m->point_user = strstr(line, " user") != NULL;
		return 1;
	} else {
		protocol_error(m, line);
	}
	return 0;
}

enum adr_event adr_model_read(struct adr_model *m, char *kind, size_t ksz)
{
	ssize_t n;
	char *nl;

	if (m->fd < 0) {
		m->fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		return m->fd < 0 ? ADR_EV_CLOSED : ADR_EV_NONE;
	}
	/* A point is answered before the plugin says more, so one point at a time. */
	while (!(nl = memchr(m->buf, '\n', m->len))) {
		if (m->len == sizeof(m->buf) - 1) {
			m->buf[m->len] = '\0';
			protocol_error(m, m->buf);
			m->len = 0;
		}
		n = read(m->fd, m->buf + m->len, sizeof(m->buf) - 1 - m->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(m->fd);
			m->fd = -1;
			m->len = 0;
			/* A plugin gone before its guest's start marker modelled
			 * nothing: the next QEMU's may connect (a guest that boots
			 * after a saved one failed to restore, vm/saved_boot.h). */
			if (!m->started)
				return ADR_EV_NONE;
			m->listen_fd >= 0 ? close(m->listen_fd) : 0;
			m->listen_fd = -1;
			return ADR_EV_CLOSED;
		}
		m->len += n;
		/* Take every complete line but stop at a point. */
		while ((nl = memchr(m->buf, '\n', m->len))) {
			size_t used = nl - m->buf + 1;
			int point;

			*nl = '\0';
			point = take_line(m, m->buf, kind, ksz);
			memmove(m->buf, m->buf + used, m->len - used);
			m->len -= used;
			if (point)
				return ADR_EV_POINT;
		}
		return ADR_EV_NONE;
	}
	/* A complete line already buffered. */
	{
		size_t used = nl - m->buf + 1;
		int point;

		*nl = '\0';
		point = take_line(m, m->buf, kind, ksz);
		memmove(m->buf, m->buf + used, m->len - used);
		m->len -= used;
		return point ? ADR_EV_POINT : ADR_EV_NONE;
	}
}

int adr_model_go(struct adr_model *m)
{
	m->have_rec = 0;
	return m->fd >= 0 && write(m->fd, "go\n", 3) == 3 ? 0 : -1;
}

int adr_model_request_time(struct adr_model *m)
{
	return m->fd >= 0 && write(m->fd, "time\n", 5) == 5 ? 0 : -1;
}

void adr_model_stop(struct adr_model *m)
{
	if (m->fd >= 0)
		close(m->fd);
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	m->fd = m->listen_fd = -1;
	if (m->sock_path[0])
		unlink(m->sock_path);
	if (m->durable[0])
		unlink(m->durable);
	if (m->state[0])
		unlink(m->state);
	if (m->sock_dir[0])
		rmdir(m->sock_dir);
	m->sock_path[0] = m->sock_dir[0] = '\0';
}

/* The pending lines of pt as the file at path holds them, into buf. */
static int read_lines(const char *path, const struct adr_point *pt, unsigned char (*buf)[ADR_LINE])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = fd < 0 ? -1 : 0;

	for (size_t i = 0; !ret && i < pt->nlines; i++)
		if (pread(fd, buf[i], ADR_LINE, pt->lines[i].off) != (ssize_t)ADR_LINE)
			ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

int adr_snapshot(const struct adr_model *m, const char *media, struct adr_point *pt)
{
	int fd = open(m->state, O_RDONLY | O_CLOEXEC);
	struct adr_state hdr;
	struct stat s;
	size_t bytes;
	void *map;

	pt->lines = NULL;
	pt->versions = NULL;
	pt->current = pt->old = NULL;
	pt->nlines = pt->nversions = 0;
	if (fd < 0 || fstat(fd, &s) < 0 || pread(fd, &hdr, sizeof(hdr), 0) != sizeof(hdr)) {
		fprintf(stderr, "adr: cannot read the model state %s: %s\n", m->state, strerror(errno));
		goto fail;
	}
	/* The plugin is ours, but check before trusting sizes. */
	if (memcmp(hdr.magic, ADR_STATE_MAGIC, 8) || hdr.version != ADR_STATE_VERSION ||
	    hdr.line_size != ADR_LINE || hdr.region_size != m->region_size || hdr.npending > hdr.capacity ||
	    hdr.capacity > (uint64_t)s.st_size || adr_state_bytes(hdr.capacity) > (uint64_t)s.st_size) {
		fprintf(stderr, "adr: %s is not a state file of this model (version %u)\n", m->state, hdr.version);
		goto fail;
	}
	bytes = sizeof(hdr) + hdr.npending * sizeof(struct adr_line);
	map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	pt->nlines = hdr.npending;
	pt->lines = malloc((pt->nlines ? pt->nlines : 1) * sizeof(*pt->lines));
	if (!pt->lines)
		abort();
	memcpy(pt->lines, ((struct adr_state *)map)->lines, pt->nlines * sizeof(*pt->lines));
	munmap(map, bytes);
	pt->nversions = 0;
	for (size_t i = 0; i < pt->nlines; i++) {
		if (pt->lines[i].nversions > ADR_VERSIONS) {
			fprintf(stderr, "adr: the model state holds a line with more earlier values than it keeps\n");
			close(fd);
			adr_point_free(pt);
			return -1;
		}
		pt->nversions += pt->lines[i].nversions;
	}
	/* The earlier values, line by line: few lines have any. */
	pt->versions = malloc((pt->nversions ? pt->nversions : 1) * sizeof(*pt->versions));
	if (!pt->versions)
		abort();
	for (size_t i = 0, v = 0; i < pt->nlines; v += pt->lines[i++].nversions) {
		size_t len = pt->lines[i].nversions * sizeof(*pt->versions);

		if (len && pread(fd, &pt->versions[v], len, adr_state_versions(hdr.capacity, i)) != (ssize_t)len) {
			fprintf(stderr, "adr: cannot read the model state %s: %s\n", m->state, strerror(errno));
			close(fd);
			adr_point_free(pt);
			return -1;
		}
	}
	close(fd);
	for (size_t i = 0; i < pt->nlines; i++)
		if (pt->lines[i].off % ADR_LINE || pt->lines[i].off >= m->region_size) {
			fprintf(stderr, "adr: the model state holds a line outside the region\n");
			adr_point_free(pt);
			return -1;
		}
	pt->counters = (struct adr_counters){
		.stores = hdr.stores, .nt_stores = hdr.nt_stores, .flushes = hdr.flushes,
		.fences = hdr.fences, .unresolved_flushes = hdr.unresolved_flushes,
		.last_unresolved_pc = hdr.last_unresolved_pc, .overflow = hdr.overflow,
		.points = hdr.points, .pending = hdr.npending, .versions_dropped = hdr.versions_dropped,
	};
	pt->current = malloc((pt->nlines ? pt->nlines : 1) * ADR_LINE);
	pt->old = malloc((pt->nlines ? pt->nlines : 1) * ADR_LINE);
	if (!pt->current || !pt->old)
		abort();
	/* Each pending line as the CPU sees it, and as the strict image holds it. */
	if (read_lines(media, pt, pt->current) < 0 || image_copy(m->durable, pt->adr) < 0 ||
	    read_lines(pt->adr, pt, pt->old) < 0 || image_sum(pt->adr, &pt->adr_sum) < 0) {
		int err = errno;

		adr_point_free(pt);
		errno = err; /* the caller tells a full disk from other failures */
		return -1;
	}
	return 0;

fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

void adr_point_free(struct adr_point *pt)
{
	free(pt->lines);
	free(pt->versions);
	free(pt->current);
	free(pt->old);
	pt->lines = NULL;
	pt->versions = NULL;
	pt->current = NULL;
	pt->old = NULL;
	pt->nlines = pt->nversions = 0;
}

/* The pending lines in store order: by their last store, then by offset. */
static const struct adr_line *order_lines;

static int by_store(const void *a, const void *b)
{
	const struct adr_line *x = &order_lines[*(const size_t *)a], *y = &order_lines[*(const size_t *)b];

	if (x->last_store != y->last_store)
		return x->last_store < y->last_store ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The t-th of c choices spread evenly over 0..n-1 (c <= n), from n-1 down:
 * both ends always among them, every one when c == n. */
static size_t evenly(size_t t, size_t c, size_t n)
{
	return c < 2 ? n - 1 : n - 1 - (t * (n - 1) + (c - 1) / 2) / (c - 1);
}

/* Mask k of width bytes: its lines (the first nlines) all fill, no earlier value laid over them. */
static unsigned char *new_mask(unsigned char *masks, struct adr_subset *what, size_t k, size_t nlines, size_t width,
			       enum adr_family family, size_t index, int fill)
{
	what[k] = (struct adr_subset){ .family = family, .index = index };
	memset(masks + k * width, fill, nlines);
	memset(masks + k * width + nlines, 0, width - nlines);
	return masks + k * width;
}

size_t adr_mask_width(const struct adr_line *lines, size_t nlines)
{
	size_t w = nlines;

	for (size_t i = 0; i < nlines; i++)
		w += lines[i].nversions;
	return w;
}

/* The whole lines: every subset of a few, else the structured families and the random ones. */
static size_t line_subsets(const size_t *rank, size_t nlines, size_t width, const struct adr_params *p,
			   unsigned int *seed, unsigned char *masks, struct adr_subset *what, size_t max)
{
	size_t k = 0, c;
	unsigned char *m;

	if (nlines <= 4) {
		/* Every proper, non-empty subset: 2^n - 2 of them. */
		for (unsigned int bits = 1; bits + 1 < (1u << nlines) && k < max; bits++, k++) {
			m = new_mask(masks, what, k, nlines, width, ADR_SUB_ALL, k, 0);
			for (size_t i = 0; i < nlines; i++)
				m[i] = (bits >> i) & 1 ? ADR_KEEP : 0;
		}
		return k;
	}
	/* Prefixes: the first j lines stored kept, the rest dropped (1 <= j < n). */
	c = p->structured < nlines - 1 ? p->structured : nlines - 1;
	for (size_t t = 0; t < c && k < max; t++, k++) {
		size_t j = 1 + evenly(t, c, nlines - 1);

		m = new_mask(masks, what, k, nlines, width, ADR_SUB_PREFIX, j, 0);
		for (size_t i = 0; i < j; i++)
			m[rank[i]] = ADR_KEEP;
	}
	/* Drop-one and keep-one: the line of rank r in store order alone dropped, or alone kept. */
	c = p->structured < nlines ? p->structured : nlines;
	for (size_t t = 0; t < c && k < max; t++, k++) {
		size_t r = evenly(t, c, nlines);

		new_mask(masks, what, k, nlines, width, ADR_SUB_DROP, r, ADR_KEEP)[rank[r]] = 0;
	}
	for (size_t t = 0; t < c && k < max; t++, k++) {
		size_t r = evenly(t, c, nlines);

		new_mask(masks, what, k, nlines, width, ADR_SUB_KEEP, r, 0)[rank[r]] = ADR_KEEP;
	}
	/* Random: each line kept with probability 1/2 (seeded). */
	for (size_t t = 0; t < p->subsets && k < max; t++, k++) {
		m = new_mask(masks, what, k, nlines, width, ADR_SUB_RANDOM, t, 0);
		for (size_t i = 0; i < nlines; i++)
			m[i] = rand_r(seed) & 1 ? ADR_KEEP : 0;
	}
	return k;
}

/*
 * The earlier values: the (line, value) pairs in store order, at most
 * p->history of each family, after the k masks already written.
 */
static size_t history_subsets(const struct adr_line *lines, const size_t *rank, size_t nlines, size_t width,
			      const struct adr_params *p, unsigned char *masks, struct adr_subset *what, size_t k,
			      size_t max)
{
	size_t npairs = width - nlines, c = p->history < npairs ? p->history : npairs, *slot;

	if (!c)
		return k;
	/* Where each line's first earlier value sits in a mask. */
	slot = malloc(nlines * sizeof(*slot));
	if (!slot)
		abort();
	for (size_t i = 0, s = nlines; i < nlines; s += lines[i++].nversions)
		slot[i] = s;
	for (int keep = 0; keep < 2; keep++)
		for (size_t t = 0; t < c && k < max; t++, k++) {
			size_t pair = evenly(t, c, npairs), r = 0;
			unsigned char *m;

			/* The pair-th earlier value, counted in store order. */
			while (pair >= lines[rank[r]].nversions)
				pair -= lines[rank[r++]].nversions;
			m = new_mask(masks, what, k, nlines, width, keep ? ADR_SUB_HIST_KEEP : ADR_SUB_HIST_DROP, r,
				     keep ? 0 : ADR_KEEP);
			m[rank[r]] = 0;
			m[slot[rank[r]] + pair] = ADR_KEEP;
			what[k].version = pair;
		}
	free(slot);
	return k;
}

size_t adr_subsets(const struct adr_line *lines, const unsigned char *changed, size_t nlines,
		   const struct adr_params *p, unsigned int *seed, unsigned char *masks, struct adr_subset *what,
		   size_t max)
{
	size_t k, *rank, npairs = 0, c, width = adr_mask_width(lines, nlines);

	if (!nlines)
		return 0;
	rank = malloc(nlines * sizeof(*rank));
	if (!rank)
		abort();
	for (size_t i = 0; i < nlines; i++)
		rank[i] = i;
	order_lines = lines;
	qsort(rank, nlines, sizeof(*rank), by_store);
	k = line_subsets(rank, nlines, width, p, seed, masks, what, max);
	/* Torn lines: the (line, word) pairs whose word changed, in store order. */
	for (size_t r = 0; p->torn && r < nlines; r++)
		npairs += __builtin_popcount(changed[rank[r]]);
	c = p->torn < npairs ? p->torn : npairs;
	for (int keep = 0; keep < 2; keep++)
		for (size_t t = 0; t < c && k < max; t++, k++) {
			size_t pair = evenly(t, c, npairs), r = 0;
			unsigned int w = 0;
			unsigned char *m;

			/* The pair-th changed word, counted in store order. */
			for (;; r++) {
				size_t here = __builtin_popcount(changed[rank[r]]);

				if (pair < here)
					break;
				pair -= here;
			}
			for (;; w++)
				if ((changed[rank[r]] >> w & 1) && !pair--)
					break;
			m = new_mask(masks, what, k, nlines, width, keep ? ADR_SUB_TORN_KEEP : ADR_SUB_TORN_DROP, r,
				     keep ? 0 : ADR_KEEP);
			m[rank[r]] = keep ? 1u << w : ADR_KEEP & ~(1u << w);
			what[k].word = w;
		}
	k = history_subsets(lines, rank, nlines, width, p, masks, what, k, max);
	free(rank);
	return k;
}

void adr_subset_name(const struct adr_subset *s, char *buf, size_t sz)
{
	static const char *const prefix[] = {
		[ADR_SUB_ALL] = "s", [ADR_SUB_PREFIX] = "pre", [ADR_SUB_DROP] = "drop",
		[ADR_SUB_KEEP] = "keep", [ADR_SUB_RANDOM] = "s", [ADR_SUB_TORN_DROP] = "drop",
		[ADR_SUB_TORN_KEEP] = "keep", [ADR_SUB_HIST_DROP] = "drop", [ADR_SUB_HIST_KEEP] = "keep",
	};

	if (s->family == ADR_SUB_TORN_DROP || s->family == ADR_SUB_TORN_KEEP)
		snprintf(buf, sz, "%s%02zuw%u", prefix[s->family], s->index, s->word);
	else if (s->family == ADR_SUB_HIST_DROP || s->family == ADR_SUB_HIST_KEEP)
		snprintf(buf, sz, "%s%02zuv%u", prefix[s->family], s->index, s->version);
	else
		snprintf(buf, sz, "%s%02zu", prefix[s->family], s->index);
}

unsigned char adr_changed_words(const struct adr_point *pt, size_t i)
{
	unsigned char bits = 0;

	for (unsigned int w = 0; w < ADR_LINE / 8; w++)
		if (memcmp(pt->current[i] + 8 * w, pt->old[i] + 8 * w, 8))
			bits |= 1u << w;
	return bits;
}

/*
 * The line that slot s of a mask lays over (its own byte, or one of its
 * earlier values after the lines: *v then names it, else NULL).
 */
static size_t slot_line(const struct adr_point *pt, size_t s, const struct adr_version **v)
{
	size_t s_all;

	*v = NULL;
	if (s < pt->nlines)
		return s;
	s -= pt->nlines;
	s_all = s;	/* the values are kept line by line, as the slots */
	for (size_t i = 0; i < pt->nlines; s -= pt->lines[i++].nversions)
		if (s < pt->lines[i].nversions) {
			*v = &pt->versions[s_all];
			return i;
		}
	abort(); /* s is past adr_mask_width() */
}

static uint64_t slot_off(const struct adr_point *pt, size_t s)
{
	const struct adr_version *v;

	return pt->lines[slot_line(pt, s, &v)].off;
}

const struct adr_version *adr_kept_version(const struct adr_point *pt, const unsigned char *mask, size_t i)
{
	size_t s = pt->nlines;

	for (size_t j = 0; j < i; j++)
		s += pt->lines[j].nversions;
	for (uint32_t v = 0; mask && v < pt->lines[i].nversions; v++)
		if (mask[s + v])
			return &pt->versions[s - pt->nlines + v];
	return NULL;
}

const char adr_version_why[] = "an earlier value of the line, stored over before it was durable";

/* What slot s of the image of mask lays over its line: each word from the
 * CPU's view or the durable one, or an earlier value whole. */
static const unsigned char *slot_bytes(const struct adr_point *pt, size_t s, unsigned char mask,
				       unsigned char *buf)
{
	const struct adr_version *v;
	size_t i = slot_line(pt, s, &v);

	if (v)
		return v->bytes;
	if (mask == ADR_KEEP)
		return pt->current[i];
	for (unsigned int w = 0; w < ADR_LINE / 8; w++)
		memcpy(buf + 8 * w, (mask >> w & 1 ? pt->current[i] : pt->old[i]) + 8 * w, 8);
	return buf;
}

int adr_write_image(const struct adr_point *pt, const unsigned char *mask, const char *dst, int create)
{
	int fd, ret = 0;

	if ((create ? image_copy(pt->adr, dst) : image_rewrite(pt->adr, dst)) < 0)
		return -1;
	if (!mask)
		return 0;
	fd = open(dst, O_WRONLY | O_CLOEXEC);
	/* The lines, then the earlier values laid over theirs. */
	for (size_t s = 0; fd >= 0 && s < pt->nlines + pt->nversions && !ret; s++) {
		unsigned char buf[ADR_LINE];

		if (mask[s] && pwrite(fd, slot_bytes(pt, s, mask[s], buf), ADR_LINE, slot_off(pt, s)) != (ssize_t)ADR_LINE)
			ret = -1;
	}
	if (fd < 0 || ret < 0) {
		fprintf(stderr, "adr: writing a crash image into %s: %s\n", dst, strerror(errno));
		ret = -1;
	}
	if (fd >= 0 && close(fd) < 0)
		ret = -1;
	return ret;
}

static const struct adr_point *sort_pt;

/* By offset, then by slot: an earlier value is laid over its line's own bytes. */
static int by_offset(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = slot_off(sort_pt, i), y = slot_off(sort_pt, j);

	return x != y ? (x < y ? -1 : 1) : (i > j) - (i < j);
}

void adr_image_key(const struct adr_point *pt, const unsigned char *mask, char *hex, size_t hexsz)
{
	struct image_sum sum = pt->adr_sum;
	size_t width = pt->nlines + pt->nversions, *kept = malloc((width ? width : 1) * sizeof(*kept)), n = 0;
	int in = open(pt->adr, O_RDONLY | O_CLOEXEC);

	if (!kept)
		abort();
	for (size_t s = 0; mask && s < width; s++)
		if (mask[s])
			kept[n++] = s;
	sort_pt = pt;
	qsort(kept, n, sizeof(*kept), by_offset);
	/* Take each touched block out of the strict image's sum, put it back
	 * with the kept lines laid over it. */
	for (size_t i = 0; i < n;) {
		uint64_t block = slot_off(pt, kept[i]) & ~(uint64_t)(IMAGE_BLOCK - 1);
		unsigned char old[IMAGE_BLOCK], new[IMAGE_BLOCK];

		if (in < 0 || pread(in, old, IMAGE_BLOCK, block) != IMAGE_BLOCK)
			memset(old, 0, sizeof(old)); /* unreadable: the key only dedups less */
		memcpy(new, old, sizeof(new));
		for (; i < n && (slot_off(pt, kept[i]) & ~(uint64_t)(IMAGE_BLOCK - 1)) == block; i++) {
			unsigned char buf[ADR_LINE];

			memcpy(new + (slot_off(pt, kept[i]) - block), slot_bytes(pt, kept[i], mask[kept[i]], buf),
			       ADR_LINE);
		}
		image_sum_block(&sum, block, old, -1);
		image_sum_block(&sum, block, new, 1);
	}
	image_sum_hex(&sum, hex, hexsz);
	free(kept);
	if (in >= 0)
		close(in);
}

const char *adr_line_why(const struct adr_line *l)
{
	/* Before the rest: the line may also be NT-stored and not yet fenced, but a
	 * fence would not make these bytes durable. */
	if (l->flags & ADR_LINE_NT_EVICTED)
		return "cached bytes beside a non-temporal store: durable only by eviction";
	if (l->flags & ADR_LINE_FLUSHING)
		return l->flags & ADR_LINE_NT ? "non-temporal store, never fenced" :
		       "written back, never fenced";
	return "never written back";
}

int adr_pending_in_record(const struct adr_model *m, const struct adr_record *rec, struct adr_line *first)
{
	int fd = open(m->state, O_RDONLY | O_CLOEXEC), count = 0;
	struct adr_state hdr;
	struct stat s;
	size_t bytes;
	void *map;

	if (fd < 0 || fstat(fd, &s) < 0 || pread(fd, &hdr, sizeof(hdr), 0) != sizeof(hdr) ||
	    memcmp(hdr.magic, ADR_STATE_MAGIC, 8) || hdr.version != ADR_STATE_VERSION ||
	    hdr.npending > hdr.capacity ||
	    hdr.capacity > (uint64_t)s.st_size || adr_state_bytes(hdr.capacity) > (uint64_t)s.st_size) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	bytes = sizeof(hdr) + hdr.npending * sizeof(struct adr_line);
	map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	for (uint64_t i = 0; i < hdr.npending; i++) {
		const struct adr_line *l = &((struct adr_state *)map)->lines[i];

		for (size_t e = 0; e < rec->n; e++)
			if (l->off + ADR_LINE > rec->ext[e].region_off &&
			    l->off < rec->ext[e].region_off + rec->ext[e].len) {
				if (!count++ && first)
					*first = *l;
				break;
			}
	}
	munmap(map, bytes);
	return count;
}
