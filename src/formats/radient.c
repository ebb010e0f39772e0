/* radient.c: Radient animation clip documents (doc/formats.md 3).
 *
 * The document is JSON:
 *
 *   {"name": "walk", "duration": 1.0,
 *    "targets":  [{"schema": "<UUID>", "object": 0, "name": "hips"}],
 *    "samplers": [{"value": {"type": "FLOAT3", "array_size": 1},
 *                  "interpolation": "CUBIC_SPLINE", "semantic": "COMPONENT_WISE",
 *                  "times": [0, 1], "values": [...] | "values_base64": "..."}],
 *    "channels": [{"target": 0, "property": 1, "first_array_element": 0, "sampler": 0}]}
 *
 * `values` holds the packed numbers in Radient's order (cubic: in-tangent, value, out-tangent
 * arrays per key); `values_base64` holds the native little-endian bytes, whose length is
 * ValueDataSize. u64 fields (object, property) may also be decimal strings, since JSON
 * integers above 2^63-1 do not survive most parsers. Every rule of doc/formats.md 3.1 is its own
 * error code; the path names the field ("samplers[2].times[5]").
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base64.h"
#include "formats/format.h"

#define RADIENT_CLASS "RadientAnimationClip"

static enum format_match radient_match(const struct upload *up, char *why, size_t why_size)
{
	size_t i = 0;

	if (up->class_name) {
		if (strcasecmp(up->class_name, RADIENT_CLASS) == 0)
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "class=%s is not %s", up->class_name, RADIENT_CLASS);
		return MATCH_NONE;
	}
	if (up->family) {
		if (strcasecmp(up->family, "radient") == 0)
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "family=%s is not radient", up->family);
		return MATCH_NONE;
	}
	while (i < up->length && (up->data[i] == ' ' || up->data[i] == '\t' ||
	                          up->data[i] == '\r' || up->data[i] == '\n'))
		i++;
	if (i < up->length && up->data[i] == '{')
		return MATCH_MAGIC;
	if (format_has_extension(up->filename, "json"))
		return MATCH_EXTENSION;
	snprintf(why, why_size, "not a JSON object: does not start with '{'");
	return MATCH_NONE;
}

/* Field access with paths. Each returns 0 or -1 after setting err. */

static int field_type_error(struct error *err, const char *path, const char *want,
                            const json_t *got)
{
	static const char *const names[] = {"an object", "an array", "a string", "an integer",
	                                    "a number",  "true",     "false",    "null"};
	const char *got_name = got ? names[json_typeof(got)] : "nothing (the field is missing)";

	error_set(err, ERROR_INVALID, path, -1, "%s: expected %s, got %s", path, want, got_name);
	return -1;
}

static int get_u64(const json_t *v, const char *path, uint64_t *out, struct error *err)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0) {
			error_set(err, ERROR_INVALID, path, -1,
			          "%s: %lld is negative; it must be an unsigned 64-bit integer",
			          path, (long long)i);
			return -1;
		}
		*out = (uint64_t)i;
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		if (*s >= '0' && *s <= '9') {
			unsigned long long x;
			errno = 0;
			x = strtoull(s, &end, 10);
			if (!errno && *end == '\0') {
				*out = x;
				return 0;
			}
		}
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: '%s' is not an unsigned 64-bit decimal integer", path, s);
		return -1;
	}
	return field_type_error(err, path, "an unsigned integer (or a decimal string)", v);
}

static int get_u32(const json_t *v, const char *path, uint32_t *out, struct error *err)
{
	uint64_t x;

	if (get_u64(v, path, &x, err) < 0)
		return -1;
	if (x > UINT32_MAX) {
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: %" PRIu64 " does not fit an unsigned 32-bit integer", path, x);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

/* Parses "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3", with or without braces, into upper case. */
static int parse_uuid(const char *s, char out[SCHEMA_TEXT_SIZE])
{
	size_t len = strlen(s);

	if (len == 38 && s[0] == '{' && s[37] == '}')
		s++, len -= 2;
	if (len != 36)
		return -1;
	for (size_t i = 0; i < 36; i++) {
		char c = s[i];
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return -1;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		             (c >= 'A' && c <= 'F'))) {
			return -1;
		}
		out[i] = (c >= 'a' && c <= 'f') ? (char)(c - 32) : c;
	}
	out[36] = '\0';
	return 0;
}

