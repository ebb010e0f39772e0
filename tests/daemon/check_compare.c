/* check_compare.c: GET /api/compare on the real daemon, with two clips built so that every
 * difference is known in advance: a key moved by 0.5 at t = 1, a rotation turned 0.3 rad further
 * at its end, a track on one side only; identical keys said without sampling; an entry compared
 * with itself all zeros; the bounds and refusals; and an entry's versions. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "testutil.h"
#include "zouna_writer.h"

static struct daemon_proc d;
static char *dir;
static json_int_t a, b, again;

#define NODE "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\""

/* A clip: hips translation keyed at 0, 1, 2 (the key at 1 raised by `raise`), arm rotation from
 * rest to `turn` radians about z over 2 s, and, with `tail`, a third track. */
static char *clip(double raise, double turn, int tail, const char *pad)
{
	char *doc = malloc(4096);
	snprintf(doc, 4096,
	         "{\"name\": \"walk\",%s \"duration\": 2, \"targets\": [{\"schema\": " NODE
	         ", \"object\": 0, \"name\": \"hips\"}, {\"schema\": " NODE
	         ", \"object\": 1, \"name\": \"arm\"}%s], \"samplers\": [{\"value\": {\"type\": "
	         "\"FLOAT3\"}, \"times\": [0, 1, 2], \"values\": [0,0,0, 1,%g,0, 2,0,0]}, "
	         "{\"value\": {\"type\": \"FLOAT4\"}, \"semantic\": \"NORMALIZED_QUATERNION\", "
	         "\"times\": [0, 2], \"values\": [0,0,0,1, 0,0,%.9g,%.9g]}%s], \"channels\": "
	         "[{\"target\": 0, \"property\": 1, \"sampler\": 0}, {\"target\": 1, \"property\": "
	         "2, \"sampler\": 1}%s]}",
	         pad, tail ? ", {\"schema\": " NODE ", \"object\": 2, \"name\": \"tail\"}" : "",
	         raise, sin(turn / 2), cos(turn / 2),
	         tail ? ", {\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0], \"values\": [0,0,1]}"
	              : "",
	         tail ? ", {\"target\": 2, \"property\": 1, \"sampler\": 2}" : "");
	return doc;
}

/* Uploads a clip made by clip() (and frees it); its id. */
static json_int_t upload(const char *name, char *doc)
{
	json_int_t id = http_upload_one(&d, name, doc, strlen(doc));

	free(doc);
	return id;
}

static void start(void)
{
	char db[512];

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/compare.db", dir);
	if (daemon_start(&d, db, "--max-samples 100000") < 0)
		exit(1);
	a = upload("a.json", clip(0, 1.0, 0, ""));
	b = upload("b.json", clip(0.5, 1.3, 1, ""));
	again = upload("again.json", clip(0, 1.0, 0, " ")); /* other bytes, the same keys */
}

static void stop(void)
{
	if (daemon_stop(&d) != 0) {
		printf("FAIL: the daemon exited badly\n");
		exit(1);
	}
	testutil_remove_tree(dir);
	free(dir);
}

static double at(const json_t *row, const char *key, size_t i)
{
	return json_number_value(json_array_get(json_object_get(row, key), i));
}

START_TEST(the_known_differences_are_found)
{
	char path[128];
	json_t *j, *hips, *arm;

	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)a, (long long)b);
	j = http_get_json(&d, path, 200);
	ck_assert(json_is_false(json_object_get(j, "identical")));
	ck_assert_int_eq(json_array_size(json_object_get(j, "pairs")), 2);
	hips = json_array_get(json_object_get(j, "pairs"), 0);
	arm = json_array_get(json_object_get(j, "pairs"), 1);
	/* the key raised by 0.5 at t = 1: y only; keys at the same times, other values */
	ck_assert(json_is_false(json_object_get(hips, "identical")));
	ck_assert(json_is_true(json_object_get(json_object_get(hips, "keys"), "times_equal")));
	ck_assert(json_is_false(json_object_get(json_object_get(hips, "keys"), "values_equal")));
	ck_assert_double_eq_tol(at(hips, "largest", 1), 0.5, 1e-6);
	ck_assert_double_eq_tol(at(hips, "at", 1), 1.0, 1e-6);
	ck_assert_double_eq(at(hips, "largest", 0), 0);
	ck_assert_double_eq(at(hips, "largest", 2), 0);
	/* a triangle of height 0.5 over [0, 2]: RMS 0.5 / sqrt(3) */
	ck_assert_double_eq_tol(at(hips, "rms", 1), 0.5 / sqrt(3.0), 1e-3);
	/* the rotation: an angle, 0.15 t apart, so 0.3 rad at t = 2 */
	ck_assert_str_eq(json_string_value(json_object_get(arm, "compared_as")), "angle (radians)");
	ck_assert_int_eq(json_array_size(json_object_get(arm, "largest")), 1);
	ck_assert_double_eq_tol(at(arm, "largest", 0), 0.3, 1e-5);
	ck_assert_double_eq_tol(at(arm, "at", 0), 2.0, 1e-6);
	/* the tail: on b's side only */
	ck_assert_int_eq(json_array_size(json_object_get(j, "only_in_a")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(j, "only_in_b")), 1);
	ck_assert_str_eq(
	    json_string_value(json_object_get(
	        json_object_get(json_array_get(json_object_get(j, "only_in_b"), 0), "target"),
	        "name")),
	    "tail");
	json_decref(j);
}
END_TEST

