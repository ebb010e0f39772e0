/* check_catalog.c: the catalogue on a real SQLite file, and the same tests on a real
 * PostgreSQL database (a throwaway cluster): migrations, put, dedupe, list with filters and
 * keyset paging, tracks read back byte-identical, delete, reopen, tokens, names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "format.h"
#include "hash.h"
#include "schema.h"
#include "testutil.h"

#define LATEST                                                           \
	(testutil_backend == TESTUTIL_POSTGRES                           \
	     ? postgres_migrations[postgres_migration_count - 1].version \
	     : schema_migrations[schema_migration_count - 1].version)

static char *dir;
static char db_path[512];

static void setup(void)
{
	dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(testutil_catalog(dir, "catalog.db", db_path, sizeof(db_path)));
}

static void setup_postgres(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
	setup();
}

static void teardown(void)
{
	testutil_remove_tree(dir);
	free(dir);
}

/* Stores a one-track clip named `name`; returns the new entry's id. */
static int64_t put_clip(struct catalog *cat, const char *name, float scale)
{
	char doc[1024], sha[SHA256_HEX_SIZE];
	struct upload up = {0};
	struct decode_result result;
	struct catalog_upload cu;
	struct error err;
	json_t *created;
	int existed;
	int64_t id;

	snprintf(doc, sizeof(doc),
	         "{\"name\": \"%s\", \"duration\": 2, \"targets\": [{\"schema\": "
	         "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0}], \"samplers\": "
	         "[{\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0, 2], \"values\": [0,0,0, "
	         "%g,%g,%g]}], \"channels\": [{\"target\": 0, \"property\": 3, \"sampler\": 0}]}",
	         name, scale, scale, scale);
	up.data = (const uint8_t *)doc;
	up.length = strlen(doc);
	up.filename = "clip.json";
	error_init(&err);
	decode_result_init(&result);
	ck_assert_msg(format_decode(&up, &result, &err) == 0, "%s", err.message);
	sha256_hex(doc, strlen(doc), sha);
	cu = (struct catalog_upload){doc, strlen(doc), sha, "clip.json", "a note", NULL};
	created = catalog_put(cat, &cu, &result, &existed, &err);
	ck_assert_msg(created != NULL, "%s", err.message);
	ck_assert_int_eq(existed, 0);
	ck_assert_uint_eq(json_array_size(created), 1);
	id = json_integer_value(json_object_get(json_array_get(created, 0), "id"));
	/* the same bytes again: nothing new, the existing entry */
	json_decref(created);
	created = catalog_put(cat, &cu, &result, &existed, &err);
	ck_assert_int_eq(existed, 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(created, 0), "id")), id);
	json_decref(created);
	decode_result_cleanup(&result);
	return id;
}

START_TEST(migrations_create_the_schema_once)
{
	struct error err;
	struct catalog *cat;

	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(catalog_schema_version(cat), (int)LATEST);
	catalog_close(cat);
	cat = catalog_open(db_path, &err); /* again: nothing to apply, nothing fails */
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(catalog_schema_version(cat), (int)LATEST);
	catalog_close(cat);
}
END_TEST

