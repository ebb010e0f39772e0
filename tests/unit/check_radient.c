/* check_radient.c: Radient clip documents.
 *
 * Data-driven: every file of tests/data/radient/invalid/ must be refused with the error code
 * its name starts with ("time_not_increasing-2.json" -> time_not_increasing), with a message
 * and, for rule errors, a path; every file of valid/ must decode. Conformance: tracks of the
 * shared glTF fixtures, rebuilt as Radient documents, sampled at every time of
 * the JSON files of fixtures/gltf/expected/ (values from an independent implementation) within
 * 1e-5.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/curve.h"
#include "formats/format.h"
#include "base/hash.h"
#include "testutil.h"

#define MAX_FILES 128

static char *invalid_files[MAX_FILES], *valid_files[MAX_FILES];
static int invalid_count, valid_count;

static int list_dir(const char *rel, char **out)
{
	char dir[1024], path[1280];
	struct dirent **names;
	int n, count = 0;

	testutil_src_path(rel, dir, sizeof(dir));
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (strstr(names[i]->d_name, ".json") && count < MAX_FILES) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			out[count++] = strdup(path);
		}
		free(names[i]);
	}
	free(names);
	return count;
}

static int decode_file(const char *path, struct decode_result *result, struct error *err)
{
	struct upload up = {0};
	size_t len;
	char *data = testutil_read_file(path, &len);
	int rc;

	ck_assert_msg(data != NULL, "cannot read %s", path);
	up.data = (const uint8_t *)data;
	up.length = len;
	up.filename = path;
	error_init(err);
	decode_result_init(result);
	rc = format_decode(&up, result, err);
	free(data);
	return rc;
}

START_TEST(invalid_document_is_refused_with_its_code)
{
	const char *path = invalid_files[_i];
	const char *base = strrchr(path, '/') + 1;
	char want[64];
	struct decode_result result;
	struct error err;

	snprintf(want, sizeof(want), "%.*s", (int)strcspn(base, "-."), base);
	ck_assert_int_eq(decode_file(path, &result, &err), -1);
	ck_assert_msg(strcmp(error_code_name(err.code), want) == 0, "%s: got %s (%s), want %s",
	              base, error_code_name(err.code), err.message, want);
	ck_assert_msg(strlen(err.message) > 10, "%s: no message", base);
	if (err.code != ERROR_MALFORMED)
		ck_assert_msg(err.path[0] != '\0', "%s: no path in '%s'", base, err.message);
	ck_assert_uint_eq(result.count, 0);
	decode_result_cleanup(&result);
}
END_TEST

START_TEST(valid_document_decodes)
{
	struct decode_result result;
	struct error err;

	ck_assert_msg(decode_file(valid_files[_i], &result, &err) == 0, "%s: %s", valid_files[_i],
	              err.message);
	ck_assert_uint_eq(result.count, 1);
	ck_assert_str_eq(result.resources[0]->class_name, "RadientAnimationClip");
	decode_result_cleanup(&result);
}
END_TEST

static const struct resource *decode_named(const char *name, struct decode_result *result)
{
	char path[1024], rel[256];
	struct error err;

	snprintf(rel, sizeof(rel), "tests/data/radient/valid/%s", name);
	testutil_src_path(rel, path, sizeof(path));
	ck_assert_msg(decode_file(path, result, &err) == 0, "%s", err.message);
	return result->resources[0];
}

START_TEST(messages_name_field_value_and_rule)
{
	char path[1024];
	struct decode_result result;
	struct error err;

	testutil_src_path("tests/data/radient/invalid/time_not_increasing.json", path,
	                  sizeof(path));
	decode_file(path, &result, &err);
	ck_assert_str_eq(err.path, "samplers[0].times[2]");
	ck_assert_str_eq(err.message,
	                 "samplers[0].times[2]: 0.5 is not greater than the previous time 0.5");
	decode_result_cleanup(&result);
	testutil_src_path("tests/data/radient/invalid/malformed.json", path, sizeof(path));
	decode_file(path, &result, &err);
	ck_assert_msg(strstr(err.message, "line 1, column") != NULL, "%s", err.message);
	decode_result_cleanup(&result);
}
END_TEST

START_TEST(every_value_type_is_stored_natively)
{
	struct decode_result result;
	const struct resource *res = decode_named("every-type.json", &result);
	const struct clip *clip = &res->clip;
	int32_t i3[6];
	uint32_t u;
	float f[48];

	ck_assert_uint_eq(clip->sampler_count, 9);
	ck_assert_int_eq(clip->samplers[0].type, VALUE_BOOL);
	ck_assert_uint_eq(clip->samplers[0].value_bytes, 2);
	ck_assert_uint_eq(((uint8_t *)clip->samplers[0].values)[0], 1);
	ck_assert_uint_eq(((uint8_t *)clip->samplers[0].values)[1], 0);
	memcpy(i3, clip->samplers[1].values, sizeof(i3));
	ck_assert_int_eq(i3[3], 2147483647);
	ck_assert_int_eq(i3[5], -2147483648);
	memcpy(&u, clip->samplers[2].values, 4);
	ck_assert_uint_eq(u, 4294967295u);
	ck_assert_uint_eq(clip->samplers[5].value_bytes, 48 * 4);
	memcpy(f, clip->samplers[5].values, sizeof(f));
	ck_assert_float_eq(f[16], 1.0f); /* the central identity after 16 in-tangent zeros */
	ck_assert_float_eq(f[31], 1.0f);
	ck_assert_uint_eq(clip->targets[0].object, 18446744073709551614ull);
	ck_assert_uint_eq(clip->channels[2].property, 18446744073709551615ull);
	ck_assert_int_eq(clip->samplers[8].semantic, SEMANTIC_NORMALIZED_QUATERNION);
	ck_assert_str_eq(res->track_names[0], "lamp visibility");
	ck_assert_str_eq(res->track_names[2], "custom property 18446744073709551615");
	ck_assert_str_eq(res->track_names[6], "face weights");
	decode_result_cleanup(&result);
}
END_TEST

