/* track_answer.c: the text (JSON, CSV) and bytes (raw float32) of an answer about one track:
 * its samples at given times, its keys, or its events in a time range. Below the transport:
 * the HTTP routes stream it to a connection (struct response_stream takes track_answer_fill),
 * and tests build one from a track and read its bytes without a daemon.
 *
 * Text is produced a piece at a time (track_answer_produce, or track_answer_fill into a
 * caller's buffer), so that a million samples of a large value cost the track's size and a
 * small buffer, not the whole answer. Floats are written as the shortest text that reads back
 * as the same float32 (or rounded to `digits` significant digits). The engine sweeps the
 * times with one cursor.
 */
#include "answers/track_answer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

#define PIECE_BYTES (64u * 1024)        /* text produced at a time, at least */
#define PENDING_MAX ((size_t)256 << 20) /* one piece's ceiling */

/* The times of samples [first, first + count) into out: from + step i, or count points from
 * from to to (both ends included), computed in double and rounded to float; evenly spaced
 * ones four at a time (the same operations lane by lane, so the same floats). Compiled twice,
 * chosen when the program starts: with AVX2 where the machine has it (a double division is
 * most of the cost, and AVX2 makes four in one instruction: the same IEEE operations, so the
 * same floats; about a fifth less CPU for an f32 answer here), else plain x86-64. */
#if defined(__x86_64__) && defined(__GNUC__)
#define WITH_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define WITH_AVX2_CLONE
#endif
WITH_AVX2_CLONE void track_answer_times(const struct sample_times *st, size_t first, size_t count,
                                        float *out)
{
	if (st->list) {
		memcpy(out, st->list + first, count * sizeof(float));
	} else if (st->step > 0) {
		for (size_t j = 0; j < count; j++)
			out[j] = (float)(st->from + st->step * (double)(first + j));
	} else if (st->count == 1) {
		for (size_t j = 0; j < count; j++)
			out[j] = (float)st->from;
	} else {
		/* four at a time (the same operations, lane by lane: the division is the cost) */
		typedef double double4 __attribute__((vector_size(32)));
		double span = st->to - st->from, last = (double)(st->count - 1);
		double4 from4 = {st->from, st->from, st->from, st->from};
		double4 span4 = {span, span, span, span}, last4 = {last, last, last, last};
		double4 index = {(double)first, (double)first + 1, (double)first + 2,
		                 (double)first + 3};
		const double4 four = {4, 4, 4, 4};
		size_t j = 0;
		for (; j + 4 <= count; j += 4, index += four) {
			double4 v = from4 + span4 * (index / last4);
			out[j] = (float)v[0], out[j + 1] = (float)v[1];
			out[j + 2] = (float)v[2], out[j + 3] = (float)v[3];
		}
		for (; j < count; j++)
			out[j] = (float)(st->from + span * ((double)(first + j) / last));
	}
}

void track_answer_free(void *state)
{
	struct track_answer *ta = state;

	if (!ta)
		return;
	catalog_track_cleanup(&ta->track);
	free(ta->times.list);
	free(ta->value);
	free(ta->block);
	free(ta->time_block);
	buf_cleanup(&ta->pending);
	free(ta);
}

int track_answer_own(struct track_answer *ta)
{
	struct catalog_track *track = &ta->track;
	struct catalog_track copy = *track;
	size_t times_len = (size_t)track->sampler.key_count * sizeof(float);

	if (!track->borrowed)
		return 0;
	copy.borrowed = 0;
	copy.name = strdup(track->name);
	copy.sampler.times = malloc(times_len ? times_len : 1);
	copy.sampler.values = malloc(track->sampler.value_bytes ? track->sampler.value_bytes : 1);
	if (!copy.name || !copy.sampler.times || !copy.sampler.values) {
		free(copy.name);
		free(copy.sampler.times);
		free(copy.sampler.values);
		return -1;
	}
	memcpy(copy.sampler.times, track->sampler.times, times_len);
	memcpy(copy.sampler.values, track->sampler.values, track->sampler.value_bytes);
	*track = copy;
	return 0;
}

