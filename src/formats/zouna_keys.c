/* zouna_keys.c: Zouna keyframers (doc/formats.md 1.1 to 1.4): the classes, reading their keys
 * in every layout the sources tell apart, and the tracks made of a slice of keys (Hermite keys
 * become cubic splines with per-second tangents, messages event tracks). zouna.c finds the
 * keyframers in files. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hash.h"
#include "formats/reader.h"
#include "zouna.h"

static const struct zouna_class zouna_classes[] = {
    {"KeyframerFloat_Z", 1, KIND_HERMITE, 1, 0, 1, 0},
    {"KeyframerFloatComp_Z", 1, KIND_HERMITE, 1, 1, FLOAT_COMP_FACTOR, 0},
    {"KeyframerFloatLinearComp_Z", 1, KIND_LINEAR, 1, 1, FLOAT_COMP_FACTOR, 0},
    {"KeyframerVec2fLinear_Z", 1, KIND_LINEAR, 2, 0, 1, 0},
    {"KeyframerVec2fLinearComp_Z", 1, KIND_LINEAR, 2, 1, FLOAT_COMP_FACTOR, 0},
    {"KeyframerVec3fComp_Z", 1, KIND_HERMITE, 3, 1, FLOAT_COMP_FACTOR, 0},
    {"KeyframerVec3fLinear_Z", 1, KIND_LINEAR, 3, 0, 1, 0},
    {"KeyframerExtVec3f_Z", 1, KIND_HERMITE, 3, 0, 1, 0},
    {"KeyframerVec4fLinear_Z", 1, KIND_LINEAR, 4, 0, 1, 0},
    {"KeyframerVec4fLinearComp_Z", 1, KIND_LINEAR, 4, 1, FLOAT_COMP_FACTOR, 0},
    {"KeyframerRot_Z", 0, KIND_ROT, 4, 1, QUAT_COMP_FACTOR, 0},
    {"KeyframerBezierRot_Z", 0, KIND_HERMITE, 3, 0, 1, 0},
    {"KeyframerHdl_Z", 0, KIND_HANDLE, 1, 0, 1, 0},
    {"KeyframerFlag_Z", 0, KIND_FLAG, 1, 0, 1, 0},
    {"KeyframerMessage_Z", 0, KIND_MESSAGE, 0, 0, 1, 0},
    /* The engine's other classes (doc/formats.md 1.2, last paragraph): the same patterns. */
    {"KeyframerFloatLinear_Z", 1, KIND_LINEAR, 1, 0, 1, 1},
    {"KeyframerVec2f_Z", 1, KIND_HERMITE, 2, 0, 1, 1},
    {"KeyframerVec2fComp_Z", 1, KIND_HERMITE, 2, 1, FLOAT_COMP_FACTOR, 1},
    {"KeyframerVec3f_Z", 1, KIND_HERMITE, 3, 0, 1, 1},
    {"KeyframerVec3fLinearComp_Z", 1, KIND_LINEAR, 3, 1, FLOAT_COMP_FACTOR, 1},
    {"KeyframerVec4f_Z", 1, KIND_HERMITE, 4, 0, 1, 1},
    {"KeyframerVec4fComp_Z", 1, KIND_HERMITE, 4, 1, FLOAT_COMP_FACTOR, 1},
};

const struct zouna_class *zouna_class_named(const char *name)
{
	for (size_t i = 0; i < sizeof(zouna_classes) / sizeof(zouna_classes[0]); i++)
		if (name && strcasecmp(name, zouna_classes[i].name) == 0)
			return &zouna_classes[i];
	return NULL;
}

int zouna_is_resource_class(const char *name)
{
	return name && (strcasecmp(name, "Animation_Z") == 0 || strcasecmp(name, "Skel_Z") == 0);
}

/* Bytes of one key of a fixed-size class (0 for messages). */
size_t zouna_key_size(const struct zouna_class *c, int compressed)
{
	size_t per = compressed ? 2 : 4, body;

	switch (c->kind) {
	case KIND_HERMITE: body = 3 * c->n * per; break;
	case KIND_LINEAR: body = c->n * per; break;
	case KIND_ROT: body = 8; break;
	case KIND_HANDLE:
	case KIND_FLAG: body = 4; break;
	default: return 0;
	}
	return (4 + body + 3) / 4 * 4;
}