START_TEST(name_gives_the_handle)
{
	struct decode_result result;
	const struct resource *res = decode_named("walk.json", &result);

	ck_assert_str_eq(res->name, "walk");
	ck_assert_uint_eq(res->crc32, hash_crc32_lower("walk", 4));
	ck_assert_str_eq(res->crc32_source, "name");
	decode_result_cleanup(&result);
}
END_TEST

/* Decodes a clip of one FLOAT sampler with keys at 0 and `last`, of the given duration text. */
static int decode_clip_text(const char *duration, const char *last, struct decode_result *result,
                            struct error *err)
{
	char doc[512];
	struct upload up = {0};

	snprintf(doc, sizeof(doc),
	         "{\"name\": \"end\", \"duration\": %s, \"targets\": [{\"schema\": "
	         "\"0F0E0D0C-0B0A-0908-0706-050403020100\", \"object\": 0}], \"samplers\": "
	         "[{\"value\": {\"type\": \"FLOAT\", \"array_size\": 1}, \"interpolation\": "
	         "\"LINEAR\", \"times\": [0, %s], \"values\": [0, 1]}], \"channels\": "
	         "[{\"target\": 0, \"property\": 1, \"first_array_element\": 0, "
	         "\"sampler\": 0}]}",
	         duration, last);
	up.data = (const uint8_t *)doc;
	up.length = strlen(doc);
	up.filename = "end.json";
	error_init(err);
	decode_result_init(result);
	return format_decode(&up, result, err);
}

/* A key at the duration is within the clip however the decimal rounds as a float32 (1,000
 * durations, about half of which round up); when it rounds up, `assumed` says so. A key one
 * float step past the float32 duration is still refused. */
