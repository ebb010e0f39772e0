/* check_catalog.c: the catalogue on a real SQLite file, and the same tests on a real
 * PostgreSQL database (a throwaway cluster): migrations, put, dedupe, list with filters and
 * keyset paging, tracks read back byte-identical, delete, reopen, tokens, names, rigs. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../src/catalog/catalog_backend.h" /* the statements, to read SQLite's plans for them */
#include "catalog/catalog.h"
#include "formats/format.h"
#include "base/hash.h"
#include "catalog/schema.h"
#include "testutil.h"
#include "zouna_writer.h"

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
	struct catalog_put_counts counts;
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
	created = catalog_put(cat, &cu, &result, &counts, &err);
	ck_assert_msg(created != NULL, "%s", err.message);
	ck_assert_uint_eq(counts.created, 1);
	ck_assert_uint_eq(counts.existing, 0);
	ck_assert_uint_eq(json_array_size(created), 1);
	id = json_integer_value(json_object_get(json_array_get(created, 0), "id"));
	/* the same bytes again: nothing new, the existing entry */
	json_decref(created);
	created = catalog_put(cat, &cu, &result, &counts, &err);
	ck_assert_uint_eq(counts.created, 0);
	ck_assert_uint_eq(counts.existing, 1);
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
	char cursor[64];

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
	ck_assert_int_eq(json_integer_value(json_object_get(page, "total")), 5);
	snprintf(cursor, sizeof(cursor), "%s",
	         json_string_value(json_object_get(page, "next_cursor")));
	q.cursor = cursor;
	json_decref(page);
	page = catalog_list(cat, &q, &err);
	ck_assert_int_eq(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(page, "resources"), 0), "id")),
	                 ids[2]);
	snprintf(cursor, sizeof(cursor), "%s",
	         json_string_value(json_object_get(page, "next_cursor")));
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
	         "VALUES ('ab', 1, x'00', NULL, 0); INSERT INTO blobs VALUES ('big', 302144, "
	         "CAST(printf('%%.*c', 262144, 'a') || printf('%%.*c', 40000, 'b') AS BLOB), NULL, "
	         "0); INSERT INTO resources (blob_sha256, family, "
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
	/* the bytes moved into chunks of 128 KiB (schema/009): 'a' x 262144 then 'b' x 40000,
	 * read back a chunk at a time across both boundaries */
	{
		static const int64_t at[] = {0, 131071, 131072, 262143, 262144, 302143};
		char got[4] = {0};
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			ck_assert_int_eq(catalog_raw_read(cat, "big", at[i], got, 1, &err), 1);
			ck_assert_int_eq(got[0], at[i] < 262144 ? 'a' : 'b');
		}
		/* a read is one chunk's: it stops at the chunk's end */
		{
			char *block = malloc(200000);
			ck_assert_int_eq(catalog_raw_read(cat, "big", 131000, block, 200000, &err),
			                 72);
			ck_assert_int_eq(catalog_raw_read(cat, "big", 262144, block, 200000, &err),
			                 40000);
			ck_assert_int_eq(catalog_raw_read(cat, "big", 302144, block, 200000, &err),
			                 0);
			free(block);
		}
		ck_assert_int_eq(catalog_raw_read(cat, "ab", 0, got, 4, &err), 1);
		ck_assert_int_eq(got[0], 0);
	}
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

/* Group commit: jobs handed to the pool's writing thread while it is busy go into one
 * transaction together, each in its own savepoint. */
struct test_job {
	struct catalog_job job; /* first */
	const char *name;
	int fail;      /* store the clip, then refuse: its rows must go */
	int block;     /* wait for `released` before storing anything */
	int existed;   /* what catalog_put said */
	int64_t id;    /* the entry stored or found */
	int done;      /* 1: stored, -1: refused */
	char why[128]; /* the error given to done */
};

static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static int blocking, released;
static char events[64]; /* s for a store, d for a done, with the job's letter */
static size_t event_count;