START_TEST(put_get_list_page_delete_reopen)
{
	struct error err;
	struct catalog *cat;
	struct catalog_query q = {0};
	struct catalog_track track;
	json_t *page, *entry;
	int64_t ids[5], count;
	float values[6];

	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_ptr_nonnull(cat);
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "clip%d", i);
		ids[i] = put_clip(cat, name, (float)(i + 1));
	}
	/* newest first, two per page, cursors until the end */
	q.limit = 2;
	page = catalog_list(cat, &q, &err);
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(page, "resources"), 0), "id")),
	                 ids[4]);
	ck_assert_ptr_nonnull(json_object_get(page, "next_cursor"));
	q.before_id = atoll(json_string_value(json_object_get(page, "next_cursor")));
	json_decref(page);
	page = catalog_list(cat, &q, &err);
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(page, "resources"), 0), "id")),
	                 ids[2]);
	q.before_id = atoll(json_string_value(json_object_get(page, "next_cursor")));
	json_decref(page);
	page = catalog_list(cat, &q, &err);
	ck_assert_uint_eq(json_array_size(json_object_get(page, "resources")), 1);
	ck_assert_ptr_null(json_object_get(page, "next_cursor"));
	json_decref(page);
	/* filters */
	memset(&q, 0, sizeof(q));
	q.limit = 50;
	q.has_crc32 = 1;
	q.crc32 = hash_crc32_lower("clip3", 5);
	page = catalog_list(cat, &q, &err);
	ck_assert_uint_eq(json_array_size(json_object_get(page, "resources")), 1);
	json_decref(page);
	memset(&q, 0, sizeof(q));
	q.limit = 50;
	q.q = "LIP_"; /* LIKE wildcards are literal: no match */
	page = catalog_list(cat, &q, &err);
	ck_assert_uint_eq(json_array_size(json_object_get(page, "resources")), 0);
	json_decref(page);
	q.q = "IP2";
	page = catalog_list(cat, &q, &err);
	ck_assert_uint_eq(json_array_size(json_object_get(page, "resources")), 1);
	json_decref(page);
	/* the whole entry, and a track read back as stored */
	entry = catalog_get(cat, ids[1], &err);
	ck_assert_str_eq(json_string_value(json_object_get(entry, "name")), "clip1");
	ck_assert_uint_eq(json_array_size(json_object_get(entry, "tracks")), 1);
	json_decref(entry);
	ck_assert_int_eq(catalog_load_track(cat, ids[1], 0, &track, &err), 0);
	ck_assert_uint_eq(track.sampler.key_count, 2);
	memcpy(values, track.sampler.values, sizeof(values));
	ck_assert_float_eq(values[3], 2.0f);
	ck_assert_str_eq(track.name, "object 0 scale");
	catalog_track_cleanup(&track);
	ck_assert_int_eq(catalog_load_track(cat, ids[1], 1, &track, &err), -1);
	ck_assert_int_eq(err.code, ERROR_NOT_FOUND);
	/* delete removes the entry, its tracks and its bytes */
	error_init(&err);
	ck_assert_int_eq(catalog_delete(cat, ids[1], &err), 0);
	ck_assert_int_eq(catalog_delete(cat, ids[1], &err), -1);
	ck_assert_int_eq(err.code, ERROR_NOT_FOUND);
	catalog_count(cat, "resources", &count, &err);
	ck_assert_int_eq(count, 4);
	catalog_count(cat, "tracks", &count, &err);
	ck_assert_int_eq(count, 4);
	catalog_count(cat, "blobs", &count, &err);
	ck_assert_int_eq(count, 4);
	catalog_close(cat);
	/* everything is still there after reopening */
	cat = catalog_open(db_path, &err);
	entry = catalog_get(cat, ids[4], &err);
	ck_assert_ptr_nonnull(entry);
	json_decref(entry);
	catalog_count(cat, "resources", &count, &err);
	ck_assert_int_eq(count, 4);
	catalog_close(cat);
}
END_TEST

START_TEST(a_newer_schema_is_refused)
{
	struct error err;
	struct catalog *cat;
	char cmd[700];

	error_init(&err);
	cat = catalog_open(db_path, &err);
	catalog_close(cat);
	if (testutil_backend == TESTUTIL_POSTGRES)
		ck_assert_int_eq(testutil_postgres_exec(db_path,
		                                        "INSERT INTO animdex_schema (version, "
		                                        "file) VALUES (99, '099_future.sql')"),
		                 0);
	else
		snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA user_version = 99' 2>/dev/null",
		         db_path);
	if (testutil_backend == TESTUTIL_SQLITE && system(cmd) != 0) {
		printf("SKIP: a newer schema is refused: no sqlite3 command\n");
		fflush(stdout);
		return;
	}
	cat = catalog_open(db_path, &err);
	ck_assert_ptr_null(cat);
	ck_assert_msg(strstr(err.message, "newer") != NULL, "%s", err.message);
}
END_TEST