static int parse_targets(const json_t *arr, struct clip *clip, struct error *err)
{
	char path[64];
	size_t i;
	json_t *t;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return field_type_error(err, "targets", "an array", arr);
	clip->targets = calloc(json_array_size(arr) + 1, sizeof(*clip->targets));
	if (!clip->targets)
		goto oom;
	json_array_foreach(arr, i, t)
	{
		struct target *tg = &clip->targets[i];
		json_t *schema, *name;

		clip->target_count = i + 1;
		snprintf(path, sizeof(path), "targets[%zu]", i);
		if (!json_is_object(t))
			return field_type_error(err, path, "an object", t);
		schema = json_object_get(t, "schema");
		snprintf(path, sizeof(path), "targets[%zu].schema", i);
		if (!json_is_string(schema))
			return field_type_error(err, path, "a UUID string", schema);
		if (parse_uuid(json_string_value(schema), tg->schema) < 0) {
			error_set(err, ERROR_INVALID, path, -1,
			          "%s: '%s' is not a UUID (8-4-4-4-12 hexadecimal digits)", path,
			          json_string_value(schema));
			return -1;
		}
		snprintf(path, sizeof(path), "targets[%zu].object", i);
		if (get_u64(json_object_get(t, "object"), path, &tg->object, err) < 0)
			return -1;
		if (tg->object == UINT64_MAX) {
			error_set(err, ERROR_OBJECT_INVALID, path, -1,
			          "%s: 18446744073709551615 (2^64-1) is reserved as the invalid "
			          "object and cannot be a target",
			          path);
			return -1;
		}
		name = json_object_get(t, "name");
		if (name && !json_is_null(name)) {
			snprintf(path, sizeof(path), "targets[%zu].name", i);
			if (!json_is_string(name))
				return field_type_error(err, path, "a string", name);
			tg->name = strdup(json_string_value(name));
			if (!tg->name)
				goto oom;
		}
	}
	return 0;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

static int parse_times(const json_t *arr, size_t index, struct sampler *s, double duration,
                       struct error *err)
{
	char path[64];
	size_t k;
	json_t *v;

	snprintf(path, sizeof(path), "samplers[%zu].times", index);
	if (!json_is_array(arr))
		return field_type_error(err, path, "an array of numbers", arr);
	if (json_array_size(arr) == 0) {
		error_set(err, ERROR_NO_KEYS, path, -1,
		          "%s: a sampler needs at least one key (KeyframeCount must be non-zero)",
		          path);
		return -1;
	}
	if (json_array_size(arr) > UINT32_MAX) {
		error_set(err, ERROR_INVALID, path, -1, "%s: more than 2^32-1 keys", path);
		return -1;
	}
	s->key_count = (uint32_t)json_array_size(arr);
	if (duration == 0.0 && s->key_count != 1) {
		error_set(err, ERROR_ZERO_DURATION_KEYS, path, -1,
		          "%s: has %" PRIu32 " keys, but a clip of duration 0 needs exactly one "
		          "key per sampler, at time 0",
		          path, s->key_count);
		return -1;
	}
	s->times = malloc(s->key_count * sizeof(float));
	if (!s->times) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	json_array_foreach(arr, k, v)
	{
		float t;
		snprintf(path, sizeof(path), "samplers[%zu].times[%zu]", index, k);
		if (!json_is_number(v))
			return field_type_error(err, path, "a number", v);
		t = (float)json_number_value(v);
		if (!isfinite(t)) {
			error_set(err, ERROR_TIME_NOT_FINITE, path, -1,
			          "%s: %.9g is not a finite 32-bit float time", path,
			          json_number_value(v));
			return -1;
		}
		if (k > 0 && !(t > s->times[k - 1])) {
			error_set(err, ERROR_TIME_NOT_INCREASING, path, -1,
			          "%s: %.9g is not greater than the previous time %.9g", path,
			          (double)t, (double)s->times[k - 1]);
			return -1;
		}
		/* keys are held as float32: compare with the duration in that precision, so
		 * that a key written as the duration (2.456) is within it however it rounds */
		if (t < 0.0f || t > (float)duration) {
			error_set(err, ERROR_TIME_OUT_OF_RANGE, path, -1,
			          "%s: %.9g is outside the clip's time range [0, %.9g] (the "
			          "duration held as a 32-bit float, as the keys are)",
			          path, (double)t, (double)(float)duration);
			return -1;
		}
		s->times[k] = t;
	}
	return 0;
}

/* Checks one native component: floats finite, BOOL 0 or 1. `what` is the path. */
static int check_component(const struct sampler *s, const uint8_t *p, const char *path,
                           struct error *err)
{
	if (value_type_scalar(s->type) == SCALAR_FLOAT) {
		float f;
		memcpy(&f, p, sizeof(f));
		if (!isfinite(f)) {
			error_set(err, ERROR_VALUE_NOT_FINITE, path, -1,
			          "%s: %g is not finite; every float component must be finite "
			          "(tangents included)",
			          path, (double)f);
			return -1;
		}
	} else if (s->type == VALUE_BOOL && *p > 1) {
		error_set(err, ERROR_VALUE_OUT_OF_RANGE, path, -1,
		          "%s: byte %u is not a BOOL (0 false, 1 true)", path, *p);
		return -1;
	}
	return 0;
}

/* Stores JSON number v as the native component at p. */
static int store_component(const struct sampler *s, const json_t *v, uint8_t *p, const char *path,
                           struct error *err)
{
	enum scalar_kind kind = value_type_scalar(s->type);

	if (kind == SCALAR_BOOL) {
		if (json_is_boolean(v)) {
			*p = json_is_true(v) ? 1 : 0;
			return 0;
		}
		if (json_is_integer(v) &&
		    (json_integer_value(v) == 0 || json_integer_value(v) == 1)) {
			*p = (uint8_t)json_integer_value(v);
			return 0;
		}
		if (json_is_number(v)) {
			error_set(err, ERROR_VALUE_OUT_OF_RANGE, path, -1,
			          "%s: %.9g is not a BOOL (true, false, 0 or 1)", path,
			          json_number_value(v));
			return -1;
		}
		return field_type_error(err, path, "true, false, 0 or 1", v);
	}
	if (!json_is_number(v))
		return field_type_error(err, path, "a number", v);
	if (kind == SCALAR_FLOAT) {
		float f = (float)json_number_value(v);
		if (!isfinite(f)) {
			error_set(err, ERROR_VALUE_NOT_FINITE, path, -1,
			          "%s: %.9g is not finite as a 32-bit float; every float "
			          "component must be finite (tangents included)",
			          path, json_number_value(v));
			return -1;
		}
		memcpy(p, &f, sizeof(f));
		return 0;
	}
	if (!json_is_integer(v)) {
		error_set(err, ERROR_VALUE_OUT_OF_RANGE, path, -1,
		          "%s: %.9g is not an integer, as %s components must be", path,
		          json_number_value(v), value_type_name(s->type));
		return -1;
	}
	{
		json_int_t i = json_integer_value(v);
		if (kind == SCALAR_INT && (i < INT32_MIN || i > INT32_MAX)) {
			error_set(err, ERROR_VALUE_OUT_OF_RANGE, path, -1,
			          "%s: %lld does not fit a signed 32-bit integer", path,
			          (long long)i);
			return -1;
		}
		if (kind == SCALAR_UINT && (i < 0 || i > (json_int_t)UINT32_MAX)) {
			error_set(err, ERROR_VALUE_OUT_OF_RANGE, path, -1,
			          "%s: %lld does not fit an unsigned 32-bit integer", path,
			          (long long)i);
			return -1;
		}
		if (kind == SCALAR_INT) {
			int32_t x = (int32_t)i;
			memcpy(p, &x, sizeof(x));
		} else {
			uint32_t x = (uint32_t)i;
			memcpy(p, &x, sizeof(x));
		}
	}
	return 0;
}

static int parse_values(const json_t *sj, size_t index, struct sampler *s, struct error *err)
{
	const json_t *values = json_object_get(sj, "values");
	const json_t *b64 = json_object_get(sj, "values_base64");
	size_t csize = value_type_component_size(s->type);
	size_t per_key = sampler_components(s) * (s->interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	size_t expected = per_key * s->key_count; /* components; cannot overflow: both < 2^32 */
	char path[80];

	s->value_bytes = expected * csize;
	if (values && b64) {
		snprintf(path, sizeof(path), "samplers[%zu]", index);
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: give either values or values_base64, not both", path);
		return -1;
	}
	if (b64) {
		size_t len = 0, bad = 0;
		snprintf(path, sizeof(path), "samplers[%zu].values_base64", index);
		if (!json_is_string(b64))
			return field_type_error(err, path, "a base64 string", b64);
		s->values =
		    base64_decode(json_string_value(b64), json_string_length(b64), &len, &bad);
		if (!s->values) {
			error_set(err, ERROR_INVALID, path, (long long)bad,
			          "%s: not valid base64 (at character %zu)", path, bad);
			return -1;
		}
		if (len != s->value_bytes) {
			error_set(err, ERROR_VALUE_SIZE_MISMATCH, path, -1,
			          "%s: %zu bytes, but ValueDataSize must be %zu (%zu-byte "
			          "components x %u per %s x array size %" PRIu32 " x %" PRIu32
			          " keys%s)",
			          path, len, s->value_bytes, csize, value_type_components(s->type),
			          value_type_name(s->type), s->array_size, s->key_count,
			          s->interp == INTERP_CUBIC_SPLINE ? " x 3 for CUBIC_SPLINE" : "");
			return -1;
		}
		for (size_t i = 0; i < expected; i++) {
			snprintf(path, sizeof(path), "samplers[%zu].values_base64[%zu]", index, i);
			if (check_component(s, (uint8_t *)s->values + i * csize, path, err) < 0)
				return -1;
		}
		return 0;
	}
	snprintf(path, sizeof(path), "samplers[%zu].values", index);
	if (!json_is_array(values))
		return field_type_error(err, path, "an array of numbers (or values_base64)",
		                        values);
	if (json_array_size(values) != expected) {
		error_set(err, ERROR_VALUE_SIZE_MISMATCH, path, -1,
		          "%s: %zu numbers, but %s x array size %" PRIu32 " x %" PRIu32
		          " keys%s needs %zu (ValueDataSize %zu bytes)",
		          path, json_array_size(values), value_type_name(s->type), s->array_size,
		          s->key_count,
		          s->interp == INTERP_CUBIC_SPLINE
		              ? " x 3 (in, value, out) for CUBIC_SPLINE"
		              : "",
		          expected, s->value_bytes);
		return -1;
	}
	s->values = malloc(s->value_bytes ? s->value_bytes : 1);
	if (!s->values) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < expected; i++) {
		snprintf(path, sizeof(path), "samplers[%zu].values[%zu]", index, i);
		if (store_component(s, json_array_get(values, i), (uint8_t *)s->values + i * csize,
		                    path, err) < 0)
			return -1;
	}
	return 0;
}

static int parse_samplers(const json_t *arr, struct clip *clip, int *semantic_given,
                          struct error *err)
{
	char path[80];
	size_t i;
	json_t *sj;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return field_type_error(err, "samplers", "an array", arr);
	clip->samplers = calloc(json_array_size(arr) + 1, sizeof(*clip->samplers));
	if (!clip->samplers) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	json_array_foreach(arr, i, sj)
	{
		struct sampler *s = &clip->samplers[i];
		json_t *value, *type, *size, *interp, *semantic;

		clip->sampler_count = i + 1;
		s->interp = INTERP_LINEAR;
		snprintf(path, sizeof(path), "samplers[%zu]", i);
		if (!json_is_object(sj))
			return field_type_error(err, path, "an object", sj);
		value = json_object_get(sj, "value");
		snprintf(path, sizeof(path), "samplers[%zu].value", i);
		if (!json_is_object(value))
			return field_type_error(err, path, "an object {\"type\", \"array_size\"}",
			                        value);
		type = json_object_get(value, "type");
		snprintf(path, sizeof(path), "samplers[%zu].value.type", i);
		if (!json_is_string(type))
			return field_type_error(err, path, "a type name such as \"FLOAT3\"", type);
		s->type = value_type_from_name(json_string_value(type));
		if (s->type == VALUE_UNKNOWN) {
			error_set(err, ERROR_INVALID, path, -1,
			          "%s: '%s' is not a value type (BOOL, INT..INT4, UINT..UINT4, "
			          "FLOAT..FLOAT4, FLOAT2X2, FLOAT3X3, FLOAT4X4)",
			          path, json_string_value(type));
			return -1;
		}
		size = json_object_get(value, "array_size");
		snprintf(path, sizeof(path), "samplers[%zu].value.array_size", i);
		s->array_size = 1;
		if (size && get_u32(size, path, &s->array_size, err) < 0)
			return -1;
		if (s->array_size == 0) {
			error_set(err, ERROR_ARRAY_SIZE_INVALID, path, -1,
			          "%s: 0 is not allowed; ArraySize counts whole values per key and "
			          "must be non-zero",
			          path);
			return -1;
		}
		if ((uint64_t)s->array_size * value_type_components(s->type) > 1u << 20) {
			error_set(err, ERROR_ARRAY_SIZE_INVALID, path, -1,
			          "%s: %" PRIu32 " values of %s per key is more than animdex "
			          "accepts (2^20 components)",
			          path, s->array_size, value_type_name(s->type));
			return -1;
		}
		interp = json_object_get(sj, "interpolation");
		snprintf(path, sizeof(path), "samplers[%zu].interpolation", i);
		if (interp) {
			if (!json_is_string(interp))
				return field_type_error(err, path, "a string", interp);
			if (interpolation_from_name(json_string_value(interp), &s->interp) < 0) {
				error_set(err, ERROR_INVALID, path, -1,
				          "%s: '%s' is not STEP, LINEAR or CUBIC_SPLINE", path,
				          json_string_value(interp));
				return -1;
			}
		}
		if (value_type_scalar(s->type) != SCALAR_FLOAT && s->interp != INTERP_STEP) {
			error_set(err, ERROR_INTERPOLATION_NOT_ALLOWED, path, -1,
			          "%s: %s samplers allow only STEP, not %s", path,
			          value_type_name(s->type), interpolation_name(s->interp));
			return -1;
		}
		semantic = json_object_get(sj, "semantic");
		snprintf(path, sizeof(path), "samplers[%zu].semantic", i);
		if (semantic) {
			if (!json_is_string(semantic))
				return field_type_error(err, path, "a string", semantic);
			if (semantic_from_name(json_string_value(semantic), &s->semantic) < 0) {
				error_set(err, ERROR_INVALID, path, -1,
				          "%s: '%s' is not COMPONENT_WISE or NORMALIZED_QUATERNION",
				          path, json_string_value(semantic));
				return -1;
			}
			if (s->semantic == SEMANTIC_NORMALIZED_QUATERNION &&
			    s->type != VALUE_FLOAT4) {
				error_set(err, ERROR_SEMANTIC_INVALID, path, -1,
				          "%s: NORMALIZED_QUATERNION needs FLOAT4 values, not %s",
				          path, value_type_name(s->type));
				return -1;
			}
			semantic_given[i] = 1;
		}
		if (parse_times(json_object_get(sj, "times"), i, s, clip->duration, err) < 0)
			return -1;
		if (parse_values(sj, i, s, err) < 0)
			return -1;
	}
	return 0;
}

static int parse_channels(const json_t *arr, struct clip *clip, struct error *err)
{
	char path[80];
	size_t i;
	json_t *cj;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return field_type_error(err, "channels", "an array", arr);
	clip->channels = calloc(json_array_size(arr) + 1, sizeof(*clip->channels));
	if (!clip->channels) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	json_array_foreach(arr, i, cj)
	{
		struct channel *ch = &clip->channels[i];
		json_t *first;

		clip->channel_count = i + 1;
		snprintf(path, sizeof(path), "channels[%zu]", i);
		if (!json_is_object(cj))
			return field_type_error(err, path, "an object", cj);
		snprintf(path, sizeof(path), "channels[%zu].target", i);
		if (get_u32(json_object_get(cj, "target"), path, &ch->target, err) < 0)
			return -1;
		if (ch->target >= clip->target_count) {
			error_set(err, ERROR_INDEX_OUT_OF_RANGE, path, -1,
			          "%s: target %" PRIu32
			          " does not exist (the clip has %zu targets)",
			          path, ch->target, clip->target_count);
			return -1;
		}
		snprintf(path, sizeof(path), "channels[%zu].sampler", i);
		if (get_u32(json_object_get(cj, "sampler"), path, &ch->sampler, err) < 0)
			return -1;
		if (ch->sampler >= clip->sampler_count) {
			error_set(err, ERROR_INDEX_OUT_OF_RANGE, path, -1,
			          "%s: sampler %" PRIu32
			          " does not exist (the clip has %zu samplers)",
			          path, ch->sampler, clip->sampler_count);
			return -1;
		}
		snprintf(path, sizeof(path), "channels[%zu].property", i);
		if (get_u64(json_object_get(cj, "property"), path, &ch->property, err) < 0)
			return -1;
		if (ch->property == 0) {
			error_set(err, ERROR_PROPERTY_INVALID, path, -1,
			          "%s: 0 is not a property (property 0 is invalid)", path);
			return -1;
		}
		first = json_object_get(cj, "first_array_element");
		snprintf(path, sizeof(path), "channels[%zu].first_array_element", i);
		if (first && get_u32(first, path, &ch->first_element, err) < 0)
			return -1;
	}
	return 0;
}

/* Rule 8: the property of a built-in schema fixes the sampler's value type. */
static int check_channel_types(struct clip *clip, const int *semantic_given, struct error *err)
{
	char path[80];

	for (size_t i = 0; i < clip->channel_count; i++) {
		const struct channel *ch = &clip->channels[i];
		const struct target *tg = &clip->targets[ch->target];
		struct sampler *s = &clip->samplers[ch->sampler];
		enum value_type want;

		snprintf(path, sizeof(path), "channels[%zu].property", i);
		if (schema_property_type(tg->schema, ch->property, &want) < 0) {
			error_set(err, ERROR_PROPERTY_INVALID, path, -1,
			          "%s: %" PRIu64 " is not a property of the %s schema (%s)", path,
			          ch->property,
			          strcmp(tg->schema, SCHEMA_NODE) == 0    ? "node"
			          : strcmp(tg->schema, SCHEMA_MORPH) == 0 ? "morph-weights"
			                                                  : "Zouna",
			          strcmp(tg->schema, SCHEMA_NODE) == 0
			              ? "1 translation, 2 rotation, 3 scale, 4 visibility"
			          : strcmp(tg->schema, SCHEMA_MORPH) == 0 ? "1 weights"
			                                                  : "1 to 10");
			return -1;
		}
		if (want == VALUE_UNKNOWN)
			continue;
		if (s->type != want) {
			error_set(err, ERROR_PROPERTY_TYPE_MISMATCH, path, -1,
			          "%s: %s needs %s values, but sampler %" PRIu32 " holds %s", path,
			          schema_property_name(tg->schema, ch->property),
			          value_type_name(want), ch->sampler, value_type_name(s->type));
			return -1;
		}
		if (strcmp(tg->schema, SCHEMA_NODE) == 0 &&
		    (s->array_size != 1 || ch->first_element != 0)) {
			error_set(err, ERROR_PROPERTY_TYPE_MISMATCH, path, -1,
			          "%s: %s is a single %s (array size 1, element 0), but the "
			          "channel writes elements [%" PRIu32 ", %" PRIu64 ")",
			          path, schema_property_name(tg->schema, ch->property),
			          value_type_name(want), ch->first_element,
			          (uint64_t)ch->first_element + s->array_size);
			return -1;
		}
		if (strcmp(tg->schema, SCHEMA_NODE) == 0 && ch->property == NODE_ROTATION) {
			if (semantic_given[ch->sampler] &&
			    s->semantic != SEMANTIC_NORMALIZED_QUATERNION) {
				snprintf(path, sizeof(path), "samplers[%" PRIu32 "].semantic",
				         ch->sampler);
				error_set(err, ERROR_SEMANTIC_INVALID, path, -1,
				          "%s: COMPONENT_WISE, but channel %zu uses this sampler "
				          "for a node rotation, which is a NORMALIZED_QUATERNION",
				          path, i);
				return -1;
			}
			s->semantic = SEMANTIC_NORMALIZED_QUATERNION;
		}
	}
	return 0;
}

struct channel_order {
	const struct clip *clip;
	size_t index;
};

static int compare_channel(const void *a, const void *b)
{
	const struct channel_order *x = a, *y = b;
	const struct channel *p = &x->clip->channels[x->index], *q = &y->clip->channels[y->index];

	if (p->target != q->target)
		return p->target < q->target ? -1 : 1;
	if (p->property != q->property)
		return p->property < q->property ? -1 : 1;
	if (p->first_element != q->first_element)
		return p->first_element < q->first_element ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Rule 8: ranges of channels on the same target and property must not overlap. */
static int check_channel_overlap(const struct clip *clip, struct error *err)
{
	struct channel_order *order = malloc((clip->channel_count + 1) * sizeof(*order));
	int rc = 0;

	if (!order) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < clip->channel_count; i++)
		order[i] = (struct channel_order){clip, i};
	qsort(order, clip->channel_count, sizeof(*order), compare_channel);
	for (size_t i = 1; i < clip->channel_count; i++) {
		const struct channel *p = &clip->channels[order[i - 1].index];
		const struct channel *q = &clip->channels[order[i].index];
		uint64_t p_end = (uint64_t)p->first_element + clip->samplers[p->sampler].array_size;
		char path[48];

		if (p->target != q->target || p->property != q->property ||
		    q->first_element >= p_end)
			continue;
		snprintf(path, sizeof(path), "channels[%zu]",
		         order[i].index > order[i - 1].index ? order[i].index : order[i - 1].index);
		error_set(err, ERROR_CHANNEL_OVERLAP, path, -1,
		          "%s: channels %zu and %zu both write target %" PRIu32 " property %" PRIu64
		          ": elements [%" PRIu32 ", %" PRIu64 ") overlap [%" PRIu32 ", %" PRIu64
		          ")",
		          path, order[i - 1].index, order[i].index, p->target, p->property,
		          p->first_element, p_end, q->first_element,
		          (uint64_t)q->first_element + clip->samplers[q->sampler].array_size);
		rc = -1;
		break;
	}
	free(order);
	return rc;
}

struct target_order {
	const struct target *target;
	size_t index;
};

static int compare_target(const void *a, const void *b)
{
	const struct target_order *x = a, *y = b;
	int c = strcmp(x->target->schema, y->target->schema);

	if (c)
		return c;
	if (x->target->object != y->target->object)
		return x->target->object < y->target->object ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Rule 9: (schema, object) pairs are unique. */
static int check_duplicate_targets(const struct clip *clip, struct error *err)
{
	struct target_order *order = malloc((clip->target_count + 1) * sizeof(*order));
	int rc = 0;

	if (!order) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < clip->target_count; i++)
		order[i] = (struct target_order){&clip->targets[i], i};
	qsort(order, clip->target_count, sizeof(*order), compare_target);
	for (size_t i = 1; i < clip->target_count; i++) {
		char path[32];
		if (strcmp(order[i].target->schema, order[i - 1].target->schema) != 0 ||
		    order[i].target->object != order[i - 1].target->object)
			continue;
		snprintf(path, sizeof(path), "targets[%zu]", order[i].index);
		error_set(err, ERROR_DUPLICATE_TARGET, path, -1,
		          "%s: schema %s object %" PRIu64 " is already targets[%zu]; each "
		          "(schema, object) pair must be unique in a clip",
		          path, order[i].target->schema, order[i].target->object,
		          order[i - 1].index);
		rc = -1;
		break;
	}
	free(order);
	return rc;
}

/* Rule 2: an empty clip has nothing; a non-empty one uses every target and sampler. */
static int check_usage(const struct clip *clip, struct error *err)
{
	size_t n =
	    clip->target_count > clip->sampler_count ? clip->target_count : clip->sampler_count;
	unsigned char *used;
	int rc = 0;

	if (clip->target_count == 0 && clip->sampler_count == 0 && clip->channel_count == 0)
		return 0;
	if (clip->target_count == 0 || clip->sampler_count == 0 || clip->channel_count == 0) {
		const char *missing = clip->target_count == 0    ? "targets"
		                      : clip->sampler_count == 0 ? "samplers"
		                                                 : "channels";
		error_set(err, ERROR_EMPTY_CLIP_INCOMPLETE, missing, -1,
		          "%s: is empty, but a clip that is not empty needs at least one "
		          "target, one sampler and one channel",
		          missing);
		return -1;
	}
	used = calloc(n, 2);
	if (!used) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < clip->channel_count; i++) {
		used[clip->channels[i].target * 2] = 1;
		used[clip->channels[i].sampler * 2 + 1] = 1;
	}
	for (size_t i = 0; i < clip->target_count && rc == 0; i++) {
		if (!used[i * 2]) {
			char path[32];
			snprintf(path, sizeof(path), "targets[%zu]", i);
			error_set(err, ERROR_UNUSED_TARGET, path, -1,
			          "%s: no channel uses this target; every target must be used",
			          path);
			rc = -1;
		}
	}
	for (size_t i = 0; i < clip->sampler_count && rc == 0; i++) {
		if (!used[i * 2 + 1]) {
			char path[32];
			snprintf(path, sizeof(path), "samplers[%zu]", i);
			error_set(err, ERROR_UNUSED_SAMPLER, path, -1,
			          "%s: no channel uses this sampler; every sampler must be used",
			          path);
			rc = -1;
		}
	}
	free(used);
	return rc;
}

