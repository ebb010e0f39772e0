/* check_edits.c: POST /api/resources/{id}/edits against a real daemon on loopback, on a real
 * SQLite catalogue and on a real PostgreSQL cluster: a key given a new value is saved as a new
 * version of the entry, of the same class and handle, whose file is byte for byte the game's
 * file with that key (every other slice kept); a glTF entry's is a .glb with the edit and
 * every other track as it was; keys inserted and deleted land where they were asked; an edit
 * that gives the entry's own bytes again stores nothing new; every bad edit is refused by its
 * path with nothing stored; and an edit is counted against --answer-memory before it is made. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"
#include "testutil.h"
#include "zouna_writer.h"

static struct daemon_proc d;
static char *dir, db[600];

static void start(void)
{
	dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(testutil_catalog(dir, "edits.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
}

static void start_sqlite(void)
{
	testutil_backend = TESTUTIL_SQLITE;
	start();
}

static void start_postgres(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
	start();
}

static void stop(void)
{
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}

/* POST edits to entry id: asserts the status; the answer's JSON (the caller's). */
static json_t *post_edits(json_int_t id, const char *body, long status)
{
	char path[128];
	struct http_reply r;
	json_t *j;

	snprintf(path, sizeof(path), "/api/resources/%lld/edits", (long long)id);
	ck_assert_int_eq(http_request(&d, "POST", path, body, strlen(body), "application/json", &r),
	                 0);
	ck_assert_msg(r.status == status, "%s: %ld %.600s", body, r.status, r.body);
	j = http_json(&r);
	http_reply_cleanup(&r);
	ck_assert_ptr_nonnull(j);
	return j;
}

static json_int_t entries_stored(void)
{
	json_t *h = http_get_json(&d, "/api/health", 200);
	json_int_t n =
	    json_integer_value(json_object_get(json_object_get(h, "counts"), "resources"));
	json_decref(h);
	return n;
}

/* The translation track of the example animation: three components, key 1's x is trans_x. */
static int translation_track(json_int_t id, float trans_x, json_t **keys)
{
	char path[160];
	json_t *e;
	int count;

	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	e = http_get_json(&d, path, 200);
	count = (int)json_array_size(json_object_get(e, "tracks"));
	json_decref(e);
	for (int n = 0; n < count; n++) {
		json_t *k;
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%d/keys", (long long)id,
		         n);
		k = http_get_json(&d, path, 200);
		json_t *v = json_array_get(json_object_get(k, "values"), 1);
		if (json_integer_value(json_object_get(k, "components")) == 3 &&
		    json_array_size(v) == 3 && json_number_value(json_array_get(v, 0)) == trans_x) {
			*keys = k;
			return n;
		}
		json_decref(k);
	}
	ck_abort_msg("no translation track with key 1 at x = %g", trans_x);
	return -1;
}

