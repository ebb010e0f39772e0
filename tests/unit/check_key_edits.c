/* check_key_edits.c: keys edited by hand (core/key_edits.h): moved, given a value, inserted
 * where the curve is (a cubic spline unchanged by it), deleted; rotations given as Euler
 * degrees; a sampler two tracks share edited for one of them only; and every bad edit refused
 * with its index, track and key named and the clip left as it was. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"
#include "core/key_edits.h"
#include "testutil.h"

/* A clip of `tracks` channels on one sampler each (or all on sampler 0 when shared). */
static struct clip make_clip(size_t tracks, int shared, enum value_type type,
                             enum interpolation interp, enum semantic semantic, uint32_t keys)
{
	struct clip c;
	size_t samplers = shared ? 1 : tracks;
	uint32_t n = value_type_components(type), per = interp == INTERP_CUBIC_SPLINE ? 3 : 1;

	clip_init(&c);
	c.targets = calloc(1, sizeof(*c.targets));
	c.target_count = 1;
	c.samplers = calloc(samplers, sizeof(*c.samplers));
	c.sampler_count = samplers;
	c.channels = calloc(tracks, sizeof(*c.channels));
	c.channel_count = tracks;
	ck_assert_ptr_nonnull(c.samplers);
	ck_assert_ptr_nonnull(c.channels);
	for (size_t i = 0; i < samplers; i++) {
		struct sampler *s = &c.samplers[i];
		float *v = malloc((size_t)keys * n * per * sizeof(float));
		*s = (struct sampler){type,   1,
		                      interp, semantic,
		                      keys,   malloc(keys * sizeof(float)),
		                      v,      (size_t)keys * n * per * sizeof(float),
		                      0};
		for (uint32_t k = 0; k < keys; k++) {
			s->times[k] = (float)k * 0.25f;
			for (uint32_t j = 0; j < n * per; j++)
				v[(size_t)k * n * per + j] = (float)(k * 10 + j + i * 100) * 0.1f;
			if (semantic == SEMANTIC_NORMALIZED_QUATERNION)
				memcpy(v + (size_t)k * 4, (float[4]){0, 0, 0, 1}, sizeof(float[4]));
		}
	}
	for (size_t i = 0; i < tracks; i++)
		c.channels[i] = (struct channel){0, 1, 0, (uint32_t)(shared ? 0 : i)};
	c.duration = (keys - 1) * 0.25;
	return c;
}

static json_t *edits_of(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	ck_assert_msg(j != NULL, "%s", e.text);
	return j;
}

/* Applies text; returns rc, with *summary freed. */
static int apply(struct clip *c, const char *text, struct error *err)
{
	json_t *edits = edits_of(text), *summary = NULL;
	int rc;

	error_init(err);
	rc = key_edits_apply(c, NULL, edits, &summary, err);
	json_decref(edits);
	json_decref(summary);
	return rc;
}

START_TEST(keys_are_moved_set_inserted_and_deleted)
{
	struct clip c = make_clip(1, 0, VALUE_FLOAT3, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 5);
	json_t *edits = edits_of("[{\"track\": 0, \"key\": 1, \"time\": 0.3, \"value\": [1, 2, 3]},"
	                         " {\"track\": 0, \"insert\": 0.625},"
	                         " {\"track\": 0, \"delete\": 4}]");
	json_t *summary = NULL;
	struct error err;
	struct curve cv;
	struct curve_cursor cur;
	float want[3];
	const float *v;

	/* the curve's value where the key goes, before any edit */
	curve_from_sampler(&cv, &c.samplers[0]);
	curve_cursor_init(&cur);
	curve_sample_f32(&cv, &cur, 0.625f, want);
	error_init(&err);
	ck_assert_int_eq(key_edits_apply(&c, NULL, edits, &summary, &err), 0);
	const struct sampler *s = &c.samplers[0];
	ck_assert_uint_eq(s->key_count, 5);
	ck_assert_uint_eq(s->value_bytes, 5 * 3 * sizeof(float));
	const float times[] = {0, 0.3f, 0.5f, 0.625f, 0.75f};
	for (int k = 0; k < 5; k++)
		ck_assert_float_eq(s->times[k], times[k]);
	v = s->values;
	ck_assert_float_eq(v[3], 1);
	ck_assert_float_eq(v[4], 2);
	ck_assert_float_eq(v[5], 3);
	for (int j = 0; j < 3; j++)
		ck_assert_float_eq(v[9 + j], want[j]);
	ck_assert_float_eq(v[12], 3.0f); /* key 3 unchanged: (3 * 10 + 0) * 0.1 */
	/* the summary in the keys' indexes before the edits */
	json_t *t0 = json_array_get(summary, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(t0, "keys_before")), 5);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(t0, "changed"), 0)), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(t0, "deleted"), 0)), 4);
	ck_assert_float_eq(json_real_value(json_array_get(json_object_get(t0, "inserted"), 0)),
	                   0.625);
	json_decref(summary);
	json_decref(edits);
	clip_cleanup(&c);
}
END_TEST

