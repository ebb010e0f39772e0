/* check_upgrade.c: a catalogue written by animdex 0.1.0 (tests/data/legacy-v1/catalog.db,
 * schema version 3, before the Zouna corrections of doc/formats.md 1.3 and 1.5) upgraded by today's
 * animdex: the schema migrates when the daemon opens it, the daemon says how many entries an
 * older decoder made, `animdexd redecode` decodes them again in place, and every value the
 * API then serves follows the corrected reading, while ids, names, handles, notes and upload
 * details stay as they were; and a bundle's entries, decoded today, are read again as parts of
 * their bundle. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "burnout_writer.h"
#include "catalog/schema.h"
#include "testutil.h"

static char *dir, db[600];

static void copy_legacy(void)
{
	char src[512], cmd[1400];

	dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(dir);
	snprintf(db, sizeof(db), "%s/catalog.db", dir);
	testutil_src_path("tests/data/legacy-v1/catalog.db", src, sizeof(src));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, db);
	ck_assert_int_eq(system(cmd), 0);
}

/* Runs `animdexd ARGS` and returns its standard output (malloc'd); *status its exit code. */
static char *run_animdexd(const char *args, int *status)
{
	char cmd[1400], *out = NULL;
	size_t cap = 0, len = 0, n;
	char chunk[4096];
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), "'%s' %s", getenv("ANIMDEXD"), args);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0) {
		if (len + n + 1 > cap)
			out = realloc(out, cap = 2 * (len + n + 1));
		memcpy(out + len, chunk, n);
		len += n;
	}
	if (!out)
		out = calloc(1, 1);
	out[len] = '\0';
	rc = pclose(p);
	*status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	return out;
}

static json_t *get(const struct daemon_proc *d, const char *path)
{
	struct http_reply reply;
	json_t *j;

	ck_assert_int_eq(http_request(d, "GET", path, NULL, 0, NULL, &reply), 0);
	ck_assert_msg(reply.status == 200, "%s: %ld %s", path, reply.status, reply.body);
	j = http_json(&reply);
	http_reply_cleanup(&reply);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* The values of track n of entry id sampled at the times given ("t=..."). */
static json_t *sample(const struct daemon_proc *d, int id, int n, const char *t)
{
	char path[200];
	snprintf(path, sizeof(path), "/api/resources/%d/tracks/%d/sample?t=%s", id, n, t);
	return get(d, path);
}

static double value_at(json_t *samples, size_t i, size_t j)
{
	json_t *v = json_array_get(json_object_get(samples, "values"), i);
	return json_number_value(json_is_array(v) ? json_array_get(v, j) : v);
}

/* What the summaries of every entry said before the upgrade, to compare after it. */
static json_t *summaries(const struct daemon_proc *d)
{
	json_t *list = get(d, "/api/resources?limit=100"), *out = json_array();
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(list, "resources"), i, e) json_array_append_new(
	    out,
	    json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "id", json_object_get(e, "id"), "name",
	              json_object_get(e, "name"), "crc32", json_object_get(e, "crc32"), "note",
	              json_object_get(e, "note"), "uploaded_at", json_object_get(e, "uploaded_at"),
	              "uploaded_by", json_object_get(e, "uploaded_by"), "filename",
	              json_object_get(e, "filename")));
	json_decref(list);
	return out;
}

