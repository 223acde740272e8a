/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer targets for what the host reads from guests and users
 * (`make fuzz`, tests/fuzz.t): each gets the input as a NUL-terminated copy,
 * since every parser here reads text.
 */
#ifndef PMEM_FUZZ_H
#define PMEM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