/* The shortest texts of n <= 64 floats at o, a comma before each but the first (and before
 * the first too with comma_first): their decimals made together, then written (faster than
 * number after number). Room: 17 bytes a number and its comma, and render_float's 32 bytes
 * for the last. Returns the end. */
#define RUN_MAX 64
static char *put_floats(char *o, const float *f, size_t n, int comma_first)
{
	struct float_decimal dec[RUN_MAX];

	render_float_decimals(f, n, dec);
	for (size_t i = 0; i < n; i++) {
		if (i || comma_first)
			*o++ = ',';
		o += render_float_text(f[i], dec[i], o);
	}
	return o;
}

/* Writes one value (components numbers) as a JSON array or as CSV cells. */
static void write_value(struct buf *b, const struct sampler *s, const void *value,
                        size_t components, int digits, int csv)
{
	enum scalar_kind kind = value_type_scalar(s->type);
	char text[32];

	if (kind == SCALAR_FLOAT && digits == 0 && components <= RUN_MAX &&
	    buf_reserve(b, components * 17 + 32) == 0) {
		/* the common case, written in place */
		float f[RUN_MAX];
		char *o = b->data + b->len;
		memcpy(f, value, components * sizeof(float));
		if (!csv)
			*o++ = '[';
		o = put_floats(o, f, components, csv);
		if (!csv)
			*o++ = ']';
		*o = '\0';
		b->len = (size_t)(o - b->data);
		return;
	}
	if (!csv)
		buf_putc(b, '[');
	for (size_t i = 0; i < components; i++) {
		size_t n;
		if (i || csv)
			buf_putc(b, ',');
		switch (kind) {
		case SCALAR_FLOAT: {
			float f;
			memcpy(&f, (const char *)value + 4 * i, 4);
			n = render_float(f, digits, text);
			buf_append(b, text, n);
			break;
		}
		case SCALAR_INT: {
			int32_t x;
			memcpy(&x, (const char *)value + 4 * i, 4);
			buf_printf(b, "%" PRId32, x);
			break;
		}
		case SCALAR_UINT: {
			uint32_t x;
			memcpy(&x, (const char *)value + 4 * i, 4);
			buf_printf(b, "%" PRIu32, x);
			break;
		}
		case SCALAR_BOOL: {
			uint8_t x = ((const uint8_t *)value)[i];
			buf_puts(b, csv ? (x ? "1" : "0") : (x ? "true" : "false"));
			break;
		}
		default: buf_puts(b, "null");
		}
	}
	if (!csv)
		buf_putc(b, ']');
}

static void write_float(struct buf *b, float f, int digits)
{
	char text[32];

	if (buf_reserve(b, 32) == 0) { /* in place */
		b->len += render_float(f, digits, b->data + b->len);
		return;
	}
	buf_append(b, text, render_float(f, digits, text));
}

/* A CSV line: the time, then the value's components; for float values with the shortest
 * texts, all its numbers written in place in one run. */
static void write_csv_row(struct buf *b, const struct sampler *s, float time, const void *value,
                          size_t components, int digits)
{
	if (value_type_scalar(s->type) == SCALAR_FLOAT && digits == 0 && components < RUN_MAX &&
	    buf_reserve(b, (components + 1) * 17 + 32) == 0) {
		float f[RUN_MAX];
		char *o = b->data + b->len;
		f[0] = time;
		memcpy(f + 1, value, components * sizeof(float));
		o = put_floats(o, f, components + 1, 0);
		*o++ = '\n';
		*o = '\0';
		b->len = (size_t)(o - b->data);
		return;
	}
	write_float(b, time, digits);
	write_value(b, s, value, components, digits, 1);
	buf_putc(b, '\n');
}

/* f's shortest text, from its decimal (render_float_decimals) */
static void write_float_decimal(struct buf *b, float f, struct float_decimal dec)
{
	char text[32];

	if (buf_reserve(b, 32) == 0) { /* in place */
		b->len += render_float_text(f, dec, b->data + b->len);
		return;
	}
	buf_append(b, text, render_float_text(f, dec, text));
}

