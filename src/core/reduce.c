/* reduce.c: the fewest keys within a tolerance of a dense track (include/core/reduce.h). Each
 * candidate segment is a two-key sampler evaluated by the sampling engine, so a reduced track
 * is measured as every reader of it will sample it. */
#include "core/reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"

#define MAX_COMPONENTS 4
#define SEARCH_PAST    16 /* ends tried past SEARCH_TIMES the doubling search's (reduce_segments) */
#define SEARCH_TIMES   4
#define HOPELESS       8  /* a segment past this many tolerances ends the search from its key */
#define DP_BUDGET      64 /* dense keys the dynamic programme may measure, a key of the track */
#define DP_FLOOR       (1u << 17) /* or for a short track, this many */
#define DP_ALWAYS      1024       /* keys of a track the programme is always tried on */

struct reducer {
	const struct sampler *dense;
	struct curve curve; /* the dense track */
	struct curve_cursor cursor;
	uint32_t n; /* components */
	int quaternion, hermite;
	double tolerance;
	uint64_t measured, budget; /* dense keys measured, and how many the programme may */
};

int reduce_applies(const struct sampler *dense)
{
	return dense->key_count >= 1 && dense->array_size == 1 && dense->type >= VALUE_FLOAT &&
	       dense->type <= VALUE_FLOAT4;
}

static const float *dense_value(const struct reducer *r, uint32_t k)
{
	return curve_key_value(&r->curve, k);
}

/* How far a from b: the largest component's difference, or the angle between two rotations. */
static double distance(const struct reducer *r, const float *a, const float *b)
{
	double worst = 0;

	if (r->quaternion) {
		/* 4 atan2(|a - b|, |a + b|) of the unit quaternions on one side: exact near 0,
		 * where 2 acos(dot) of float values is noise of a few 1e-4 */
		double la = 0, lb = 0, dot = 0, minus = 0, plus = 0;
		for (int i = 0; i < 4; i++) {
			la += (double)a[i] * a[i];
			lb += (double)b[i] * b[i];
			dot += (double)a[i] * b[i];
		}
		if (!(la > 0) || !(lb > 0))
			return la == lb ? 0 : INFINITY;
		la = sqrt(la);
		lb = (dot < 0 ? -1 : 1) * sqrt(lb);
		for (int i = 0; i < 4; i++) {
			double x = a[i] / la, y = b[i] / lb;
			minus += (x - y) * (x - y);
			plus += (x + y) * (x + y);
		}
		return 4 * atan2(sqrt(minus), sqrt(plus));
	}
	for (uint32_t j = 0; j < r->n; j++) {
		double d = fabs((double)a[j] - b[j]);
		if (d > worst || isnan(d))
			worst = isnan(d) ? INFINITY : d;
	}
	return worst;
}

/* The dense track's slope (per second) at key k, from the side `side` (0: in, 1: out). */
static void slope(const struct reducer *r, uint32_t k, int side, float *out)
{
	const struct sampler *s = r->dense;
	uint32_t lo = k > 0 ? k - 1 : k, hi = k + 1 < s->key_count ? k + 1 : k;

	if (s->interp == INTERP_CUBIC_SPLINE) {
		const float *v = s->values;
		memcpy(out, v + ((size_t)k * 3 + (side ? 2 : 0)) * r->n, r->n * sizeof(float));
		return;
	}
	for (uint32_t j = 0; j < r->n; j++) {
		double dt = (double)s->times[hi] - s->times[lo];
		out[j] = dt > 0
		             ? (float)(((double)dense_value(r, hi)[j] - dense_value(r, lo)[j]) / dt)
		             : 0;
	}
}

/* The segment from dense key a to dense key b as a two-key sampler (times[2], values[6n]):
 * linear, or Hermite with the given tangents (per second). */
static void segment(const struct reducer *r, uint32_t a, uint32_t b, const float *out_a,
                    const float *in_b, struct sampler *seg, float *times, float *values)
{
	uint32_t n = r->n;

	memset(seg, 0, sizeof(*seg));
	seg->type = r->dense->type;
	seg->array_size = 1;
	seg->semantic = r->dense->semantic;
	seg->rules = r->dense->rules;
	seg->key_count = 2;
	seg->times = times;
	seg->values = values;
	times[0] = r->dense->times[a];
	times[1] = r->dense->times[b];
	if (!r->hermite) {
		seg->interp = INTERP_LINEAR;
		memcpy(values, dense_value(r, a), n * sizeof(float));
		memcpy(values + n, dense_value(r, b), n * sizeof(float));
		seg->value_bytes = 2 * n * sizeof(float);
		return;
	}
	seg->interp = INTERP_CUBIC_SPLINE;
	memset(values, 0, 6 * n * sizeof(float));
	memcpy(values + n, dense_value(r, a), n * sizeof(float));
	memcpy(values + 2 * n, out_a, n * sizeof(float));
	memcpy(values + 3 * n, in_b, n * sizeof(float));
	memcpy(values + 4 * n, dense_value(r, b), n * sizeof(float));
	seg->value_bytes = 6 * n * sizeof(float);
}

