// SPDX-License-Identifier: GPL-2.0
/* Names fit for host paths: see names.h. */
#include <string.h>

#include "names.h"

int name_is_safe(const char *s, size_t max)
{
	size_t n;

	if (!s || !*s || *s == '.')
		return 0;
	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-");
	return !s[n] && n < max;
}
