/* key_edits.c: a clip's keys edited by hand (include/core/key_edits.h). Every edit is checked
 * and every edited track built anew beside the clip before any of it changes, so that a bad
 * edit leaves the clip as it was. */
#include "core/key_edits.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"

#define PI 3.14159265358979323846

/* One key of a track being edited: where it is, what it holds, which edit put it there. */
struct slot {
	float time;
	const unsigned char *value; /* a key's bytes (stride long): the track's, or own */
	unsigned char *own;         /* given by an edit, or NULL */
	uint32_t original;          /* its index before the edits, or UINT32_MAX when inserted */
	int edit;                   /* the edit that moved, set or inserted it, or -1 */
	int deleted;
};

/* A track's edits, gathered: the keys it will have. */
struct track_work {
	uint32_t track;
	const struct sampler *s;
	size_t stride; /* bytes of one key: its value (with tangents for a cubic spline) */
	size_t value_bytes, components;
	struct slot *slots;
	size_t count, cap;
	int *edited_by; /* per original key: the edit that touched it, or -1 */
	float *times;   /* the result, built before anything changes */
	unsigned char *values;
	size_t kept;
	json_t *changed, *deleted, *inserted;
};

void key_edits_euler_quaternion(const double degrees[3], float q[4])
{
	double c1 = cos(degrees[0] * PI / 360), s1 = sin(degrees[0] * PI / 360);
	double c2 = cos(degrees[1] * PI / 360), s2 = sin(degrees[1] * PI / 360);
	double c3 = cos(degrees[2] * PI / 360), s3 = sin(degrees[2] * PI / 360);

	q[0] = (float)(s1 * c2 * c3 + c1 * s2 * s3);
	q[1] = (float)(c1 * s2 * c3 - s1 * c2 * s3);
	q[2] = (float)(c1 * c2 * s3 + s1 * s2 * c3);
	q[3] = (float)(c1 * c2 * c3 - s1 * s2 * s3);
}

static int is_rotation(const struct sampler *s)
{
	return s->semantic == SEMANTIC_NORMALIZED_QUATERNION && s->type == VALUE_FLOAT4 &&
	       s->array_size == 1;
}

/* An edit refused: "edits[3].time: <rule>" (422). */
static int bad(struct error *err, size_t e, const char *member, const char *rule)
{
	char path[48];

	if (member)
		snprintf(path, sizeof(path), "edits[%zu].%s", e, member);
	else
		snprintf(path, sizeof(path), "edits[%zu]", e);
	error_set(err, ERROR_INVALID, path, -1, "%s: %s", path, rule);
	return -1;
}

/* A time from JSON: finite, from 0 to 10,000,000 s. */
static int read_time(const json_t *v, size_t e, const char *member, float *out, struct error *err)
{
	double t = json_number_value(v);

	if (!json_is_number(v) || !isfinite(t) || t < 0 || t > 1e7)
		return bad(err, e, member, "a time is a number of seconds from 0 to 10,000,000");
	*out = (float)t;
	return 0;
}

/* The key value an edit gives (value= or, for a rotation, degrees=) into out (value_bytes),
 * in the track's own type: -1 with err naming the member and the rule. */
static int read_value(const struct track_work *w, const json_t *edit, size_t e, unsigned char *out,
                      struct error *err)
{
	const json_t *value = json_object_get(edit, "value"),
	             *deg = json_object_get(edit, "degrees");
	enum scalar_kind kind = value_type_scalar(w->s->type);
	char path[48];

