/* check_reduce.c: dense tracks reduced within a tolerance (core/reduce.h): the corners of a
 * piecewise-linear track are the keys kept, a smooth track keeps fewer keys with fitted
 * tangents than without, rotations are measured by angle, steps keep their changes, and every
 * result sampled at 1,000 times stays within the tolerance of the dense track. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"
#include "core/reduce.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define FPS 24.0f

/* A dense track of `keys` values at FPS, from f(time, out). */
static struct sampler dense_track(enum value_type type, enum interpolation interp,
                                  enum semantic semantic, uint32_t keys,
                                  void (*f)(float t, float *out))
{
	struct sampler s = {0};
	uint32_t n = value_type_components(type);
	float *v = malloc((size_t)keys * n * sizeof(float));

	s.type = type;
	s.array_size = 1;
	s.interp = interp;
	s.semantic = semantic;
	s.key_count = keys;
	s.times = malloc(keys * sizeof(float));
	s.values = v;
	s.value_bytes = (size_t)keys * n * sizeof(float);
	ck_assert_ptr_nonnull(s.times);
	ck_assert_ptr_nonnull(v);
	for (uint32_t k = 0; k < keys; k++) {
		s.times[k] = (float)k / FPS;
		f(s.times[k], v + (size_t)k * n);
	}
	return s;
}

static void track_free(struct sampler *s)
{
	free(s->times);
	free(s->values);
}

/* The largest distance between two tracks at 1,000 times over the dense one's range. */
static double worst_at_1000(const struct sampler *dense, const struct sampler *reduced)
{
	struct curve a, b;
	struct curve_cursor ca, cb;
	uint32_t n = (uint32_t)sampler_components(dense);
	float span = dense->times[dense->key_count - 1] - dense->times[0], va[4], vb[4];
	double worst = 0;

	curve_from_sampler(&a, dense);
	curve_from_sampler(&b, reduced);
	curve_cursor_init(&ca);
	curve_cursor_init(&cb);
	for (int i = 0; i < 1000; i++) {
		float t = dense->times[0] + span * (float)i / 999;
		double d = 0;
		curve_sample_f32(&a, &ca, t, va);
		curve_sample_f32(&b, &cb, t, vb);
		if (dense->semantic == SEMANTIC_NORMALIZED_QUATERNION) {
			/* the rotation angle: 4 atan2(|a - b|, |a + b|), both unit, on one side */
			double minus = 0, plus = 0, dot = 0, sign;
			for (int j = 0; j < 4; j++)
				dot += (double)va[j] * vb[j];
			sign = dot < 0 ? -1 : 1;
			for (int j = 0; j < 4; j++) {
				minus += (va[j] - sign * vb[j]) * (va[j] - sign * vb[j]);
				plus += (va[j] + sign * vb[j]) * (va[j] + sign * vb[j]);
			}
			d = 4 * atan2(sqrt(minus), sqrt(plus));
		} else {
			for (uint32_t j = 0; j < n; j++)
				d = fmax(d, fabs((double)va[j] - vb[j]));
		}
		worst = fmax(worst, d);
	}
	return worst;
}

/* up 2 a second for 1 s, flat for 1 s, down 1 a second for 2 s: corners at 0, 1, 2, 4 s */
static void corners(float t, float *out)
{
	out[0] = t <= 1 ? 2 * t : t <= 2 ? 2 : 2 - (t - 2);
}

static void wave(float t, float *out)
{
	out[0] = sinf(t * 2.0f);
	out[1] = cosf(t * 1.3f) * 0.5f;
	out[2] = t * 0.25f;
}

/* a quarter turn a second about z, at a constant rate */
static void turn(float t, float *out)
{
	float half = (float)(M_PI / 4) * t;
	out[0] = 0;
	out[1] = 0;
	out[2] = sinf(half);
	out[3] = cosf(half);
}

/* a turn about z that swings back and forth */
static void swing(float t, float *out)
{
	float half = 0.6f * sinf(t * 3.0f);
	out[0] = 0;
	out[1] = sinf(half) * 0.6f;
	out[2] = sinf(half) * 0.8f;
	out[3] = cosf(half);
}

static void stairs(float t, float *out)
{
	out[0] = t < 0.5f ? 0 : t < 1.0f ? 1 : 3;
}

/* A slow drift: 0.01 a key, never past the tolerance from one key to the next. */
static void drift(float t, float *out)
{
	out[0] = t * FPS * 0.01f;
}

