/* check_curve.c: the sampling engine against hand-computed values (doc/formats.md 3.2, 1.3). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define EPS 1e-6f

static struct curve make(enum value_type type, enum interpolation interp, enum semantic sem,
                         uint32_t components, uint32_t keys, const float *times,
                         const float *values)
{
	struct curve c = {type, interp, sem, components, keys, times, values, 0};
	return c;
}

static float sample1(const struct curve *c, float t)
{
	struct curve_cursor cur;
	float out[16];

	curve_cursor_init(&cur);
	curve_sample_f32(c, &cur, t, out);
	return out[0];
}

START_TEST(linear_between_at_and_outside_keys)
{
	const float times[] = {0.0f, 1.0f, 3.0f};
	const float values[] = {0.0f, 10.0f, 30.0f};
	struct curve c =
	    make(VALUE_FLOAT, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 1, 3, times, values);

	ck_assert_float_eq_tol(sample1(&c, 0.5f), 5.0f, EPS);
	ck_assert_float_eq_tol(sample1(&c, 2.0f), 20.0f, EPS);
	ck_assert_float_eq(sample1(&c, 1.0f), 10.0f);   /* exact key */
	ck_assert_float_eq(sample1(&c, -5.0f), 0.0f);   /* before the first key */
	ck_assert_float_eq(sample1(&c, 3.0f), 30.0f);   /* at the last key */
	ck_assert_float_eq(sample1(&c, 100.0f), 30.0f); /* after */
	ck_assert_float_eq(sample1(&c, NAN), 0.0f);     /* NaN clamps to the first key */
}
END_TEST

START_TEST(step_switches_at_the_key)
{
	const float times[] = {0.0f, 1.0f, 2.0f};
	const float values[] = {1.0f, 2.0f, 3.0f};
	struct curve c =
	    make(VALUE_FLOAT, INTERP_STEP, SEMANTIC_COMPONENT_WISE, 1, 3, times, values);

	ck_assert_float_eq(sample1(&c, 0.999f), 1.0f);
	ck_assert_float_eq(sample1(&c, 1.0f), 2.0f);
	ck_assert_float_eq(sample1(&c, 1.5f), 2.0f);
	ck_assert_float_eq(sample1(&c, 2.0f), 3.0f);
	ck_assert_float_eq(sample1(&c, 9.0f), 3.0f);
}
END_TEST

START_TEST(one_key_is_constant)
{
	const float times[] = {0.5f};
	const float values[] = {7.0f, 8.0f};
	struct curve c =
	    make(VALUE_FLOAT2, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 2, 1, times, values);
	struct curve_cursor cur;
	float out[2];

	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, -1.0f, out);
	ck_assert_float_eq(out[0], 7.0f);
	curve_sample_f32(&c, &cur, 10.0f, out);
	ck_assert_float_eq(out[1], 8.0f);
}
END_TEST

START_TEST(one_key_cubic_is_its_central_value)
{
	const float times[] = {0.0f};
	const float values[] = {100.0f, 5.0f, -100.0f}; /* in, value, out */
	struct curve c =
	    make(VALUE_FLOAT, INTERP_CUBIC_SPLINE, SEMANTIC_COMPONENT_WISE, 1, 1, times, values);

	ck_assert_float_eq(sample1(&c, 0.0f), 5.0f);
	ck_assert_float_eq(sample1(&c, 3.0f), 5.0f);
}
END_TEST

/* Hermite with per-second tangents: p(u) = h00 v0 + d h10 b0 + h01 v1 + d h11 a1. */
START_TEST(cubic_spline_per_second_tangents)
{
	const float times[] = {1.0f, 3.0f}; /* d = 2 */
	/* key 0: in 0, value 0, out 1; key 1: in 1, value 1, out 0 */
	const float values[] = {0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f};
	struct curve c =
	    make(VALUE_FLOAT, INTERP_CUBIC_SPLINE, SEMANTIC_COMPONENT_WISE, 1, 2, times, values);
	/* u = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875 */
	float want = 0.84375f * 0 + 2 * 0.140625f * 1 + 0.15625f * 1 + 2 * -0.046875f * 1;

	ck_assert_float_eq_tol(sample1(&c, 1.5f), want, EPS);
	ck_assert_float_eq(sample1(&c, 1.0f), 0.0f);
	ck_assert_float_eq(sample1(&c, 3.0f), 1.0f);
}
END_TEST

