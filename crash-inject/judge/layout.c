// SPDX-License-Identifier: GPL-2.0
/* Where a crash image's records are: see layout.h. */
#include "layout.h"

size_t crash_record_size(const struct ack_rec *acks, size_t nacks)
{
	return nacks && acks[0].len ? acks[0].len : 4096;
}
