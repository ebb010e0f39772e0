/* export_tracks.c: how a track becomes glTF: its keys as glTF takes them (a one-key cubic
 * spline made linear, quaternions normalised, a Zouna track's value before its first key
 * kept), Euler rotations baked into quaternions, and what glTF cannot animate kept in the
 * animation's extras with the reason, its keys in the buffer. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"
#include "export_internal.h"
#include "core/pose.h"

int export_grow_splices(struct render_splices *sp)
{
	size_t cap = sp->cap ? 2 * sp->cap : 256;
	struct render_splice *grown = realloc(sp->items, cap * sizeof(*grown));

	if (!grown)
		return -1;
	sp->items = grown;
	sp->cap = cap;
	return 0;
}

/* The glTF component type a stored scalar goes out as: float32 as FLOAT, 32-bit integers as
 * UNSIGNED_INT (an INT's two's complement: glTF has no signed 32-bit type), a BOOL as
 * UNSIGNED_BYTE; its size in *bytes. */
static int kept_component_type(enum value_type type, size_t *bytes)
{
	switch (value_type_scalar(type)) {
	case SCALAR_FLOAT: *bytes = 4; return GLTF_FLOAT;
	case SCALAR_BOOL: *bytes = 1; return GLTF_UNSIGNED_BYTE;
	default: *bytes = 4; return GLTF_UNSIGNED_INT;
	}
}