/* doc/formats.md 1.3's Zouna vectors: unscaled tangents T become per-second T/d. */
START_TEST(zouna_hermite_vectors_through_per_second_tangents)
{
	const float d = 0.5f, times[] = {2.0f, 2.5f};
	const float flat[] = {0, 0, 0, 0, 1, 0};              /* (P0,T0,P1,T1) = (0,0,1,0) */
	const float slope[] = {0, 0, 1 / d, 1 / d, 1, 1 / d}; /* (0,1,1,1) */
	struct curve a =
	    make(VALUE_FLOAT, INTERP_CUBIC_SPLINE, SEMANTIC_COMPONENT_WISE, 1, 2, times, flat);
	struct curve b =
	    make(VALUE_FLOAT, INTERP_CUBIC_SPLINE, SEMANTIC_COMPONENT_WISE, 1, 2, times, slope);

	ck_assert_float_eq_tol(sample1(&a, 2.0f + 0.25f * d), 0.15625f, EPS);
	ck_assert_float_eq_tol(sample1(&b, 2.0f + 0.25f * d), 0.25f, EPS);
}
END_TEST

static float quat_dot(const float *a, const float *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

START_TEST(quaternion_slerp_takes_the_short_path_across_a_sign_flip)
{
	/* identity, then -(90 degrees about z): the short path is a 90-degree turn */
	const float s = sqrtf(0.5f), times[] = {0.0f, 1.0f};
	const float values[] = {0, 0, 0, 1, 0, 0, -s, -s};
	struct curve c =
	    make(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 4, 2, times, values);
	struct curve_cursor cur;
	float out[4];
	/* 45 degrees about z, up to sign */
	const float want[] = {0, 0, sinf((float)M_PI / 8), cosf((float)M_PI / 8)};

	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, 0.5f, out);
	ck_assert_float_eq_tol(fabsf(quat_dot(out, want)), 1.0f, 1e-6f);
	ck_assert_float_eq_tol(quat_dot(out, out), 1.0f, 1e-6f);
}
END_TEST

START_TEST(quaternion_slerp_is_not_nlerp)
{
	/* 0 to 120 degrees about x; at u = 0.25 slerp gives exactly 30 degrees */
	const float times[] = {0.0f, 1.0f};
	const float values[] = {0, 0, 0, 1, sinf((float)M_PI / 3), 0, 0, cosf((float)M_PI / 3)};
	struct curve c =
	    make(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 4, 2, times, values);
	struct curve_cursor cur;
	float out[4];

	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, 0.25f, out);
	ck_assert_float_eq_tol(out[0], sinf((float)M_PI / 12), 1e-6f);
	ck_assert_float_eq_tol(out[3], cosf((float)M_PI / 12), 1e-6f);
}
END_TEST

START_TEST(quaternion_results_are_normalised)
{
	/* unnormalised keys: STEP, exact keys and cubic results come out unit length */
	const float times[] = {0.0f, 1.0f};
	const float step_values[] = {0, 0, 0, 2, 0, 0, 3, 0};
	const float cubic_values[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
	                              0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
	struct curve step = make(VALUE_FLOAT4, INTERP_STEP, SEMANTIC_NORMALIZED_QUATERNION, 4, 2,
	                         times, step_values);
	struct curve cubic = make(VALUE_FLOAT4, INTERP_CUBIC_SPLINE, SEMANTIC_NORMALIZED_QUATERNION,
	                          4, 2, times, cubic_values);
	struct curve_cursor cur;
	float out[4];

	curve_cursor_init(&cur);
	curve_sample_f32(&step, &cur, 0.5f, out);
	ck_assert_float_eq(out[3], 1.0f);
	curve_sample_f32(&step, &cur, 1.0f, out);
	ck_assert_float_eq(out[2], 1.0f);
	curve_cursor_init(&cur);
	curve_sample_f32(&cubic, &cur, 0.5f, out);
	ck_assert_float_eq_tol(quat_dot(out, out), 1.0f, 1e-6f);
	/* halfway between (0,0,0,1) and (1,0,0,0) with zero tangents: equal parts */
	ck_assert_float_eq_tol(out[0], out[3], 1e-6f);
}
END_TEST

START_TEST(arrays_interpolate_every_element)
{
	/* FLOAT2[2]: four floats per key */
	const float times[] = {0.0f, 2.0f};
	const float values[] = {0, 0, 0, 0, 2, 4, 6, 8};
	struct curve c =
	    make(VALUE_FLOAT2, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 4, 2, times, values);
	struct curve_cursor cur;
	float out[4];

	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, 1.0f, out);
	ck_assert_float_eq(out[0], 1.0f);
	ck_assert_float_eq(out[1], 2.0f);
	ck_assert_float_eq(out[2], 3.0f);
	ck_assert_float_eq(out[3], 4.0f);
}
END_TEST