START_TEST(a_key_at_the_duration_is_within_the_clip)
{
	unsigned rounded_up = 0;

	for (unsigned i = 1; i <= 1000; i++) {
		char duration[32], above[32];
		double d = i * 0.007 + 0.001;
		struct decode_result result;
		struct error err;
		const json_t *assumed;

		snprintf(duration, sizeof(duration), "%.3f", d);
		d = strtod(duration, NULL);
		ck_assert_msg(decode_clip_text(duration, duration, &result, &err) == 0,
		              "duration %s: %s", duration, err.message);
		assumed = result.resources[0]->assumed;
		if ((double)(float)d > d) {
			rounded_up++;
			ck_assert_msg(json_array_size(assumed) == 1, "duration %s: no note",
			              duration);
			ck_assert_msg(strstr(json_string_value(json_array_get(assumed, 0)),
			                     "32-bit float") != NULL,
			              "%s", json_string_value(json_array_get(assumed, 0)));
		} else {
			ck_assert_uint_eq(json_array_size(assumed), 0);
		}
		decode_result_cleanup(&result);
		snprintf(above, sizeof(above), "%.9g", (double)nextafterf((float)d, INFINITY));
		ck_assert_int_eq(decode_clip_text(duration, above, &result, &err), -1);
		ck_assert_str_eq(error_code_name(err.code), "time_out_of_range");
		decode_result_cleanup(&result);
	}
	ck_assert_uint_gt(rounded_up, 300);
}
END_TEST

/* Conformance with the independent samples. */

static const char *const conformance_files[][2] = {
    {"gltf/BoxAnimated.gltf", "gltf/expected/BoxAnimated.json"},
    {"gltf/AnimatedTriangle.gltf", "gltf/expected/AnimatedTriangle.json"},
    {"gltf/InterpolationTest.embedded-notextures.gltf", "gltf/expected/InterpolationTest.json"},
    {"gltf/InterpolationTest-separate/InterpolationTest.gltf",
     "gltf/expected/InterpolationTest.json"},
};

static void normalise4(float *q)
{
	float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	for (int i = 0; i < 4; i++)
		q[i] /= n;
}

/* Is either key around t a quaternion of non-unit length? */
static int segment_not_unit(const struct sampler *s, float t)
{
	const float *v = s->values;
	uint32_t k = 0;

	while (k + 1 < s->key_count && s->times[k + 1] <= t)
		k++;
	for (uint32_t j = k; j <= k + 1 && j < s->key_count; j++) {
		const float *q = v + (size_t)j * 4;
		if (fabsf(sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1.0f) >
		    1e-6f)
			return 1;
	}
	return 0;
}

