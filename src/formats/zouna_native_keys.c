/* zouna_native_keys.c: keys encoded in a Zouna keyframer's class (doc/formats.md 1.2, 1.8):
 * values quantised to the nearest 16-bit step, half away from zero, or float32; Hermite
 * tangents per segment; handle, flag and message keys as words; and keys swapped between byte
 * orders. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "writer.h"
#include "zouna_native.h"

static void swap_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* Swaps every field of the keys in p[0, n) from one byte order to the other (padding kept);
 * not for messages (zouna_native_swap_words). */
static void swap_fields(const struct zouna_keys *k, uint8_t *p, size_t n)
{
	const struct zouna_class *c = k->cls;
	int seed = k->reading && strncmp(k->reading, "u16 time", 8) == 0;
	size_t size = zouna_key_size(c, k->compressed), at = 0;

	while (at < n) {
		uint8_t *key = p + at;
		size_t q = 0, width = k->compressed ? 2 : 4, fields;
		if (seed) {
			swap_bytes(key, 2);
			swap_bytes(key + 2, 2);
			q = 4;
			width = 4;
		} else {
			swap_bytes(key, 4);
			q = 4;
		}
		switch (c->kind) {
		case KIND_HERMITE: fields = 3 * c->n; break;
		case KIND_LINEAR: fields = c->n; break;
		case KIND_ROT: fields = 4, width = 2; break;
		default: fields = 1, width = 4; break;
		}
		for (size_t f = 0; f < fields; f++, q += width)
			swap_bytes(key + q, width);
		at += size;
	}
}

/* Messages: every field is a 4-byte word, so a slice of message keys swaps word by word. */
void zouna_native_swap_words(uint8_t *p, size_t n)
{
	for (size_t at = 0; at + 4 <= n; at += 4)
		swap_bytes(p + at, 4);
}

void zouna_native_swap_keys(const struct zouna_keys *k, uint8_t *p, size_t n)
{
	if (k->cls->kind == KIND_MESSAGE)
		zouna_native_swap_words(p, n);
	else
		swap_fields(k, p, n);
}

/* A compressed component: the nearest step, half away from zero (doc/formats.md 1.8); -1
 * when the class cannot hold it. */
static int quantise(float v, float factor, int16_t *out)
{
	double x = round((double)v * factor);

	if (!(x >= -32768.0 && x <= 32767.0))
		return -1;
	*out = (int16_t)x;
	return 0;
}

struct key_writer {
	struct writer w;
	const struct zouna_class *cls;
	int compressed;
	const char *track;
	struct error *err;
	uint32_t key;
	const char *part;  /* "value", "in-tangent", "out-tangent" */
	double worst_step; /* the largest quantisation error */
	int flags;         /* enum write_flags */
};

/* A component of a compressed key past the class's 16-bit range: 422 naming the track, the
 * key and the part, with advice that applies to the container. */
static int refuse_component(const struct key_writer *kw, float v)
{
	int tangent = strcmp(kw->part, "value") != 0;

	error_set(kw->err, ERROR_VALUE_OUT_OF_RANGE, kw->track, -1,
	          "%s: key %" PRIu32 "'s %s %.9g%s is beyond what %s can hold (16-bit steps of "
	          "1/%g: |v| <= %.6g)%s; %s",
	          kw->track, kw->key, kw->part, (double)v, tangent ? " (per segment)" : "",
	          kw->cls->name, (double)kw->cls->factor, 32767.0 / kw->cls->factor,
	          tangent && (kw->flags & WRITE_SPLIT_TRIED)
	              ? ", even with its segment split in halves as far as float32 times allow"
	              : "",
	          kw->flags & WRITE_PROMOTABLE
	              ? "give promote=1 to write the file in the class's uncompressed form"
	              : "an Animation_Z's keyframers have the classes the engine gives them, so "
	                "the motion must be scaled into the class's range");
	return -1;
}

static int put_component(struct key_writer *kw, float v)
{
	int16_t q;

	if (!kw->compressed) {
		if (!isfinite(v)) { /* a finite tangent per second times a long segment */
			error_set(
			    kw->err, ERROR_VALUE_OUT_OF_RANGE, kw->track, -1,
			    "%s: key %" PRIu32 "'s %s per segment (its tangent per second "
			    "times the segment's length) is past float32's range (|v| <= %g), "
			    "all %s holds; keys closer together or a smaller tangent fit",
			    kw->track, kw->key, kw->part, (double)FLT_MAX, kw->cls->name);
			return -1;
		}
		writer_f32(&kw->w, v);
		return 0;
	}
	if (quantise(v, kw->cls->factor, &q) < 0)
		return refuse_component(kw, v);
	if (fabs((double)q / kw->cls->factor - v) > kw->worst_step)
		kw->worst_step = fabs((double)q / kw->cls->factor - v);
	writer_u16(&kw->w, (uint16_t)q);
	return 0;
}