START_TEST(step_key_for_integer_tracks)
{
	const float times[] = {0.0f, 1.0f, 2.0f};
	const float unused[] = {0, 0, 0};
	struct curve c =
	    make(VALUE_UINT, INTERP_STEP, SEMANTIC_COMPONENT_WISE, 1, 3, times, unused);
	struct curve_cursor cur;

	curve_cursor_init(&cur);
	ck_assert_uint_eq(curve_step_key(&c, &cur, -1.0f), 0);
	ck_assert_uint_eq(curve_step_key(&c, &cur, 0.5f), 0);
	ck_assert_uint_eq(curve_step_key(&c, &cur, 1.0f), 1);
	ck_assert_uint_eq(curve_step_key(&c, &cur, 1.99f), 1);
	ck_assert_uint_eq(curve_step_key(&c, &cur, 2.0f), 2);
	ck_assert_uint_eq(curve_step_key(&c, &cur, 0.0f), 0); /* backwards too */
}
END_TEST

/* The cursor must give exactly what a fresh search gives, in any order of times. */
START_TEST(cursor_matches_fresh_search_forwards_backwards_and_random)
{
	enum { KEYS = 1000, SAMPLES = 20000 };
	float *times = malloc(KEYS * sizeof(float)), *values = malloc(KEYS * 3 * 3 * sizeof(float));
	struct curve c;
	struct curve_cursor swept, fresh;
	unsigned seed = 12345;

	for (int k = 0; k < KEYS; k++) {
		times[k] = (float)k * 0.01f + (float)(k % 7) * 0.001f;
		for (int i = 0; i < 9; i++)
			values[k * 9 + i] = sinf((float)(k * 9 + i));
	}
	c = make(VALUE_FLOAT3, INTERP_CUBIC_SPLINE, SEMANTIC_COMPONENT_WISE, 3, KEYS, times,
	         values);
	curve_cursor_init(&swept);
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < SAMPLES; i++) {
			float t, a[3], b[3];
			if (pass == 0)
				t = -1.0f + 12.0f * (float)i / SAMPLES;
			else if (pass == 1)
				t = 11.0f - 12.0f * (float)i / SAMPLES;
			else
				t = -1.0f + 12.0f * (float)(rand_r(&seed) % 100000) / 100000.0f;
			curve_sample_f32(&c, &swept, t, a);
			curve_cursor_init(&fresh);
			curve_sample_f32(&c, &fresh, t, b);
			ck_assert_mem_eq(a, b, sizeof(a));
		}
	}
	/* and the keys themselves come back exactly */
	for (int k = 0; k < KEYS; k++) {
		float a[3];
		curve_sample_f32(&c, &swept, times[k], a);
		ck_assert_mem_eq(a, &values[k * 9 + 3], sizeof(a));
	}
	free(times);
	free(values);
}
END_TEST

