// SPDX-License-Identifier: GPL-2.0
/* Errors that stop a run: see error.h. */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

void run_error_set(struct run_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->context, sizeof(e->context), fmt, ap);
	va_end(ap);
}

void run_error_clear(struct run_error *e)
{
	e->code = 0;
	e->context[0] = '\0';
}