void zouna_keys_cleanup(struct zouna_keys *k)
{
	free(k->times);
	free(k->values);
	free(k->tin);
	free(k->tout);
	free(k->words);
	free(k->first);
	free(k->events);
	memset(k, 0, sizeof(*k));
}

int zouna_oom(struct error *err)
{
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

/* Times must be finite and (when `ordered`) non-decreasing. `what` names the keyframer. */
static int check_times(const float *times, uint32_t count, int ordered, const char *what,
                       size_t offset, struct error *err)
{
	char path[96];

	for (uint32_t i = 0; i < count; i++) {
		if (isfinite(times[i]) && !(ordered && i > 0 && times[i] < times[i - 1]))
			continue;
		snprintf(path, sizeof(path), "%s.keys[%" PRIu32 "].time", what, i); /* named once */
		if (!isfinite(times[i])) {
			error_set(err, ERROR_TIME_NOT_FINITE, path, (long long)offset,
			          "%s: %g is not a finite time", path, (double)times[i]);
			return -1;
		}
		if (ordered && i > 0 && times[i] < times[i - 1]) {
			error_set(err, ERROR_TIME_NOT_INCREASING, path, (long long)offset,
			          "%s: %.9g is before the previous key's time %.9g; times must not "
			          "decrease",
			          path, (double)times[i], (double)times[i - 1]);
			return -1;
		}
	}
	return 0;
}

/* Telling readings apart (doc/formats.md 1.4): a time column fits when its times are finite,
 * non-decreasing and plausible: 0, or between 1e-6 s and 1e7 s. Without the last test, a
 * column of handles or of u16 pairs often reads as tiny finite floats (1.2e-38). */
static int times_ok(const float *times, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		float a = fabsf(times[i]);
		if (!isfinite(times[i]) || (i > 0 && times[i] < times[i - 1]) ||
		    (a != 0.0f && (a < 1e-6f || a > 1e7f)))
			return 0;
	}
	return 1;
}

long zouna_first_unreadable_time(const struct zouna_class *c, const float *times, uint32_t count,
                                 const char **rule)
{
	int told_by_times = c->kind == KIND_HANDLE || c->kind == KIND_FLAG ||
	                    strcmp(c->name, "KeyframerExtVec3f_Z") == 0;

	for (uint32_t i = 0; i < count; i++) {
		float a = fabsf(times[i]);
		if (!isfinite(times[i])) {
			*rule = "a time must be finite";
			return (long)i;
		}
		if (i > 0 && times[i] < times[i - 1]) {
			*rule = "times must not decrease";
			return (long)i;
		}
		if (told_by_times && a != 0.0f && (a < 1e-6f || a > 1e7f)) {
			*rule =
			    "its layout is told apart by its times, which must be 0 or 1e-6 s to "
			    "1e7 s in size";
			return (long)i;
		}
	}
	return -1;
}

static float read_component(struct reader *r, int compressed, float factor, const char *field)
{
	return compressed ? (float)reader_i16(r, field) / factor : reader_f32(r, field);
}

/* Reads count fixed-size keys of a value class (Hermite, Linear, Rot). */
static int read_value_keys(struct reader *r, struct zouna_keys *k, const char *what,
                           struct error *err)
{
	const struct zouna_class *c = k->cls;
	size_t size = zouna_key_size(c, k->compressed), n = c->n;
	size_t start = r->pos;
	char path[96];