START_TEST(samples_match_an_independent_implementation)
{
	const char *fixtures = testutil_fixtures("glTF conformance");
	char gltf_path[1024], expected_path[1024];
	json_t *expected, *clip;
	size_t ci, checked = 0, relaxed = 0;

	if (!fixtures)
		return;
	snprintf(gltf_path, sizeof(gltf_path), "%s/%s", fixtures, conformance_files[_i][0]);
	snprintf(expected_path, sizeof(expected_path), "%s/%s", fixtures, conformance_files[_i][1]);
	expected = json_load_file(expected_path, 0, NULL);
	ck_assert_ptr_nonnull(expected);
	json_array_foreach(json_object_get(expected, "clips"), ci, clip)
	{
		json_t *doc = testutil_gltf_to_radient(gltf_path, ci), *track;
		char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
		struct upload up = {
		    .data = (const uint8_t *)text, .length = strlen(text), .filename = "clip.json"};
		struct decode_result result;
		struct error err;
		size_t ti;

		error_init(&err);
		decode_result_init(&result);
		ck_assert_msg(format_decode(&up, &result, &err) == 0, "%s clip %zu: %s",
		              conformance_files[_i][0], ci, err.message);
		json_array_foreach(json_object_get(clip, "tracks"), ti, track)
		{
			const struct clip *c = &result.resources[0]->clip;
			const struct sampler *s = &c->samplers[c->channels[ti].sampler];
			int quat = s->semantic == SEMANTIC_NORMALIZED_QUATERNION;
			struct curve curve;
			struct curve_cursor cursor;
			json_t *sample;
			size_t si;

			ck_assert_uint_lt(ti, c->channel_count);
			curve_from_sampler(&curve, s);
			curve_cursor_init(&cursor);
			json_array_foreach(json_object_get(track, "samples"), si, sample)
			{
				float t = (float)json_number_value(json_array_get(sample, 0));
				json_t *want = json_array_get(sample, 1);
				float got[4], w[4];
				float sign = 1.0f;
				size_t n = json_array_size(want);

				float tolerance = 1e-5f;

				curve_sample_f32(&curve, &cursor, t, got);
				/* The reference (three.js) slerps non-unit keys without normalising
				 * them first; doc/formats.md 3.2 normalises both keys, then slerps.
				 * Where a fixture's own keys are not unit length the two rules
				 * differ by up to ~3e-5 (AnimatedTriangle's 0.707 keys): allow
				 * that, and say so. */
				if (quat && s->interp == INTERP_LINEAR && segment_not_unit(s, t)) {
					tolerance = 1e-4f;
					relaxed++;
				}
				for (size_t k = 0; k < n; k++)
					w[k] = (float)json_number_value(json_array_get(want, k));
				if (quat) {
					normalise4(w);
					if (got[0] * w[0] + got[1] * w[1] + got[2] * w[2] +
					        got[3] * w[3] <
					    0)
						sign = -1.0f;
				}
				for (size_t k = 0; k < n; k++)
					ck_assert_msg(
					    fabsf(sign * got[k] - w[k]) <= tolerance,
					    "%s clip %zu track %s at t=%g: component %zu "
					    "is %.9g, expected %.9g",
					    conformance_files[_i][0], ci,
					    json_string_value(json_object_get(track, "name")),
					    (double)t, k, (double)(sign * got[k]), (double)w[k]);
				checked++;
			}
		}
		decode_result_cleanup(&result);
		free(text);
		json_decref(doc);
	}
	ck_assert_uint_gt(checked, 10);
	if (relaxed)
		printf("note: %s: %zu of %zu samples lie between non-unit quaternion keys and were "
		       "compared within 1e-4 (doc/formats.md 3.2 normalises keys; three.js does "
		       "not)\n",
		       conformance_files[_i][0], relaxed, checked);
	json_decref(expected);
}
END_TEST

static Suite *radient_suite(void)
{
	Suite *s = suite_create("radient");
	TCase *rules = tcase_create("rules"), *model = tcase_create("model");
	TCase *conformance = tcase_create("conformance");

	invalid_count = list_dir("tests/data/radient/invalid", invalid_files);
	valid_count = list_dir("tests/data/radient/valid", valid_files);
	tcase_add_loop_test(rules, invalid_document_is_refused_with_its_code, 0, invalid_count);
	tcase_add_loop_test(rules, valid_document_decodes, 0, valid_count);
	tcase_add_test(rules, messages_name_field_value_and_rule);
	tcase_add_test(rules, a_key_at_the_duration_is_within_the_clip);
	tcase_add_test(model, every_value_type_is_stored_natively);
	tcase_add_test(model, name_gives_the_handle);
	tcase_add_loop_test(conformance, samples_match_an_independent_implementation, 0,
	                    sizeof(conformance_files) / sizeof(conformance_files[0]));
	suite_add_tcase(s, rules);
	suite_add_tcase(s, model);
	suite_add_tcase(s, conformance);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(radient_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < invalid_count; i++)
		free(invalid_files[i]);
	for (int i = 0; i < valid_count; i++)
		free(valid_files[i]);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