/* The cursor's cached slerp set-up gives exactly what a fresh evaluation gives. */
START_TEST(quaternion_cursor_matches_fresh_evaluation)
{
	enum { KEYS = 200, SAMPLES = 20000 };
	float *times = malloc(KEYS * sizeof(float)), *values = malloc(KEYS * 4 * sizeof(float));
	struct curve c;
	struct curve_cursor swept, fresh;

	for (int k = 0; k < KEYS; k++) {
		times[k] = (float)k * 0.05f;
		for (int i = 0; i < 4; i++)
			values[k * 4 + i] = sinf((float)(k * 5 + i)) * (k % 3 == 0 ? -1.0f : 1.0f);
	}
	c = make(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 4, KEYS, times,
	         values);
	curve_cursor_init(&swept);
	for (int i = 0; i < SAMPLES; i++) {
		float t = -0.5f + 11.0f * (float)i / SAMPLES, a[4], b[4];
		if (i == SAMPLES / 2) /* and backwards across segments it has cached */
			t = 1.0f;
		curve_sample_f32(&c, &swept, t, a);
		curve_cursor_init(&fresh);
		curve_sample_f32(&c, &fresh, t, b);
		ck_assert_mem_eq(a, b, sizeof(a));
	}
	free(times);
	free(values);
}
END_TEST

/* Zouna's lookup before the first key (doc/formats.md 1.3): the last key's value, for every
 * interpolation and for step keys; without the rule, the first value (doc/formats.md 3.2). */
START_TEST(before_the_first_key_by_rule)
{
	static const float times[] = {0.5f, 1.0f, 2.0f};
	static const float values[] = {1.0f, 2.0f, 3.0f};
	static const float cubic[] = {0, 1.0f, 0, 0, 2.0f, 0, 0, 3.0f, 0};
	static const enum interpolation interps[] = {INTERP_STEP, INTERP_LINEAR,
	                                             INTERP_CUBIC_SPLINE};
	for (int i = 0; i < 3; i++) {
		struct curve c = make(VALUE_FLOAT, interps[i], SEMANTIC_COMPONENT_WISE, 1, 3, times,
		                      interps[i] == INTERP_CUBIC_SPLINE ? cubic : values);
		struct curve_cursor cur;
		ck_assert_float_eq(sample1(&c, 0.25f), 1.0f);
		c.rules = RULE_LAST_BEFORE_FIRST;
		ck_assert_float_eq(sample1(&c, 0.25f), 3.0f);
		ck_assert_float_eq(sample1(&c, -1e30f), 3.0f);
		ck_assert_float_eq(sample1(&c, 0.5f), 1.0f); /* at the first key: the first */
		ck_assert_float_eq(sample1(&c, 2.5f), 3.0f);
		ck_assert_float_eq(sample1(&c, NAN), 1.0f);
		curve_cursor_init(&cur);
		ck_assert_uint_eq(curve_step_key(&c, &cur, 0.0f), 2);
		/* a sweep that starts before the first key and moves on */
		ck_assert_uint_eq(curve_step_key(&c, &cur, 1.5f), 1);
		ck_assert_uint_eq(curve_step_key(&c, &cur, 0.1f), 2);
	}
	{
		/* one key: constant either way */
		struct curve c =
		    make(VALUE_FLOAT, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 1, 1, times, values);
		c.rules = RULE_LAST_BEFORE_FIRST;
		ck_assert_float_eq(sample1(&c, 0.0f), 1.0f);
	}
}
END_TEST

/* KeyframerVec4fLinear_Z's w (doc/formats.md 1.3): 1.0 strictly between keys, the key's own at a
 * key; x, y, z interpolate as usual; every FLOAT4 of an array. */
START_TEST(w_between_keys_by_rule)
{
	static const float times[] = {0.0f, 1.0f};
	static const float values[] = {0, 0, 0, 0.25f, 0, 0, 0, 0.5f,
	                               1, 2, 3, 0.75f, 4, 4, 4, 0.5f};
	struct curve c =
	    make(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 8, 2, times, values);
	struct curve_cursor cur;
	float out[8];

	c.rules = RULE_W_ONE_BETWEEN_KEYS;
	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, 0.5f, out);
	ck_assert_float_eq(out[0], 0.5f);
	ck_assert_float_eq(out[2], 1.5f);
	ck_assert_float_eq(out[3], 1.0f);
	ck_assert_float_eq(out[6], 2.0f);
	ck_assert_float_eq(out[7], 1.0f);
	curve_sample_f32(&c, &cur, 0.0f, out);
	ck_assert_float_eq(out[3], 0.25f);
	curve_sample_f32(&c, &cur, 1.0f, out);
	ck_assert_float_eq(out[3], 0.75f);
	c.rules = 0;
	curve_sample_f32(&c, &cur, 0.5f, out);
	ck_assert_float_eq(out[3], 0.5f);
}
END_TEST