int export_keep_in_extras(struct exporter *ex, json_t *kept, int64_t id,
                          const struct catalog_target *track, const struct sampler *s,
                          const char *reason)
{
	json_int_t n = track->n;
	const char *name = track->name;
	struct sampler shape = {0};
	size_t scalar_bytes, scalars;
	int component_type, in, out;
	json_t *item, *listed;

	/* the keys' shape: the sampler's, or, planned without reading them, the track's row */
	if (s) {
		shape = *s;
	} else {
		shape.type = track->type;
		shape.array_size = track->array_size;
		shape.key_count = track->key_count;
		shape.interp = track->interp;
	}
	component_type = kept_component_type(shape.type, &scalar_bytes);
	scalars = (size_t)shape.key_count * sampler_components(&shape) *
	          (shape.interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	/* the keys go into the buffer as two accessors, like a channel's, made again from the
	 * catalogue when the asset is sent: never a JSON value a number */
	ex->source =
	    (struct export_recipe){.entry = id, .track = (unsigned)n, .part = PART_KEPT_TIMES};
	in = export_add_raw_accessor(ex, s ? s->times : NULL, (size_t)shape.key_count * 4,
	                             shape.key_count, GLTF_FLOAT);
	ex->source.part = PART_KEPT_VALUES;
	out = in < 0 ? -1
	             : export_add_raw_accessor(ex, s ? s->values : NULL, scalars * scalar_bytes,
	                                       scalars, component_type);
	if (out < 0)
		return -1;
	item = json_object();
	json_object_set_new_nocheck(item, "track", json_integer(n));
	json_object_set_new_nocheck(item, "name", json_string(name ? name : ""));
	json_object_set_new_nocheck(item, "reason", json_string(reason));
	json_object_set_new_nocheck(item, "type", json_string(value_type_name(shape.type)));
	json_object_set_new_nocheck(item, "array_size", json_integer(shape.array_size));
	json_object_set_new_nocheck(item, "interpolation",
	                            json_string(interpolation_name(shape.interp)));
	json_object_set_new_nocheck(item, "key_count", json_integer(shape.key_count));
	{ /* what it moves, so that an upload of the asset reads it back as the same track */
		char handle[11];
		json_t *target = json_pack("{s:s}", "schema", track->target.schema);
		if (track->target.has_handle) {
			snprintf(handle, sizeof(handle), "0x%08" PRIX32, track->target.handle);
			json_object_set_new_nocheck(target, "name", json_string(handle));
		} else if (track->target.name) {
			json_object_set_new_nocheck(target, "name",
			                            json_string(track->target.name));
		}
		json_object_set_new_nocheck(target, "object",
		                            track->target.object <= (uint64_t)INT64_MAX
		                                ? json_integer((json_int_t)track->target.object)
		                                : json_sprintf("%" PRIu64, track->target.object));
		json_object_set_new_nocheck(item, "target", target);
		json_object_set_new_nocheck(item, "property",
		                            track->target.property <= (uint64_t)INT64_MAX
		                                ? json_integer((json_int_t)track->target.property)
		                                : json_sprintf("%" PRIu64, track->target.property));
	}
	json_object_set_new_nocheck(item, "input", json_integer(in));
	json_object_set_new_nocheck(item, "output", json_integer(out));
	if (track->events)
		json_object_set_new_nocheck(item, "event_words",
		                            json_pack("[s, s, s, s, s]", "message_class",
		                                      "receiver", "c", "parameter (float32 bits)",
		                                      "message_id"));
	json_array_append_new(kept, item);
	listed = json_object();
	json_object_set_new_nocheck(listed, "entry", json_integer(id));
	json_object_set_new_nocheck(listed, "track", json_integer(n));
	json_object_set_new_nocheck(listed, "name", json_string(name ? name : ""));
	json_object_set_new_nocheck(listed, "reason", json_string(reason));
	json_array_append_new(ex->summary_extras, listed);
	return 0;
}

/* glTF's timeline: times from 0, strictly increasing. NULL when they fit, else why not. */
const char *export_times_unfit(const struct sampler *s)
{
	if (s->times[0] < 0)
		return "its first key is before 0 s, and glTF animations start at 0";
	for (uint32_t k = 1; k < s->key_count; k++)
		if (!(s->times[k] > s->times[k - 1]))
			return "two of its keys share a time, and glTF times must increase";
	return NULL;
}

static int float_order(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

/* The Euler track sampled at every key and bake_rate times a second, from 0 when the track
 * holds a value before its first key, as LINEAR unit quaternions. A track so long that the
 * rate would make more than EXPORT_MAX_BAKED_KEYS samples is sampled as often as that many
 * allow, and the asset says so (an 84-byte file with keys at 0 and 100,000 s would otherwise
 * ask for three million). */
int export_bake_euler(struct exporter *ex, const struct sampler *s, int euler, int64_t id,
                      unsigned track, float **times_out, float **values_out, size_t *count_out)
{
	float t0 = s->times[0] < 0 ? 0 : s->times[0], t1 = s->times[s->key_count - 1];
	double rate = ex->opt.bake_rate, wanted;
	size_t steps, n = 0;
	float *times, *values;
	struct curve c;
	struct curve_cursor cursor;

	if ((s->rules & RULE_LAST_BEFORE_FIRST) && t0 > 0)
		t0 = 0;
	wanted = t1 > t0 ? ceil((double)(t1 - t0) * rate) : 0;
	if (wanted > EXPORT_MAX_BAKED_KEYS) {
		rate = EXPORT_MAX_BAKED_KEYS / ((double)t1 - (double)t0);
		json_array_append_new(
		    ex->notes,
		    json_sprintf("entry %" PRId64 " track %u: baked at %.6g samples a "
		                 "second, not %g: its %.9g s would need %.0f samples, "
		                 "past the limit of %d a track",
		                 id, track, rate, ex->opt.bake_rate, (double)t1 - (double)t0,
		                 wanted, EXPORT_MAX_BAKED_KEYS));
		wanted = EXPORT_MAX_BAKED_KEYS;
	}
	steps = (size_t)wanted;
	times = malloc((steps + s->key_count + 4) * sizeof(float));
	if (!times)
		return -1;
	for (size_t i = 0; i <= steps; i++) {
		double t = t0 + (double)i / rate;
		times[n++] = (float)(t < t1 ? t : t1);
	}
	for (uint32_t k = 0; k < s->key_count; k++)
		if (s->times[k] >= t0) {
			times[n++] = s->times[k];
			/* a Zouna track jumps at its first key: keep the float just before it */
			if (k == 0 && (s->rules & RULE_LAST_BEFORE_FIRST) && s->times[0] > t0)
				times[n++] = nextafterf(s->times[0], -INFINITY);
		}
	qsort(times, n, sizeof(float), float_order);
	{
		size_t u = 0;
		for (size_t i = 0; i < n; i++)
			if (u == 0 || times[i] > times[u - 1])
				times[u++] = times[i];
		n = u;
	}
	values = malloc(n * 4 * sizeof(float));
	if (!values) {
		free(times);
		return -1;
	}
	curve_from_sampler(&c, s);
	curve_cursor_init(&cursor);
	for (size_t i = 0; i < n; i++) {
		float e[3];
		curve_sample_f32(&c, &cursor, times[i], e);
		pose_euler_quaternion(euler, e, values + i * 4);
		if (i > 0) { /* the short way from the previous sample */
			float *p = values + (i - 1) * 4, *q = values + i * 4;
			if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0)
				for (int j = 0; j < 4; j++)
					q[j] = -q[j];
		}
	}
	*times_out = times;
	*values_out = values;
	*count_out = n;
	ex->baked = 1;
	return 0;
}

/* The keys as glTF takes them: a one-key CUBICSPLINE becomes LINEAR (glTF wants two keys
 * there); rotation values are made unit length; a Zouna track whose first key comes after 0
 * gets its last value at 0 and at the float before its first key. Returns the interpolation
 * to write, or -1. */
int export_gltf_keys(struct exporter *ex, const struct sampler *s, enum channel_path path,
                     float **times_out, float **values_out, size_t *count_out)
{
	size_t m = sampler_components(s), per = s->interp == INTERP_CUBIC_SPLINE ? 3 : 1;
	int interp = s->interp;
	int lead = (s->rules & RULE_LAST_BEFORE_FIRST) && s->times[0] > 0 && s->key_count > 1;
	size_t n = s->key_count + (lead ? 2 : 0), at = 0;
	const float *v = s->values;
	float *times, *values;

	if (interp == INTERP_CUBIC_SPLINE && s->key_count == 1) {
		interp = INTERP_LINEAR;
		per = 1;
		v = (const float *)s->values + m; /* the central value */
	}
	times = malloc(n * sizeof(float));
	values = malloc(n * m * per * sizeof(float));
	if (!times || !values) {
		free(times);
		free(values);
		return -1;
	}
	if (lead) {
		/* the last key's value (and zero tangents) at 0 and just before the first key */
		const float *last = (const float *)s->values + (size_t)(s->key_count - 1) * m * per;
		for (int i = 0; i < 2; i++) {
			times[at] = i ? nextafterf(s->times[0], -INFINITY) : 0.0f;
			for (size_t c = 0; c < m * per; c++)
				values[at * m * per + c] =
				    per == 3 && (c < m || c >= 2 * m) ? 0.0f : last[c];
			at++;
		}
		if (times[1] <= 0) { /* the first key is the float after 0: one key is enough */
			at = 1;
			n--;
		}
		ex->shifted = 1;
	}
	memcpy(times + at, s->times, s->key_count * sizeof(float));
	memcpy(values + at * m * per, interp == (int)s->interp ? s->values : v,
	       s->key_count * m * per * sizeof(float));
	if (interp != (int)s->interp) /* one key, its central value */
		memcpy(values + at * m, v, m * sizeof(float));
	if (path == PATH_ROTATION) {
		for (size_t k = 0; k < n; k++) {
			float *q = values + (k * per + (per == 3 ? 1 : 0)) * 4;
			double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
			                  (double)q[2] * q[2] + (double)q[3] * q[3]);
			if (len > 0 && fabs(len - 1.0) > 1e-6) {
				for (int j = 0; j < 4; j++)
					q[j] = (float)(q[j] / len);
				ex->normalised = 1;
			}
		}
	}
	*times_out = times;
	*values_out = values;
	*count_out = n;
	return interp;
}