static void job_event(char what, const char *name)
{
	pthread_mutex_lock(&jobs_lock);
	if (event_count + 2 < sizeof(events)) {
		events[event_count++] = what;
		events[event_count++] = name[0];
	}
	pthread_cond_broadcast(&jobs_cond);
	pthread_mutex_unlock(&jobs_lock);
}

static int test_job_store(struct catalog_job *job, struct catalog *cat, struct error *err)
{
	struct test_job *t = (struct test_job *)job;
	char doc[512], sha[SHA256_HEX_SIZE];
	struct upload up = {0};
	struct decode_result result;
	struct catalog_upload cu;
	struct catalog_put_counts counts;
	json_t *stored;

	if (t->block) {
		pthread_mutex_lock(&jobs_lock);
		blocking = 1;
		pthread_cond_broadcast(&jobs_cond);
		while (!released)
			pthread_cond_wait(&jobs_cond, &jobs_lock);
		pthread_mutex_unlock(&jobs_lock);
	}
	job_event('s', t->name);
	snprintf(doc, sizeof(doc), "{\"name\": \"%s\", \"duration\": 1}", t->name);
	up.data = (const uint8_t *)doc;
	up.length = strlen(doc);
	decode_result_init(&result);
	if (format_decode(&up, &result, err) < 0)
		return -1;
	sha256_hex(doc, strlen(doc), sha);
	cu = (struct catalog_upload){doc, strlen(doc), sha, "clip.json", NULL, NULL};
	stored = catalog_put(cat, &cu, &result, &counts, err);
	t->existed = stored && counts.created == 0;
	decode_result_cleanup(&result);
	if (!stored)
		return -1;
	t->id = json_integer_value(json_object_get(json_array_get(stored, 0), "id"));
	json_decref(stored);
	if (t->fail) {
		error_set(err, ERROR_BAD_PARAMETER, "name", -1, "name: '%s' is refused on purpose",
		          t->name);
		return -1;
	}
	return 0;
}

static void test_job_done(struct catalog_job *job, const struct error *err)
{
	struct test_job *t = (struct test_job *)job;

	snprintf(t->why, sizeof(t->why), "%.120s", err ? err->message : "");
	job_event('d', t->name);
	pthread_mutex_lock(&jobs_lock);
	t->done = err ? -1 : 1;
	pthread_cond_broadcast(&jobs_cond);
	pthread_mutex_unlock(&jobs_lock);
}

static int64_t count_named(struct catalog *cat, const char *name)
{
	struct catalog_query q = {0};
	struct error err;
	json_t *page;
	int64_t n;

	error_init(&err);
	q.name = name;
	q.limit = 50;
	page = catalog_list(cat, &q, &err);
	ck_assert_msg(page != NULL, "%s", err.message);
	n = (int64_t)json_array_size(json_object_get(page, "resources"));
	json_decref(page);
	return n;
}

/* The names a search for q lists, joined by spaces, in id order. */
static void search_names(struct catalog *cat, const char *q_text, char *out, size_t size)
{
	struct catalog_query q = {0};
	struct error err;
	json_t *page, *e;
	size_t i, used = 0;

	error_init(&err);
	q.q = q_text;
	q.limit = 50;
	q.ascending = 1;
	page = catalog_list(cat, &q, &err);
	ck_assert_msg(page != NULL, "%s", err.message);
	out[0] = '\0';
	json_array_foreach(json_object_get(page, "resources"), i, e)
	{
		used += (size_t)snprintf(out + used, size - used, "%s%s", used ? " " : "",
		                         json_string_value(json_object_get(e, "name")));
		ck_assert_uint_lt(used, size);
	}
	json_decref(page);
}

/* The search index follows every write, committed with it: entries made, made and removed in
 * one transaction, removed after their commit, rolled back; on SQLite (which indexes a
 * transaction's entries at its commit, schema/012) nothing is left waiting and FTS5's own
 * check of the index passes. */