	k->times = malloc((size_t)k->count * sizeof(float) + 1);
	k->values = malloc((size_t)k->count * n * sizeof(float) + 1);
	if (c->kind == KIND_HERMITE) {
		k->tin = malloc((size_t)k->count * n * sizeof(float) + 1);
		k->tout = malloc((size_t)k->count * n * sizeof(float) + 1);
		if (!k->tin || !k->tout)
			return zouna_oom(err);
	}
	if (!k->times || !k->values)
		return zouna_oom(err);
	for (uint32_t i = 0; i < k->count; i++) {
		size_t key_start = r->pos;
		k->times[i] = reader_f32(r, what);
		for (size_t j = 0; j < n; j++)
			k->values[i * n + j] = read_component(r, k->compressed, c->factor, what);
		if (c->kind == KIND_HERMITE) {
			for (size_t j = 0; j < n; j++)
				k->tin[i * n + j] =
				    read_component(r, k->compressed, c->factor, what);
			for (size_t j = 0; j < n; j++)
				k->tout[i * n + j] =
				    read_component(r, k->compressed, c->factor, what);
		}
		reader_seek(r, key_start + size, what); /* padding: any value */
		if (reader_failed(r))
			return -1;
		for (size_t j = 0; j < n; j++) {
			float v[3] = {k->values[i * n + j], k->tin ? k->tin[i * n + j] : 0,
			              k->tout ? k->tout[i * n + j] : 0};
			for (int w = 0; w < 3; w++)
				if (!isfinite(v[w])) {
					snprintf(path, sizeof(path), "%s.keys[%" PRIu32 "]", what,
					         i);
					error_set(err, ERROR_VALUE_NOT_FINITE, path,
					          (long long)key_start,
					          "%s: %s component %zu is %g; values and tangents "
					          "must be "
					          "finite",
					          path,
					          w == 0   ? "value"
					          : w == 1 ? "in-tangent"
					                   : "out-tangent",
					          j, (double)v[w]);
					return -1;
				}
		}
	}
	(void)start;
	return check_times(k->times, k->count, k->ordered, what, start, err);
}

/* KeyframerExtVec3f_Z: f32 times, or the seed's u16 time and u16 flags. */
static int read_ext_vec3f(struct reader *r, struct zouna_keys *k, const char *what,
                          struct error *err)
{
	size_t start = r->pos;
	struct error first;

	error_init(&first);
	if (read_value_keys(r, k, what, &first) == 0 && times_ok(k->times, k->count)) {
		k->reading = "f32 time (engine evidence)";
		return 0;
	}
	if (!error_is_set(&first))
		error_set(&first, ERROR_TIME_NOT_FINITE, what, (long long)start,
		          "%s: neither reading gives plausible times: not f32 seconds (finite, "
		          "non-decreasing, 0 or 1e-6..1e7) and not the seed's u16 times",
		          what);
	if (first.code == ERROR_MALFORMED || first.code == ERROR_INTERNAL) {
		*err = first;
		return -1;
	}
	/* The seed's layout: u16 time, u16 flags (0x80), then the same 36 bytes. */
	reader_seek(r, start, what);
	for (uint32_t i = 0; i < k->count; i++) {
		uint16_t t = reader_u16(r, what);
		reader_u16(r, what); /* per-key flags */
		k->times[i] = (float)t;
		for (size_t j = 0; j < 3; j++)
			k->values[i * 3 + j] = reader_f32(r, what);
		for (size_t j = 0; j < 3; j++)
			k->tin[i * 3 + j] = reader_f32(r, what);
		for (size_t j = 0; j < 3; j++)
			k->tout[i * 3 + j] = reader_f32(r, what);
	}
	if (reader_failed(r))
		return -1;
	for (size_t i = 0; i < (size_t)k->count * 3; i++)
		if (!isfinite(k->values[i]) || !isfinite(k->tin[i]) || !isfinite(k->tout[i])) {
			*err = first; /* neither reading has finite values: report the first */
			return -1;
		}
	if (!times_ok(k->times, k->count)) {
		*err = first;
		return -1;
	}
	k->reading = "u16 time and u16 flags (the seed's layout; time unit unknown)";
	return 0;
}

/* KeyframerHdl_Z and KeyframerFlag_Z: (time, word), or for handles possibly (word, time). */
static int read_word_keys(struct reader *r, struct zouna_keys *k, const char *what,
                          struct error *err)
{
	size_t start = r->pos;
	uint32_t *a = malloc((size_t)k->count * 4 + 1), *b = malloc((size_t)k->count * 4 + 1);
	float *ta = malloc((size_t)k->count * 4 + 1), *tb = malloc((size_t)k->count * 4 + 1);
	int a_ok, b_ok, rc = -1;

