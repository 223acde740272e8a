/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bench unit's answers, read from its guest's output port: one JSON
 * document per line (vm-images/guest/bench-unit.sh writes them),
 *
 *   {"schema":1,"kind":"writer","mode":"aware","job":"faults","result":{...}}
 *   {"schema":1,"kind":"fio","mode":"fio-mmap","job":"peer","result":{...}}
 *   {"schema":1,"kind":"failed","tool":"writer","mode":"aware","job":"faults"}
 *
 * among other lines, which are not documents unless they start with
 * {"schema": . The guest is untrusted: mode and job become parts of host
 * paths and are refused unless safe (names.h), and a document of another
 * schema, an unknown kind or a result that is not an object is refused.
 */
#ifndef PMEM_RESULTS_UNIT_DOCS_H
#define PMEM_RESULTS_UNIT_DOCS_H

#include <jansson.h>

#define UNIT_DOCS_SCHEMA 1

/*
 * The results in text as [{kind, mode, job, result}]. failures counts the
 * documents refused and the "failed" ones; each refusal is one line on
 * stderr naming origin.
 */
json_t *unit_docs_parse(const char *text, const char *origin, int *failures);

#endif