/* A key inserted into a cubic spline takes its slope there: the curve is the same curve. */
START_TEST(a_key_inserted_into_a_cubic_spline_keeps_the_curve)
{
	struct clip c =
	    make_clip(1, 0, VALUE_FLOAT, INTERP_CUBIC_SPLINE, SEMANTIC_COMPONENT_WISE, 4);
	struct sampler before = c.samplers[0];
	struct error err;
	float want[401];

	before.times = malloc(4 * sizeof(float));
	before.values = malloc(before.value_bytes);
	memcpy(before.times, c.samplers[0].times, 4 * sizeof(float));
	memcpy(before.values, c.samplers[0].values, before.value_bytes);
	struct curve cv;
	struct curve_cursor cur;
	curve_from_sampler(&cv, &before);
	curve_cursor_init(&cur);
	for (int i = 0; i <= 400; i++)
		curve_sample_f32(&cv, &cur, i * 0.75f / 400, &want[i]);
	ck_assert_int_eq(
	    apply(&c, "[{\"track\": 0, \"insert\": 0.4}, {\"track\": 0, \"insert\": 0.1}]", &err),
	    0);
	ck_assert_uint_eq(c.samplers[0].key_count, 6);
	curve_from_sampler(&cv, &c.samplers[0]);
	curve_cursor_init(&cur);
	for (int i = 0; i <= 400; i++) {
		float got;
		curve_sample_f32(&cv, &cur, i * 0.75f / 400, &got);
		ck_assert_msg(fabsf(got - want[i]) < 1e-4f, "at %g: %g, was %g", i * 0.75 / 400,
		              got, want[i]);
	}
	free(before.times);
	free(before.values);
	clip_cleanup(&c);
}
END_TEST

START_TEST(rotations_are_given_as_euler_degrees)
{
	struct clip c =
	    make_clip(1, 0, VALUE_FLOAT4, INTERP_LINEAR, SEMANTIC_NORMALIZED_QUATERNION, 3);
	struct error err;
	const float *q;

	ck_assert_int_eq(apply(&c,
	                       "[{\"track\": 0, \"key\": 1, \"degrees\": [0, 90, 0]},"
	                       " {\"track\": 0, \"key\": 2, \"value\": [0, 0, 2, 0]}]",
	                       &err),
	                 0);
	q = c.samplers[0].values;
	ck_assert_float_eq_tol(q[4], 0, 1e-6);
	ck_assert_float_eq_tol(q[5], sqrtf(0.5f), 1e-6);
	ck_assert_float_eq_tol(q[6], 0, 1e-6);
	ck_assert_float_eq_tol(q[7], sqrtf(0.5f), 1e-6);
	ck_assert_float_eq_tol(q[10], 1, 1e-6); /* normalised */
	ck_assert_int_eq(apply(&c, "[{\"track\": 0, \"key\": 1, \"value\": [0, 0, 0, 0]}]", &err),
	                 -1);
	ck_assert_str_eq(err.path, "edits[0].value");
	clip_cleanup(&c);
}
END_TEST

/* Two tracks on one sampler: the edited one gets a sampler of its own. */
START_TEST(a_shared_sampler_is_edited_for_one_track)
{
	struct clip c = make_clip(2, 1, VALUE_FLOAT, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 3);
	struct error err;

	ck_assert_int_eq(apply(&c, "[{\"track\": 1, \"delete\": 0}]", &err), 0);
	ck_assert_uint_eq(c.sampler_count, 2);
	ck_assert_uint_eq(c.samplers[c.channels[0].sampler].key_count, 3);
	ck_assert_uint_eq(c.samplers[c.channels[1].sampler].key_count, 2);
	ck_assert_uint_ne(c.channels[0].sampler, c.channels[1].sampler);
	clip_cleanup(&c);
	/* two of three edited: each its own, the third keeps the shared one, none left unused */
	c = make_clip(3, 1, VALUE_FLOAT, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 3);
	ck_assert_int_eq(
	    apply(&c, "[{\"track\": 0, \"delete\": 0}, {\"track\": 2, \"delete\": 1}]", &err), 0);
	ck_assert_uint_eq(c.sampler_count, 3);
	ck_assert_uint_eq(c.samplers[c.channels[0].sampler].key_count, 2);
	ck_assert_uint_eq(c.samplers[c.channels[1].sampler].key_count, 3);
	ck_assert_uint_eq(c.samplers[c.channels[2].sampler].key_count, 2);
	ck_assert_float_eq(c.samplers[c.channels[2].sampler].times[1], 0.5f);
	clip_cleanup(&c);
}
END_TEST