/* Both tracks are compared over the whole of both: b's keys past a's last count (hips: a holds
 * x = 1 from 1 s, b goes on to 3 at 2 s); and a rotation is compared as a turn: b's keys are
 * a's negated (-q turns as q does), so the arm differs by no angle at all. */
START_TEST(the_whole_of_both_tracks_is_compared_as_turns)
{
	static const char *const docs[2] = {
	    "{\"name\": \"short\", \"duration\": 1, \"targets\": [{\"schema\": " NODE
	    ", \"object\": 0, \"name\": \"hips\"}, {\"schema\": " NODE
	    ", \"object\": 1, \"name\": \"arm\"}], \"samplers\": [{\"value\": {\"type\": "
	    "\"FLOAT3\"}, \"times\": [0, 1], \"values\": [0,0,0, 1,0,0]}, {\"value\": {\"type\": "
	    "\"FLOAT4\"}, \"semantic\": \"NORMALIZED_QUATERNION\", \"times\": [0, 1], \"values\": "
	    "[0,0,0,1, 0,0,0.6,0.8]}], \"channels\": [{\"target\": 0, \"property\": 1, "
	    "\"sampler\": 0}, {\"target\": 1, \"property\": 2, \"sampler\": 1}]}",
	    "{\"name\": \"long\", \"duration\": 2, \"targets\": [{\"schema\": " NODE
	    ", \"object\": 0, \"name\": \"hips\"}, {\"schema\": " NODE
	    ", \"object\": 1, \"name\": \"arm\"}], \"samplers\": [{\"value\": {\"type\": "
	    "\"FLOAT3\"}, \"times\": [0, 1, 2], \"values\": [0,0,0, 1,0,0, 3,0,0]}, {\"value\": "
	    "{\"type\": \"FLOAT4\"}, \"semantic\": \"NORMALIZED_QUATERNION\", \"times\": [0, 1], "
	    "\"values\": [0,0,0,-1, 0,0,-0.6,-0.8]}], \"channels\": [{\"target\": 0, "
	    "\"property\": 1, \"sampler\": 0}, {\"target\": 1, \"property\": 2, \"sampler\": "
	    "1}]}"};
	json_int_t ids[2];
	char path[128];
	json_t *j, *hips, *arm;

	for (int i = 0; i < 2; i++)
		ids[i] =
		    http_upload_one(&d, i ? "long.json" : "short.json", docs[i], strlen(docs[i]));
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld&count=201", (long long)ids[0],
	         (long long)ids[1]);
	j = http_get_json(&d, path, 200);
	hips = json_array_get(json_object_get(j, "pairs"), 0);
	arm = json_array_get(json_object_get(j, "pairs"), 1);
	ck_assert_double_eq_tol(at(hips, "largest", 0), 2.0, 1e-6);
	ck_assert_double_eq_tol(at(hips, "at", 0), 2.0, 1e-6);
	ck_assert_str_eq(json_string_value(json_object_get(arm, "compared_as")), "angle (radians)");
	ck_assert_msg(at(arm, "largest", 0) < 1e-3, "a turn and its negation differ by %g rad",
	              at(arm, "largest", 0));
	json_decref(j);
}
END_TEST

