// SPDX-License-Identifier: GPL-2.0
/* The persistence method registry: see persist.h. */
#include <stdio.h>
#include <string.h>

#include "persist.h"

static struct persist_ops *methods;

void persist_register(struct persist_ops *ops)
{
	struct persist_ops **p = &methods;

	/* Keep a stable order (by name) whatever the link order. */
	while (*p && strcmp((*p)->name, ops->name) < 0)
		p = &(*p)->next;
	ops->next = *p;
	*p = ops;
}

const struct persist_ops *persist_find(const char *name)
{
	const struct persist_ops *o;

	for (o = methods; o; o = o->next)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

const char *persist_names(void)
{
	static char buf[256];
	const struct persist_ops *o;

	buf[0] = '\0';
	for (o = methods; o; o = o->next)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
			 buf[0] ? ", " : "", o->name);
	return buf;
}