static void write_header(struct buf *b, const struct catalog_track *track)
{
	const struct sampler *s = &track->sampler;

	/* without printf: this is every small answer's cost */
	buf_puts(b, "{\"resource\":");
	buf_put_uint(b, (unsigned long long)track->resource_id);
	buf_puts(b, ",\"track\":");
	buf_put_uint(b, track->n);
	buf_puts(b, ",\"type\":\"");
	buf_puts(b, value_type_name(s->type));
	buf_puts(b, "\",\"array_size\":");
	buf_put_uint(b, s->array_size);
	buf_puts(b, ",\"components\":");
	buf_put_uint(b, sampler_components(s));
	buf_puts(b, ",\"interpolation\":\"");
	buf_puts(b, interpolation_name(s->interp));
	buf_puts(b, "\",\"semantic\":\"");
	buf_puts(b, semantic_name(s->semantic));
	buf_puts(b, "\",\"name\":");
	render_string_append(b, track->name);
}

/* CSV column names: t, then x,y,z,w / m00.. / v, with [i]. for arrays. */
static void write_csv_header(struct buf *b, const struct sampler *s)
{
	static const char *const xyzw[] = {"x", "y", "z", "w"};
	unsigned comps = value_type_components(s->type);
	unsigned rows = s->type == VALUE_FLOAT2X2   ? 2
	                : s->type == VALUE_FLOAT3X3 ? 3
	                : s->type == VALUE_FLOAT4X4 ? 4
	                                            : 0;

	buf_puts(b, "t");
	for (uint32_t e = 0; e < s->array_size; e++) {
		for (unsigned c = 0; c < comps; c++) {
			buf_putc(b, ',');
			if (s->array_size > 1)
				buf_printf(b, "[%" PRIu32 "]%s", e, comps > 1 ? "." : "");
			if (rows)
				buf_printf(b, "m%u%u", c / rows, c % rows);
			else if (comps > 1)
				buf_puts(b, xyzw[c]);
			else if (s->array_size == 1)
				buf_puts(b, "v");
		}
	}
	buf_putc(b, '\n');
}

/* Float samples [first, first + count) into out, count at most BLOCK_TIMES, evaluated
 * together (curve_sample_times). */
#define BLOCK_TIMES 256
static void sample_floats(struct track_answer *ta, size_t first, size_t count, float *out)
{
	track_answer_times(&ta->times, first, count, ta->time_block);
	ta->time_first = first, ta->time_count = count;
	curve_sample_times(&ta->curve, &ta->cursor, ta->time_block, count, out);
}

/* The time of sample i, from the block of times last computed (by sample_floats, or here
 * BLOCK_TIMES at a time): samples are produced in order, and the times written beside their
 * values are those the values were sampled at. */
static float answer_time(struct track_answer *ta, size_t i)
{
	if (i - ta->time_first >= ta->time_count) {
		size_t left = ta->times.count - i;
		ta->time_first = i;
		ta->time_count = left < BLOCK_TIMES ? left : BLOCK_TIMES;
		track_answer_times(&ta->times, i, ta->time_count, ta->time_block);
	}
	return ta->time_block[i - ta->time_first];
}

/* Float sample i's value, in the block of samples (the block from i sampled when i is not in
 * it: samples are produced in order). */
static const float *block_value(struct track_answer *ta, size_t i)
{
	if (i < ta->block_first || i >= ta->block_first + ta->block_count) {
		ta->block_first = i;
		ta->block_count =
		    ta->times.count - i < ta->block_cap ? ta->times.count - i : ta->block_cap;
		sample_floats(ta, i, ta->block_count, ta->block);
	}
	return ta->block + (i - ta->block_first) * ta->m;
}

/* Sample i into ta->value (the cursor sweeps: samples are produced in order; float ones a
 * block at a time). */
static void sample_value(struct track_answer *ta, size_t i)
{
	const struct sampler *s = &ta->track.sampler;
	float t;

	if (value_type_scalar(s->type) == SCALAR_FLOAT && ta->block) {
		memcpy(ta->value, block_value(ta, i), ta->m * sizeof(float));
		return;
	}
	t = answer_time(ta, i);
	if (value_type_scalar(s->type) == SCALAR_FLOAT) {
		curve_sample_f32(&ta->curve, &ta->cursor, t, (float *)ta->value);
	} else {
		uint32_t k = curve_step_key(&ta->curve, &ta->cursor, t);
		memcpy(ta->value, (const uint8_t *)s->values + (size_t)k * ta->m * ta->csize,
		       ta->m * ta->csize);
	}
}