/* The same keys under two engines' rules are not the same track: a Zouna keyframer holds its
 * last value before its first key, a Radient clip its first; the pair is sampled, not said
 * identical. */
START_TEST(the_same_keys_under_other_rules_are_not_identical)
{
	static const char radient[] =
	    "{\"name\": \"bare\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"5A0E7D1C-4F2B-4B8E-9C3A-A5B0C0DE0001\", \"object\": 0, \"name\": "
	    "\"KeyframerFloatLinear_Z\"}], \"samplers\": [{\"value\": {\"type\": \"FLOAT\"}, "
	    "\"times\": [0.5, 1], \"values\": [1, 3]}], \"channels\": [{\"target\": 0, "
	    "\"property\": 1, \"sampler\": 0}]}";
	struct zkey keys[2] = {{.time = 0.5f, .v = {1}}, {.time = 1.0f, .v = {3}}};
	json_int_t zouna, clip;
	struct zbuf file;
	char path[128];
	json_t *j, *pair;

	zbuf_init(&file, 0);
	ck_assert_int_eq(
	    zouna_write_keyframer(&file, "KeyframerFloatLinear_Z", 0, keys, 2, ZW_DEFAULT), 0);
	zouna = http_upload_one(&d, "bare.KeyframerFloatLinear_Z", file.data, file.len);
	zbuf_free(&file);
	clip = http_upload_one(&d, "bare.json", radient, strlen(radient));
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)zouna,
	         (long long)clip);
	j = http_get_json(&d, path, 200);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "pairs")), 1);
	pair = json_array_get(json_object_get(j, "pairs"), 0);
	ck_assert_msg(json_is_false(json_object_get(pair, "identical")), "%s", json_dumps(pair, 0));
	ck_assert(json_is_false(json_object_get(j, "identical")));
	json_decref(j);
}
END_TEST

START_TEST(identical_keys_are_said_without_sampling)
{
	char path[128];
	json_t *j, *row;
	size_t i;

	for (int self = 0; self < 2; self++) {
		snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)a,
		         (long long)(self ? a : again));
		j = http_get_json(&d, path, 200);
		ck_assert(json_is_true(json_object_get(j, "identical")));
		json_array_foreach(json_object_get(j, "pairs"), i, row)
		{
			ck_assert(json_is_true(json_object_get(row, "identical")));
			ck_assert_ptr_null(json_object_get(row, "sampled")); /* no sampling */
			for (size_t c = 0; c < json_array_size(json_object_get(row, "largest"));
			     c++) {
				ck_assert_double_eq(at(row, "largest", c), 0);
				ck_assert_double_eq(at(row, "rms", c), 0);
			}
		}
		json_decref(j);
	}
}
END_TEST

START_TEST(csv_and_refusals)
{
	struct http_reply r;
	char path[160];
	json_t *j;

	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld&format=csv&count=201",
	         (long long)a, (long long)b);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "text/csv");
	ck_assert_ptr_nonnull(
	    strstr(r.body, "a_track,b_track,name,component,largest,at,rms,identical\n"));
	ck_assert_ptr_nonnull(strstr(r.body, ",1,0.5,1,")); /* y: 0.5 at t = 1 */
	{                                                   /* the rotation: 0.3 rad */
		const char *angle = strstr(r.body, ",angle,");
		ck_assert_ptr_nonnull(angle);
		ck_assert_double_eq_tol(strtod(angle + 7, NULL), 0.3, 1e-5);
	}
	ck_assert_ptr_nonnull(strstr(r.body, ",,,,,only_in_b\n")); /* the tail */
	http_reply_cleanup(&r);
	j = http_get_json(&d, "/api/compare?b=1", 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "a");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=99999", (long long)a);
	json_decref(http_get_json(&d, path, 404));
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld&count=1", (long long)a,
	         (long long)b);
	json_decref(http_get_json(&d, path, 400));
	/* --max-samples 100000: 2 pairs x 2 tracks x 30,000 times is too many */
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld&count=30000", (long long)a,
	         (long long)b);
	j = http_get_json(&d, path, 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "count");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld&format=xml", (long long)a,
	         (long long)b);
	json_decref(http_get_json(&d, path, 400));
}
END_TEST

/* The three clips share a name, so a handle, and a class: each lists the other two as its
 * versions, newest first, with who uploaded them, when, from which file. */