/* Slerp for a small angle, where nlerp would already be close: 30 degrees about z at
 * u = 0.21 is a rotation of 6.3 degrees about z, within 1e-6 of the closed form. A sampler
 * that switched to nlerp at a lower threshold (a dot of 0.95 here is 0.966) is off by more
 * than 1e-5, so this tells the two apart. */
START_TEST(slerp_for_small_angles_and_nlerp_only_above_the_threshold)
{
	const double half = 15.0 * M_PI / 180.0, want = 0.21 * half;
	const float times[] = {0.0f, 1.0f};
	const float q[] = {0, 0, 0, 1, 0, 0, (float)sin(half), (float)cos(half)};
	struct curve c =
	    make(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 4, 2, times, q);
	struct curve_cursor cur;
	float out[4], nl[4];
	double len;

	curve_cursor_init(&cur);
	curve_sample_f32(&c, &cur, 0.21f, out);
	ck_assert_double_eq_tol(out[2], sin(want), 1e-6);
	ck_assert_double_eq_tol(out[3], cos(want), 1e-6);
	/* what nlerp gives, to show the test can tell */
	for (int i = 0; i < 4; i++)
		nl[i] = (float)(0.79 * q[i] + 0.21 * q[4 + i]);
	len = sqrt((double)nl[2] * nl[2] + (double)nl[3] * nl[3]);
	ck_assert(fabs(nl[2] / len - sin(want)) > 1e-5);
	/* 0.5 degrees apart (dot 0.99999 > 0.9995): normalised lerp */
	{
		const double h = 0.25 * M_PI / 180.0;
		const float r[] = {0, 0, 0, 1, 0, (float)sin(h), 0, (float)cos(h)};
		struct curve d = make(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION,
		                      4, 2, times, r);
		float lerp[4];
		double l;
		curve_cursor_init(&cur);
		curve_sample_f32(&d, &cur, 0.3f, out);
		for (int i = 0; i < 4; i++)
			lerp[i] = r[i] + (r[4 + i] - r[i]) * 0.3f;
		l = sqrt((double)lerp[1] * lerp[1] + (double)lerp[3] * lerp[3]);
		ck_assert_double_eq_tol(out[1], lerp[1] / l, 1e-7);
		ck_assert_double_eq_tol(out[3], lerp[3] / l, 1e-7);
	}
}
END_TEST

/* The batch path gives the very floats the one-sample path gives: random curves of every
 * float type, arrays, STEP/LINEAR/CUBIC_SPLINE, quaternions, both rules; times sweeping up,
 * at keys exactly, outside the keys, and in random order. */
/* Run 0: the build of curve_sample_times chosen for this machine (AVX2 where it has it); run
 * 1: the baseline build, which machines without AVX2 run. */