static void pad_key(struct key_writer *kw, size_t key_start)
{
	size_t size = zouna_key_size(kw->cls, kw->compressed);

	while (kw->w.b.len - key_start < size)
		buf_putc(&kw->w.b, (char)0xFF);
}

/* Why a track cannot go into a keyframer: 422 naming the track and the class. */
static int refuse_track(struct key_writer *kw, const char *why)
{
	error_set(kw->err, ERROR_INVALID, kw->track, -1, "%s: %s cannot be written as %s keys",
	          kw->track, why, kw->cls->name);
	return -1;
}

/* The keys of a value class (Hermite, linear, rotation) from a sampler. */
static int write_value_keys(struct key_writer *kw, const struct sampler *s, int step)
{
	const struct zouna_class *c = kw->cls;
	uint32_t n = c->n, count = s->key_count;
	const float *v = s->values;
	int cubic = s->interp == INTERP_CUBIC_SPLINE;
	size_t stride = cubic ? 3 * (size_t)n : n;

	if (s->type != (enum value_type)(VALUE_FLOAT + n - 1) || s->array_size != 1)
		return refuse_track(kw, c->kind == KIND_ROT
		                            ? "a track that is not quaternions (FLOAT4)"
		                            : "a track of another value type");
	if (step != (s->interp == INTERP_STEP))
		return refuse_track(kw, step ? "a track that interpolates (the keyframer's flags "
		                               "hold the step bit 0x8)"
		                             : "a stepped track (the keyframer's flags do not "
		                               "hold the step bit 0x8)");
	if (cubic && c->kind != KIND_HERMITE)
		return refuse_track(kw, "a cubic spline (a linear class)");
	for (uint32_t i = 0; i < count; i++) {
		size_t key_start = kw->w.b.len;
		const float *value = v + i * stride + (cubic ? n : 0);
		kw->key = i;
		kw->part = "value";
		writer_f32(&kw->w, s->times[i]);
		for (uint32_t j = 0; j < n; j++)
			if (put_component(kw, value[j]) < 0)
				return -1;
		if (c->kind == KIND_HERMITE) {
			/* per-segment tangents (1.3): a cubic spline's per-second ones times the
			 * segment's length; a linear track's the segment's change */
			float d_in = i > 0 ? s->times[i] - s->times[i - 1] : 0;
			float d_out = i + 1 < count ? s->times[i + 1] - s->times[i] : 0;
			for (int side = 0; side < 2; side++)
				for (uint32_t j = 0; j < n; j++) {
					kw->part = side ? "out-tangent" : "in-tangent";
					float t = 0;
					if (cubic) {
						float a = v[i * stride + (side ? 2 * n : 0) + j];
						float d = side ? d_out : d_in;
						t = d > 0 ? a * d : a;
					} else if (!step && side == 0 && i > 0) {
						t = value[j] - v[(i - 1) * stride + j];
					} else if (!step && side == 1 && i + 1 < count) {
						t = v[(i + 1) * stride + j] - value[j];
					}
					if (put_component(kw, t) < 0)
						return -1;
				}
		}
		pad_key(kw, key_start);
	}
	return 0;
}

/* Handle and flag keys: a word a key, in the template's order of time and word. */
static int write_word_keys(struct key_writer *kw, const struct sampler *s, int word_first)
{
	const uint32_t *words = s->values;

	if (s->type != VALUE_UINT || s->array_size != 1 || s->interp != INTERP_STEP)
		return refuse_track(kw, "a track that is not stepped UINT words");
	for (uint32_t i = 0; i < s->key_count; i++) {
		if (word_first)
			writer_u32(&kw->w, words[i]);
		writer_f32(&kw->w, s->times[i]);
		if (!word_first)
			writer_u32(&kw->w, words[i]);
	}
	return 0;
}

/* Message keys: the events of one time make one key. */
static uint32_t write_message_keys(struct key_writer *kw, const struct sampler *s)
{
	const uint32_t *w = s->values;
	uint32_t keys = 0;

	if (s->type != VALUE_UINT || s->array_size != EVENT_WORDS || s->interp != INTERP_STEP)
		return (uint32_t)refuse_track(kw, "a track that is not events (UINT[5], STEP)");
	for (uint32_t i = 0; i < s->key_count;) {
		uint32_t n = 1;
		while (i + n < s->key_count && s->times[i + n] == s->times[i])
			n++;
		writer_f32(&kw->w, s->times[i]);
		writer_u32(&kw->w, n);
		for (uint32_t m = 0; m < n; m++)
			for (int word = 0; word < EVENT_WORDS; word++)
				writer_u32(&kw->w, w[(size_t)(i + m) * EVENT_WORDS + (size_t)word]);
		i += n;
		keys++;
	}
	return keys;
}