/* May another item go into b? Pieces are about PIECE_BYTES; a buffer of fixed size (a view
 * of the connection's) takes items only while one of the largest still fits, so that none is
 * ever cut. */
static int item_fits(const struct track_answer *ta, const struct buf *b, size_t start)
{
	return b->len - start < PIECE_BYTES && b->max - b->len >= ta->item_room;
}

/* The next bytes of an f32 answer (times, then values, as little-endian float32) written
 * straight into out, at most room of them: whole numbers, whole values; 0 when a value does
 * not fit (or the answer is complete: phase 2). */
static size_t produce_f32(struct track_answer *ta, char *out, size_t room)
{
	size_t n = ta->times.count, per = ta->m * sizeof(float), k;
	int aligned = (uintptr_t)out % _Alignof(float) == 0;

	if (ta->phase == 0) {
		k = room / sizeof(float) < n - ta->i ? room / sizeof(float) : n - ta->i;
		for (size_t j = 0; j < k; j += BLOCK_TIMES) {
			float ts[BLOCK_TIMES];
			size_t c = k - j < BLOCK_TIMES ? k - j : BLOCK_TIMES;
			track_answer_times(&ta->times, ta->i + j, c, ts);
			memcpy(out + j * sizeof(float), ts, c * sizeof(float));
		}
		ta->i += k;
		if (ta->i == n)
			ta->phase = 1, ta->i = 0;
		return k * sizeof(float);
	}
	if (ta->phase != 1)
		return 0;
	k = room / per < n - ta->i ? room / per : n - ta->i;
	if (value_type_scalar(ta->track.sampler.type) == SCALAR_FLOAT && ta->block) {
		for (size_t j = 0; j < k; j += ta->block_cap) {
			size_t c = k - j < ta->block_cap ? k - j : ta->block_cap;
			if (aligned && c <= BLOCK_TIMES) {
				/* straight from the sampler into the answer */
				sample_floats(ta, ta->i + j, c, (float *)(void *)(out + j * per));
			} else {
				sample_floats(ta, ta->i + j, c, ta->block);
				memcpy(out + j * per, ta->block, c * per);
			}
		}
		ta->block_count = 0; /* the block no longer holds what sample_value expects */
	} else {
		for (size_t j = 0; j < k; j++) {
			sample_value(ta, ta->i + j);
			memcpy(out + j * per, ta->value, per);
		}
	}
	ta->i += k;
	if (ta->i == n)
		ta->phase = 2;
	return k * per;
}

/* The times of the samples from ta->i on, as the items of a JSON array, while they fit in
 * the piece begun at start; with the shortest texts, a run's decimals made together, then
 * written (faster than time after time). */
#define TIME_RUN 32
static void write_time_items(struct track_answer *ta, struct buf *b, size_t start)
{
	size_t n = ta->times.count;

	while (ta->i < n && item_fits(ta, b, start)) {
		float t[TIME_RUN];
		struct float_decimal dec[TIME_RUN];
		size_t run = n - ta->i < TIME_RUN ? n - ta->i : TIME_RUN;

		for (size_t j = 0; j < run; j++)
			t[j] = answer_time(ta, ta->i + j);
		if (ta->digits == 0)
			render_float_decimals(t, run, dec);
		for (size_t j = 0; j < run && item_fits(ta, b, start); j++, ta->i++) {
			if (ta->i)
				buf_putc(b, ',');
			if (ta->digits == 0)
				write_float_decimal(b, t[j], dec[j]);
			else
				write_float(b, t[j], ta->digits);
		}
	}
}

/* The values of the samples from ta->i on, as the items of a JSON array, while they fit in
 * the piece begun at start: float values with the shortest texts written in place straight
 * from the block of samples (its numbers, their brackets and the comma before), others
 * through write_value. */