START_TEST(corners_of_a_linear_track_are_its_keys)
{
	struct sampler dense =
	    dense_track(VALUE_FLOAT, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 97, corners);
	struct sampler out;
	struct reduce_result r;

	ck_assert(reduce_applies(&dense));
	ck_assert_int_eq(reduce_sampler(&dense, 1e-4, REDUCE_LINEAR, &out, &r), 0);
	ck_assert_uint_eq(r.keys_before, 97);
	ck_assert_uint_eq(r.keys_after, 4);
	ck_assert_uint_eq(out.key_count, 4);
	ck_assert_int_eq(out.interp, INTERP_LINEAR);
	ck_assert_float_eq(out.times[0], 0.0f);
	ck_assert_float_eq_tol(out.times[1], 1.0f, 1e-6);
	ck_assert_float_eq_tol(out.times[2], 2.0f, 1e-6);
	ck_assert_float_eq_tol(out.times[3], 4.0f, 1e-6);
	ck_assert_double_le(r.largest_error, 1e-4);
	ck_assert_double_le(worst_at_1000(&dense, &out), 1e-4);
	track_free(&out);
	track_free(&dense);
}
END_TEST

START_TEST(a_smooth_track_keeps_fewer_keys_with_fitted_tangents)
{
	const double tolerance = 1e-3;
	struct sampler dense =
	    dense_track(VALUE_FLOAT3, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 241, wave);
	struct sampler lin, herm;
	struct reduce_result rl, rh;

	ck_assert_int_eq(reduce_sampler(&dense, tolerance, REDUCE_LINEAR, &lin, &rl), 0);
	ck_assert_int_eq(reduce_sampler(&dense, tolerance, REDUCE_HERMITE, &herm, &rh), 0);
	ck_assert_int_eq(herm.interp, INTERP_CUBIC_SPLINE);
	ck_assert_uint_lt(rl.keys_after, 241);
	ck_assert_uint_lt(rh.keys_after, rl.keys_after);
	ck_assert_double_le(rl.largest_error, tolerance);
	ck_assert_double_le(rh.largest_error, tolerance);
	ck_assert_double_gt(rh.largest_error, 0); /* measured, not assumed */
	ck_assert_double_le(worst_at_1000(&dense, &lin), tolerance * 1.05);
	ck_assert_double_le(worst_at_1000(&dense, &herm), tolerance * 1.05);
	/* the first and last keys are kept */
	ck_assert_float_eq(herm.times[0], dense.times[0]);
	ck_assert_float_eq(herm.times[herm.key_count - 1], dense.times[240]);
	track_free(&lin);
	track_free(&herm);
	track_free(&dense);
}
END_TEST

START_TEST(a_tighter_tolerance_keeps_more_keys)
{
	struct sampler dense =
	    dense_track(VALUE_FLOAT3, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 241, wave);
	struct sampler a, b;
	struct reduce_result ra, rb;

	ck_assert_int_eq(reduce_sampler(&dense, 1e-2, REDUCE_HERMITE, &a, &ra), 0);
	ck_assert_int_eq(reduce_sampler(&dense, 1e-5, REDUCE_HERMITE, &b, &rb), 0);
	ck_assert_uint_lt(ra.keys_after, rb.keys_after);
	ck_assert_double_le(worst_at_1000(&dense, &b), 1e-5 * 1.05 + 1e-6);
	track_free(&a);
	track_free(&b);
	track_free(&dense);
}
END_TEST

START_TEST(rotations_are_measured_by_angle)
{
	const double tolerance = 0.002; /* radians */
	struct sampler steady =
	    dense_track(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 37, turn);
	struct sampler swinging =
	    dense_track(VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 121, swing);
	struct sampler a, b;
	struct reduce_result ra, rb;

	/* a steady turn (of 135 degrees) is one slerp: its ends */
	ck_assert_int_eq(reduce_sampler(&steady, tolerance, REDUCE_HERMITE, &a, &ra), 0);
	ck_assert_int_eq(a.interp, INTERP_LINEAR); /* rotations are never fitted cubics */
	ck_assert_uint_eq(ra.keys_after, 2);
	ck_assert_double_le(worst_at_1000(&steady, &a), tolerance);
	ck_assert_int_eq(reduce_sampler(&swinging, tolerance, REDUCE_LINEAR, &b, &rb), 0);
	ck_assert_uint_gt(rb.keys_after, 2);
	ck_assert_uint_lt(rb.keys_after, 121);
	ck_assert_double_le(rb.largest_error, tolerance);
	ck_assert_double_le(worst_at_1000(&swinging, &b), tolerance * 1.05);
	track_free(&a);
	track_free(&b);
	track_free(&steady);
	track_free(&swinging);
}
END_TEST