int radient_parse_clip(const json_t *doc, struct clip *clip, struct error *err);

/* Fills `clip` from a parsed document and checks every rule. Exposed for the tests. */
int radient_parse_clip(const json_t *doc, struct clip *clip, struct error *err)
{
	const json_t *name = json_object_get(doc, "name");
	const json_t *duration = json_object_get(doc, "duration");
	int *semantic_given = NULL;
	int rc = -1;

	if (!json_is_object(doc))
		return field_type_error(err, "$", "a clip object", doc);
	if (name && !json_is_null(name)) {
		if (!json_is_string(name))
			return field_type_error(err, "name", "a string", name);
		clip->name = strdup(json_string_value(name));
		if (!clip->name)
			goto oom;
	}
	if (!json_is_number(duration))
		return field_type_error(err, "duration", "a number of seconds", duration);
	clip->duration = json_number_value(duration);
	if (!isfinite(clip->duration) || clip->duration < 0) {
		error_set(err, ERROR_DURATION_INVALID, "duration", -1,
		          "duration: %.9g is not allowed; it must be finite and >= 0",
		          clip->duration);
		return -1;
	}
	if (parse_targets(json_object_get(doc, "targets"), clip, err) < 0)
		return -1;
	semantic_given = calloc(json_array_size(json_object_get(doc, "samplers")) + 1, sizeof(int));
	if (!semantic_given)
		goto oom;
	if (parse_samplers(json_object_get(doc, "samplers"), clip, semantic_given, err) < 0 ||
	    parse_channels(json_object_get(doc, "channels"), clip, err) < 0 ||
	    check_usage(clip, err) < 0 || check_channel_types(clip, semantic_given, err) < 0 ||
	    check_channel_overlap(clip, err) < 0 || check_duplicate_targets(clip, err) < 0)
		goto done;
	rc = 0;
done:
	free(semantic_given);
	return rc;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

/* A key time at the duration can round above the decimal duration when both are held as
 * float32 (2.456 is 2.45600009): such keys are accepted, and the note says so. */
static int note_rounded_duration(struct resource *res)
{
	const struct clip *clip = &res->clip;
	float last = 0.0f;
	char note[256];

	for (size_t i = 0; i < clip->sampler_count; i++)
		if (clip->samplers[i].key_count &&
		    clip->samplers[i].times[clip->samplers[i].key_count - 1] > last)
			last = clip->samplers[i].times[clip->samplers[i].key_count - 1];
	if (!((double)last > clip->duration))
		return 0;
	snprintf(note, sizeof(note),
	         "duration: %.17g is held as the 32-bit float %.9g, as the key times are; a key "
	         "at %.9g was taken as the clip's end",
	         clip->duration, (double)(float)clip->duration, (double)last);
	return resource_assume(res, note);
}

static int radient_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)up->data, up->length, JSON_REJECT_DUPLICATES, &jerr);
	struct resource *res;

	if (!doc) {
		error_set(err, ERROR_MALFORMED, NULL, jerr.position,
		          "the clip document is not valid JSON: %s at line %d, column %d",
		          jerr.text, jerr.line, jerr.column);
		return -1;
	}
	res = resource_create("radient", RADIENT_CLASS);
	if (!res) {
		json_decref(doc);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (radient_parse_clip(doc, &res->clip, err) < 0) {
		json_decref(doc);
		resource_free(res);
		return -1;
	}
	json_decref(doc);
	if (note_rounded_duration(res) < 0) {
		resource_free(res);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (res->clip.name) {
		res->name = strdup(res->clip.name);
		if (!res->name) {
			resource_free(res);
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
	}
	return decode_result_add(out, res);
}

const struct format format_radient = {
    .family = "radient",
    .version = 1,
    .description = "Radient animation clip documents (JSON)",
    .match = radient_match,
    .decode = radient_decode,
};