/* The largest distance between a segment and the dense track over the dense keys it spans,
 * at each key and at the quarters between each two; or, as soon as one is past `bound`, that
 * one. */
static double segment_error(struct reducer *r, const struct sampler *seg, uint32_t a, uint32_t b,
                            double bound)
{
	const float *t = r->dense->times;
	struct curve c;
	struct curve_cursor cur;
	float got[MAX_COMPONENTS], want[MAX_COMPONENTS];
	double worst = 0;

	curve_from_sampler(&c, seg);
	curve_cursor_init(&cur);
	for (uint32_t i = a; i < b && !(worst > bound); i++) {
		double d;
		r->measured++;
		if (i > a) {
			curve_sample_f32(&c, &cur, t[i], got);
			d = distance(r, got, dense_value(r, i));
			if (!(d <= worst))
				worst = d;
		}
		for (int q = 1; q < 4; q++) {
			float between = t[i] + (t[i + 1] - t[i]) * (float)q / 4;
			if (!(between > t[i] && between < t[i + 1]))
				continue;
			curve_sample_f32(&c, &cur, between, got);
			curve_sample_f32(&r->curve, &r->cursor, between, want);
			d = distance(r, got, want);
			if (!(d <= worst))
				worst = d;
		}
	}
	return worst;
}

/* The error of the segment a..b (fitted tangents), stopping once past bound. */
static double segment_error_of(struct reducer *r, uint32_t a, uint32_t b, double bound)
{
	float out_a[MAX_COMPONENTS] = {0}, in_b[MAX_COMPONENTS] = {0};
	float times[2], values[6 * MAX_COMPONENTS];
	struct sampler seg;

	if (r->hermite) {
		slope(r, a, 1, out_a);
		slope(r, b, 0, in_b);
	}
	segment(r, a, b, out_a, in_b, &seg, times, values);
	curve_cursor_init(&r->cursor);
	return segment_error(r, &seg, a, b, bound);
}

/* Whether the segment a..b, with fitted tangents, stays within the tolerance. */
static int segment_fits(struct reducer *r, uint32_t a, uint32_t b)
{
	return segment_error_of(r, a, b, r->tolerance) <= r->tolerance;
}

/* The furthest dense key a segment from a may end at: doubling while it fits, then halving
 * the gap between the last fit and the first miss. */
static uint32_t furthest_end(struct reducer *r, uint32_t a)
{
	uint32_t last = r->dense->key_count - 1, fit = 1, miss = 0;
	uint64_t step = 2;

	if (a + 1 >= last)
		return last;
	while (!miss) {
		if ((uint64_t)a + step >= last) {
			if (segment_fits(r, a, last))
				return last;
			miss = last - a;
		} else if (segment_fits(r, a, a + (uint32_t)step)) {
			fit = (uint32_t)step;
			step *= 2;
		} else {
			miss = (uint32_t)step;
		}
	}
	while (miss - fit > 1) {
		uint32_t mid = fit + (miss - fit) / 2;
		if (segment_fits(r, a, a + mid))
			fit = mid;
		else
			miss = mid;
	}
	return a + fit;
}

/* The keys of a LINEAR or CUBIC_SPLINE track, the fewest whose segments all fit: a dynamic
 * programme (fewest[b]: the fewest keys from the first to b, b reached from the a whose
 * segment a..b fits with the fewest before it). A segment's error does not always grow with
 * its length (a curve may come back to the chord), so from each key every end is tried up to
 * SEARCH_TIMES the furthest the doubling search finds and SEARCH_PAST more, or until a
 * segment strays HOPELESS times the tolerance. One dense interval always fits (as a chord
 * when its fitted curve strays). */