START_TEST(steps_keep_their_changes)
{
	struct sampler dense =
	    dense_track(VALUE_FLOAT, INTERP_STEP, SEMANTIC_COMPONENT_WISE, 48, stairs);
	struct sampler out;
	struct reduce_result r;

	ck_assert_int_eq(reduce_sampler(&dense, 0.5, REDUCE_HERMITE, &out, &r), 0);
	ck_assert_int_eq(out.interp, INTERP_STEP);
	ck_assert_uint_eq(out.key_count, 4); /* the changes, and the last key: the extent */
	ck_assert_float_eq_tol(out.times[1], 0.5f, 1e-6);
	ck_assert_float_eq_tol(out.times[2], 1.0f, 1e-6);
	ck_assert_float_eq(out.times[3], dense.times[47]);
	ck_assert_float_eq(((float *)out.values)[2], 3.0f);
	ck_assert_double_eq(r.largest_error, 0);
	track_free(&out);
	track_free(&dense);
	/* a value that drifts slowly is kept whenever it has moved past the tolerance from the
	 * last key kept, however small each key's step: every key's value within the tolerance
	 * of the step it falls in */
	dense = dense_track(VALUE_FLOAT, INTERP_STEP, SEMANTIC_COMPONENT_WISE, 101, drift);
	ck_assert_int_eq(reduce_sampler(&dense, 0.1, REDUCE_HERMITE, &out, &r), 0);
	ck_assert_uint_gt(out.key_count, 8);
	ck_assert_uint_lt(out.key_count, 12);
	for (uint32_t k = 0, j = 0; k < dense.key_count; k++) {
		while (j + 1 < out.key_count && out.times[j + 1] <= dense.times[k])
			j++;
		ck_assert_msg(fabsf(((float *)dense.values)[k] - ((float *)out.values)[j]) <=
		                  0.1f + 1e-6f,
		              "key %u: %g, its step %g", k, (double)((float *)dense.values)[k],
		              (double)((float *)out.values)[j]);
	}
	ck_assert_double_le(r.largest_error, 0.1 + 1e-6);
	track_free(&out);
	track_free(&dense);
}
END_TEST

START_TEST(one_and_two_keys_stay)
{
	struct sampler one =
	    dense_track(VALUE_FLOAT3, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 1, wave);
	struct sampler two =
	    dense_track(VALUE_FLOAT3, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 2, wave);
	struct sampler a, b;
	struct reduce_result ra, rb;

	ck_assert_int_eq(reduce_sampler(&one, 1, REDUCE_HERMITE, &a, &ra), 0);
	ck_assert_int_eq(reduce_sampler(&two, 1, REDUCE_HERMITE, &b, &rb), 0);
	ck_assert_uint_eq(a.key_count, 1);
	ck_assert_uint_eq(b.key_count, 2);
	ck_assert_double_le(worst_at_1000(&two, &b), 1e-6);
	track_free(&a);
	track_free(&b);
	track_free(&one);
	track_free(&two);
}
END_TEST

START_TEST(what_is_not_float_values_does_not_apply)
{
	struct sampler s = {0};

	s.type = VALUE_UINT;
	s.array_size = 1;
	s.key_count = 1;
	ck_assert(!reduce_applies(&s));
	s.type = VALUE_FLOAT3;
	s.array_size = 2;
	ck_assert(!reduce_applies(&s));
}
END_TEST

static Suite *reduce_suite(void)
{
	Suite *s = suite_create("reduce");
	TCase *tc = tcase_create("reduce");

	tcase_add_test(tc, corners_of_a_linear_track_are_its_keys);
	tcase_add_test(tc, a_smooth_track_keeps_fewer_keys_with_fitted_tangents);
	tcase_add_test(tc, a_tighter_tolerance_keeps_more_keys);
	tcase_add_test(tc, rotations_are_measured_by_angle);
	tcase_add_test(tc, steps_keep_their_changes);
	tcase_add_test(tc, one_and_two_keys_stay);
	tcase_add_test(tc, what_is_not_float_values_does_not_apply);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reduce_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