/* Each bad edit: refused with its path and the clip exactly as it was. */
START_TEST(bad_edits_are_named_and_change_nothing)
{
	static const struct {
		const char *edits, *path, *says;
	} cases[] = {
	    {"[]", "edits", "an array of 1 to"},
	    {"{}", "edits", "an array of 1 to"},
	    {"[{\"track\": 0, \"key\": 1, \"tme\": 2}]", "edits[0]", "'tme' is not a member"},
	    {"[{\"track\": 2, \"delete\": 0}]", "edits[0].track", "has 2 tracks (0 to 1)"},
	    {"[{\"track\": 0, \"key\": 7, \"time\": 2}]", "edits[0].key", "has 4 keys (0 to 3"},
	    {"[{\"track\": 0, \"key\": 1, \"time\": 2}, {\"track\": 0, \"delete\": 1}]",
	     "edits[1].delete", "edited already by edits[0]"},
	    {"[{\"track\": 0, \"key\": 1, \"time\": 0.5}]", "edits[0]", "two keys at 0.5 s"},
	    {"[{\"track\": 1, \"insert\": 0.25}]", "edits[0]", "two keys at 0.25 s"},
	    {"[{\"track\": 0, \"delete\": 0}, {\"track\": 0, \"delete\": 1}, {\"track\": 0, "
	     "\"delete\": "
	     "2}, {\"track\": 0, \"delete\": 3}]",
	     "edits", "no keys left"},
	    {"[{\"track\": 0, \"key\": 1, \"value\": [1, 2]}]", "edits[0].value", "3 numbers"},
	    {"[{\"track\": 0, \"key\": 1, \"value\": [1, 2, 1e39]}]", "edits[0].value",
	     "within a float's range"},
	    {"[{\"track\": 0, \"key\": 1, \"degrees\": [1, 2, 3]}]", "edits[0].degrees",
	     "is not a rotation"},
	    {"[{\"track\": 0, \"key\": 1, \"time\": -1}]", "edits[0].time", "from 0 to"},
	    {"[{\"track\": 0, \"insert\": \"x\"}]", "edits[0].insert", "from 0 to"},
	    {"[{\"track\": 0, \"key\": 1}]", "edits[0]", "gives time, value or degrees"},
	    {"[{\"track\": 0, \"key\": 1, \"delete\": 2}]", "edits[0]", "this one has 2"},
	    {"[3]", "edits[0]", "a JSON object"},
	};
	struct clip c = make_clip(2, 0, VALUE_FLOAT3, INTERP_LINEAR, SEMANTIC_COMPONENT_WISE, 4);
	float times[4], values[12];
	struct error err;

	memcpy(times, c.samplers[0].times, sizeof(times));
	memcpy(values, c.samplers[0].values, sizeof(values));
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		ck_assert_int_eq(apply(&c, cases[i].edits, &err), -1);
		ck_assert_int_eq(err.code, ERROR_INVALID);
		ck_assert_msg(strcmp(err.path, cases[i].path) == 0, "%s: path %s, not %s",
		              cases[i].edits, err.path, cases[i].path);
		ck_assert_msg(strstr(err.message, cases[i].says) != NULL, "%s: %s", cases[i].edits,
		              err.message);
		ck_assert_uint_eq(c.samplers[0].key_count, 4);
		ck_assert_uint_eq(c.samplers[1].key_count, 4);
		ck_assert_int_eq(memcmp(times, c.samplers[0].times, sizeof(times)), 0);
		ck_assert_int_eq(memcmp(values, c.samplers[0].values, sizeof(values)), 0);
		ck_assert_uint_eq(c.sampler_count, 2);
	}
	clip_cleanup(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("key_edits");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, keys_are_moved_set_inserted_and_deleted);
	tcase_add_test(tc, a_key_inserted_into_a_cubic_spline_keeps_the_curve);
	tcase_add_test(tc, rotations_are_given_as_euler_degrees);
	tcase_add_test(tc, a_shared_sampler_is_edited_for_one_track);
	tcase_add_test(tc, bad_edits_are_named_and_change_nothing);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