static void write_value_items(struct track_answer *ta, struct buf *b, size_t start)
{
	const struct sampler *s = &ta->track.sampler;
	size_t n = ta->times.count, m = ta->m;
	int in_place = ta->block && ta->digits == 0 && m <= RUN_MAX;

	for (; ta->i < n && item_fits(ta, b, start); ta->i++) {
		char *o;

		if (!in_place || buf_reserve(b, m * 17 + 34) < 0) {
			if (ta->i)
				buf_putc(b, ',');
			sample_value(ta, ta->i);
			write_value(b, s, ta->value, m, ta->digits, 0);
			continue;
		}
		o = b->data + b->len;
		if (ta->i)
			*o++ = ',';
		*o++ = '[';
		o = put_floats(o, block_value(ta, ta->i), m, 0);
		*o++ = ']';
		*o = '\0';
		b->len = (size_t)(o - b->data);
	}
}

/* The parts of a samples answer, produced in order. */
static int produce_samples(struct track_answer *ta, struct buf *b)
{
	const size_t start = b->len; /* a piece is about PIECE_BYTES */
	const struct sampler *s = &ta->track.sampler;
	size_t n = ta->times.count;

	switch (ta->format) {
	case FORMAT_F32: {
		/* times, then values, as little-endian float32, a piece at a time written in
		 * place (the piece's room is reserved once) */
		size_t room = PIECE_BYTES, made;
		if (ta->phase == 1 && room < ta->m * sizeof(float))
			room = ta->m * sizeof(float);
		if (buf_reserve(b, room) < 0)
			return 0;
		made = produce_f32(ta, b->data + b->len, room);
		b->len += made;
		b->data[b->len] = '\0';
		return ta->phase < 2;
	}
	case FORMAT_CSV:
		if (ta->phase == 0) {
			write_csv_header(b, s);
			ta->phase = 1;
		}
		for (; ta->i < n && item_fits(ta, b, start); ta->i++) {
			sample_value(ta, ta->i);
			write_csv_row(b, s, answer_time(ta, ta->i), ta->value, ta->m, ta->digits);
		}
		return ta->i < n;
	case FORMAT_JSON:
		if (ta->phase == 0) {
			write_header(b, &ta->track);
			buf_puts(b, ",\"count\":");
			buf_put_uint(b, n);
			buf_puts(b, ",\"times\":[");
			ta->phase = 1;
		}
		if (ta->phase == 1)
			write_time_items(ta, b, start);
		if (ta->phase == 1 && ta->i == n) {
			buf_puts(b, "],\"values\":[");
			ta->phase = 2, ta->i = 0;
		}
		if (ta->phase == 2)
			write_value_items(ta, b, start);
		if (ta->phase == 2 && ta->i == n) {
			buf_puts(b, "]}\n");
			return 0;
		}
		return 1;
	}
	return 0;
}

/* The keys as decoded: times, then values (cubic: in-tangents, values, out-tangents). */
static int produce_keys(struct track_answer *ta, struct buf *b)
{
	const size_t start = b->len; /* a piece is about PIECE_BYTES */
	const struct sampler *s = &ta->track.sampler;
	static const char *const parts[3] = {"in_tangents", "values", "out_tangents"};
	int cubic = s->interp == INTERP_CUBIC_SPLINE;
	size_t n = s->key_count;

	if (ta->phase == 0) {
		write_header(b, &ta->track);
		buf_printf(b, ",\"key_count\":%" PRIu32 ",\"times\":[", s->key_count);
		ta->phase = 1;
	}
	for (; ta->phase == 1 && ta->i < n && item_fits(ta, b, start); ta->i++) {
		if (ta->i)
			buf_putc(b, ',');
		write_float(b, s->times[ta->i], ta->digits);
	}
	/* phases 2, 3, 4: the value arrays (one of them unless cubic) */
	while (ta->phase >= 1 && ta->phase <= 4 && item_fits(ta, b, start)) {
		int part = cubic ? ta->phase - 2 : 1;
		if (ta->phase == 1 || ta->i == n) {
			if (ta->phase == 4 || (!cubic && ta->phase == 2)) {
				buf_puts(b, "]}\n");
				return 0;
			}
			ta->phase++;
			ta->i = 0;
			part = cubic ? ta->phase - 2 : 1;
			buf_printf(b, "],\"%s\":[", parts[part]);
			continue;
		}
		for (; ta->i < n && item_fits(ta, b, start); ta->i++) {
			size_t at = cubic ? (ta->i * 3 + (size_t)part) : ta->i;
			if (ta->i)
				buf_putc(b, ',');
			write_value(b, s, (const char *)s->values + at * ta->m * ta->csize, ta->m,
			            ta->digits, 0);
		}
	}
	return 1;
}