static uint32_t reduce_segments(struct reducer *r, uint32_t *kept, unsigned char *chord)
{
	uint32_t keys = r->dense->key_count, last = keys - 1, count = 0;
	uint32_t *fewest = malloc((size_t)keys * sizeof(*fewest));
	uint32_t *from = malloc((size_t)keys * sizeof(*from));

	if (!fewest || !from) {
		free(fewest);
		free(from);
		return 0;
	}
	for (uint32_t k = 0; k < keys; k++)
		fewest[k] = UINT32_MAX;
	fewest[0] = 1;
	for (uint32_t a = 0; a < last; a++) {
		uint32_t reach, end;
		if (r->measured > r->budget) { /* past its budget: the greedy walk stands */
			free(fewest);
			free(from);
			return 0;
		}
		reach = furthest_end(r, a);
		uint64_t window = SEARCH_TIMES * (uint64_t)(reach - a) + SEARCH_PAST;
		end = a + window < last ? (uint32_t)(a + window) : last;
		if (fewest[a] + 1 < fewest[a + 1])
			fewest[a + 1] = fewest[a] + 1, from[a + 1] = a;
		if (fewest[a] + 1 < fewest[reach]) /* the doubling search's: it fits */
			fewest[reach] = fewest[a] + 1, from[reach] = a;
		for (uint32_t b = a + 2; b <= end; b++) {
			double e;
			if (b == reach || fewest[a] + 1 >= fewest[b])
				continue;
			e = segment_error_of(r, a, b, HOPELESS * r->tolerance);
			if (e <= r->tolerance)
				fewest[b] = fewest[a] + 1, from[b] = a;
			else if (e > HOPELESS * r->tolerance && b > reach)
				break;
		}
	}
	count = fewest[last];
	for (uint32_t k = last, i = count; i-- > 0; k = i ? from[k] : 0)
		kept[i] = k;
	for (uint32_t i = 1; r->hermite && i < count; i++)
		if (kept[i] == kept[i - 1] + 1 && !segment_fits(r, kept[i - 1], kept[i]))
			chord[kept[i]] = 1;
	free(fewest);
	free(from);
	return count;
}

/* A STEP track: a key where the value moves beyond the tolerance from the last kept one, and
 * the last key. */
static uint32_t reduce_steps(struct reducer *r, uint32_t *kept, double *worst)
{
	uint32_t count = 1, last = 0;

	kept[0] = 0;
	for (uint32_t k = 1; k < r->dense->key_count; k++) {
		double d = distance(r, dense_value(r, k), dense_value(r, last));
		if (d > r->tolerance || !(d == d)) {
			kept[count++] = k;
			last = k;
		} else if (d > *worst) {
			*worst = d;
		}
	}
	if (last != r->dense->key_count - 1) /* the last key too: the track's extent */
		kept[count++] = r->dense->key_count - 1;
	return count;
}

static int reduce_with(const struct sampler *dense, double tolerance, enum reduce_fit fit,
                       int exact, struct sampler *out, struct reduce_result *result);

int reduce_sampler(const struct sampler *dense, double tolerance, enum reduce_fit fit,
                   struct sampler *out, struct reduce_result *result)
{
	return reduce_with(dense, tolerance, fit, 1, out, result);
}

int reduce_sampler_quickly(const struct sampler *dense, double tolerance, enum reduce_fit fit,
                           struct sampler *out, struct reduce_result *result)
{
	return reduce_with(dense, tolerance, fit, 0, out, result);
}

/* The greedy walk: from each key kept, the furthest end the doubling search finds. */
static uint32_t reduce_greedily(struct reducer *r, uint32_t *kept, unsigned char *chord)
{
	uint32_t count = 0;

	kept[count++] = 0;
	for (uint32_t a = 0; a + 1 < r->dense->key_count;) {
		uint32_t b = furthest_end(r, a);
		if (b == a + 1 && r->hermite && !segment_fits(r, a, b))
			chord[b] = 1;
		kept[count++] = b;
		a = b;
	}
	return count;
}

/* The dynamic programme's keys in place of the greedy walk's `count` when they are fewer and
 * it finished within its budget (DP_FLOOR dense keys measured for a track of up to DP_ALWAYS
 * keys, DP_BUDGET a key for a longer one: a long track with long segments would cost it the
 * square of its length). A longer track is tried only where the walk's segments are short
 * (under 2 SEARCH_TIMES keys on average). */