	if (deg) {
		double d[3];
		float q[4];
		if (!is_rotation(w->s)) {
			snprintf(path, sizeof(path), "edits[%zu].degrees", e);
			error_set(
			    err, ERROR_INVALID, path, -1,
			    "%s: track %u is not a rotation (a quaternion track); give value= "
			    "with its %zu components",
			    path, w->track, w->components);
			return -1;
		}
		for (size_t i = 0; i < 3; i++) {
			const json_t *v = json_array_get(deg, i);
			d[i] = json_number_value(v);
			if (!json_is_array(deg) || json_array_size(deg) != 3 ||
			    !json_is_number(v) || !isfinite(d[i])) {
				snprintf(path, sizeof(path), "edits[%zu].degrees", e);
				error_set(
				    err, ERROR_INVALID, path, -1,
				    "%s: Euler angles are three finite numbers of degrees, X, Y "
				    "and Z, as the page shows them",
				    path);
				return -1;
			}
		}
		key_edits_euler_quaternion(d, q);
		memcpy(out, q, sizeof(q));
		return 0;
	}
	snprintf(path, sizeof(path), "edits[%zu].value", e);
	if (!json_is_array(value) || json_array_size(value) != w->components) {
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: track %u's keys are %zu number%s (%s%s); give an array of as many",
		          path, w->track, w->components, w->components == 1 ? "" : "s",
		          value_type_name(w->s->type), w->s->array_size > 1 ? " values" : "");
		return -1;
	}
	for (size_t i = 0; i < w->components; i++) {
		const json_t *v = json_array_get(value, i);
		double x = json_number_value(v);
		if (kind == SCALAR_BOOL && json_is_boolean(v)) {
			out[i] = json_is_true(v);
			continue;
		}
		if (!json_is_number(v) || !isfinite(x) ||
		    (kind == SCALAR_FLOAT && fabs(x) > FLT_MAX) ||
		    (kind != SCALAR_FLOAT && x != floor(x)) ||
		    (kind == SCALAR_INT && (x < INT32_MIN || x > INT32_MAX)) ||
		    (kind == SCALAR_UINT && (x < 0 || x > UINT32_MAX)) ||
		    (kind == SCALAR_BOOL && x != 0 && x != 1)) {
			error_set(err, ERROR_INVALID, path, -1, "%s[%zu]: track %u holds %s; %s",
			          path, i, w->track, value_type_name(w->s->type),
			          kind == SCALAR_FLOAT
			              ? "give a finite number within a float's range"
			          : kind == SCALAR_BOOL ? "give true or false (or 1 or 0)"
			          : kind == SCALAR_UINT ? "give a whole number from 0 to 4294967295"
			                                : "give a whole number of 32 bits");
			return -1;
		}
		if (kind == SCALAR_FLOAT) {
			float f = (float)x;
			memcpy(out + 4 * i, &f, 4);
		} else if (kind == SCALAR_BOOL) {
			out[i] = x != 0;
		} else if (kind == SCALAR_UINT) {
			uint32_t u = (uint32_t)x;
			memcpy(out + 4 * i, &u, 4);
		} else {
			int32_t n = (int32_t)x;
			memcpy(out + 4 * i, &n, 4);
		}
	}
	if (is_rotation(w->s)) {
		float q[4];
		memcpy(q, out, sizeof(q));
		double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
		                (double)q[3] * q[3]);
		if (!(n > 1e-6)) {
			error_set(err, ERROR_INVALID, path, -1,
			          "%s: a rotation is a quaternion x, y, z, w of length above 0",
			          path);
			return -1;
		}
		for (size_t i = 0; i < 4; i++)
			q[i] = (float)(q[i] / n);
		memcpy(out, q, sizeof(q));
	}
	return 0;
}

/* The curve's value (and, for a cubic spline, its slope) at t, as a key's bytes. */
static void value_at(const struct track_work *w, float t, unsigned char *out)
{
	const struct sampler *s = w->s;
	struct curve c;
	struct curve_cursor cur;
	size_t n = w->components;

	curve_from_sampler(&c, s);
	curve_cursor_init(&cur);
	if (value_type_scalar(s->type) != SCALAR_FLOAT) {
		memcpy(out,
		       (const unsigned char *)s->values + curve_step_key(&c, &cur, t) * w->stride,
		       w->stride);
		return;
	}
	if (s->interp != INTERP_CUBIC_SPLINE) {
		curve_sample_f32(&c, &cur, t, (float *)(void *)out);
		return;
	}
	float *key = (float *)(void *)out; /* in-tangent, value, out-tangent */
	curve_sample_f32(&c, &cur, t, key + n);
	memset(key, 0, n * sizeof(float));
	memset(key + 2 * n, 0, n * sizeof(float));
	if (s->key_count < 2 || !(t > s->times[0]) || !(t < s->times[s->key_count - 1]))
		return; /* the curve holds its end values out there: no slope */
	uint32_t k = 0, hi = s->key_count - 1; /* times[k] <= t < times[hi] */
	while (hi - k > 1) {
		uint32_t mid = k + (hi - k) / 2;
		if (s->times[mid] <= t)
			k = mid;
		else
			hi = mid;
	}
	const float *v = s->values;
	double td = (double)s->times[k + 1] - s->times[k], u = (t - s->times[k]) / td;
	double dh00 = 6 * u * u - 6 * u, dh10 = 3 * u * u - 4 * u + 1;
	double dh01 = -6 * u * u + 6 * u, dh11 = 3 * u * u - 2 * u;
	for (size_t i = 0; i < n; i++) {
		double p0 = v[(k * 3 + 1) * n + i], m0 = v[(k * 3 + 2) * n + i] * td;
		double p1 = v[((k + 1) * 3 + 1) * n + i], m1 = v[((k + 1) * 3) * n + i] * td;
		double slope = (dh00 * p0 + dh10 * m0 + dh01 * p1 + dh11 * m1) / td;
		key[i] = key[2 * n + i] = (float)slope;
	}
}