START_TEST(the_search_index_follows_every_write)
{
	struct error err;
	struct catalog *cat;
	char names[256];
	int64_t kept, dropped, later;

	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(catalog_begin(cat, &err), 0);
	kept = put_clip(cat, "tango one", 1);
	dropped = put_clip(cat, "tango two", 2);
	put_clip(cat, "uniform", 3);
	ck_assert_int_eq(catalog_commit(cat, &err), 0);
	ck_assert_int_eq(catalog_delete(cat, dropped, &err), 0);
	search_names(cat, "ango", names, sizeof(names));
	ck_assert_str_eq(names, "tango one");
	search_names(cat, "nifor", names, sizeof(names));
	ck_assert_str_eq(names, "uniform");
	/* a committed entry leaves the index; one rolled back never enters it */
	ck_assert_int_eq(catalog_delete(cat, kept, &err), 0);
	later = put_clip(cat, "tango three", 4);
	ck_assert_int_eq(catalog_begin(cat, &err), 0);
	put_clip(cat, "tango four", 5);
	catalog_rollback(cat);
	search_names(cat, "ango", names, sizeof(names));
	ck_assert_str_eq(names, "tango three");
	ck_assert_int_gt(later, kept);
	if (testutil_backend != TESTUTIL_POSTGRES) {
		sqlite3 *db;
		sqlite3_stmt *st;
		ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
		ck_assert_int_eq(sqlite3_prepare_v2(db,
		                                    "SELECT count(*) FROM resources_text_pending",
		                                    -1, &st, NULL),
		                 SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_int_eq(sqlite3_column_int64(st, 0), 0);
		sqlite3_finalize(st);
		/* an entry made and removed before its transaction's commit only leaves its note:
		 * a 'delete' of an entry never indexed would damage the index */
		ck_assert_msg(
		    sqlite3_exec(db,
		                 "BEGIN; INSERT INTO resources (blob_sha256, part, family, "
		                 "class, name, crc32, crc32_source, uploaded_at, track_count, "
		                 "structure) SELECT blob_sha256, 99, family, class, 'tango "
		                 "five', crc32, crc32_source, uploaded_at, track_count, "
		                 "structure FROM resources WHERE name = 'uniform'; DELETE FROM "
		                 "resources WHERE part = 99; COMMIT",
		                 NULL, NULL, NULL) == SQLITE_OK,
		    "%s", sqlite3_errmsg(db));
		ck_assert_msg(
		    sqlite3_exec(db,
		                 "INSERT INTO resources_text (resources_text, rank) VALUES "
		                 "('integrity-check', 0)",
		                 NULL, NULL, NULL) == SQLITE_OK,
		    "%s", sqlite3_errmsg(db));
		sqlite3_close(db);
		search_names(cat, "ango", names, sizeof(names));
		ck_assert_str_eq(names, "tango three");
	}
	catalog_close(cat);
}
END_TEST

START_TEST(grouped_writes_keep_each_job_apart)
{
	struct catalog_pool *pool = catalog_pool_create(db_path, 0);
	struct test_job jobs[] = {
	    {.name = "blocker", .block = 1},
	    {.name = "alpha"},
	    {.name = "bravo", .fail = 1},
	    {.name = "charlie"},
	    {.name = "alpha"}, /* the same bytes as the second job, in the same transaction */
	};
	size_t n = sizeof(jobs) / sizeof(jobs[0]);
	struct catalog *cat;
	struct error err;

	ck_assert_ptr_nonnull(pool);
	ck_assert(catalog_pool_groups_writes(pool));
	for (size_t i = 0; i < n; i++) {
		jobs[i].job.store = test_job_store;
		jobs[i].job.done = test_job_done;
	}
	/* the blocker holds the writing thread while the others queue behind it */
	ck_assert_int_eq(catalog_pool_submit(pool, &jobs[0].job), 0);
	pthread_mutex_lock(&jobs_lock);
	while (!blocking)
		pthread_cond_wait(&jobs_cond, &jobs_lock);
	pthread_mutex_unlock(&jobs_lock);
	for (size_t i = 1; i < n; i++)
		ck_assert_int_eq(catalog_pool_submit(pool, &jobs[i].job), 0);
	pthread_mutex_lock(&jobs_lock);
	released = 1;
	pthread_cond_broadcast(&jobs_cond);
	for (size_t i = 0; i < n; i++)
		while (!jobs[i].done)
			pthread_cond_wait(&jobs_cond, &jobs_lock);
	pthread_mutex_unlock(&jobs_lock);
	/* the four queued jobs ran in one transaction: every store before any answer, in the
	 * order they came */
	ck_assert_str_eq(events, "sbdbsasbscsadadbdcda");
	ck_assert_int_eq(jobs[1].done, 1);
	ck_assert_int_eq(jobs[1].existed, 0);
	ck_assert_int_eq(jobs[2].done, -1);
	ck_assert_str_eq(jobs[2].why, "name: 'bravo' is refused on purpose");
	ck_assert_int_eq(jobs[3].done, 1);
	ck_assert_int_eq(jobs[4].done, 1);
	ck_assert_int_eq(jobs[4].existed, 1);
	ck_assert_int_eq(jobs[4].id, jobs[1].id);
	catalog_pool_stop_writes(pool);
	ck_assert(!catalog_pool_groups_writes(pool));
	ck_assert_int_eq(catalog_pool_submit(pool, &jobs[1].job), -1);
	/* read back on a connection of its own: the refused job left nothing */
	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(count_named(cat, "blocker"), 1);
	ck_assert_int_eq(count_named(cat, "alpha"), 1);
	ck_assert_int_eq(count_named(cat, "bravo"), 0);
	ck_assert_int_eq(count_named(cat, "charlie"), 1);
	/* and no event: the refused job's "created", noted before its savepoint was rolled
	 * back, went with it; the three stored entries have one each */
	{
		struct catalog_event *events_written;
		size_t written;
		ck_assert_msg(catalog_events_after(cat, 0, 100, &events_written, &written, &err) ==
		                  0,
		              "%s", err.message);
		ck_assert_uint_eq(written, 3);
		for (size_t i = 0; i < written; i++)
			ck_assert_str_eq(events_written[i].kind, "created");
		catalog_events_free(events_written, written);
	}
	catalog_close(cat);
	catalog_pool_free(pool);
}
END_TEST

static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* A busy writer's WAL is copied into the database file by a thread of its own while the
 * writer goes on: the file grows although the writer never checkpoints (it does so itself
 * only past 16,000 frames), and in WAL mode nothing but a checkpoint writes that file. */
START_TEST(the_checkpointer_copies_the_wal_beside_the_writer)
{
	struct catalog_pool *pool = catalog_pool_create(db_path, 0);
	struct catalog *writer;
	struct error err;
	char wal[600];
	long long before;
	int grew = 0;

	ck_assert_ptr_nonnull(pool);
	error_init(&err);
	writer = catalog_pool_writer(pool, &err);
	ck_assert_msg(writer != NULL, "%s", err.message);
	before = file_size(db_path);
	for (int i = 0; i < 300; i++) { /* two transactions each: some 4,000 frames */
		char name[32];
		snprintf(name, sizeof(name), "clip %d", i);
		put_clip(writer, name, (float)i);
	}
	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	ck_assert_int_gt(file_size(wal), 1000LL * 4096);
	for (int tries = 0; tries < 300 && !grew; tries++) {
		struct timespec pause = {0, 10 * 1000 * 1000};
		grew = file_size(db_path) > before;
		nanosleep(&pause, NULL);
	}
	ck_assert_msg(grew, "the database file stayed at %lld bytes (%lld before), the WAL at %lld",
	              file_size(db_path), before, file_size(wal));
	catalog_pool_release_writer(pool, writer);
	catalog_pool_free(pool);
}
END_TEST

/* A rig is stored bit for bit (a negative zero, a subnormal, an inverse bind matrix), read
 * back with the names given to its handles, copied with its entry, and replaced by a redecode;
 * the lookups "which skeleton fits" makes use the rig nodes' indexes. */
START_TEST(rigs_are_stored_bit_for_bit_and_copied)
{
	struct zbone bones[3];
	struct zskeleton sk = {
	    .layout = ZSKEL_WALLE, .name_crc = 0xABCDu, .bones = bones, .bone_count = 3};
	struct zbuf b;
	struct upload up = {0};
	struct decode_result result;
	struct catalog_upload cu;
	struct catalog_put_counts counts;
	struct catalog_changes changes;
	struct copy_report report;
	struct error err;
	struct catalog *cat, *to;
	struct rig read, copied;
	char sha[SHA256_HEX_SIZE], target[600];
	json_t *created;
	int64_t id, *ids;
	size_t count;
	uint32_t subnormal = 1;

	memset(bones, 0, sizeof(bones));
	for (int i = 0; i < 3; i++) {
		bones[i].name_crc = hash_asobo32(i == 2 ? "TETE" : "BONE", 4) + (uint32_t)(i == 1);
		bones[i].parent = i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
	}
	zbuf_init(&b, 0);
	zouna_write_skeleton(&b, &sk, 0, 0);
	up.data = b.data;
	up.length = b.len;
	up.filename = "hero.Skel_Z";
	error_init(&err);
	decode_result_init(&result);
	ck_assert_msg(format_decode(&up, &result, &err) == 0, "%s", err.message);
	/* floats a text round trip would change */
	result.resources[0]->rig.nodes[1].translation[0] = -0.0f;
	memcpy(&result.resources[0]->rig.nodes[1].translation[1], &subnormal, 4);
	result.resources[0]->rig.nodes[2].has_inverse_bind = 1;
	for (int k = 0; k < 16; k++)
		result.resources[0]->rig.nodes[2].inverse_bind[k] = (float)k / 3.0f;
	sha256_hex(b.data, b.len, sha);
	cu = (struct catalog_upload){b.data, b.len, sha, "hero.Skel_Z", NULL, NULL};
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	created = catalog_put(cat, &cu, &result, &counts, &err);
	ck_assert_msg(created != NULL, "%s", err.message);
	id = json_integer_value(json_object_get(json_array_get(created, 0), "id"));
	json_decref(created);
	json_decref(catalog_add_names(cat, "TETE\n", 5, &err));
	ck_assert_int_eq(catalog_read_rig(cat, id, &read, &err), 0);
	ck_assert(rig_equal(&read, &result.resources[0]->rig));
	ck_assert_mem_eq(&read.nodes[1].translation[1], &subnormal, 4);
	ck_assert(signbit(read.nodes[1].translation[0]));
	ck_assert_str_eq(read.nodes[2].handle_name, "TETE");
	ck_assert_ptr_null(read.nodes[0].handle_name);
	/* found by handle, and by nothing else */
	{
		struct catalog_rig_key key = {RIG_KEY_HANDLE, read.nodes[2].handle, NULL, 0};
		ck_assert_int_eq(catalog_rigs_with(cat, &key, &ids, &count, &err), 0);
		ck_assert_uint_eq(count, 1);
		ck_assert_int_eq(ids[0], id);
		free(ids);
		key = (struct catalog_rig_key){RIG_KEY_SOURCE, 0, NULL, 1}; /* bones have handles */
		ck_assert_int_eq(catalog_rigs_with(cat, &key, &ids, &count, &err), 0);
		ck_assert_uint_eq(count, 0);
		free(ids);
	}
	/* copied with its entry, bit for bit */
	snprintf(target, sizeof(target), "%s/copy.db", dir);
	to = catalog_open(target, &err);
	ck_assert_msg(to != NULL, "%s", err.message);
	ck_assert_msg(catalog_copy(cat, to, COPY_INTO_EMPTY, NULL, NULL, &report, &err) == 0, "%s",
	              err.message);
	ck_assert_int_eq(report.rig_nodes, 3);
	ck_assert_int_eq(catalog_read_rig(to, id, &copied, &err), 0);
	ck_assert(rig_equal(&copied, &read));
	rig_cleanup(&copied);
	catalog_close(to);
	/* a decoding without a rig replaces it, and says so */
	rig_cleanup(&result.resources[0]->rig);
	ck_assert_msg(catalog_replace_decoded(cat, id, result.resources[0], &changes, &err) == 0,
	              "%s", err.message);
	ck_assert(changes.rig && changes.changed);
	ck_assert_int_eq(catalog_read_rig(cat, id, &copied, &err), 0);
	ck_assert_uint_eq(copied.count, 0);
	rig_cleanup(&read);
	catalog_close(cat);
	decode_result_cleanup(&result);
	zbuf_free(&b);
}
END_TEST

/* SQLite's plans for those lookups (the catalogue's own statements, catalog_sql.c): each
 * searches its index and reads nothing else (no scan of the index, no read of the table: a
 * name common to 10,000 rigs is 10,000 rows of one index). */
START_TEST(rig_lookups_use_their_indexes)
{
	static const char *const no_dialect[ST_COUNT] = {NULL};
	static const enum statement queries[] = {ST_RIGS_BY_HANDLE, ST_RIGS_BY_NAME,
	                                         ST_RIGS_BY_SOURCE};
	static const char *const indexes[] = {"SEARCH rig_nodes USING COVERING INDEX "
	                                      "rig_nodes_by_handle ",
	                                      "SEARCH rig_nodes USING COVERING INDEX "
	                                      "rig_nodes_by_name ",
	                                      "SEARCH rig_nodes USING COVERING INDEX "
	                                      "rig_nodes_unnamed "};
	struct error err;
	struct catalog *cat = catalog_open(db_path, &err);
	sqlite3 *db;

	ck_assert_msg(cat != NULL, "%s", err.message);
	catalog_close(cat);
	ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	for (int q = 0; q < 3; q++) {
		char sql[300], plan[600] = "";
		sqlite3_stmt *st;
		snprintf(sql, sizeof(sql), "EXPLAIN QUERY PLAN %s",
		         catalog_sql(no_dialect, queries[q]));
		ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW)
			strncat(plan, (const char *)sqlite3_column_text(st, 3),
			        sizeof(plan) - strlen(plan) - 1);
		sqlite3_finalize(st);
		ck_assert_msg(strstr(plan, indexes[q]) != NULL, "%s: %s",
		              catalog_sql(no_dialect, queries[q]), plan);
	}
	sqlite3_close(db);
}
END_TEST