static uint32_t reduce_better(struct reducer *r, uint32_t *kept, unsigned char *chord,
                              uint32_t count)
{
	uint32_t keys = r->dense->key_count, fewer;
	uint32_t *dp_kept = malloc((size_t)keys * sizeof(*dp_kept));
	unsigned char *dp_chord = calloc((size_t)keys, 1);

	r->measured = 0;
	r->budget = keys <= DP_ALWAYS ? DP_FLOOR : DP_BUDGET * (uint64_t)keys;
	if (dp_kept && dp_chord && (fewer = reduce_segments(r, dp_kept, dp_chord)) > 0 &&
	    fewer < count) {
		memcpy(kept, dp_kept, (size_t)fewer * sizeof(*kept));
		memcpy(chord, dp_chord, (size_t)keys);
		count = fewer;
	}
	free(dp_kept);
	free(dp_chord);
	return count;
}

static int reduce_with(const struct sampler *dense, double tolerance, enum reduce_fit fit,
                       int exact, struct sampler *out, struct reduce_result *result)
{
	struct reducer r = {0};
	uint32_t count = 0, n = (uint32_t)sampler_components(dense), keys = dense->key_count;
	uint32_t *kept = malloc((size_t)keys * sizeof(*kept));
	unsigned char *chord = calloc((size_t)keys, 1); /* 1: the segment ending here is a chord */
	size_t stride;
	float *values;
	double worst = 0;

	memset(out, 0, sizeof(*out));
	if (!kept || !chord) {
		free(kept);
		free(chord);
		return -1;
	}
	r.dense = dense;
	r.n = n;
	r.tolerance = tolerance;
	r.quaternion = dense->semantic == SEMANTIC_NORMALIZED_QUATERNION && n == 4;
	r.hermite = fit == REDUCE_HERMITE && !r.quaternion && dense->interp != INTERP_STEP;
	curve_from_sampler(&r.curve, dense);
	curve_cursor_init(&r.cursor);
	if (dense->interp == INTERP_STEP) {
		count = reduce_steps(&r, kept, &worst);
	} else {
		count = keys <= 1 ? (kept[0] = 0, 1) : reduce_greedily(&r, kept, chord);
		if (exact && count > 2 && (keys <= DP_ALWAYS || count * SEARCH_TIMES * 2 > keys))
			count = reduce_better(&r, kept, chord, count);
		if (count == 0) {
			free(kept);
			free(chord);
			return -1;
		}
	}
	stride = r.hermite ? 3 * (size_t)n : n;
	out->type = dense->type;
	out->array_size = 1;
	out->interp = dense->interp == INTERP_STEP ? INTERP_STEP
	              : r.hermite                  ? INTERP_CUBIC_SPLINE
	                                           : INTERP_LINEAR;
	out->semantic = dense->semantic;
	out->rules = dense->rules;
	out->key_count = count;
	out->times = malloc((size_t)count * sizeof(float));
	out->values = values = calloc((size_t)count * stride, sizeof(float));
	out->value_bytes = (size_t)count * stride * sizeof(float);
	if (!out->times || !values) {
		free(out->times);
		free(values);
		free(kept);
		free(chord);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	for (uint32_t i = 0; i < count; i++) {
		float *v = values + i * stride;
		out->times[i] = dense->times[kept[i]];
		memcpy(r.hermite ? v + n : v, dense_value(&r, kept[i]), n * sizeof(float));
	}
	for (uint32_t i = 0; r.hermite && i + 1 < count; i++) {
		float *out_a = values + i * stride + 2 * n, *in_b = values + (i + 1) * stride;
		uint32_t a = kept[i], b = kept[i + 1];
		if (chord[b]) {
			double dt = (double)dense->times[b] - dense->times[a];
			for (uint32_t j = 0; j < n; j++)
				out_a[j] = in_b[j] = (float)(((double)dense_value(&r, b)[j] -
				                              dense_value(&r, a)[j]) /
				                             dt);
		} else {
			slope(&r, a, 1, out_a);
			slope(&r, b, 0, in_b);
		}
	}
	/* measured again on the result, as the engine samples it */
	for (uint32_t i = 0; dense->interp != INTERP_STEP && i + 1 < count; i++) {
		struct sampler seg;
		float times[2], seg_values[6 * MAX_COMPONENTS];
		double d;
		segment(&r, kept[i], kept[i + 1], values + i * stride + 2 * n,
		        values + (i + 1) * stride, &seg, times, seg_values);
		curve_cursor_init(&r.cursor);
		d = segment_error(&r, &seg, kept[i], kept[i + 1], INFINITY);
		if (!(d <= worst))
			worst = d;
	}
	result->keys_before = keys;
	result->keys_after = count;
	result->largest_error = worst;
	free(kept);
	free(chord);
	return 0;
}