START_TEST(an_edited_key_is_saved_as_the_games_file_with_that_key)
{
	struct zbuf v1, v2;
	uint32_t bone[3];
	json_t *keys, *out, *entry, *compare;
	char body[512], path[200];
	struct http_reply r;
	json_int_t first, made;
	size_t i, identical = 0, pairs;
	json_t *pair;

	zouna_write_example_animation(&v1, 0, 16, 1.5f, bone);
	zouna_write_example_animation(&v2, 0, 16, 1.75f, bone);
	first = http_upload_one(&d, "walk.Animation_Z", v1.data, v1.len);
	int n = translation_track(first, 1.5f, &keys);
	json_t *v = json_array_get(json_object_get(keys, "values"), 1);
	snprintf(body, sizeof(body),
	         "{\"edits\": [{\"track\": %d, \"key\": 1, \"value\": [1.75, %.9g, %.9g]}], "
	         "\"note\": \"longer stride\"}",
	         n, json_number_value(json_array_get(v, 1)),
	         json_number_value(json_array_get(v, 2)));
	json_decref(keys);
	ck_assert_int_eq(entries_stored(), 1);
	out = post_edits(first, body, 201);
	entry = json_array_get(json_object_get(out, "resources"), 0);
	made = json_integer_value(json_object_get(entry, "id"));
	ck_assert_int_ne(made, first);
	ck_assert_str_eq(json_string_value(json_object_get(entry, "status")), "created");
	ck_assert_str_eq(json_string_value(json_object_get(entry, "class")), "Animation_Z");
	ck_assert_str_eq(json_string_value(json_object_get(entry, "filename")), "walk.Animation_Z");
	ck_assert_int_eq(json_integer_value(json_object_get(out, "from")), first);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(entry, "note")),
	                             "edited from entry 1: track"));
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(entry, "note")), "; longer stride"));
	ck_assert_int_eq(entries_stored(), 2);

	/* the stored upload is the game's file with that key: every other byte as it was */
	snprintf(path, sizeof(path), "/api/resources/%lld/raw", (long long)made);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.length, v2.len);
	ck_assert_msg(memcmp(r.body, v2.data, v2.len) == 0, "not the game's file with that key");
	http_reply_cleanup(&r);

	/* a version of the same handle: listed among the first one's versions */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)first);
	json_t *got = http_get_json(&d, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(entry, "crc32")),
	                 json_string_value(json_object_get(got, "crc32")));
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(got, "versions"), 0), "id")),
	                 made);
	json_decref(got);

	/* compared with the first, only the edited track differs */
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)first,
	         (long long)made);
	compare = http_get_json(&d, path, 200);
	pairs = json_array_size(json_object_get(compare, "pairs"));
	json_array_foreach(json_object_get(compare, "pairs"), i, pair)
	{
		if (json_is_true(json_object_get(pair, "identical")))
			identical++;
		else
			ck_assert_int_eq(json_integer_value(json_object_get(pair, "a")), n);
	}
	ck_assert_uint_gt(pairs, 2);
	ck_assert_uint_eq(identical, pairs - 1);
	json_decref(compare);
	json_decref(out);

	/* the same edit again gives the same bytes: nothing new is stored */
	out = post_edits(first, body, 200);
	entry = json_array_get(json_object_get(out, "resources"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(entry, "id")), made);
	ck_assert_int_eq(entries_stored(), 2);
	json_decref(out);
	zbuf_free(&v1);
	zbuf_free(&v2);
}
END_TEST

START_TEST(keys_inserted_and_deleted_land_where_asked)
{
	struct zbuf b;
	uint32_t bone[3];
	json_t *keys, *out, *after;
	char body[512], path[160];
	json_int_t first, made;

	zouna_write_example_animation(&b, 1, 0, 1.5f, bone);
	first = http_upload_one(&d, "jump.Animation_Z", b.data, b.len);
	int n = translation_track(first, 1.5f, &keys);
	size_t before = json_array_size(json_object_get(keys, "times"));
	double t0 = json_number_value(json_array_get(json_object_get(keys, "times"), 0));
	double t1 = json_number_value(json_array_get(json_object_get(keys, "times"), 1));
	double mid = (t0 + t1) / 2;
	ck_assert_uint_ge(before, 2);
	snprintf(
	    body, sizeof(body),
	    "{\"edits\": [{\"track\": %d, \"insert\": %.9g}, {\"track\": %d, \"delete\": %zu}]}", n,
	    mid, n, before - 1);
	out = post_edits(first, body, 201);
	made = json_integer_value(
	    json_object_get(json_array_get(json_object_get(out, "resources"), 0), "id"));
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/%d/keys", (long long)made, n);
	after = http_get_json(&d, path, 200);
	json_t *times = json_object_get(after, "times");
	ck_assert_uint_eq(json_array_size(times), before);
	/* the inserted key at the nearest time the file's keys hold (frames of 1/30 s at most
	 * a frame away), between the first two */
	double got = json_number_value(json_array_get(times, 1));
	ck_assert_msg(got > t0 && got < t1 + 1e-6 && fabs(got - mid) <= 1.0 / 30,
	              "inserted at %g, asked %g", got, mid);
	json_t *edits = json_array_get(json_object_get(out, "edits"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(edits, "keys_before")),
	                 (json_int_t)before);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(edits, "deleted"), 0)),
	                 (json_int_t)before - 1);
	json_decref(after);
	json_decref(keys);
	json_decref(out);
	zbuf_free(&b);
}
END_TEST

