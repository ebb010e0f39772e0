/* error.c: codes, their names and HTTP statuses, and the first-error-wins setter. */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned status;
} error_table[ERROR_CODE_COUNT] = {
    [ERROR_NONE] = {"none", 200},
    [ERROR_BAD_PARAMETER] = {"bad_parameter", 400},
    [ERROR_MALFORMED] = {"malformed", 400},
    [ERROR_NOT_FOUND] = {"not_found", 404},
    [ERROR_METHOD_NOT_ALLOWED] = {"method_not_allowed", 405},
    [ERROR_CONFLICT] = {"conflict", 409},
    [ERROR_TOO_LARGE] = {"too_large", 413},
    [ERROR_UNSUPPORTED_FORMAT] = {"unsupported_format", 415},
    [ERROR_UNAUTHORIZED] = {"unauthorized", 401},
    [ERROR_FORBIDDEN] = {"forbidden", 403},
    [ERROR_INVALID] = {"invalid_field", 422},
    [ERROR_DURATION_INVALID] = {"duration_invalid", 422},
    [ERROR_ZERO_DURATION_KEYS] = {"zero_duration_keys", 422},
    [ERROR_EMPTY_CLIP_INCOMPLETE] = {"clip_incomplete", 422},
    [ERROR_UNUSED_TARGET] = {"unused_target", 422},
    [ERROR_UNUSED_SAMPLER] = {"unused_sampler", 422},
    [ERROR_NO_KEYS] = {"no_keys", 422},
    [ERROR_TIME_NOT_FINITE] = {"time_not_finite", 422},
    [ERROR_TIME_NOT_INCREASING] = {"time_not_increasing", 422},
    [ERROR_TIME_OUT_OF_RANGE] = {"time_out_of_range", 422},
    [ERROR_VALUE_SIZE_MISMATCH] = {"value_size_mismatch", 422},
    [ERROR_INTERPOLATION_NOT_ALLOWED] = {"interpolation_not_allowed", 422},
    [ERROR_VALUE_NOT_FINITE] = {"value_not_finite", 422},
    [ERROR_INDEX_OUT_OF_RANGE] = {"index_out_of_range", 422},
    [ERROR_PROPERTY_INVALID] = {"property_invalid", 422},
    [ERROR_PROPERTY_TYPE_MISMATCH] = {"property_type_mismatch", 422},
    [ERROR_CHANNEL_OVERLAP] = {"channel_overlap", 422},
    [ERROR_DUPLICATE_TARGET] = {"duplicate_target", 422},
    [ERROR_OBJECT_INVALID] = {"object_invalid", 422},
    [ERROR_ARRAY_SIZE_INVALID] = {"array_size_invalid", 422},
    [ERROR_SEMANTIC_INVALID] = {"semantic_invalid", 422},
    [ERROR_VALUE_OUT_OF_RANGE] = {"value_out_of_range", 422},
    [ERROR_GLTF_INVALID] = {"gltf_invalid", 422},
    [ERROR_INTERNAL] = {"internal", 500},
    [ERROR_UNAVAILABLE] = {"unavailable", 503},
    [ERROR_STORAGE_FULL] = {"storage_full", 507},
    [ERROR_READ_ONLY] = {"read_only", 405},
    [ERROR_NOT_IMPLEMENTED] = {"not_implemented", 501},
};

void error_init(struct error *err)
{
	if (!err)
		return;
	err->code = ERROR_NONE;
	err->offset = -1;
	err->path[0] = '\0';
	err->message[0] = '\0';
}

void error_set(struct error *err, enum error_code code, const char *path, long long offset,
               const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code != ERROR_NONE)
		return;
	err->code = code;
	err->offset = offset;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

int error_is_set(const struct error *err)
{
	return err && err->code != ERROR_NONE;
}

const char *error_code_name(enum error_code code)
{
	if ((unsigned)code >= ERROR_CODE_COUNT)
		return "internal";
	return error_table[code].name;
}

unsigned error_http_status(enum error_code code)
{
	if ((unsigned)code >= ERROR_CODE_COUNT)
		return 500;
	return error_table[code].status;
}
