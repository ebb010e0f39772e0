/* error.h: the one error type every module reports through.
 *
 * An error has a code (what kind of rule was broken), a JSON path or byte offset (where), and
 * a message that names the field, the value and the rule. The first error set wins, so a
 * caller deep in a decoder can report the precise cause and its callers cannot overwrite it.
 * Every function taking a `struct error *` accepts NULL. Codes map to HTTP statuses in exactly
 * one place: error_http_status().
 */
#ifndef ANIMDEX_ERROR_H
#define ANIMDEX_ERROR_H

#include <stddef.h>

enum error_code {
	ERROR_NONE = 0,
	/* 400: the request itself is wrong */
	ERROR_BAD_PARAMETER,
	ERROR_MALFORMED, /* the body cannot be parsed (JSON syntax, truncated binary) */
	/* 404, 405, 409, 413, 415 */
	ERROR_NOT_FOUND,
	ERROR_METHOD_NOT_ALLOWED,
	ERROR_CONFLICT,
	ERROR_TOO_LARGE,
	ERROR_UNSUPPORTED_FORMAT,
	/* 401, 403 */
	ERROR_UNAUTHORIZED,
	ERROR_FORBIDDEN,
	/* 422: well-formed, but breaks a rule of its format (doc/formats.md 3.1 and the like) */
	ERROR_INVALID,
	ERROR_DURATION_INVALID,
	ERROR_ZERO_DURATION_KEYS,
	ERROR_EMPTY_CLIP_INCOMPLETE,
	ERROR_UNUSED_TARGET,
	ERROR_UNUSED_SAMPLER,
	ERROR_NO_KEYS,
	ERROR_TIME_NOT_FINITE,
	ERROR_TIME_NOT_INCREASING,
	ERROR_TIME_OUT_OF_RANGE,
	ERROR_VALUE_SIZE_MISMATCH,
	ERROR_INTERPOLATION_NOT_ALLOWED,
	ERROR_VALUE_NOT_FINITE,
	ERROR_INDEX_OUT_OF_RANGE,
	ERROR_PROPERTY_INVALID,
	ERROR_PROPERTY_TYPE_MISMATCH,
	ERROR_CHANNEL_OVERLAP,
	ERROR_DUPLICATE_TARGET,
	ERROR_OBJECT_INVALID,
	ERROR_ARRAY_SIZE_INVALID,
	ERROR_SEMANTIC_INVALID,
	ERROR_VALUE_OUT_OF_RANGE,
	ERROR_GLTF_INVALID, /* the message starts with the glTF validator's code */
	/* 500, 503 and 507 */
	ERROR_INTERNAL,
	ERROR_UNAVAILABLE,
	ERROR_STORAGE_FULL, /* the catalogue's disk is full: reads go on, writes wait for room */
	ERROR_READ_ONLY,    /* 405: the catalogue is served for reading only (--read-only) */
	/* 501: a request this server does not implement (an unknown transfer coding) */
	ERROR_NOT_IMPLEMENTED,
	ERROR_CODE_COUNT
};

struct error {
	enum error_code code; /* ERROR_NONE until the first error is set */
	long long offset;     /* byte offset in the input, or -1 */
	char path[160];       /* JSON path such as "samplers[2].times[5]", or "" */
	char message[480];    /* full sentence: field, value, rule */
};

void error_init(struct error *err);
/* Sets the error unless one is already set. `path` may be NULL; `offset` may be -1. */
void error_set(struct error *err, enum error_code code, const char *path, long long offset,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int error_is_set(const struct error *err);
/* The stable machine-readable name, e.g. "time_not_increasing". */
const char *error_code_name(enum error_code code);
/* The HTTP status for a code; the one place where that mapping lives. */
unsigned error_http_status(enum error_code code);

#endif