/* A glTF entry's new version is a .glb of it with the key edited: same class and handle, its
 * other tracks identical, the rotation given in degrees as the page shows it. */
START_TEST(a_gltf_entry_is_saved_as_a_glb_with_the_edit)
{
	static const float times[] = {0, 0.5f, 1};
	static const float moves[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
	static const float turns[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	struct gltf_writer w;
	size_t length;
	uint8_t *file;
	json_t *out, *entry, *keys, *compare, *pair;
	char path[200];
	json_int_t first, made;
	size_t i;

	gltf_writer_init(&w);
	int root = gltf_writer_node(&w, "hips", 0);
	int input = gltf_writer_accessor(&w, 5126, "SCALAR", 3, times, sizeof(times), 0, 1);
	int move = gltf_writer_accessor(&w, 5126, "VEC3", 3, moves, sizeof(moves), 0, 0);
	int turn = gltf_writer_accessor(&w, 5126, "VEC4", 3, turns, sizeof(turns), 0, 0);
	gltf_writer_channel(&w, 0, root, "translation", "LINEAR", input, move);
	gltf_writer_channel(&w, 0, root, "rotation", "LINEAR", input, turn);
	json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 0), "name",
	                    json_string("sway"));
	file = gltf_writer_glb(&w, &length);
	first = http_upload_one(&d, "sway.glb", file, length);
	free(file);
	gltf_writer_cleanup(&w);

	out = post_edits(first,
	                 "{\"edits\": [{\"track\": 1, \"key\": 1, \"degrees\": [0, 90, 0]}]}", 201);
	entry = json_array_get(json_object_get(out, "resources"), 0);
	made = json_integer_value(json_object_get(entry, "id"));
	ck_assert_str_eq(json_string_value(json_object_get(entry, "family")), "gltf");
	ck_assert_str_eq(json_string_value(json_object_get(entry, "filename")), "sway.glb");
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)first);
	json_t *got = http_get_json(&d, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(entry, "crc32")),
	                 json_string_value(json_object_get(got, "crc32")));
	ck_assert_str_eq(json_string_value(json_object_get(entry, "class")),
	                 json_string_value(json_object_get(got, "class")));
	json_decref(got);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/1/keys", (long long)made);
	keys = http_get_json(&d, path, 200);
	json_t *q = json_array_get(json_object_get(keys, "values"), 1);
	ck_assert_float_eq_tol(json_number_value(json_array_get(q, 1)), sqrt(0.5), 1e-6);
	ck_assert_float_eq_tol(json_number_value(json_array_get(q, 3)), sqrt(0.5), 1e-6);
	json_decref(keys);
	snprintf(path, sizeof(path), "/api/compare?a=%lld&b=%lld", (long long)first,
	         (long long)made);
	compare = http_get_json(&d, path, 200);
	ck_assert_uint_eq(json_array_size(json_object_get(compare, "pairs")), 2);
	json_array_foreach(json_object_get(compare, "pairs"), i, pair)
	    ck_assert_int_eq(json_is_true(json_object_get(pair, "identical")),
	                     json_integer_value(json_object_get(pair, "a")) == 0);
	json_decref(compare);
	json_decref(out);
}
END_TEST

/* An edit is counted against --answer-memory before it is made: a 1.6 MB keyframer edited on
 * a daemon allowed 1 MiB of answers is a 503 naming the option, and nothing is stored; the
 * default allows it. */
