/* curve.c: key search with a galloping cursor, and the interpolation rules of FORMATS 3.2. */
#include "curve.h"

#include <math.h>
#include <string.h>

void curve_from_sampler(struct curve *c, const struct sampler *s)
{
	c->type = s->type;
	c->interp = s->interp;
	c->semantic = s->semantic;
	c->components = (uint32_t)sampler_components(s);
	c->key_count = s->key_count;
	c->times = s->times;
	c->values = s->values;
	c->rules = s->rules;
}

void curve_cursor_init(struct curve_cursor *cursor)
{
	cursor->key = 0;
	cursor->slerp_key = 0;
}

/* Finds k with times[k] <= t < times[k+1], given 0 < k < n-1 is possible and
 * times[0] <= t < times[n-1]. Gallops from the cursor: distance d costs O(log d). */
static uint32_t curve_find_segment(const float *times, uint32_t n, uint32_t from, float t)
{
	uint32_t lo, hi, step;

	if (from >= n - 1)
		from = n - 2;
	if (times[from] <= t) {
		/* forward: find hi with t < times[hi] */
		lo = from;
		if (t < times[lo + 1])
			return lo;
		step = 1;
		hi = lo + 1;
		while (hi < n - 1 && times[hi] <= t) {
			lo = hi;
			hi = (n - 1 - hi > step) ? hi + step : n - 1;
			step *= 2;
		}
	} else {
		/* backward: find lo with times[lo] <= t */
		hi = from;
		step = 1;
		lo = hi > 0 ? hi - 1 : 0;
		while (lo > 0 && times[lo] > t) {
			hi = lo;
			lo = lo > step ? lo - step : 0;
			step *= 2;
		}
	}
	/* invariant: times[lo] <= t < times[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (times[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint32_t curve_step_key(const struct curve *c, struct curve_cursor *cursor, float t)
{
	uint32_t n = c->key_count;

	if (n <= 1)
		return 0;
	if (!(t > c->times[0]))
		return (c->rules & RULE_LAST_BEFORE_FIRST) && t < c->times[0] ? n - 1 : 0;
	if (t >= c->times[n - 1])
		return n - 1;
	cursor->key = curve_find_segment(c->times, n, cursor->key, t);
	return cursor->key;
}

const float *curve_key_value(const struct curve *c, uint32_t k)
{
	const float *v = c->values;

	if (c->interp == INTERP_CUBIC_SPLINE)
		return v + ((size_t)k * 3 + 1) * c->components;
	return v + (size_t)k * c->components;
}

static void quat_normalize(float *q)
{
	float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];

	if (len2 > 0.0f && len2 != 1.0f) {
		float inv = 1.0f / sqrtf(len2);
		q[0] *= inv, q[1] *= inv, q[2] *= inv, q[3] *= inv;
	}
}

static void normalize_quaternions(const struct curve *c, float *out)
{
	for (uint32_t e = 0; e + 4 <= c->components; e += 4)
		quat_normalize(out + e);
}

/* A segment's slerp set-up: unit keys, the second on the short path, and their angle. */
struct slerp {
	float a[4], b[4];
	float theta, sin_theta; /* theta < 0: nlerp */
};

static void slerp_setup(const float *qa, const float *qb, struct slerp *s)
{
	float dot;

	memcpy(s->a, qa, sizeof(s->a));
	memcpy(s->b, qb, sizeof(s->b));
	quat_normalize(s->a);
	quat_normalize(s->b);
	dot = s->a[0] * s->b[0] + s->a[1] * s->b[1] + s->a[2] * s->b[2] + s->a[3] * s->b[3];
	if (dot < 0.0f) {
		dot = -dot;
		for (int i = 0; i < 4; i++)
			s->b[i] = -s->b[i];
	}
	if (dot > 0.9995f) {
		s->theta = -1.0f;
		s->sin_theta = 0.0f;
	} else {
		s->theta = acosf(dot);
		s->sin_theta = sinf(s->theta);
	}
}

static void slerp_at(const struct slerp *s, float u, float *out)
{
	float wa, wb;

	if (s->theta < 0.0f) {
		wa = 1.0f - u;
		wb = u;
	} else {
		wa = sinf((1.0f - u) * s->theta) / s->sin_theta;
		wb = sinf(u * s->theta) / s->sin_theta;
	}
	for (int i = 0; i < 4; i++)
		out[i] = wa * s->a[i] + wb * s->b[i];
	quat_normalize(out);
}

void curve_sample_f32(const struct curve *c, struct curve_cursor *cursor, float t, float *out)
{
	const uint32_t n = c->key_count, m = c->components;
	const float *v = c->values;
	uint32_t k;
	float t0, t1, d, u;

	if (n <= 1 || !(t > c->times[0]) || t >= c->times[n - 1] || c->interp == INTERP_STEP) {
		k = curve_step_key(c, cursor, t);
		memcpy(out, curve_key_value(c, k), m * sizeof(float));
		goto normalize;
	}
	k = cursor->key = curve_find_segment(c->times, n, cursor->key, t);
	t0 = c->times[k];
	t1 = c->times[k + 1];
	if (t == t0) {
		memcpy(out, curve_key_value(c, k), m * sizeof(float));
		goto normalize;
	}
	d = t1 - t0;
	u = (t - t0) / d;
	if (c->interp == INTERP_LINEAR) {
		const float *a = v + (size_t)k * m, *b = a + m;
		if (c->semantic == SEMANTIC_NORMALIZED_QUATERNION) {
			struct slerp s;
			if (m == 4) { /* one quaternion: the cursor keeps the segment's set-up */
				if (cursor->slerp_key != k + 1) {
					slerp_setup(a, b, &s);
					memcpy(cursor->qa, s.a, sizeof(s.a));
					memcpy(cursor->qb, s.b, sizeof(s.b));
					cursor->theta = s.theta;
					cursor->sin_theta = s.sin_theta;
					cursor->slerp_key = k + 1;
				}
				memcpy(s.a, cursor->qa, sizeof(s.a));
				memcpy(s.b, cursor->qb, sizeof(s.b));
				s.theta = cursor->theta;
				s.sin_theta = cursor->sin_theta;
				slerp_at(&s, u, out);
				return;
			}
			for (uint32_t e = 0; e + 4 <= m; e += 4) {
				slerp_setup(a + e, b + e, &s);
				slerp_at(&s, u, out + e);
			}
			return;
		}
		for (uint32_t i = 0; i < m; i++)
			out[i] = a[i] + (b[i] - a[i]) * u;
		if (c->rules & RULE_W_ONE_BETWEEN_KEYS)
			for (uint32_t e = 3; e < m; e += 4)
				out[e] = 1.0f;
		return;
	} else {
		/* key k: [in | value | out], key k+1 follows */
		const float *p0 = v + ((size_t)k * 3 + 1) * m, *b0 = p0 + m;
		const float *a1 = b0 + m, *p1 = a1 + m;
		float u2 = u * u, u3 = u2 * u;
		float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h10 = (u3 - 2.0f * u2 + u) * d;
		float h01 = -2.0f * u3 + 3.0f * u2, h11 = (u3 - u2) * d;
		for (uint32_t i = 0; i < m; i++)
			out[i] = h00 * p0[i] + h10 * b0[i] + h01 * p1[i] + h11 * a1[i];
	}
normalize:
	if (c->semantic == SEMANTIC_NORMALIZED_QUATERNION)
		normalize_quaternions(c, out);
}

/* Runs of samples inside one segment, four at a time. */

typedef float v4f __attribute__((vector_size(16)));

static v4f load4(const float *p)
{
	v4f v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Lane s of four samples of component c, stored where the scalar path puts it. */
static void store_lanes(float *out, uint32_t m, uint32_t c, v4f v)
{
	out[c] = v[0];
	out[m + c] = v[1];
	out[2 * m + c] = v[2];
	out[3 * m + c] = v[3];
}

/* Samples [0, n) of a run lie strictly between times t0 and t0 + d of segment k. */
static void linear_run(const struct curve *c, uint32_t k, float t0, float d, const float *t,
                       size_t n, float *out)
{
	const uint32_t m = c->components;
	const float *a = (const float *)c->values + (size_t)k * m, *b = a + m;
	size_t j = 0;

	for (; j + 4 <= n; j += 4) {
		v4f u = (load4(t + j) - t0) / d;
		for (uint32_t i = 0; i < m; i++)
			store_lanes(out + j * m, m, i, a[i] + (b[i] - a[i]) * u);
	}
	for (; j < n; j++) {
		float u = (t[j] - t0) / d;
		for (uint32_t i = 0; i < m; i++)
			out[j * m + i] = a[i] + (b[i] - a[i]) * u;
	}
	if (c->rules & RULE_W_ONE_BETWEEN_KEYS)
		for (j = 0; j < n; j++)
			for (uint32_t e = 3; e < m; e += 4)
				out[j * m + e] = 1.0f;
}

static void cubic_run(const struct curve *c, uint32_t k, float t0, float d, const float *t,
                      size_t n, float *out)
{
	const uint32_t m = c->components;
	const float *p0 = (const float *)c->values + ((size_t)k * 3 + 1) * m, *b0 = p0 + m;
	const float *a1 = b0 + m, *p1 = a1 + m;
	size_t j = 0;

	for (; j + 4 <= n; j += 4) {
		v4f u = (load4(t + j) - t0) / d;
		v4f u2 = u * u, u3 = u2 * u;
		v4f h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h10 = (u3 - 2.0f * u2 + u) * d;
		v4f h01 = -2.0f * u3 + 3.0f * u2, h11 = (u3 - u2) * d;
		for (uint32_t i = 0; i < m; i++)
			store_lanes(out + j * m, m, i,
			            h00 * p0[i] + h10 * b0[i] + h01 * p1[i] + h11 * a1[i]);
	}
	for (; j < n; j++) {
		float u = (t[j] - t0) / d;
		float u2 = u * u, u3 = u2 * u;
		float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h10 = (u3 - 2.0f * u2 + u) * d;
		float h01 = -2.0f * u3 + 3.0f * u2, h11 = (u3 - u2) * d;
		for (uint32_t i = 0; i < m; i++)
			out[j * m + i] = h00 * p0[i] + h10 * b0[i] + h01 * p1[i] + h11 * a1[i];
	}
}

void curve_sample_times(const struct curve *c, struct curve_cursor *cursor, const float *t,
                        size_t count, float *out)
{
	const uint32_t n = c->key_count, m = c->components;
	size_t i = 0;

	if (n <= 1 || c->interp == INTERP_STEP || c->semantic == SEMANTIC_NORMALIZED_QUATERNION) {
		/* one at a time: a quaternion's set-up stays in the cursor across a run */
		for (; i < count; i++)
			curve_sample_f32(c, cursor, t[i], out + i * m);
		return;
	}
	while (i < count) {
		uint32_t k;
		float t0, t1;
		size_t end;
		if (!(t[i] > c->times[0]) || t[i] >= c->times[n - 1]) {
			curve_sample_f32(c, cursor, t[i], out + i * m);
			i++;
			continue;
		}
		k = cursor->key = curve_find_segment(c->times, n, cursor->key, t[i]);
		t0 = c->times[k];
		t1 = c->times[k + 1];
		/* at a key, its value as it is: the scalar path's */
		for (end = i; end < count && t[end] > t0 && t[end] < t1; end++)
			;
		if (end == i) {
			curve_sample_f32(c, cursor, t[i], out + i * m);
			i++;
			continue;
		}
		if (c->interp == INTERP_LINEAR)
			linear_run(c, k, t0, t1 - t0, t + i, end - i, out + i * m);
		else
			cubic_run(c, k, t0, t1 - t0, t + i, end - i, out + i * m);
		i = end;
	}
}