/* A file made by the first schema is brought up to date, and keeps its rows. */
START_TEST(an_old_catalogue_is_migrated_in_place)
{
	struct error err;
	struct catalog *cat;
	struct catalog_track track;
	char cmd[2400], sql[256];
	int64_t count;

	snprintf(sql, sizeof(sql), "%s/schema/001_initial.sql", getenv("ANIMDEX_SRCDIR"));
	snprintf(cmd, sizeof(cmd),
	         "sqlite3 '%s' < '%s' && sqlite3 '%s' \"PRAGMA user_version = 1; INSERT INTO blobs "
	         "VALUES ('ab', 1, x'00', NULL, 0); INSERT INTO resources (blob_sha256, family, "
	         "class, crc32, crc32_source, uploaded_at, track_count, structure) VALUES ('ab', "
	         "'radient', 'RadientAnimationClip', 7, 'name', 0, 1, '{}'); INSERT INTO tracks "
	         "VALUES (1, 0, 'old', 'S', '0', NULL, '1', 0, 'FLOAT', 1, 'STEP', "
	         "'COMPONENT_WISE', 1, 0, 0, x'00000000', x'0000803F');\" 2>&1",
	         db_path, sql, db_path);
	if (system(cmd) != 0) {
		printf("SKIP: an old catalogue is migrated in place: no sqlite3 command\n");
		fflush(stdout);
		return;
	}
	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(catalog_schema_version(cat), (int)LATEST);
	catalog_count(cat, "resources", &count, &err);
	ck_assert_int_eq(count, 1);
	ck_assert_int_eq(catalog_load_track(cat, 1, 0, &track, &err), 0);
	ck_assert_int_eq(track.events, 0); /* the new column's default */
	ck_assert_float_eq(((float *)track.sampler.values)[0], 1.0f);
	catalog_track_cleanup(&track);
	catalog_close(cat);
}
END_TEST

/* Token checks compare every digit of the SHA-256: a stored hash that agrees with a wrong
 * token's in all but the last digits does not let it write; revoked tokens are refused. */
START_TEST(tokens_are_compared_in_full)
{
	struct error err;
	struct catalog *cat;
	char right[SHA256_HEX_SIZE], near[SHA256_HEX_SIZE], name[80];

	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_ptr_nonnull(cat);
	ck_assert_int_eq(catalog_token_check(cat, "adx_anything", name, sizeof(name)),
	                 TOKEN_NONE_EXIST);
	sha256_hex("adx_right", 9, right);
	ck_assert_int_eq(catalog_token_add(cat, "alice", right, &err), 0);
	/* a hash sharing all but its last digit with the wrong token's */
	sha256_hex("adx_wrong", 9, near);
	near[63] = near[63] == '0' ? '1' : '0';
	ck_assert_int_eq(catalog_token_add(cat, "mallory", near, &err), 0);
	ck_assert_int_eq(catalog_token_check(cat, "adx_right", name, sizeof(name)), TOKEN_VALID);
	ck_assert_str_eq(name, "alice");
	ck_assert_int_eq(catalog_token_check(cat, "adx_wrong", name, sizeof(name)), TOKEN_WRONG);
	ck_assert_int_eq(catalog_token_check(cat, NULL, name, sizeof(name)), TOKEN_MISSING);
	ck_assert_int_eq(catalog_token_revoke(cat, "alice", &err), 0);
	ck_assert_int_eq(catalog_token_check(cat, "adx_right", name, sizeof(name)), TOKEN_REVOKED);
	ck_assert_int_eq(catalog_token_count(cat), 1);
	catalog_close(cat);
}
END_TEST

/* What the API promises whichever database holds the catalogue: `name` matches whatever the
 * case of its ASCII letters, and only those; `q` is a literal substring (% _ \ and quotes
 * are themselves); handles find entries and names; classes are counted in byte order. */
