/* curve.c: key search with a galloping cursor, and the interpolation rules of doc/formats.md 3.2.
 */
#include "core/curve.h"

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
 * times[0] <= t < times[n-1]. Gallops from the cursor: distance d costs O(log d). Inlined
 * wherever it is used, so that the AVX2 build of curve_sample_times does not call code of the
 * baseline build (switching between the two kinds of instructions costs more than the search). */
static inline __attribute__((always_inline)) uint32_t
curve_find_segment(const float *times, uint32_t n, uint32_t from, float t)
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

/* Runs of samples inside one segment, several at a time, with the compiler's vector
 * extensions: curve_sample_times is built twice, eight samples at a time with AVX2
 * instructions and four at a time with SSE2 (scalar code on machines without a vector unit),
 * and the build for the machine is chosen when the program starts (curve_runs.h). */

typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
#define SLERPS_AT_ONCE 16 /* quaternions per value evaluated in runs; more: one at a time */
#define INLINE         static inline __attribute__((always_inline))
/* loops over a vector's lanes, unrolled: each lane a register operation, not a trip through
 * memory */
#define UNROLL_TEXT(n) _Pragma(#n)
#if defined(__clang__)
#define UNROLL UNROLL_TEXT(unroll)
#elif defined(__GNUC__)
#define UNROLL UNROLL_TEXT(GCC unroll 16)
#else
#define UNROLL
#endif

/* Four correctly rounded square roots (sqrtf's), in one instruction where there is one. */
INLINE v4f sqrt4(v4f x)
{
#if defined(__SSE__)
	return (v4f)_mm_sqrt_ps((__m128)x);
#else
	return (v4f){sqrtf(x[0]), sqrtf(x[1]), sqrtf(x[2]), sqrtf(x[3])};
#endif
}

#if defined(__clang__)
#define SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, (v4i){i, j, k, l})
#endif

/* Four samples of three components (x, y, z: one vector each), stored as the scalar path
 * stores them, x0 y0 z0 x1 y1 z1..., in three vector stores. */
INLINE void store_xyz4(float *out, v4f x, v4f y, v4f z)
{
	v4f xy = SHUFFLE(x, y, 0, 4, 1, 5), yz = SHUFFLE(y, z, 1, 5, 2, 6);
	v4f xy3 = SHUFFLE(x, y, 3, 7, 3, 7);
	v4f v[3] = {SHUFFLE(xy, z, 0, 1, 4, 2), SHUFFLE(yz, x, 0, 1, 6, 2),
	            SHUFFLE(z, xy3, 2, 4, 5, 3)};

	memcpy(out, v, sizeof(v));
}

/* Four samples of four components (one vector each), stored x0 y0 z0 w0 x1..., in four
 * vector stores: a 4x4 transposition. */
INLINE void store_xyzw4(float *out, v4f x, v4f y, v4f z, v4f w)
{
	v4f xy01 = SHUFFLE(x, y, 0, 4, 1, 5), zw01 = SHUFFLE(z, w, 0, 4, 1, 5);
	v4f xy23 = SHUFFLE(x, y, 2, 6, 3, 7), zw23 = SHUFFLE(z, w, 2, 6, 3, 7);
	v4f v[4] = {SHUFFLE(xy01, zw01, 0, 1, 4, 5), SHUFFLE(xy01, zw01, 2, 3, 6, 7),
	            SHUFFLE(xy23, zw23, 0, 1, 4, 5), SHUFFLE(xy23, zw23, 2, 3, 6, 7)};

	memcpy(out, v, sizeof(v));
}

/* a step of sine()'s polynomial in each of four chains */
#define SINE_STEP(i)                                                                              \
	p0 = p0 * q0 + sine_terms[i], p1 = p1 * q1 + sine_terms[i], p2 = p2 * q2 + sine_terms[i], \
	p3 = p3 * q3 + sine_terms[i]

#define LANES       4
#define RUNS_SUFFIX baseline
#define RUNS_TARGET
#include "curve_runs.h"
#undef LANES
#undef RUNS_SUFFIX
#undef RUNS_TARGET

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_BUILD 1
#define LANES           8
#define RUNS_SUFFIX     avx2
#define RUNS_TARGET     __attribute__((target("avx2")))
#include "curve_runs.h"
#undef LANES
#undef RUNS_SUFFIX
#undef RUNS_TARGET
#endif

typedef void sample_times_fn(const struct curve *, struct curve_cursor *, const float *, size_t,
                             float *);
static sample_times_fn *sample_times_chosen = sample_times_baseline;

__attribute__((constructor)) static void choose_sample_times(void)
{
	curve_vector_build(0);
}

const char *curve_vector_build(int baseline)
{
#ifdef HAVE_AVX2_BUILD
	__builtin_cpu_init();
	if (!baseline && __builtin_cpu_supports("avx2")) {
		sample_times_chosen = sample_times_avx2;
		return "avx2";
	}
#else
	(void)baseline;
#endif
	sample_times_chosen = sample_times_baseline;
	return "baseline";
}

void curve_sample_times(const struct curve *c, struct curve_cursor *cursor, const float *t,
                        size_t count, float *out)
{
	sample_times_chosen(c, cursor, t, count, out);
}