static void work_cleanup(struct track_work *w)
{
	for (size_t i = 0; i < w->count; i++)
		free(w->slots[i].own);
	free(w->slots);
	free(w->edited_by);
	free(w->times);
	free(w->values);
	json_decref(w->changed);
	json_decref(w->deleted);
	json_decref(w->inserted);
}

/* The work for track n, begun at its first edit. */
static struct track_work *work_for(struct track_work *works, size_t *count, size_t *work_of,
                                   const struct clip *clip, uint32_t n)
{
	struct track_work *w;
	const struct sampler *s = &clip->samplers[clip->channels[n].sampler];

	if (work_of[n])
		return &works[work_of[n] - 1];
	w = &works[(*count)++];
	work_of[n] = *count;
	memset(w, 0, sizeof(*w));
	w->track = n;
	w->s = s;
	w->components = value_type_components(s->type) * s->array_size;
	w->value_bytes = w->components * value_type_component_size(s->type);
	w->stride = w->value_bytes * (s->interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	w->cap = s->key_count + 16;
	w->slots = calloc(w->cap, sizeof(*w->slots));
	w->edited_by = malloc(s->key_count * sizeof(*w->edited_by));
	w->changed = json_array();
	w->deleted = json_array();
	w->inserted = json_array();
	if (!w->slots || !w->edited_by || !w->changed || !w->deleted || !w->inserted)
		return NULL; /* cleaned up with the others */
	w->count = s->key_count;
	for (uint32_t k = 0; k < s->key_count; k++) {
		w->slots[k] = (struct slot){
		    s->times[k], (const unsigned char *)s->values + k * w->stride, NULL, k, -1, 0};
		w->edited_by[k] = -1;
	}
	return w;
}

/* A key's index from an edit: a whole number naming one of the track's keys. */
static int read_key(const struct track_work *w, const json_t *v, size_t e, const char *member,
                    uint32_t *out, struct error *err)
{
	json_int_t k = json_integer_value(v);
	char path[48];

	snprintf(path, sizeof(path), "edits[%zu].%s", e, member);
	if (!json_is_integer(v) || k < 0 || (uint64_t)k >= w->s->key_count) {
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: track %u has %u key%s (0 to %u, as they were before the edits); "
		          "give one of them",
		          path, w->track, w->s->key_count, w->s->key_count == 1 ? "" : "s",
		          w->s->key_count - 1);
		return -1;
	}
	if (w->edited_by[k] >= 0) {
		error_set(
		    err, ERROR_INVALID, path, -1,
		    "%s: key %lld of track %u is edited already by edits[%d]; edit a key once "
		    "(one edit can move it and give it a value)",
		    path, (long long)k, w->track, w->edited_by[k]);
		return -1;
	}
	*out = (uint32_t)k;
	return 0;
}

static const char *const members[] = {"track",   "key",    "time",  "value",
                                      "degrees", "insert", "delete"};