/* Writes a source track as keys of a keyframer's class: the keys' count, or -1. */
long zouna_native_write_track(const struct zouna_keys *k, uint16_t flags, const struct sampler *s,
                              const char *track, enum byte_order order, uint8_t **bytes,
                              size_t *length, double *worst, int write_flags, struct error *err)
{
	struct key_writer kw = {{{0}, order}, k->cls, k->compressed, track, err, 0,
	                        "value",      0,      write_flags};
	int step = k->cls->has_flags && (flags & FLAG_STEP);
	long keys = s->key_count;
	int rc;

	buf_init(&kw.w.b, NATIVE_MAX_BYTES);
	if (k->reading && strncmp(k->reading, "u16 time", 8) == 0) {
		error_set(err, ERROR_INVALID, track, -1,
		          "%s: the template's %s keys are in the seed's layout (u16 time, u16 "
		          "flags), which animdex reads but does not write; use a template in the "
		          "f32-time layout",
		          track, k->cls->name);
		return -1;
	}
	{
		const char *rule = NULL;
		long bad = zouna_first_unreadable_time(k->cls, s->times, s->key_count, &rule);
		if (bad >= 0) {
			error_set(err, ERROR_TIME_OUT_OF_RANGE, track, -1,
			          "%s: key %ld's time %.9g cannot be written as %s keys: %s", track,
			          bad, (double)s->times[bad], k->cls->name, rule);
			return -1;
		}
	}
	switch (k->cls->kind) {
	case KIND_HANDLE:
	case KIND_FLAG:
		rc = write_word_keys(&kw, s,
		                     k->reading && strncmp(k->reading, "handle, then", 12) == 0);
		break;
	case KIND_MESSAGE:
		keys = (long)(int32_t)write_message_keys(&kw, s);
		rc = keys < 0 ? -1 : 0;
		break;
	default: rc = write_value_keys(&kw, s, step); break;
	}
	if (rc == 0 && kw.w.b.overflow) {
		error_set(err, ERROR_TOO_LARGE, track, -1, "%s: the keys pass 2 GiB", track);
		rc = -1;
	}
	if (rc < 0) {
		buf_cleanup(&kw.w.b);
		return -1;
	}
	*bytes = (uint8_t *)buf_steal(&kw.w.b, length);
	*worst = kw.worst_step;
	return keys;
}

int zouna_native_check_values(const struct zouna_keys *k, const struct sampler *s,
                              const char *track, int flags, struct error *err)
{
	struct key_writer kw = {
	    {{0}, BYTE_ORDER_LITTLE}, k->cls, k->compressed, track, err, 0, "value", 0, flags};
	uint32_t n = k->cls->n;
	int cubic = s->interp == INTERP_CUBIC_SPLINE;
	size_t stride = cubic ? 3 * (size_t)n : n;
	const float *v = s->values;
	int16_t q;

	if (!k->compressed || (k->cls->kind != KIND_HERMITE && k->cls->kind != KIND_LINEAR) ||
	    s->type != (enum value_type)(VALUE_FLOAT + n - 1) || s->array_size != 1)
		return 0;
	for (uint32_t i = 0; i < s->key_count; i++)
		for (uint32_t j = 0; j < n; j++) {
			float x = v[i * stride + (cubic ? n : 0) + j];
			kw.key = i;
			if (quantise(x, k->cls->factor, &q) < 0)
				return refuse_component(&kw, x);
		}
	return 0;
}

/* Splitting Hermite segments whose per-segment tangents a compressed class cannot hold. A
 * segment's per-segment tangents are its per-second ones times its length; split at its
 * middle, with a key there holding the curve's value and slope, each half is the same cubic
 * (to within the class's rounding of the new key) with tangents half as large. */
#define SPLIT_DEPTH 16 /* halvings of one segment: tangents 65,536 times smaller */

struct split_keys {
	float *times, *values; /* cubic: [in, value, out] a key, n components each */
	uint32_t count, cap, added;
	uint32_t n;
};

