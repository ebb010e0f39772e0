/* redecode.h: decoding catalogued bytes again with today's decoders (`animdexd redecode`). */
#ifndef ANIMDEX_REDECODE_H
#define ANIMDEX_REDECODE_H

#include <stdint.h>
#include <stdio.h>

struct redecode_options {
	const char *db_path;    /* the catalogue */
	const char *family;     /* only this family, or NULL */
	const char *class_name; /* only this class, or NULL */
	int64_t id;             /* only this entry, or 0 */
	int quiet;              /* only the summary and the refusals */
};

/* Redecodes every selected entry, one transaction each, and writes a summary to `out`
 * (progress goes to stderr on a terminal). An entry today's decoder refuses is left as it
 * was and listed with the reason. Returns 0, 1 when an entry was refused, 2 when the
 * catalogue could not be used. */
int redecode_run(const struct redecode_options *opt, FILE *out);

#endif
