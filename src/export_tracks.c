/* export_tracks.c: how a track becomes glTF: its keys as glTF takes them (a one-key cubic
 * spline made linear, quaternions normalised, a Zouna track's value before its first key
 * kept), Euler rotations baked into quaternions, and what glTF cannot animate kept in the
 * animation's extras with its keys and the reason. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "export_internal.h"
#include "pose.h"

/* A track's keys as they would be answered by /keys: times, values (per key), for extras. */
static json_t *keys_json(const struct catalog_track *t)
{
	const struct sampler *s = &t->sampler;
	size_t m = sampler_components(s), per = s->interp == INTERP_CUBIC_SPLINE ? 3 : 1;
	enum scalar_kind kind = value_type_scalar(s->type);
	json_t *times = json_array(), *values = json_array();

	for (uint32_t k = 0; k < s->key_count; k++) {
		json_t *key = json_array();
		json_array_append_new(times, json_real(s->times[k]));
		for (size_t c = 0; c < m * per; c++) {
			size_t at = (size_t)k * m * per + c;
			switch (kind) {
			case SCALAR_FLOAT:
				json_array_append_new(key,
				                      json_real(((const float *)s->values)[at]));
				break;
			case SCALAR_INT:
				json_array_append_new(
				    key, json_integer(((const int32_t *)s->values)[at]));
				break;
			case SCALAR_UINT:
				json_array_append_new(
				    key, json_integer(((const uint32_t *)s->values)[at]));
				break;
			case SCALAR_BOOL:
				json_array_append_new(
				    key, json_boolean(((const uint8_t *)s->values)[at]));
				break;
			default: json_array_append_new(key, json_null());
			}
		}
		json_array_append_new(values, key);
	}
	{
		json_t *keys = json_object();
		json_object_set_new_nocheck(keys, "type", json_string(value_type_name(s->type)));
		json_object_set_new_nocheck(keys, "array_size", json_integer(s->array_size));
		json_object_set_new_nocheck(keys, "interpolation",
		                            json_string(interpolation_name(s->interp)));
		json_object_set_new_nocheck(keys, "times", times);
		json_object_set_new_nocheck(keys, "values", values);
		return keys;
	}
}

/* An event track's events, as the sample route lists them. */
static json_t *events_json(const struct catalog_track *t)
{
	const struct sampler *s = &t->sampler;
	const uint32_t *w = s->values;
	json_t *list = json_array();
	char handle[2][11];

	for (uint32_t k = 0; k < s->key_count; k++, w += EVENT_WORDS) {
		float parameter;
		memcpy(&parameter, &w[EVENT_PARAMETER], sizeof(parameter));
		render_handle(w[EVENT_RECEIVER], handle[0]);
		render_handle(w[EVENT_MESSAGE_ID], handle[1]);
		json_array_append_new(
		    list, json_pack("{s:f, s:I, s:s, s:I, s:o, s:s}", "time", (double)s->times[k],
		                    "message_class", (json_int_t)w[EVENT_MESSAGE_CLASS], "receiver",
		                    handle[0], "c", (json_int_t)w[EVENT_C], "parameter",
		                    isfinite(parameter) ? json_real(parameter) : json_null(),
		                    "message_id", handle[1]));
	}
	return json_pack("{s:o}", "events", list);
}

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

/* A track's keys (or events) as kept in extras. */
static json_t *kept_keys_json(const struct catalog_track *t)
{
	return t->events ? events_json(t) : keys_json(t);
}

int export_kept_text_make(const json_t *track, const struct catalog_track *t, const char *reason,
                          struct kept_text *out)
{
	json_t *keys = kept_keys_json(t);
	const char *name = json_string_value(json_object_get(track, "name"));
	struct buf b;

	buf_init(&b, (size_t)1 << 31);
	if (!keys || render_json_append(&b, keys, 0) < 0 || b.len < 2) {
		json_decref(keys);
		buf_cleanup(&b);
		return -1;
	}
	json_decref(keys);
	b.len--; /* its closing brace: the track's number, name and reason follow */
	buf_printf(&b, ",\"track\":%" JSON_INTEGER_FORMAT ",\"name\":",
	           json_integer_value(json_object_get(track, "n")));
	render_string_append(&b, name ? name : "");
	buf_puts(&b, ",\"reason\":");
	render_string_append(&b, reason);
	buf_putc(&b, '}');
	if (b.overflow) {
		buf_cleanup(&b);
		return -1;
	}
	out->text = buf_steal(&b, &out->length);
	out->reason = reason;
	return 0;
}

/* A track kept in extras: its keys (or events) and why glTF does not animate it. Made ahead
 * (`made`, for this reason: taken over), it goes into the asset as text, a placeholder in the
 * document spliced in when it is written: no jansson value a number to build and free. */
void export_keep_in_extras(struct exporter *ex, json_t *kept, int64_t id, const json_t *track,
                           const struct catalog_track *t, struct kept_text *made,
                           const char *reason)
{
	json_int_t n = json_integer_value(json_object_get(track, "n"));
	const char *name = json_string_value(json_object_get(track, "name"));
	struct render_splices *sp = &ex->kept;
	json_t *placeholder, *listed;

	listed = json_object();
	if (made && made->text && made->reason == reason &&
	    (sp->count < sp->cap || export_grow_splices(sp) == 0) &&
	    (placeholder = json_string(""))) {
		sp->items[sp->count].value = placeholder;
		sp->items[sp->count].text = made->text;
		sp->items[sp->count].length = made->length;
		sp->count++;
		made->text = NULL;
		json_array_append_new(kept, placeholder);
	} else {
		json_t *item = t ? kept_keys_json(t) : json_object();
		json_object_set_new_nocheck(item, "track", json_integer(n));
		json_object_set_new_nocheck(item, "name", json_string(name ? name : ""));
		json_object_set_new_nocheck(item, "reason", json_string(reason));
		json_array_append_new(kept, item);
	}
	json_object_set_new_nocheck(listed, "entry", json_integer(id));
	json_object_set_new_nocheck(listed, "track", json_integer(n));
	json_object_set_new_nocheck(listed, "name", json_string(name ? name : ""));
	json_object_set_new_nocheck(listed, "reason", json_string(reason));
	json_array_append_new(ex->summary_extras, listed);
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
int export_bake_euler(struct exporter *ex, const struct sampler *s, int64_t id, unsigned track,
                      float **times_out, float **values_out, size_t *count_out)
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
		pose_euler_quaternion(e, values + i * 4);
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