/* An event track: the events whose time lies in [from, to), as JSON or CSV, with the names
 * known for their handles. */
static int produce_events(struct track_answer *ta, struct buf *b)
{
	const size_t start = b->len; /* a piece is about PIECE_BYTES */
	const struct sampler *s = &ta->track.sampler;
	const uint32_t *words = s->values;
	int csv = ta->format == FORMAT_CSV;
	struct catalog *cat = catalog_pool_get(ta->pool, NULL);

	if (ta->phase == 0) {
		if (csv)
			buf_puts(b, "t,message_class,receiver,c,parameter,message_id\n");
		else {
			write_header(b, &ta->track);
			buf_puts(b, ",\"kind\":\"events\",\"events\":[");
		}
		ta->phase = 1;
	}
	for (; ta->i < s->key_count && item_fits(ta, b, start); ta->i++) {
		const uint32_t *w = words + ta->i * EVENT_WORDS;
		double t = s->times[ta->i];
		char handle[11], name[256];
		float parameter;

		if (!(t >= ta->from && t < ta->to))
			continue;
		memcpy(&parameter, &w[EVENT_PARAMETER], sizeof(parameter));
		if (csv) {
			write_float(b, s->times[ta->i], ta->digits);
			buf_printf(b, ",%" PRIu32 ",0x%08" PRIX32 ",%" PRIu32 ",",
			           w[EVENT_MESSAGE_CLASS], w[EVENT_RECEIVER], w[EVENT_C]);
			write_float(b, parameter, ta->digits);
			buf_printf(b, ",0x%08" PRIX32 "\n", w[EVENT_MESSAGE_ID]);
		} else {
			json_t *e = json_object();
			if (ta->listed)
				buf_putc(b, ',');
			json_object_set_new(e, "time", json_real(s->times[ta->i]));
			json_object_set_new(e, "message_class",
			                    json_integer(w[EVENT_MESSAGE_CLASS]));
			render_handle(w[EVENT_RECEIVER], handle);
			json_object_set_new(e, "receiver", json_string(handle));
			json_object_set_new(e, "receiver_name",
			                    cat && catalog_handle_name(cat, w[EVENT_RECEIVER], 1,
			                                               name, sizeof(name)) == 0
			                        ? json_string(name)
			                        : json_null());
			json_object_set_new(e, "c", json_integer(w[EVENT_C]));
			json_object_set_new(e, "parameter",
			                    isfinite(parameter) ? json_real(parameter)
			                                        : json_null());
			render_handle(w[EVENT_MESSAGE_ID], handle);
			json_object_set_new(e, "message_id", json_string(handle));
			json_object_set_new(e, "message_id_name",
			                    cat && catalog_handle_name(cat, w[EVENT_MESSAGE_ID], 1,
			                                               name, sizeof(name)) == 0
			                        ? json_string(name)
			                        : json_null());
			render_json_append(b, e, 0);
			json_decref(e);
		}
		ta->listed++;
	}
	if (ta->i < s->key_count)
		return 1;
	if (!csv)
		buf_printf(b, "],\"count\":%zu}\n", ta->listed);
	return 0;
}

int track_answer_produce(struct track_answer *ta, struct buf *b)
{
	switch (ta->kind) {
	case ANSWER_SAMPLES: return produce_samples(ta, b);
	case ANSWER_KEYS: return produce_keys(ta, b);
	case ANSWER_EVENTS: return produce_events(ta, b);
	}
	return 0;
}