START_TEST(versions_are_the_entries_of_one_handle_and_class)
{
	char path[64];
	json_t *j, *v;

	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)a);
	j = http_get_json(&d, path, 200);
	v = json_object_get(j, "versions");
	ck_assert_int_eq(json_array_size(v), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(v, 0), "id")), again);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(v, 1), "id")), b);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(v, 1), "filename")),
	                 "b.json");
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_array_get(v, 1), "decoder_version")), 1);
	ck_assert_ptr_nonnull(
	    json_string_value(json_object_get(json_array_get(v, 1), "uploaded_at")));
	json_decref(j);
}
END_TEST

/* Tracks pair by what they move, not by where it sits: by name when the objects are numbered
 * otherwise (the other clip lists arm before hips), by handle for Zouna bones, whose names
 * (once known) the pairs show. */
START_TEST(tracks_pair_by_handle_else_name_else_object)
{
	static const char reordered[] =
	    "{\"name\": \"walk\", \"duration\": 2, \"targets\": [{\"schema\": " NODE
	    ", \"object\": 0, \"name\": \"arm\"}, {\"schema\": " NODE
	    ", \"object\": 1, \"name\": \"hips\"}], \"samplers\": [{\"value\": {\"type\": "
	    "\"FLOAT3\"}, \"times\": [0, 1, 2], \"values\": [0,0,0, 1,0,0, 2,0,0]}, {\"value\": "
	    "{\"type\": \"FLOAT4\"}, \"semantic\": \"NORMALIZED_QUATERNION\", \"times\": [0, 2], "
	    "\"values\": [0,0,0,1, 0,0,0.479425539,0.877582562]}], \"channels\": [{\"target\": 1, "
	    "\"property\": 1, \"sampler\": 0}, {\"target\": 0, \"property\": 2, \"sampler\": 1}]}";
	static struct zkey trans[2] = {{.time = 0, .v = {0, 1, 0}}, {.time = 2, .v = {0, 3, 0}}};
	struct znode nodes[1] = {
	    {hash_asobo32("Bip01 Pelvis", 12), 0, 0, {0, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}};
	struct zanimation z = {0};
	struct http_reply r;
	struct zbuf zb;
	json_int_t other, bones;
	json_t *j, *pair, *target;
	char path[128], handle[16];

	other = http_upload_one(&d, "reordered.json", reordered, strlen(reordered));
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)a, (long long)other);
	j = http_get_json(&d, path, 200);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "pairs")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "only_in_a")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "only_in_b")), 0);
	ck_assert(json_is_true(json_object_get(j, "identical")));
	pair = json_array_get(json_object_get(j, "pairs"), 0);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(pair, "target"), "name")), "hips");
	ck_assert_int_eq(json_integer_value(json_object_get(pair, "b")), 0);
	json_decref(j);

	z.max_time = 2.0f;
	z.keys[3] = trans, z.counts[3] = 2;
	z.nodes = nodes, z.node_count = 1;
	z.name_crc = hash_asobo32("sway", 4);
	zbuf_init(&zb, 0);
	zouna_write_animation(&zb, &z, 16, 0);
	bones = http_upload_one(&d, "sway.Animation_Z", zb.data, zb.len);
	zbuf_free(&zb);
	ck_assert_int_eq(
	    http_request(&d, "POST", "/api/names", "Bip01 Pelvis\n", 13, "text/plain", &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)bones,
	         (long long)bones);
	j = http_get_json(&d, path, 200);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "pairs")), 1);
	target = json_object_get(json_array_get(json_object_get(j, "pairs"), 0), "target");
	snprintf(handle, sizeof(handle), "0x%08X", (unsigned)hash_asobo32("Bip01 Pelvis", 12));
	ck_assert_str_eq(json_string_value(json_object_get(target, "handle")), handle);
	ck_assert_str_eq(json_string_value(json_object_get(target, "handle_name")), "Bip01 Pelvis");
	json_decref(j);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("compare");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_add_test(tc, the_known_differences_are_found);
	tcase_add_test(tc, the_whole_of_both_tracks_is_compared_as_turns);
	tcase_add_test(tc, the_same_keys_under_other_rules_are_not_identical);
	tcase_add_test(tc, identical_keys_are_said_without_sampling);
	tcase_add_test(tc, csv_and_refusals);
	tcase_add_test(tc, versions_are_the_entries_of_one_handle_and_class);
	tcase_add_test(tc, tracks_pair_by_handle_else_name_else_object);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