START_TEST(a_legacy_catalogue_migrates_and_redecodes)
{
	struct daemon_proc d;
	json_t *health, *before, *after, *s, *entry;
	char *out;
	int status;

	copy_legacy();
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	/* migrated on open, to the latest schema; four entries were made by older zouna and
	 * gltf decoders */
	health = get(&d, "/api/health");
	ck_assert_int_eq(json_integer_value(
	                     json_object_get(json_object_get(health, "counts"), "schema_version")),
	                 (int)schema_migrations[schema_migration_count - 1].version);
	ck_assert_int_eq(json_integer_value(json_object_get(health, "outdated_entries")), 4);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(health, "outdated_hint")),
	                             "animdexd redecode"));
	json_decref(health);
	/* before: the old reading (the late keyframer starts with its first value) */
	s = sample(&d, 3, 0, "0.25");
	ck_assert_double_eq(value_at(s, 0, 0), 2.0);
	json_decref(s);
	before = summaries(&d);
	/* 4: slide.glb, catalogued before rigs were kept, has none yet */
	entry = get(&d, "/api/resources/4");
	ck_assert(json_is_null(json_object_get(entry, "rig")));
	json_decref(entry);
	ck_assert_int_eq(daemon_stop(&d), 0);

	{
		char args[700];
		snprintf(args, sizeof(args), "redecode --db '%s'", db);
		out = run_animdexd(args, &status);
	}
	ck_assert_msg(status == 0, "redecode exit %d: %s", status, out);
	ck_assert_msg(strstr(out, "5 entries redecoded: 4 changed") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "entry 2 changed") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "entry 4 changed: 0 tracks added, 0 removed, 0 changed; rig "
	                          "changed") != NULL,
	              "%s", out);
	ck_assert_msg(strstr(out, "0 left as they were") != NULL, "%s", out);
	free(out);

	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	health = get(&d, "/api/health");
	ck_assert_int_eq(json_integer_value(json_object_get(health, "outdated_entries")), 0);
	ck_assert_ptr_null(json_object_get(health, "outdated_hint"));
	json_decref(health);
	after = summaries(&d);
	ck_assert_msg(json_equal(before, after), "ids, names, handles and upload details stay");
	json_decref(before);
	json_decref(after);
	/* 4 has its rig now: the node it animates */
	entry = get(&d, "/api/resources/4");
	ck_assert_int_ge(json_array_size(json_object_get(entry, "rig")), 1);
	json_decref(entry);

	/* 1: KeyframerVec4fLinear_Z, w 0.25 -> 0.75: w is 1 between keys, its own at keys */
	s = sample(&d, 1, 0, "0,0.5,1");
	ck_assert_double_eq(value_at(s, 0, 3), 0.25);
	ck_assert_double_eq(value_at(s, 1, 0), 0.5);
	ck_assert_double_eq(value_at(s, 1, 3), 1.0);
	ck_assert_double_eq(value_at(s, 2, 3), 0.75);
	json_decref(s);

	/* 2: glow_pulse.Animation_Z. Material pairs in the engine's order: transU (0,2),
	 * emissive (1,3), diffuse (2,2), rot (0,1), transV (3,1). Tracks stay in the
	 * keyframers' order: 2 transU, 3 transV, 4 diffuse, 5 emissive, 6 rot. */
	entry = get(&d, "/api/resources/2");
	{
		json_t *tracks = json_object_get(entry, "tracks");
		static const char *const names[] = {"translation u", "translation v", "diffuse",
		                                    "emissive", "rotation"};
		static const int counts[] = {2, 1, 2, 3, 1};
		for (int i = 0; i < 5; i++) {
			json_t *t = json_array_get(tracks, (size_t)i + 2);
			ck_assert_ptr_nonnull(
			    strstr(json_string_value(json_object_get(t, "name")), names[i]));
			ck_assert_int_eq(json_integer_value(json_object_get(t, "key_count")),
			                 counts[i]);
			ck_assert_str_eq(json_string_value(json_object_get(t, "before_first_key")),
			                 "last key's value");
		}
		ck_assert_str_eq(
		    json_string_value(json_object_get(
		        json_object_get(
		            json_object_get(json_object_get(entry, "structure"), "metadata"),
		            "sampling"),
		        "before_first_key")),
		    "last key's value");
	}
	json_decref(entry);
	s = sample(&d, 2, 3, "3"); /* transV: the keyframer's key 3, -0.5 */
	ck_assert_double_eq(value_at(s, 0, 0), -0.5);
	json_decref(s);
	s = sample(&d, 2, 5, "1,2,3"); /* emissive: keys 1..3 of the emissive keyframer */
	ck_assert_double_eq(value_at(s, 0, 0), 0.0);
	ck_assert_double_eq(value_at(s, 0, 1), 0.5);
	ck_assert_double_eq(value_at(s, 1, 0), 0.5);
	ck_assert_double_eq(value_at(s, 1, 2), 0.5);
	ck_assert_double_eq(value_at(s, 2, 0), 0.25);
	json_decref(s);
	s = sample(&d, 2, 4, "2,3"); /* diffuse: keys 2..3 */
	ck_assert_double_eq(value_at(s, 0, 2), 1.0);
	ck_assert_double_eq(value_at(s, 1, 1), 1.0);
	json_decref(s);
	s = sample(&d, 2, 6, "0"); /* rot: key 0, 1.5 */
	ck_assert_double_eq(value_at(s, 0, 0), 1.5);
	json_decref(s);
	s = sample(&d, 2, 0, "0.25,0.5"); /* the bone's translation: last key before 0.5 s */
	ck_assert_double_eq(value_at(s, 0, 0), 4.0);
	ck_assert_double_eq(value_at(s, 0, 2), 6.0);
	ck_assert_double_eq(value_at(s, 1, 0), 1.0);
	json_decref(s);

	/* 3: the big-endian KeyframerFloat_Z from 0.5 s: its last value, 4, before that */
	s = sample(&d, 3, 0, "0,0.25,0.5,1.5");
	ck_assert_double_eq(value_at(s, 0, 0), 4.0);
	ck_assert_double_eq(value_at(s, 1, 0), 4.0);
	ck_assert_double_eq(value_at(s, 2, 0), 2.0);
	ck_assert_double_eq(value_at(s, 3, 0), 4.0);
	json_decref(s);

	/* 4 and 5: glTF and Radient keep their first value before the first key */
	s = sample(&d, 4, 0, "0,1");
	ck_assert_double_eq(value_at(s, 0, 0), 0.0);
	ck_assert_double_eq(value_at(s, 1, 2), 3.0);
	json_decref(s);
	s = sample(&d, 5, 0, "0");
	ck_assert_double_eq(value_at(s, 0, 0), 0.0);
	json_decref(s);
	entry = get(&d, "/api/resources/5");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(json_object_get(entry, "tracks"), 0),
	                                      "before_first_key")),
	    "first key's value");
	json_decref(entry);
	ck_assert_int_eq(daemon_stop(&d), 0);

	/* redecoding again changes nothing */
	{
		char args[700];
		snprintf(args, sizeof(args), "redecode --db '%s' --family zouna", db);
		out = run_animdexd(args, &status);
	}
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "3 entries redecoded: 0 changed") != NULL, "%s", out);
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* An entry whose bytes today's decoder refuses is left as it was and listed; the others go
 * on; --id and --class select. */