	if (!a || !b || !ta || !tb) {
		zouna_oom(err);
		goto done;
	}
	for (uint32_t i = 0; i < k->count; i++) {
		a[i] = reader_u32(r, what);
		b[i] = reader_u32(r, what);
		memcpy(&ta[i], &a[i], 4);
		memcpy(&tb[i], &b[i], 4);
	}
	if (reader_failed(r))
		goto done;
	a_ok = times_ok(ta, k->count);
	b_ok = k->cls->kind == KIND_HANDLE && times_ok(tb, k->count);
	if (!a_ok && !b_ok) {
		check_times(ta, k->count, 1, what, start, err);
		goto done;
	}
	if (a_ok) {
		k->times = ta, ta = NULL;
		k->words = b, b = NULL;
		if (k->cls->kind == KIND_HANDLE)
			k->reading =
			    b_ok ? "time, then handle (both orders fit; the seed's and bff's "
			           "order chosen)"
			         : "time, then handle (the seed's and bff's order)";
	} else {
		k->times = tb, tb = NULL;
		k->words = a, a = NULL;
		k->reading = "handle, then time (RatDecomp's order)";
	}
	rc = 0;
done:
	free(a);
	free(b);
	free(ta);
	free(tb);
	return rc;
}

static int read_message_keys(struct reader *r, struct zouna_keys *k, const char *what,
                             struct error *err)
{
	size_t start = r->pos, cap = 0;

	k->times = malloc((size_t)k->count * sizeof(float) + 1);
	k->first = malloc(((size_t)k->count + 1) * sizeof(uint32_t));
	if (!k->times || !k->first)
		return zouna_oom(err);
	for (uint32_t i = 0; i < k->count; i++) {
		uint32_t n;
		k->times[i] = reader_f32(r, what);
		n = reader_u32(r, what);
		if (reader_check_count(r, n, MESSAGE_SIZE, what) < 0)
			return -1;
		k->first[i] = k->event_count;
		if ((size_t)k->event_count + n > cap) {
			size_t want = ((size_t)k->event_count + n) * 2;
			uint32_t *p = realloc(k->events, want * EVENT_WORDS * sizeof(uint32_t));
			if (!p)
				return zouna_oom(err);
			k->events = p;
			cap = want;
		}
		for (uint32_t m = 0; m < n; m++) {
			uint32_t *w = k->events + (size_t)k->event_count * EVENT_WORDS;
			w[EVENT_MESSAGE_CLASS] = reader_u32(r, what);
			w[EVENT_RECEIVER] = reader_u32(r, what);
			w[EVENT_C] = reader_u32(r, what);
			w[EVENT_PARAMETER] = reader_u32(r, what);
			w[EVENT_MESSAGE_ID] = reader_u32(r, what);
			k->event_count++;
		}
		if (reader_failed(r))
			return -1;
	}
	k->first[k->count] = k->event_count;
	return check_times(k->times, k->count, k->ordered, what, start, err);
}

/* Reads one keyframer of class c at the reader's position. `rest_is_keys`: the keys run to
 * the end of the input (a bare blob), which decides Vec4fLinearComp's key size. */