int export_track_sampler(const struct sampler *s, int rotation, int euler, double bake_rate,
                         struct sampler *out)
{
	struct export_options opt = {.bake_rate = bake_rate, .plan_only = 1};
	struct exporter *ex = exporter_create(&opt);
	float *times = NULL, *values = NULL;
	size_t count = 0;
	int interp;

	memset(out, 0, sizeof(*out));
	if (!ex || s->key_count == 0) {
		exporter_free(ex);
		return ex ? 0 : -1;
	}
	interp = euler ? (export_bake_euler(ex, s, euler, 0, 0, &times, &values, &count) < 0
	                      ? -1
	                      : INTERP_LINEAR)
	               : export_gltf_keys(ex, s, rotation ? PATH_ROTATION : PATH_TRANSLATION,
	                                  &times, &values, &count);
	exporter_free(ex);
	if (interp < 0)
		return -1;
	out->type = euler ? VALUE_FLOAT4 : s->type;
	out->array_size = 1;
	out->interp = (enum interpolation)interp;
	out->semantic = euler || rotation ? SEMANTIC_NORMALIZED_QUATERNION : s->semantic;
	out->key_count = (uint32_t)count;
	out->times = times;
	out->values = values;
	out->value_bytes = count * (euler ? 4 : sampler_components(s)) * sizeof(float) *
	                   (interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	return 0;
}
