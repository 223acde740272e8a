// SPDX-License-Identifier: GPL-2.0
/* A checker's time per image, by step: see check_phases.h. */
#include <stdlib.h>

#include "../../results/stats.h"
#include "check_phases.h"

const char *const check_phase_names[NPHASES] = { "write", "mount", "verify", "umount", "fsck", "round" };

json_t *check_phases_json(const struct check_phases *p, size_t n)
{
	json_t *doc = json_object();
	double *v = malloc((n ? n : 1) * sizeof(*v));
	int k;

	for (k = 0; v && k < NPHASES; k++) {
		struct sample_stats s;
		size_t i, m = 0;

		for (i = 0; i < n; i++)
			if (k == PHASE_WRITE || (k == PHASE_ROUND ? p[i].have_round : p[i].have_guest))
				v[m++] = p[i].ms[k];
		if (!m)
			continue;
		sample_stats(v, m, &s);
		json_object_set_new(doc, check_phase_names[k],
				    json_pack("{s:I, s:f, s:f, s:f}", "n", (json_int_t)m, "median_ms", s.median,
					      "min_ms", s.min, "max_ms", s.max));
	}
	free(v);
	return doc;
}