/* A PostgreSQL catalogue of schema 3 (bytes in blobs.bytes) is brought up to date on open:
 * its bytes moved into chunks of 128 KiB (schema/postgresql/004), read back across both
 * boundaries. */
START_TEST(an_older_postgresql_catalogue_is_migrated)
{
	static const int64_t at[] = {0, 131071, 131072, 262143, 262144, 302143};
	struct error err;
	struct catalog *cat;
	char got[4], *block;

	ck_assert_int_eq(testutil_postgres_exec(db_path, "CREATE TABLE animdex_schema (version "
	                                                 "integer PRIMARY KEY, file text NOT NULL, "
	                                                 "applied_at timestamptz NOT NULL DEFAULT "
	                                                 "now())"),
	                 0);
	for (unsigned i = 0; i < postgres_migration_count && postgres_migrations[i].version <= 3;
	     i++) {
		char record[160];
		ck_assert_int_eq(testutil_postgres_exec(db_path, postgres_migrations[i].sql), 0);
		snprintf(record, sizeof(record),
		         "INSERT INTO animdex_schema (version, file) VALUES (%u, '%s')",
		         postgres_migrations[i].version, postgres_migrations[i].file);
		ck_assert_int_eq(testutil_postgres_exec(db_path, record), 0);
	}
	ck_assert_int_eq(testutil_postgres_exec(
	                     db_path, "INSERT INTO blobs (sha256, size, bytes, uploaded_at) VALUES "
	                              "('big', 302144, convert_to(repeat('a', 262144) || "
	                              "repeat('b', 40000), 'UTF8'), 0), ('empty', 0, '', 0)"),
	                 0);
	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	ck_assert_int_eq(catalog_schema_version(cat), (int)LATEST);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		ck_assert_int_eq(catalog_raw_read(cat, "big", at[i], got, 1, &err), 1);
		ck_assert_int_eq(got[0], at[i] < 262144 ? 'a' : 'b');
	}
	block = malloc(200000);
	ck_assert_int_eq(catalog_raw_read(cat, "big", 131000, block, 200000, &err), 72);
	ck_assert_int_eq(catalog_raw_read(cat, "big", 262144, block, 200000, &err), 40000);
	free(block);
	/* an empty upload has no chunk */
	ck_assert_int_eq(catalog_raw_read(cat, "empty", 0, got, 4, &err), -1);
	catalog_close(cat);
}
END_TEST