START_TEST(refused_entries_are_left_and_listed)
{
	char args[800], *out;
	int status;

	copy_legacy();
	/* damage the stored bytes of entry 3 (its keyframer) so that no reading fits */
	{
		char cmd[1000];
		snprintf(cmd, sizeof(cmd),
		         "sqlite3 '%s' \"UPDATE blobs SET bytes = X'0000000100000000', size = 8 "
		         "WHERE sha256 = "
		         "(SELECT blob_sha256 FROM resources WHERE id = 3)\"",
		         db);
		ck_assert_msg(system(cmd) == 0, "the sqlite3 shell (autogen.sh installs it)");
	}
	snprintf(args, sizeof(args), "redecode --db '%s' --quiet", db);
	out = run_animdexd(args, &status);
	ck_assert_int_eq(status, 1);
	ck_assert_msg(strstr(out, "entry 3 left as it was: ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "3 changed") && strstr(out, "1 left as they were"), "%s", out);
	free(out);
	{
		struct daemon_proc d;
		struct http_reply reply;
		ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
		ck_assert_int_eq(http_request(&d, "GET", "/api/resources/3/tracks/0/sample?t=0.25",
		                              NULL, 0, NULL, &reply),
		                 0);
		ck_assert_int_eq(reply.status, 200); /* still there, still the old reading */
		ck_assert_ptr_nonnull(strstr(reply.body, "[2]"));
		http_reply_cleanup(&reply);
		ck_assert_int_eq(daemon_stop(&d), 0);
	}
	snprintf(args, sizeof(args), "redecode --db '%s' --id 99", db);
	out = run_animdexd(args, &status);
	ck_assert_int_eq(status, 2);
	free(out);
	snprintf(args, sizeof(args), "redecode --db '%s' --class KeyframerVec4fLinear_Z", db);
	out = run_animdexd(args, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "1 entries redecoded: 0 changed"), "%s", out);
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* A bundle's entries are read again as parts of their bundle (its Body Part Remap Data too,
 * which a file of its own needs its class given to be told apart): redecoding a catalogue of
 * today's decoding changes nothing and refuses nothing. */
START_TEST(a_bundles_entries_redecode_as_parts_of_it)
{
	static const struct bstate states[1] = {{0, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}}};
	static const struct bpart parts[1] = {{{0, -1, -1}}};
	struct bvehicle v = {parts, 1, NULL, 0, states, 1, {0, -1, -1, -1}, {{0}}, 0};
	struct zbuf bnd;
	struct daemon_proc d;
	char args[800], *out;
	int status;

	dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(dir);
	snprintf(db, sizeof(db), "%s/catalog.db", dir);
	burnout_write_vehicle_bundle(&bnd, &v, 1, NULL);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_gt(http_upload_one(&d, "VEH_AT.BIN", bnd.data, bnd.len), 0);
	ck_assert_int_eq(daemon_stop(&d), 0);
	zbuf_free(&bnd);
	snprintf(args, sizeof(args), "redecode --db '%s'", db);
	out = run_animdexd(args, &status);
	ck_assert_msg(status == 0, "redecode exit %d: %s", status, out);
	ck_assert_msg(strstr(out, "2 entries redecoded: 0 changed") != NULL, "%s", out);
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("upgrade");
	TCase *tc = tcase_create("legacy-v1");

	tcase_add_test(tc, a_legacy_catalogue_migrates_and_redecodes);
	tcase_add_test(tc, refused_entries_are_left_and_listed);
	tcase_add_test(tc, a_bundles_entries_redecode_as_parts_of_it);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
