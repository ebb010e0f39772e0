/* curve.c: key search with a galloping cursor, and the interpolation rules of FORMATS 3.2. */
#include "curve.h"

#include <math.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

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

/* sin(x) for x in [0, pi], rounded to float from a double-precision Taylor polynomial to the
 * x^17 term (truncation below 5e-14 on [0, pi/2]): for every float of [0, pi], the float
 * nearest the double-precision sine, at a fraction of sinf's cost, the same on every machine.
 * Slerp needs two a sample, with arguments in [0, pi/2]. sine4() does the same operations on
 * four at once. */
#define HALF_PI 1.5707963267948966
#define PI      3.141592653589793
static const double sine_terms[9] = {1.0 / 355687428096000.0,
                                     -1.0 / 1307674368000.0,
                                     1.0 / 6227020800.0,
                                     -1.0 / 39916800.0,
                                     1.0 / 362880.0,
                                     -1.0 / 5040.0,
                                     1.0 / 120.0,
                                     -1.0 / 6.0,
                                     1.0};

static float sine(float x)
{
	double y = x, y2, p = sine_terms[0];

	if (y > HALF_PI)
		y = PI - y;
	y2 = y * y;
	for (int i = 1; i < 9; i++)
		p = p * y2 + sine_terms[i];
	return (float)(y * p);
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
		s->sin_theta = sine(s->theta);
	}
}

static void slerp_at(const struct slerp *s, float u, float *out)
{
	float wa, wb;

	if (s->theta < 0.0f) {
		wa = 1.0f - u;
		wb = u;
	} else {
		wa = sine((1.0f - u) * s->theta) / s->sin_theta;
		wb = sine(u * s->theta) / s->sin_theta;
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
typedef int v4i __attribute__((vector_size(16)));
#define SLERPS_AT_ONCE 16 /* quaternions per value evaluated in runs; more: one at a time */

/* sine() of two sets of four floats: the same operations (in four independent chains of two
 * doubles, so that they overlap), so the same floats. */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));

static v2d reduce2(v2d y)
{
	v2l above = y > HALF_PI;
	return (v2d)(((v2l)(PI - y) & above) | ((v2l)y & ~above));
}

#define SINE_STEP(i)                                                                              \
	p0 = p0 * q0 + sine_terms[i], p1 = p1 * q1 + sine_terms[i], p2 = p2 * q2 + sine_terms[i], \
	p3 = p3 * q3 + sine_terms[i]

static void sine8(v4f x, v4f z, v4f *sx, v4f *sz)
{
	v2d y0 = reduce2((v2d){x[0], x[1]}), y1 = reduce2((v2d){x[2], x[3]});
	v2d y2 = reduce2((v2d){z[0], z[1]}), y3 = reduce2((v2d){z[2], z[3]});
	v2d q0 = y0 * y0, q1 = y1 * y1, q2 = y2 * y2, q3 = y3 * y3;
	v2d p0 = {sine_terms[0], sine_terms[0]}, p1 = p0, p2 = p0, p3 = p0;

	SINE_STEP(1);
	SINE_STEP(2);
	SINE_STEP(3);
	SINE_STEP(4);
	SINE_STEP(5);
	SINE_STEP(6);
	SINE_STEP(7);
	SINE_STEP(8);
	p0 = y0 * p0, p1 = y1 * p1, p2 = y2 * p2, p3 = y3 * p3;
	*sx = (v4f){(float)p0[0], (float)p0[1], (float)p1[0], (float)p1[1]};
	*sz = (v4f){(float)p2[0], (float)p2[1], (float)p3[0], (float)p3[1]};
}

/* Four correctly rounded square roots (sqrtf's), in one instruction where there is one. */
static v4f sqrt4(v4f x)
{
#if defined(__SSE__)
	return (v4f)_mm_sqrt_ps((__m128)x);
#else
	return (v4f){sqrtf(x[0]), sqrtf(x[1]), sqrtf(x[2]), sqrtf(x[3])};
#endif
}

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

#if defined(__clang__)
#define SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, (v4i){i, j, k, l})
#endif

/* Four samples of three components (x, y, z: one vector each), stored as the scalar path
 * stores them, x0 y0 z0 x1 y1 z1..., in three vector stores. */
static void store_xyz(float *out, v4f x, v4f y, v4f z)
{
	v4f xy = SHUFFLE(x, y, 0, 4, 1, 5), yz = SHUFFLE(y, z, 1, 5, 2, 6);
	v4f xy3 = SHUFFLE(x, y, 3, 7, 3, 7);
	v4f v[3] = {SHUFFLE(xy, z, 0, 1, 4, 2), SHUFFLE(yz, x, 0, 1, 6, 2),
	            SHUFFLE(z, xy3, 2, 4, 5, 3)};

	memcpy(out, v, sizeof(v));
}