/* Reads edit e into its track's work. */
static int take_edit(struct track_work *works, size_t *count, size_t *work_of,
                     const struct clip *clip, const unsigned char *events, const json_t *edit,
                     size_t e, struct error *err)
{
	const json_t *track = json_object_get(edit, "track"), *v;
	const char *name;
	char path[48];
	struct track_work *w;
	int kinds;
	uint32_t k;

	snprintf(path, sizeof(path), "edits[%zu]", e);
	if (!json_is_object(edit)) {
		error_set(err, ERROR_INVALID, path, -1, "%s: an edit is a JSON object", path);
		return -1;
	}
	json_object_foreach((json_t *)edit, name, v)
	{
		size_t m = 0;
		while (m < sizeof(members) / sizeof(*members) && strcmp(members[m], name) != 0)
			m++;
		if (m == sizeof(members) / sizeof(*members)) {
			error_set(
			    err, ERROR_INVALID, path, -1,
			    "%s: '%.40s' is not a member of an edit (track, then key with time, "
			    "value or degrees; insert; or delete)",
			    path, name);
			return -1;
		}
	}
	if (!json_is_integer(track) || json_integer_value(track) < 0 ||
	    (size_t)json_integer_value(track) >= clip->channel_count) {
		snprintf(path, sizeof(path), "edits[%zu].track", e);
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: the entry has %zu track%s (0 to %zu); give one of them", path,
		          clip->channel_count, clip->channel_count == 1 ? "" : "s",
		          clip->channel_count ? clip->channel_count - 1 : 0);
		return -1;
	}
	uint32_t n = (uint32_t)json_integer_value(track);
	if (events && events[n]) {
		snprintf(path, sizeof(path), "edits[%zu].track", e);
		error_set(err, ERROR_INVALID, path, -1,
		          "%s: track %u's keys are events, which are not edited as keys", path, n);
		return -1;
	}
	kinds = !!json_object_get(edit, "key") + !!json_object_get(edit, "insert") +
	        !!json_object_get(edit, "delete");
	if (kinds != 1) {
		error_set(
		    err, ERROR_INVALID, path, -1,
		    "%s: an edit has one of key (with time, value or degrees), insert (a time) "
		    "and delete (a key); this one has %d",
		    path, kinds);
		return -1;
	}
	if (!(w = work_for(works, count, work_of, clip, n))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if ((v = json_object_get(edit, "delete"))) {
		if (json_object_size(edit) != 2)
			return bad(err, e, NULL, "a delete has track and delete alone");
		if (read_key(w, v, e, "delete", &k, err) < 0)
			return -1;
		w->edited_by[k] = (int)e;
		w->slots[k].deleted = 1;
		w->slots[k].edit = (int)e;
		json_array_append_new(w->deleted, json_integer(k));
		return 0;
	}
	struct slot *slot;
	if ((v = json_object_get(edit, "insert"))) {
		float t;
		if (json_object_get(edit, "time"))
			return bad(err, e, "time", "an insert's time is its insert member");
		if (read_time(v, e, "insert", &t, err) < 0)
			return -1;
		if (w->count == w->cap) {
			struct slot *more = realloc(w->slots, 2 * w->cap * sizeof(*more));
			if (!more) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				return -1;
			}
			w->slots = more;
			w->cap *= 2;
		}
		slot = &w->slots[w->count++];
		*slot = (struct slot){t, NULL, malloc(w->stride), UINT32_MAX, (int)e, 0};
		if (!slot->own) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		value_at(w, t, slot->own);
		slot->value = slot->own;
		json_array_append_new(w->inserted, json_real(t));
	} else {
		if (read_key(w, json_object_get(edit, "key"), e, "key", &k, err) < 0)
			return -1;
		if (!json_object_get(edit, "time") && !json_object_get(edit, "value") &&
		    !json_object_get(edit, "degrees"))
			return bad(err, e, NULL,
			           "a key edit gives time, value or degrees (or two of them)");
		slot = &w->slots[k];
		w->edited_by[k] = (int)e;
		slot->edit = (int)e;
		if ((v = json_object_get(edit, "time")) &&
		    read_time(v, e, "time", &slot->time, err) < 0)
			return -1;
		if (!json_object_get(edit, "value") && !json_object_get(edit, "degrees")) {
			json_array_append_new(w->changed, json_integer(k));
			return 0;
		}
		if (!(slot->own = malloc(w->stride))) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		memcpy(slot->own, slot->value, w->stride);
		slot->value = slot->own;
		json_array_append_new(w->changed, json_integer(k));
	}
	if (json_object_get(edit, "degrees") && json_object_get(edit, "value"))
		return bad(err, e, "degrees", "give value or degrees, not both");
	if (json_object_get(edit, "value") || json_object_get(edit, "degrees")) {
		size_t at = w->s->interp == INTERP_CUBIC_SPLINE ? w->value_bytes : 0;
		if (read_value(w, edit, e, slot->own + at, err) < 0)
			return -1;
	}
	return 0;
}

static int slot_order(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->original < y->original) ? -1 : (x->original > y->original);
}

/* The track's keys in time order, checked, built into w->times and w->values. */
static int build(struct track_work *w, struct error *err)
{
	size_t live = 0;

	for (size_t i = 0; i < w->count; i++)
		if (!w->slots[i].deleted)
			w->slots[live++] = w->slots[i];
		else
			free(w->slots[i].own);
	w->count = live;
	if (live == 0) {
		error_set(err, ERROR_INVALID, "edits", -1,
		          "edits: track %u would have no keys left; a track keeps one key at least",
		          w->track);
		return -1;
	}
	qsort(w->slots, live, sizeof(*w->slots), slot_order);
	for (size_t i = 1; i < live; i++) {
		const struct slot *a = &w->slots[i - 1], *b = &w->slots[i];
		if (a->time < b->time)
			continue;
		const struct slot *moved = b->edit >= 0 ? b : a;
		char path[48];
		snprintf(path, sizeof(path), "edits[%d]", moved->edit);
		error_set(
		    err, ERROR_INVALID, path, -1,
		    "%s: track %u would have two keys at %.9g s; keys are strictly increasing "
		    "in time (move the other one, or delete it)",
		    path, w->track, (double)b->time);
		return -1;
	}
	w->times = malloc(live * sizeof(float));
	w->values = malloc(live * w->stride);
	if (!w->times || !w->values) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < live; i++) {
		w->times[i] = w->slots[i].time;
		memcpy(w->values + i * w->stride, w->slots[i].value, w->stride);
	}
	w->kept = live;
	return 0;
}