int zouna_read_keyframer(struct reader *r, const struct zouna_class *c, const char *what,
                         int rest_is_keys, struct zouna_keys *k, struct error *err)
{
	size_t size;

	memset(k, 0, sizeof(*k));
	k->ordered = rest_is_keys;
	k->cls = c;
	k->offset = r->pos;
	k->compressed = c->compressed;
	if (c->has_flags)
		k->flags = reader_u16(r, what);
	k->count = reader_u32(r, what);
	if (reader_failed(r))
		return -1;
	if (strcmp(c->name, "KeyframerVec4fLinearComp_Z") == 0) {
		/* doc/formats.md 1.4: i16 (12-byte keys) per the engine, f32 (20) per the seed */
		uint64_t left = reader_remaining(r);
		k->compressed = 1;
		k->reading = "i16 values / 4096 (12-byte keys, engine evidence)";
		if (rest_is_keys && (uint64_t)k->count * 20 == left && k->count > 0) {
			k->compressed = 0;
			k->reading = "f32 values (20-byte keys, the seed's layout)";
		}
	}
	size = c->kind == KIND_MESSAGE ? 8 : zouna_key_size(c, k->compressed);
	if (reader_check_count(r, k->count, size, what) < 0)
		return -1;
	if (rest_is_keys && c->kind != KIND_MESSAGE &&
	    reader_remaining(r) != (size_t)k->count * size) {
		error_set(err, ERROR_MALFORMED, what, (long long)r->pos,
		          "%s: %" PRIu32 " keys of %zu bytes need %zu bytes after the header, but "
		          "%zu are left: the length does not fit the class",
		          what, k->count, size, (size_t)k->count * size, reader_remaining(r));
		return -1;
	}
	switch (c->kind) {
	case KIND_HERMITE:
		if (strcmp(c->name, "KeyframerExtVec3f_Z") == 0)
			return read_ext_vec3f(r, k, what, err);
		/* fallthrough */
	case KIND_LINEAR:
	case KIND_ROT: return read_value_keys(r, k, what, err);
	case KIND_HANDLE:
	case KIND_FLAG: return read_word_keys(r, k, what, err);
	case KIND_MESSAGE: return read_message_keys(r, k, what, err);
	}
	return -1;
}

static json_t *flag_names(uint16_t flags)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} bits[] = {{0x1, "smooth"},
	            {0x2, "linear"},
	            {0x4, "unknown 0x4"},
	            {0x8, "square (step)"},
	            {0x10, "unknown 0x10"}};
	json_t *names = json_array();

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (flags & bits[i].bit)
			json_array_append_new(names, json_string(bits[i].name));
	if (flags & ~0x1Fu)
		json_array_append_new(names, json_sprintf("unknown 0x%X", flags & ~0x1Fu));
	return names;
}

json_t *zouna_keyframer_info(const struct zouna_keys *k)
{
	json_t *o = json_object();

	json_object_set_new(o, "class", json_string(k->cls->name));
	if (k->cls->has_flags) {
		json_object_set_new(o, "flags", json_integer(k->flags));
		json_object_set_new(o, "flags_named", flag_names(k->flags));
	}
	json_object_set_new(o, "key_count", json_integer(k->count));
	if (k->cls->kind == KIND_MESSAGE)
		json_object_set_new(o, "message_count", json_integer(k->event_count));
	else
		json_object_set_new(
		    o, "key_size", json_integer((json_int_t)zouna_key_size(k->cls, k->compressed)));
	json_object_set_new(o, "offset", json_integer((json_int_t)k->offset));
	if (k->count)
		json_object_set_new(
		    o, "time_range",
		    json_pack("[f, f]", (double)k->times[0], (double)k->times[k->count - 1]));
	if (k->reading)
		json_object_set_new(o, "reading", json_string(k->reading));
	if (k->cls->inferred)
		json_object_set_new(o, "layout", json_string("inferred from the class name"));
	return o;
}

static size_t target_hash(uint64_t object, const char *schema)
{
	uint64_t h = object * 0x9E3779B97F4A7C15u;

	h ^= hash_asobo32(schema, strlen(schema));
	return (size_t)(h ^ (h >> 29));
}

void zouna_target_index_cleanup(struct zouna_target_index *index)
{
	free(index->slots);
	memset(index, 0, sizeof(*index));
}

/* Where target (object, schema) is or would go in index: a slot holding it, or an empty one. */
static size_t *index_slot(const struct zouna_target_index *index, const struct clip *clip,
                          uint64_t object, const char *schema)
{
	size_t mask = index->cap - 1, i = target_hash(object, schema) & mask;

	for (;; i = (i + 1) & mask) {
		size_t *slot = &index->slots[i];
		const struct target *t = *slot ? &clip->targets[*slot - 1] : NULL;
		if (!t || (t->object == object && strcmp(t->schema, schema) == 0))
			return slot;
	}
}