/* Samples [0, n) of a run lie strictly between times t0 and t0 + d of segment k. */
static void linear_run(const struct curve *c, uint32_t k, float t0, float d, const float *t,
                       size_t n, float *out)
{
	const uint32_t m = c->components;
	const float *a = (const float *)c->values + (size_t)k * m, *b = a + m;
	size_t j = 0;

	if (m == 3) { /* the keys' components broadcast once for the run */
		v4f A[3], D[3];
		for (int i = 0; i < 3; i++) {
			float diff = b[i] - a[i];
			A[i] = (v4f){a[i], a[i], a[i], a[i]};
			D[i] = (v4f){diff, diff, diff, diff};
		}
		for (; j + 4 <= n; j += 4) {
			v4f u = (load4(t + j) - t0) / d;
			store_xyz(out + j * 3, A[0] + D[0] * u, A[1] + D[1] * u, A[2] + D[2] * u);
		}
	}
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

	if (m == 3) { /* the keys' components broadcast once for the run */
		v4f P0[3], B0[3], A1[3], P1[3];
		for (int i = 0; i < 3; i++) {
			P0[i] = (v4f){p0[i], p0[i], p0[i], p0[i]};
			B0[i] = (v4f){b0[i], b0[i], b0[i], b0[i]};
			A1[i] = (v4f){a1[i], a1[i], a1[i], a1[i]};
			P1[i] = (v4f){p1[i], p1[i], p1[i], p1[i]};
		}
		for (; j + 4 <= n; j += 4) {
			v4f u = (load4(t + j) - t0) / d;
			v4f u2 = u * u, u3 = u2 * u;
			v4f h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h10 = (u3 - 2.0f * u2 + u) * d;
			v4f h01 = -2.0f * u3 + 3.0f * u2, h11 = (u3 - u2) * d;
			store_xyz(out + j * 3,
			          h00 * P0[0] + h10 * B0[0] + h01 * P1[0] + h11 * A1[0],
			          h00 * P0[1] + h10 * B0[1] + h01 * P1[1] + h11 * A1[1],
			          h00 * P0[2] + h10 * B0[2] + h01 * P1[2] + h11 * A1[2]);
		}
	}
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

/* Slerp of every quaternion of the value, each with its set-up: slerp_at four at a time. */
static void slerp_run(const struct slerp *setups, uint32_t m, float t0, float d, const float *t,
                      size_t n, float *out)
{
	const v4f one = {1.0f, 1.0f, 1.0f, 1.0f};
	size_t j = 0;

	for (; j + 4 <= n; j += 4) {
		v4f u = (load4(t + j) - t0) / d;
		for (uint32_t e = 0; e < m / 4; e++) {
			const struct slerp *s = &setups[e];
			v4f wa, wb, q[4], len2, root, inv;
			v4i keep;
			if (s->theta < 0.0f) {
				wa = 1.0f - u;
				wb = u;
			} else {
				sine8((1.0f - u) * s->theta, u * s->theta, &wa, &wb);
				wa = wa / s->sin_theta;
				wb = wb / s->sin_theta;
			}
			for (int i = 0; i < 4; i++)
				q[i] = wa * s->a[i] + wb * s->b[i];
			/* quat_normalize: unless the length is 0 or exactly 1 */
			len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
			root = sqrt4(len2);
			inv = 1.0f / root;
			keep = (len2 > 0.0f) & (len2 != 1.0f);
			inv = (v4f)(((v4i)inv & keep) | ((v4i)one & ~keep));
			for (int i = 0; i < 4; i++)
				store_lanes(out + j * m + e * 4, m, (uint32_t)i, q[i] * inv);
		}
	}
	for (; j < n; j++) {
		float u = (t[j] - t0) / d;
		for (uint32_t e = 0; e < m / 4; e++)
			slerp_at(&setups[e], u, out + j * m + e * 4);
	}
}

void curve_sample_times(const struct curve *c, struct curve_cursor *cursor, const float *t,
                        size_t count, float *out)
{
	const uint32_t n = c->key_count, m = c->components;
	size_t i = 0;

	if (n <= 1 || c->interp == INTERP_STEP ||
	    (c->semantic == SEMANTIC_NORMALIZED_QUATERNION &&
	     (c->interp != INTERP_LINEAR || m % 4 != 0 || m > 4 * SLERPS_AT_ONCE))) {
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
		end = i;
		while (end + 4 <= count) { /* four at a time while all four are inside */
			v4f tv = load4(t + end);
			v4i inside = (tv > t0) & (tv < t1);
			if (!(inside[0] & inside[1] & inside[2] & inside[3]))
				break;
			end += 4;
		}
		while (end < count && t[end] > t0 && t[end] < t1)
			end++;
		if (end == i) {
			curve_sample_f32(c, cursor, t[i], out + i * m);
			i++;
			continue;
		}
		if (c->semantic == SEMANTIC_NORMALIZED_QUATERNION) {
			struct slerp setups[SLERPS_AT_ONCE];
			const float *a = (const float *)c->values + (size_t)k * m;
			for (uint32_t e = 0; e < m / 4; e++)
				slerp_setup(a + e * 4, a + m + e * 4, &setups[e]);
			slerp_run(setups, m, t0, t1 - t0, t + i, end - i, out + i * m);
		} else if (c->interp == INTERP_LINEAR) {
			linear_run(c, k, t0, t1 - t0, t + i, end - i, out + i * m);
		} else {
			cubic_run(c, k, t0, t1 - t0, t + i, end - i, out + i * m);
		}
		i = end;
	}
}