static int by_track(const void *a, const void *b)
{
	const struct track_work *x = a, *y = b;
	return (x->track > y->track) - (x->track < y->track);
}

/* How many channels use each sampler (sampler_count entries, the caller's), or NULL. */
static uint32_t *sampler_uses(const struct clip *clip)
{
	uint32_t *uses = calloc(clip->sampler_count + 1, sizeof(*uses));

	for (size_t c = 0; uses && c < clip->channel_count; c++)
		if (clip->channels[c].sampler < clip->sampler_count)
			uses[clip->channels[c].sampler]++;
	return uses;
}

int key_edits_apply(struct clip *clip, const unsigned char *events, const json_t *edits,
                    json_t **summary, struct error *err)
{
	struct track_work *works = NULL;
	size_t count = 0, i, *work_of = NULL; /* per track: its work's index + 1, or 0 */
	uint32_t *uses = NULL;                /* per sampler: the channels on it */
	json_t *edit, *out = NULL;
	int rc = -1;

	*summary = NULL;
	if (!json_is_array(edits) || json_array_size(edits) == 0 ||
	    json_array_size(edits) > KEY_EDITS_MAX) {
		error_set(err, ERROR_INVALID, "edits", -1,
		          "edits: an array of 1 to %d edits, each naming a track and a key (moved, "
		          "given a value, deleted) or a time to insert a key at",
		          KEY_EDITS_MAX);
		return -1;
	}
	/* a work for each track edited: at most one an edit */
	works = calloc(json_array_size(edits), sizeof(*works));
	work_of = calloc(clip->channel_count + 1, sizeof(*work_of));
	if (!works || !work_of) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	json_array_foreach(edits, i, edit)
	{
		if (take_edit(works, &count, work_of, clip, events, edit, i, err) < 0)
			goto done;
	}
	for (i = 0; i < count; i++)
		if (build(&works[i], err) < 0)
			goto done;
	qsort(works, count, sizeof(*works), by_track);
	size_t more = 0;
	if (!(uses = sampler_uses(clip))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	for (i = 0; i < count; i++)
		more += uses[clip->channels[works[i].track].sampler] > 1;
	if (more) {
		struct sampler *grown =
		    realloc(clip->samplers, (clip->sampler_count + more) * sizeof(*grown));
		if (!grown) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			goto done;
		}
		clip->samplers = grown;
	}
	if (!(out = json_array())) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	/* nothing fails from here: the clip changes */
	for (i = 0; i < count; i++) {
		struct track_work *w = &works[i];
		struct channel *ch = &clip->channels[w->track];
		int shared = uses[ch->sampler] > 1;
		struct sampler *s = &clip->samplers[ch->sampler];
		uint32_t before = s->key_count;
		if (shared) { /* the last of its channels edited takes it over */
			uses[ch->sampler]--;
			clip->samplers[clip->sampler_count] = *s;
			ch->sampler = (uint32_t)clip->sampler_count++;
			s = &clip->samplers[ch->sampler];
		} else {
			free(s->times);
			free(s->values);
		}
		s->times = w->times;
		s->values = w->values;
		s->key_count = (uint32_t)w->kept;
		s->value_bytes = w->kept * w->stride;
		w->times = NULL;
		w->values = NULL;
		if (s->times[s->key_count - 1] > clip->duration)
			clip->duration = s->times[s->key_count - 1];
		json_array_append_new(out,
		                      json_pack("{s:i, s:i, s:i, s:O, s:O, s:O}", "track",
		                                (int)w->track, "keys_before", (int)before,
		                                "keys_after", (int)w->kept, "changed", w->changed,
		                                "deleted", w->deleted, "inserted", w->inserted));
	}
	*summary = out;
	out = NULL;
	rc = 0;
done:
	json_decref(out);
	for (i = 0; i < count; i++)
		work_cleanup(&works[i]);
	free(works);
	free(work_of);
	free(uses);
	return rc;
}