START_TEST(filters_names_and_handles_behave_alike)
{
	static const char *const names[] = {"Walk_100%", "walk_1000", "it's", "back\\\\slash",
	                                    "\xc3\x89t\xc3\xa9"};
	struct catalog_query q = {0};
	struct error err;
	struct catalog *cat;
	json_t *page, *added, *h;
	int64_t ids[5];

	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	for (int i = 0; i < 5; i++)
		ids[i] = put_clip(cat, names[i], (float)(i + 1));
	q.limit = 50;
	/* name: case-insensitive for ASCII letters only */
	q.name = "WALK_100%";
	page = catalog_list(cat, &q, &err);
	ck_assert_uint_eq(json_array_size(json_object_get(page, "resources")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(page, "resources"), 0), "id")),
	                 ids[0]);
	json_decref(page);
	q.name = "\xc3\xa9t\xc3\xa9"; /* "été" does not match "Été" */
	page = catalog_list(cat, &q, &err);
	ck_assert_uint_eq(json_array_size(json_object_get(page, "resources")), 0);
	json_decref(page);
	q.name = NULL;
	/* q: literal wildcards, quotes and backslashes */
	{
		static const struct {
			const char *q;
			size_t matches;
		} cases[] = {{"100%", 1}, {"_100", 2}, {"%", 1}, {"_", 2},        {"'", 1},
		             {"\\", 1},   {"WALK", 2}, {"x", 0}, {"\xc3\x89", 1}, {"\xc3\xa9", 1}};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			q.q = cases[i].q;
			page = catalog_list(cat, &q, &err);
			ck_assert_msg(page != NULL, "%s", err.message);
			ck_assert_msg(json_array_size(json_object_get(page, "resources")) ==
			                  cases[i].matches,
			              "q=%s: %zu matches", cases[i].q,
			              json_array_size(json_object_get(page, "resources")));
			json_decref(page);
		}
		q.q = NULL;
	}
	/* names and handles */
	{
		static const char list[] = "Walk_100%\nhips\n# a comment\nhips\n";
		added = catalog_add_names(cat, list, sizeof(list) - 1, &err);
	}
	ck_assert_msg(added != NULL, "%s", err.message);
	ck_assert_int_eq(json_integer_value(json_object_get(added, "added")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(added, "known")), 1);
	json_decref(added);
	page = catalog_get(cat, ids[0], &err);
	ck_assert_str_eq(json_string_value(json_object_get(page, "crc32_name")), "Walk_100%");
	h = catalog_handle(
	    cat, (uint32_t)json_integer_value(json_object_get(page, "crc32_decimal")), &err);
	json_decref(page);
	ck_assert_uint_eq(json_array_size(json_object_get(h, "resources")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(h, "names"), 0), "name")),
	                 "Walk_100%");
	json_decref(h);
	page = catalog_classes(cat, &err);
	ck_assert_uint_eq(json_array_size(page), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(page, 0), "count")), 5);
	json_decref(page);
	catalog_close(cat);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, migrations_create_the_schema_once);
	tcase_add_test(tc, put_get_list_page_delete_reopen);
	tcase_add_test(tc, a_newer_schema_is_refused);
	tcase_add_test(tc, tokens_are_compared_in_full);
	tcase_add_test(tc, filters_names_and_handles_behave_alike);
	tcase_set_timeout(tc, 30);
}

static Suite *catalog_suite(void)
{
	Suite *s = suite_create("catalog");
	TCase *tc = tcase_create("sqlite");

	tcase_add_checked_fixture(tc, setup, teardown);
	add_tests(tc);
	tcase_add_test(tc, an_old_catalogue_is_migrated_in_place); /* SQLite's own history */
	suite_add_tcase(s, tc);
	if (testutil_postgres_wanted()) {
		tc = tcase_create("postgresql");
		tcase_add_checked_fixture(tc, setup_postgres, teardown);
		add_tests(tc);
		suite_add_tcase(s, tc);
	} else {
		suite_add_tcase(s, testutil_postgres_skipped());
	}
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (testutil_postgres_wanted() && !testutil_postgres())
		fprintf(stderr, "check_catalog: the PostgreSQL tests will fail: no cluster\n");
	sr = srunner_create(catalog_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