/* An upload's chunks are checked to add up to its size when it is read whole (a redecode):
 * a chunk lost or cut short is an error naming the bytes, never a shorter file decoded. */
START_TEST(chunks_that_do_not_add_up_are_an_error)
{
	struct error err;
	struct catalog *cat = catalog_open(db_path, &err);
	struct catalog_stored stored;
	int64_t id;
	sqlite3 *db;

	ck_assert_msg(cat != NULL, "%s", err.message);
	id = put_clip(cat, "whole", 1.0f);
	error_init(&err);
	ck_assert_msg(catalog_get_stored(cat, id, &stored, &err) == 0, "%s", err.message);
	catalog_stored_cleanup(&stored);
	catalog_close(cat);
	ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "UPDATE blob_chunks SET bytes = substr(bytes, 1, 10)",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	cat = catalog_open(db_path, &err);
	ck_assert_msg(cat != NULL, "%s", err.message);
	error_init(&err);
	ck_assert_int_eq(catalog_get_stored(cat, id, &stored, &err), -1);
	ck_assert_msg(strstr(err.message, "do not add up"), "%s", err.message);
	catalog_close(cat);
}
END_TEST

/* A name as the list orders it: its ASCII letters in lower case, none as "". */
static void sort_name(const json_t *row, char *out, size_t size)
{
	const char *name = json_string_value(json_object_get(row, "name"));

	snprintf(out, size, "%s", name ? name : "");
	for (char *p = out; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
}

/* Pages through the whole list in q's order, two rows a page, checking "total" on each page;
 * the rows in order into rows (a new array). */
static json_t *every_page(struct catalog *cat, struct catalog_query *q, json_int_t total)
{
	json_t *rows = json_array(), *page, *row;
	char cursor[512];
	struct error err;
	size_t i;

	q->limit = 2;
	q->cursor = NULL;
	for (int pages = 0; pages < 20; pages++) {
		error_init(&err);
		page = catalog_list(cat, q, &err);
		ck_assert_msg(page != NULL, "%s", err.message);
		ck_assert_int_eq(json_integer_value(json_object_get(page, "total")), total);
		json_array_foreach(json_object_get(page, "resources"), i, row)
		    json_array_append(rows, row);
		if (!json_object_get(page, "next_cursor")) {
			json_decref(page);
			return rows;
		}
		snprintf(cursor, sizeof(cursor), "%s",
		         json_string_value(json_object_get(page, "next_cursor")));
		q->cursor = cursor;
		json_decref(page);
	}
	ck_abort_msg("the list did not end");
	return rows;
}

/* Every order pages through every entry once, in that order, on both databases: names by the
 * lower case of their ASCII letters (then by their bytes, so "éclair" last), ties by id in the
 * same direction; sizes descending; a cursor of another order is refused, naming it. */
START_TEST(lists_sort_by_a_field_and_page_in_its_order)
{
	static const char *const names[] = {"bravo",
	                                    "Alpha",
	                                    "charlie",
	                                    "alpha",
	                                    "Delta",
	                                    "bravo",
	                                    "\xc3\xa9"
	                                    "clair"};
	struct catalog_query q = {0};
	struct catalog *cat;
	struct error err;
	json_t *rows;
	char a[64], b[64];

	error_init(&err);
	cat = catalog_open(db_path, &err);
	ck_assert_ptr_nonnull(cat);
	for (size_t i = 0; i < 7; i++)
		put_clip(cat, names[i], (float)(i + 1) * 1000.0f);
	for (int ascending = 0; ascending < 2; ascending++) {
		q.sort = CATALOG_SORT_NAME;
		q.ascending = ascending;
		rows = every_page(cat, &q, 7);
		ck_assert_uint_eq(json_array_size(rows), 7);
		for (size_t i = 1; i < 7; i++) {
			const json_t *x = json_array_get(rows, i - 1), *y = json_array_get(rows, i);
			json_int_t ix = json_integer_value(json_object_get(x, "id")),
			           iy = json_integer_value(json_object_get(y, "id"));
			int c;
			sort_name(x, a, sizeof(a));
			sort_name(y, b, sizeof(b));
			c = strcmp(a, b);
			ck_assert_msg(ascending ? (c < 0 || (c == 0 && ix < iy))
			                        : (c > 0 || (c == 0 && ix > iy)),
			              "%s (%lld) before %s (%lld)", a, (long long)ix, b,
			              (long long)iy);
		}
		sort_name(json_array_get(rows, ascending ? 6 : 0), a, sizeof(a));
		ck_assert_str_eq(a, "\xc3\xa9"
		                    "clair");
		json_decref(rows);
	}
	q.sort = CATALOG_SORT_SIZE;
	q.ascending = 0;
	rows = every_page(cat, &q, 7);
	ck_assert_uint_eq(json_array_size(rows), 7);
	for (size_t i = 1; i < 7; i++) {
		json_int_t sx =
		    json_integer_value(json_object_get(json_array_get(rows, i - 1), "size"));
		json_int_t sy =
		    json_integer_value(json_object_get(json_array_get(rows, i), "size"));
		ck_assert_int_ge(sx, sy);
	}
	json_decref(rows);
	/* a filter's total, and an id cursor given to the name order */
	q.sort = CATALOG_SORT_NAME;
	q.ascending = 1;
	q.q = "bravo";
	rows = every_page(cat, &q, 2);
	ck_assert_uint_eq(json_array_size(rows), 2);
	json_decref(rows);
	q.cursor = "3";
	error_init(&err);
	ck_assert_ptr_null(catalog_list(cat, &q, &err));
	ck_assert_int_eq(err.code, ERROR_BAD_PARAMETER);
	ck_assert_str_eq(err.path, "cursor");
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
	tcase_add_test(tc, rigs_are_stored_bit_for_bit_and_copied);
	tcase_add_test(tc, lists_sort_by_a_field_and_page_in_its_order);
	tcase_add_test(tc, the_search_index_follows_every_write);
	tcase_set_timeout(tc, 30);
}

static Suite *catalog_suite(void)
{
	Suite *s = suite_create("catalog");
	TCase *tc = tcase_create("sqlite");

	tcase_add_checked_fixture(tc, setup, teardown);
	add_tests(tc);
	tcase_add_test(tc, an_old_catalogue_is_migrated_in_place); /* SQLite's own history */
	tcase_add_test(tc, grouped_writes_keep_each_job_apart);    /* a local file's writes */
	tcase_add_test(tc, the_checkpointer_copies_the_wal_beside_the_writer);
	tcase_add_test(tc, rig_lookups_use_their_indexes);
	tcase_add_test(tc, chunks_that_do_not_add_up_are_an_error);
	suite_add_tcase(s, tc);
	if (testutil_postgres_wanted()) {
		tc = tcase_create("postgresql");
		tcase_add_checked_fixture(tc, setup_postgres, teardown);
		add_tests(tc);
		tcase_add_test(tc, an_older_postgresql_catalogue_is_migrated);
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