START_TEST(an_edit_is_counted_against_the_answer_memory_before_it_is_made)
{
	struct daemon_proc small;
	const char *body = "{\"edits\": [{\"track\": 0, \"key\": 1, \"value\": [2.5]}]}";
	struct http_reply r;
	struct zbuf b;
	json_int_t id;
	char path[96];

	ck_assert_int_eq(zouna_write_long_keyframer(&b, 100000), 0);
	id = http_upload_one(&d, "long.KeyframerFloat_Z", b.data, b.len);
	ck_assert_int_eq(daemon_start(&small, db, "--answer-memory 1M"), 0);
	snprintf(path, sizeof(path), "/api/resources/%lld/edits", (long long)id);
	ck_assert_int_eq(
	    http_request(&small, "POST", path, body, strlen(body), "application/json", &r), 0);
	ck_assert_msg(r.status == 503 && strstr(r.body, "--answer-memory") &&
	                  strstr(r.body, "the edited file"),
	              "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&small), 0);
	ck_assert_int_eq(entries_stored(), 1);
	json_decref(post_edits(id, body, 201)); /* the default allows it */
	ck_assert_int_eq(entries_stored(), 2);
	zbuf_free(&b);
}
END_TEST

START_TEST(bad_edits_are_refused_by_path_and_store_nothing)
{
	static const struct {
		const char *body, *path;
		long status;
	} cases[] = {
	    {"not json", "edits", 400},
	    {"[1]", "edits", 422},
	    {"{\"edits\": [{\"track\": 99, \"delete\": 0}]}", "edits[0].track", 422},
	    {"{\"edits\": [{\"track\": 0, \"key\": 99, \"time\": 1}]}", "edits[0].key", 422},
	    {"{\"edits\": [{\"track\": 0, \"key\": 0, \"value\": [1, 2, 3, 4, 5, 6, 7]}]}",
	     "edits[0].value", 422},
	    {"{\"edits\": [], \"note\": \"x\"}", "edits", 422},
	    {"{\"edits\": [{\"track\": 0, \"delete\": 0}], \"notes\": \"x\"}", "notes", 422},
	    {"{\"edits\": [{\"track\": 0, \"delete\": 0}], \"note\": 3}", "note", 422},
	};
	struct zbone bones[2];
	struct zskeleton sk = {.layout = ZSKEL_RAT,
	                       .name_crc = 0x5EE1E700u,
	                       .bones = bones,
	                       .bone_count = 2,
	                       .material_count = 1};
	struct zbuf b, skel;
	uint32_t bone[3];
	json_int_t id, skel_id;

	zouna_write_example_animation(&b, 0, 0, 1.5f, bone);
	id = http_upload_one(&d, "walk.Animation_Z", b.data, b.len);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		json_t *out = post_edits(id, cases[i].body, cases[i].status);
		json_t *e = json_object_get(out, "error");
		ck_assert_msg(
		    strcmp(json_string_value(json_object_get(e, "path")), cases[i].path) == 0,
		    "%s: %s", cases[i].body, json_string_value(json_object_get(e, "message")));
		json_decref(out);
		ck_assert_int_eq(entries_stored(), 1);
	}
	json_decref(post_edits(99, "{\"edits\": [{\"track\": 0, \"delete\": 0}]}", 404));
	/* a class whose edits are not written back (a skeleton: a rest pose, no keys): refused
	 * by id */
	memset(bones, 0, sizeof(bones));
	for (int i = 0; i < 2; i++) {
		bones[i].name_crc = 0xB0E50000u + (uint32_t)i;
		bones[i].parent = i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
	}
	zbuf_init(&skel, 0);
	zouna_write_skeleton(&skel, &sk, 0, 0);
	skel_id = http_upload_one(&d, "rig.Skel_Z", skel.data, skel.len);
	json_t *out = post_edits(skel_id, "{\"edits\": [{\"track\": 0, \"delete\": 0}]}", 422);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "error"), "path")),
	                 "id");
	json_decref(out);
	ck_assert_int_eq(entries_stored(), 2);
	zbuf_free(&b);
	zbuf_free(&skel);
}
END_TEST

static void add_tests(Suite *s, int pg)
{
	TCase *tc = tcase_create(pg ? "daemon-postgresql" : "daemon");

	tcase_add_checked_fixture(tc, pg ? start_postgres : start_sqlite, stop);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, an_edited_key_is_saved_as_the_games_file_with_that_key);
	tcase_add_test(tc, keys_inserted_and_deleted_land_where_asked);
	tcase_add_test(tc, a_gltf_entry_is_saved_as_a_glb_with_the_edit);
	tcase_add_test(tc, bad_edits_are_refused_by_path_and_store_nothing);
	tcase_add_test(tc, an_edit_is_counted_against_the_answer_memory_before_it_is_made);
	suite_add_tcase(s, tc);
}

int main(void)
{
	Suite *s = suite_create("edits");

	testutil_add_both_backends(s, "check_edits", add_tests);
	return testutil_run(s);
}