long track_answer_fill(void *state, char *out, size_t room)
{
	struct track_answer *ta = state;
	size_t n = 0;

	while (n < room) {
		if (ta->sent < ta->pending.len) {
			n += buf_give(&ta->pending, &ta->sent, out + n, room - n);
			continue;
		}
		if (ta->done)
			break;
		if (ta->kind == ANSWER_SAMPLES && ta->format == FORMAT_F32) {
			size_t made = produce_f32(ta, out + n, room - n);
			ta->done = ta->phase == 2;
			if (made) {
				n += made;
				continue;
			}
			if (ta->done || n)
				break; /* the rest next time, or a value larger than the room left
				        */
		} else if (ta->phase > 0 && room - n > ta->item_room + 1) {
			/* text written straight into the connection's buffer, through a buffer of
			 * fixed size (it never grows: its max is its capacity, less the byte of its
			 * terminator); only the opening, of unbounded length, goes through pending
			 */
			struct buf view = {out + n, 0, room - n - 1, room - n - 1, 0};
			ta->done = !track_answer_produce(ta, &view);
			if (view.overflow)
				return -1; /* an item larger than its bound: cut, never wrong */
			n += view.len;
			if (view.len || ta->done)
				continue;
		}
		ta->pending.len = 0;
		ta->sent = 0;
		ta->done = !track_answer_produce(ta, &ta->pending);
		if (ta->pending.overflow)
			return -1; /* one piece past its ceiling: the answer is cut, never wrong */
	}
	return (long)n;
}

uint64_t track_answer_estimate(const struct track_answer *ta)
{
	const struct sampler *s = &ta->track.sampler;
	uint64_t per_value = (uint64_t)ta->m * 14 + 16;

	switch (ta->kind) {
	case ANSWER_SAMPLES:
		return ta->format == FORMAT_F32 ? (uint64_t)ta->times.count * 4 * (1 + ta->m)
		                                : (uint64_t)ta->times.count * per_value;
	case ANSWER_KEYS:
		return (uint64_t)s->key_count * per_value *
		       (s->interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	case ANSWER_EVENTS: /* two names of up to 1,024 bytes each, at worst */
		return (uint64_t)s->key_count * 2500;
	}
	return 0;
}

struct track_answer *track_answer_create(struct catalog_track *track, enum answer_kind kind,
                                         enum sample_format format, int digits, size_t samples,
                                         struct error *err)
{
	struct track_answer *ta = calloc(1, sizeof(*ta));

	if (!ta) {
		catalog_track_cleanup(track);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	ta->kind = kind;
	ta->format = format;
	ta->digits = digits;
	ta->track = *track;
	memset(track, 0, sizeof(*track));
	ta->m = sampler_components(&ta->track.sampler);
	ta->csize = value_type_component_size(ta->track.sampler.type);
	ta->value = malloc(ta->m * ta->csize + 1);
	if (kind == ANSWER_SAMPLES && value_type_scalar(ta->track.sampler.type) == SCALAR_FLOAT) {
		/* at most 16 KiB of values at a time, and no more than the samples asked for */
		ta->block_cap = 4096 / ta->m < BLOCK_TIMES ? 4096 / ta->m : BLOCK_TIMES;
		if (ta->block_cap > samples)
			ta->block_cap = samples;
		if (ta->block_cap == 0)
			ta->block_cap = 1;
		ta->block = malloc(ta->block_cap * ta->m * sizeof(float));
	}
	if (kind == ANSWER_SAMPLES)
		ta->time_block = malloc((samples && samples < BLOCK_TIMES ? samples : BLOCK_TIMES) *
		                        sizeof(float));
	/* a sample or key: a time and a value of at most 17 bytes a number, with the room
	 * write_value and write_float reserve; an event: two handle names of up to 255 bytes,
	 * escaped, and its numbers; then at most 64 bytes of closing text */
	ta->item_room = kind == ANSWER_EVENTS ? 4096 + 64 : ta->m * 17 + 128 + 64;
	buf_init(&ta->pending, PENDING_MAX);
	if (!ta->value || (kind == ANSWER_SAMPLES && !ta->time_block)) {
		track_answer_free(ta);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	curve_from_sampler(&ta->curve, &ta->track.sampler);
	curve_cursor_init(&ta->cursor);
	return ta;
}

size_t track_answer_memory(const struct track_answer *ta)
{
	return sizeof(*ta) + (size_t)ta->track.sampler.key_count * sizeof(float) +
	       ta->track.sampler.value_bytes + strlen(ta->track.name) +
	       (ta->times.list ? ta->times.count * sizeof(float) : 0) + ta->m * ta->csize +
	       PIECE_BYTES + ta->m * 40;
}