/* Room for one more target in index, at most half full; -1 when out of memory. */
static int index_reserve(struct zouna_target_index *index, const struct clip *clip)
{
	struct zouna_target_index grown;

	if (2 * (index->used + 1) <= index->cap)
		return 0;
	grown.cap = index->cap ? 2 * index->cap : 64;
	grown.used = index->used;
	grown.slots = calloc(grown.cap, sizeof(*grown.slots));
	if (!grown.slots)
		return -1;
	for (size_t i = 0; i < index->cap; i++)
		if (index->slots[i]) {
			const struct target *t = &clip->targets[index->slots[i] - 1];
			*index_slot(&grown, clip, t->object, t->schema) = index->slots[i];
		}
	free(index->slots);
	*index = grown;
	return 0;
}

/* Grows an array of count elements (grown by this alone) to room for one more: its capacity
 * doubles at each power of two, so that n additions copy O(n) elements. -1 when out of memory. */
static int grow_by_one(void **array, size_t count, size_t size)
{
	void *p;

	if (*array && (count & (count - 1)) != 0)
		return 0;
	p = realloc(*array, (count ? 2 * count : 1) * size);
	if (!p)
		return -1;
	*array = p;
	return 0;
}

/* The index of tt's target in clip, added when new; -1 when out of memory. */
static int find_or_add_target(struct clip *clip, struct zouna_target_index *index,
                              const struct track_target *tt)
{
	struct target *t;
	size_t *slot = NULL;

	if (index) {
		if (index_reserve(index, clip) < 0)
			return -1;
		slot = index_slot(index, clip, tt->object, tt->schema);
		if (*slot)
			return (int)(*slot - 1);
	} else {
		for (size_t i = 0; i < clip->target_count; i++)
			if (clip->targets[i].object == tt->object &&
			    strcmp(clip->targets[i].schema, tt->schema) == 0)
				return (int)i;
	}
	if (grow_by_one((void **)&clip->targets, clip->target_count, sizeof(*t)) < 0)
		return -1;
	t = &clip->targets[clip->target_count];
	memset(t, 0, sizeof(*t));
	snprintf(t->schema, sizeof(t->schema), "%s", tt->schema);
	t->object = tt->object;
	t->name = tt->name ? strdup(tt->name) : NULL;
	if (slot) {
		*slot = clip->target_count + 1;
		index->used++;
	}
	return (int)clip->target_count++;
}

/* A message keyframer's slice as an event track: every message its keys hold, each at its
 * key's time. 0, -2 when the slice holds no message, -1 when out of memory. */
static int message_sampler(const struct zouna_keys *k, uint32_t start, uint32_t count,
                           struct sampler *s)
{
	uint32_t first = k->first[start], last = k->first[start + count];

	if (first == last)
		return -2;
	s->type = VALUE_UINT;
	s->array_size = EVENT_WORDS;
	s->interp = INTERP_STEP;
	s->key_count = last - first;
	s->times = malloc(s->key_count * sizeof(float));
	s->value_bytes = (size_t)s->key_count * EVENT_WORDS * 4;
	s->values = malloc(s->value_bytes);
	if (!s->times || !s->values)
		return -1;
	for (uint32_t key = start, e = 0; key < start + count; key++)
		for (uint32_t m = k->first[key]; m < k->first[key + 1]; m++, e++)
			s->times[e] = k->times[key];
	memcpy(s->values, k->events + (size_t)first * EVENT_WORDS, s->value_bytes);
	return 0;
}

/* A handle or flag keyframer's slice: one word a key, stepped. */
static int word_sampler(const struct zouna_keys *k, uint32_t start, uint32_t count,
                        struct sampler *s)
{
	s->type = VALUE_UINT;
	s->interp = INTERP_STEP;
	s->key_count = count;
	s->times = malloc(count * sizeof(float));
	s->value_bytes = (size_t)count * 4;
	s->values = malloc(s->value_bytes);
	if (!s->times || !s->values)
		return -1;
	memcpy(s->times, k->times + start, count * sizeof(float));
	memcpy(s->values, k->words + start, s->value_bytes);
	return 0;
}

/* The first key of a cubic sampler whose tangent per second is not finite (a finite
 * per-segment tangent past float32's range once divided by a short segment), with the
 * component's in- (0) or out-tangent (2); -1 when every one is finite. */