static int split_push(struct split_keys *o, float t, const float *in, const float *value,
                      const float *out)
{
	if (o->count == o->cap) {
		uint32_t cap = o->cap ? o->cap * 2 : 16;
		float *times = realloc(o->times, cap * sizeof(*times));
		if (!times)
			return -1;
		o->times = times;
		float *values = realloc(o->values, (size_t)cap * 3 * o->n * sizeof(*values));
		if (!values)
			return -1;
		o->values = values;
		o->cap = cap;
	}
	o->times[o->count] = t;
	memcpy(o->values + (size_t)o->count * 3 * o->n, in, o->n * sizeof(float));
	memcpy(o->values + ((size_t)o->count * 3 + 1) * o->n, value, o->n * sizeof(float));
	memcpy(o->values + ((size_t)o->count * 3 + 2) * o->n, out, o->n * sizeof(float));
	o->count++;
	return 0;
}

/* Whether a segment of length d with per-second tangents m0 (leaving its first key) and m1
 * (reaching its second) fits the class, computed as write_value_keys writes them. */
static int tangents_fit(const struct zouna_class *c, const float *m0, const float *m1, uint32_t n,
                        float d)
{
	int16_t q;

	for (uint32_t j = 0; j < n; j++)
		if (quantise(m0[j] * d, c->factor, &q) < 0 ||
		    quantise(m1[j] * d, c->factor, &q) < 0)
			return 0;
	return 1;
}

/* The Hermite curve of a segment [t0, t1] at t: its value and slope per second. */
static void hermite_at(double t0, double t1, double p0, double m0, double p1, double m1, double t,
                       float *value, float *slope)
{
	double d = t1 - t0, u = (t - t0) / d, u2 = u * u, u3 = u2 * u;

	*value = (float)((2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * d * m0 +
	                 (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * d * m1);
	*slope = (float)(((6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * d * m0 +
	                  (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * d * m1) /
	                 d);
}

/* The keys strictly inside segment [t0, t1] that make it fit: 0, -1 out of memory, -2 when
 * no split fits (the halves would need times float32 cannot tell apart, or too many). */
static int split_segment(struct split_keys *o, const struct zouna_class *c, float t0,
                         const float *p0, const float *m0, float t1, const float *p1,
                         const float *m1, int depth)
{
	float tm = t0 + (t1 - t0) / 2, pm[4], sm[4];
	int rc;

	if (tangents_fit(c, m0, m1, o->n, t1 - t0))
		return 0;
	if (depth >= SPLIT_DEPTH || !(tm > t0 && tm < t1))
		return -2;
	for (uint32_t j = 0; j < o->n; j++)
		hermite_at(t0, t1, p0[j], m0[j], p1[j], m1[j], tm, &pm[j], &sm[j]);
	if ((rc = split_segment(o, c, t0, p0, m0, tm, pm, sm, depth + 1)) < 0 ||
	    split_push(o, tm, sm, pm, sm) < 0)
		return rc < 0 ? rc : -1;
	o->added++;
	return split_segment(o, c, tm, pm, sm, t1, p1, m1, depth + 1);
}

int zouna_native_split_segments(const struct zouna_keys *k, const struct sampler *s,
                                struct sampler *out, uint32_t *added)
{
	const struct zouna_class *c = k->cls;
	struct split_keys o = {NULL, NULL, 0, 0, 0, c->n};
	const float *v = s->values;
	size_t stride = 3 * (size_t)c->n;
	int rc = 0;

	*added = 0;
	if (c->kind != KIND_HERMITE || !k->compressed || s->interp != INTERP_CUBIC_SPLINE ||
	    s->type != (enum value_type)(VALUE_FLOAT + c->n - 1) || s->array_size != 1 ||
	    s->key_count < 2 || c->n > 4)
		return 0;
	for (uint32_t i = 0; i + 1 < s->key_count && rc == 0; i++) {
		const float *a = v + i * stride, *b = v + (i + 1) * stride;
		rc = split_push(&o, s->times[i], a, a + c->n, a + 2 * c->n);
		if (rc == 0)
			rc = split_segment(&o, c, s->times[i], a + c->n, a + 2 * c->n,
			                   s->times[i + 1], b + c->n, b, 0);
	}
	if (rc == 0) {
		const float *last = v + (s->key_count - 1) * stride;
		rc = split_push(&o, s->times[s->key_count - 1], last, last + c->n, last + 2 * c->n);
	}
	if (rc < 0 || o.added == 0) {
		free(o.times);
		free(o.values);
		return rc;
	}
	*out = *s;
	out->times = o.times;
	out->values = o.values;
	out->key_count = o.count;
	out->value_bytes = (size_t)o.count * stride * sizeof(float);
	*added = o.added;
	return 1;
}