START_TEST(batches_give_the_same_floats_as_single_samples)
{
	const char *build = curve_vector_build(_i == 1);
	static const struct {
		enum value_type type;
		uint32_t components;
	} types[] = {{VALUE_FLOAT, 1},    {VALUE_FLOAT2, 2},   {VALUE_FLOAT3, 3},
	             {VALUE_FLOAT4, 4},   {VALUE_FLOAT2X2, 4}, {VALUE_FLOAT3X3, 9},
	             {VALUE_FLOAT4X4, 16}};
	unsigned seed = 20261201;
	size_t compared = 0;

	for (int round = 0; round < 600; round++) {
		uint32_t ti = (uint32_t)(rand_r(&seed) % 7),
		         array = 1 + (uint32_t)(rand_r(&seed) % 3);
		enum interpolation interp = (enum interpolation)(rand_r(&seed) % 3);
		int quaternion = types[ti].type == VALUE_FLOAT4 && rand_r(&seed) % 2;
		uint32_t m = types[ti].components * array,
		         keys = 1 + (uint32_t)(rand_r(&seed) % 40);
		uint32_t per = interp == INTERP_CUBIC_SPLINE ? 3 : 1;
		float *times = malloc(keys * sizeof(float)), *values, *ts, *one, *many;
		size_t count = 1 + (size_t)(rand_r(&seed) % 700);
		struct curve c;
		struct curve_cursor a, b;
		float t = -1.0f + (float)(rand_r(&seed) % 100) / 100.0f;

		for (uint32_t k = 0; k < keys; k++) {
			t += 0.001f + (float)(rand_r(&seed) % 1000) / 997.0f;
			times[k] = t;
		}
		values = malloc((size_t)keys * m * per * sizeof(float));
		for (size_t i = 0; i < (size_t)keys * m * per; i++)
			values[i] = (float)(rand_r(&seed) % 20001 - 10000) / 137.0f;
		c = make(types[ti].type, interp,
		         quaternion ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE, m,
		         keys, times, values);
		c.rules = (unsigned)(rand_r(&seed) % 4) & RULES_KNOWN;
		ts = malloc(count * sizeof(float));
		for (size_t i = 0; i < count; i++) {
			int kind = rand_r(&seed) % 10;
			float span = times[keys - 1] - times[0] + 2.0f;
			if (kind == 0) /* a key exactly */
				ts[i] = times[(uint32_t)rand_r(&seed) % keys];
			else if (round % 3 == 0) /* random order */
				ts[i] =
				    times[0] - 1.0f + span * (float)rand_r(&seed) / (float)RAND_MAX;
			else /* a sweep, with some time before and after the keys */
				ts[i] = times[0] - 1.0f + span * (float)i / (float)count;
		}
		one = malloc(count * m * sizeof(float));
		many = malloc(count * m * sizeof(float));
		curve_cursor_init(&a);
		curve_cursor_init(&b);
		for (size_t i = 0; i < count; i++)
			curve_sample_f32(&c, &a, ts[i], one + i * m);
		curve_sample_times(&c, &b, ts, count, many);
		for (size_t i = 0; i < count * m; i++)
			ck_assert_msg(
			    memcmp(&one[i], &many[i], sizeof(float)) == 0,
			    "%s build, round %d, sample %zu, component %zu: %.9g one by one, %.9g "
			    "in a batch",
			    build, round, i / m, i % m, (double)one[i], (double)many[i]);
		compared += count * m;
		free(times), free(values), free(ts), free(one), free(many);
	}
	ck_assert_uint_gt(compared, 100000);
	curve_vector_build(0);
}
END_TEST

static Suite *curve_suite(void)
{
	Suite *s = suite_create("curve");
	TCase *tc = tcase_create("sampling");

	tcase_add_test(tc, linear_between_at_and_outside_keys);
	tcase_add_test(tc, step_switches_at_the_key);
	tcase_add_test(tc, one_key_is_constant);
	tcase_add_test(tc, one_key_cubic_is_its_central_value);
	tcase_add_test(tc, cubic_spline_per_second_tangents);
	tcase_add_test(tc, zouna_hermite_vectors_through_per_second_tangents);
	tcase_add_test(tc, quaternion_slerp_takes_the_short_path_across_a_sign_flip);
	tcase_add_test(tc, quaternion_slerp_is_not_nlerp);
	tcase_add_test(tc, quaternion_results_are_normalised);
	tcase_add_test(tc, arrays_interpolate_every_element);
	tcase_add_test(tc, step_key_for_integer_tracks);
	tcase_add_test(tc, cursor_matches_fresh_search_forwards_backwards_and_random);
	tcase_add_test(tc, quaternion_cursor_matches_fresh_evaluation);
	tcase_add_test(tc, before_the_first_key_by_rule);
	tcase_add_test(tc, w_between_keys_by_rule);
	tcase_add_test(tc, slerp_for_small_angles_and_nlerp_only_above_the_threshold);
	tcase_add_loop_test(tc, batches_give_the_same_floats_as_single_samples, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(curve_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