static long first_unbounded_tangent(const struct sampler *s, uint32_t n, int *which)
{
	for (uint32_t i = 0; i < s->key_count; i++)
		for (uint32_t j = 0; j < 3 * n; j++)
			if (!isfinite(((const float *)s->values)[(size_t)i * 3 * n + j])) {
				*which = (int)(j / n);
				return (long)i;
			}
	return -1;
}

/* A float keyframer's slice: stepped (the step flag), Hermite as glTF's cubic spline with
 * tangents per second, or linear. */
static int float_sampler(const struct zouna_keys *k, uint32_t start, uint32_t count, int step,
                         struct sampler *s)
{
	const struct zouna_class *c = k->cls;
	uint32_t n = c->n;
	int cubic = c->kind == KIND_HERMITE && !step;
	float *v;

	s->type = (enum value_type)(VALUE_FLOAT + n - 1);
	s->interp = step ? INTERP_STEP : cubic ? INTERP_CUBIC_SPLINE : INTERP_LINEAR;
	s->semantic =
	    c->kind == KIND_ROT ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
	s->key_count = count;
	s->times = malloc(count * sizeof(float));
	s->value_bytes = (size_t)count * n * sizeof(float) * (cubic ? 3 : 1);
	s->values = malloc(s->value_bytes);
	if (!s->times || !s->values)
		return -1;
	memcpy(s->times, k->times + start, count * sizeof(float));
	v = s->values;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t key = start + i;
		const float *value = k->values + (size_t)key * n;
		if (!cubic) {
			memcpy(v + (size_t)i * n, value, n * sizeof(float));
			continue;
		}
		/* [in | value | out]: tangents per second. A tangent shapes the segment before
		 * (in) or after (out) its key; one that shapes none is kept. */
		float d_in = i > 0 ? s->times[i] - s->times[i - 1] : 0;
		float d_out = i + 1 < count ? s->times[i + 1] - s->times[i] : 0;
		float *dst = v + (size_t)i * 3 * n;
		for (uint32_t j = 0; j < n; j++) {
			float a = k->tin[(size_t)key * n + j], b = k->tout[(size_t)key * n + j];
			dst[j] = d_in > 0 ? a / d_in : a;
			dst[n + j] = value[j];
			dst[2 * n + j] = d_out > 0 ? b / d_out : b;
		}
	}
	return 0;
}

/* The handles track `n`'s keys name (handle keys; a message's receiver and id), as
 * references of the resource. */
static void add_key_references(struct resource *res, const struct zouna_keys *k, uint32_t start,
                               uint32_t count, const struct sampler *s, uint32_t n)
{
	if (k->cls->kind == KIND_HANDLE)
		for (uint32_t i = 0; i < count; i++)
			if (k->words[start + i])
				resource_add_reference(res, k->words[start + i], "handle_key",
				                       (int32_t)n, (int32_t)i);
	if (k->cls->kind == KIND_MESSAGE)
		for (uint32_t e = 0; e < s->key_count; e++) {
			const uint32_t *w = (const uint32_t *)s->values + (size_t)e * EVENT_WORDS;
			if (w[EVENT_RECEIVER])
				resource_add_reference(res, w[EVENT_RECEIVER], "message_receiver",
				                       (int32_t)n, (int32_t)e);
			if (w[EVENT_MESSAGE_ID])
				resource_add_reference(res, w[EVENT_MESSAGE_ID], "message_id",
				                       (int32_t)n, (int32_t)e);
		}
}

int zouna_add_track(struct resource *res, struct zouna_target_index *index,
                    const struct zouna_keys *k, uint32_t start, uint32_t count,
                    const struct track_target *tt, const char *what, struct error *err)
{
	struct clip *clip = &res->clip;
	const struct zouna_class *c = k->cls;
	struct sampler s = {0};
	int target, made;
	int step = c->has_flags && (k->flags & FLAG_STEP);

	if (count == 0)
		return -2;
	if (!k->ordered &&
	    check_times(k->times + start, count, 1, tt->name ? tt->name : what, k->offset, err) < 0)
		return -1;
	s.array_size = 1;
	made = c->kind == KIND_MESSAGE ? message_sampler(k, start, count, &s)
	       : c->kind == KIND_HANDLE || c->kind == KIND_FLAG
	           ? word_sampler(k, start, count, &s)
	           : float_sampler(k, start, count, step, &s);
	if (made == -2)
		return -2;
	if (made < 0)
		goto fail_oom;
	if (s.interp == INTERP_CUBIC_SPLINE) {
		int which = 0;
		long bad = first_unbounded_tangent(&s, c->n, &which);
		if (bad >= 0) {
			char path[160];
			const float *segment = s.times + bad + (which == 0 ? -1 : 0);
			snprintf(path, sizeof(path), "%s.keys[%ld]", tt->name ? tt->name : what,
			         (long)start + bad);
			error_set(
			    err, ERROR_VALUE_NOT_FINITE, path, (long long)k->offset,
			    "%s: its %s-tangent over a segment of %g s is past float32's range "
			    "per second; tangents must be finite once divided by their "
			    "segment's length",
			    path, which == 0 ? "in" : "out", (double)(segment[1] - segment[0]));
			free(s.times);
			free(s.values);
			return -1;
		}
	}
	/* the engine's lookup before the first key, and Vec4fLinear's w (doc/formats.md 1.3) */
	if (c->kind != KIND_MESSAGE)
		s.rules = RULE_LAST_BEFORE_FIRST;
	if (strcmp(c->name, "KeyframerVec4fLinear_Z") == 0 && s.interp == INTERP_LINEAR)
		s.rules |= RULE_W_ONE_BETWEEN_KEYS;
	target = find_or_add_target(clip, index, tt);
	if (target < 0 ||
	    grow_by_one((void **)&clip->channels, clip->channel_count, sizeof(*clip->channels)) <
	        0 ||
	    grow_by_one((void **)&clip->samplers, clip->sampler_count, sizeof(*clip->samplers)) <
	        0 ||
	    grow_by_one((void **)&res->extras, clip->channel_count, sizeof(*res->extras)) < 0)
		goto fail_oom;
	clip->samplers[clip->sampler_count] = s;
	clip->channels[clip->channel_count] =
	    (struct channel){(uint32_t)target, tt->property, 0, (uint32_t)clip->sampler_count};
	res->extras[clip->channel_count] = (struct track_extra){
	    c->kind == KIND_MESSAGE, tt->has_handle, tt->handle,
	    json_pack("{s:s, s:s, s:[I, I], s:s}", "class", c->name, "keyframer", what, "keys",
	              (json_int_t)start, (json_int_t)count, "tangents",
	              s.interp == INTERP_CUBIC_SPLINE
	                  ? "per second (the engine's per-segment tangents divided by the "
	                    "segment's length)"
	                  : "none")};
	clip->sampler_count++;
	add_key_references(res, k, start, count, &s, (uint32_t)clip->channel_count);
	return (int)clip->channel_count++;
fail_oom:
	free(s.times);
	free(s.values);
	return zouna_oom(err);
}

void zouna_assume_for_class(struct resource *res, const struct zouna_class *c)
{
	char note[200];

	if (c->kind == KIND_ROT)
		resource_assume(res, "KeyframerRot_Z: quaternions (x, y, z, w) normalised and "
		                     "interpolated by shortest-path slerp; the engine's "
		                     "interpolation code is not public");
	if (strcmp(c->name, "KeyframerBezierRot_Z") == 0)
		resource_assume(res,
		                "KeyframerBezierRot_Z: values read as Euler angles (axis order "
		                "unknown), interpolated component-wise; their conversion to a "
		                "rotation is unknown");
	if (strcmp(c->name, "KeyframerVec4fLinear_Z") == 0)
		resource_assume(res,
		                "KeyframerVec4fLinear_Z: between keys x, y and z are "
		                "interpolated and w is 1.0, as the engine's decompiled GetValue "
		                "has it (not yet byte-matching); at a key, the key's own w");
	if (c->inferred) {
		snprintf(note, sizeof(note),
		         "%s: key layout inferred from the class name by the patterns of FORMATS "
		         "1.2; no source documents it",
		         c->name);
		resource_assume(res, note);
	}
}
