/* check_http.c: the real daemon on an ephemeral loopback port with a temporary database,
 * driven over HTTP with libcurl: every route, every kind of bad request, and a restart. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"
#include "catalog/schema.h"
#include "testutil.h"
#include "burnout_writer.h"
#include "zouna_writer.h"

static struct daemon_proc daemon_main;
static char *dir;
static int daemon_main_status; /* its exit status: a sanitizer report makes it non-zero */

static const char walk_doc[] =
    "{\"name\": \"Walk\", \"duration\": 1.0,"
    " \"targets\": [{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0,"
    " \"name\": \"hips\"}],"
    " \"samplers\": [{\"value\": {\"type\": \"FLOAT3\", \"array_size\": 1},"
    " \"interpolation\": \"LINEAR\", \"times\": [0, 1], \"values\": [0,0,0, 2,1,0]},"
    " {\"value\": {\"type\": \"FLOAT4\"}, \"interpolation\": \"STEP\", \"times\": [0, 0.5],"
    " \"values\": [0,0,0,1, 0,0,1,0]},"
    " {\"value\": {\"type\": \"BOOL\"}, \"interpolation\": \"STEP\", \"times\": [0, 0.5],"
    " \"values\": [true, false]}],"
    " \"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": 0},"
    " {\"target\": 0, \"property\": 2, \"sampler\": 1},"
    " {\"target\": 0, \"property\": 4, \"sampler\": 2}]}";

static void start_main_daemon(void)
{
	char db[512];

	dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(testutil_catalog(dir, "animdex.db", db, sizeof(db)));
	if (daemon_start(&daemon_main, db, "--max-upload 64K --max-samples 5000") < 0) {
		fprintf(stderr, "cannot start %s\n", getenv("ANIMDEXD"));
		exit(1);
	}
}

static void start_main_daemon_postgres(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
	start_main_daemon();
}

static void use_sqlite(void)
{
	testutil_backend = TESTUTIL_SQLITE;
}

static void use_postgres(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
}

static void stop_main_daemon(void)
{
	int status = daemon_stop(&daemon_main);

	if (status != 0)
		daemon_main_status = status;
	testutil_remove_tree(dir);
	free(dir);
}

static json_t *upload(const char *filename, const char *text, size_t len, const char *const *fields,
                      long want_status)
{
	struct http_reply r;
	const void *data[1] = {text};
	const char *names[1] = {filename};
	json_t *j;

	ck_assert_int_eq(http_upload(&daemon_main, 1, names, data, &len, fields, &r), 0);
	if (want_status == 0)
		ck_assert_msg(r.status >= 400 && r.status < 500, "upload %s: %ld %s", filename,
		              r.status, r.body);
	else
		ck_assert_msg(r.status == want_status, "upload %s: %ld %s", filename, r.status,
		              r.body);
	j = http_json(&r);
	ck_assert_msg(j != NULL, "upload: not JSON: %s", r.body);
	http_reply_cleanup(&r);
	return j;
}

static json_int_t first_id(json_t *reply)
{
	return json_integer_value(
	    json_object_get(json_array_get(json_object_get(reply, "resources"), 0), "id"));
}

/* resources, tracks, blobs from /api/health */
static void counts(json_int_t out[3])
{
	json_t *h = http_get_json(&daemon_main, "/api/health", 200),
	       *c = json_object_get(h, "counts");
	out[0] = json_integer_value(json_object_get(c, "resources"));
	out[1] = json_integer_value(json_object_get(c, "tracks"));
	out[2] = json_integer_value(json_object_get(c, "blobs"));
	json_decref(h);
}

START_TEST(upload_find_get_keys_sample_download_delete)
{
	json_t *j, *e;
	json_int_t id;
	char path[256], handle[16];
	struct http_reply r;

	j = upload("walk.json", walk_doc, strlen(walk_doc), NULL, 201);
	id = first_id(j);
	e = json_array_get(json_object_get(j, "resources"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(e, "status")), "created");
	ck_assert_str_eq(json_string_value(json_object_get(e, "class")), "RadientAnimationClip");
	snprintf(handle, sizeof(handle), "0x%08X", hash_crc32_lower("walk", 4));
	ck_assert_str_eq(json_string_value(json_object_get(e, "crc32")), handle);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "track_count")), 3);
	json_decref(j);

	/* the same bytes again: 200 and the same entry */
	j = upload("again.json", walk_doc, strlen(walk_doc), NULL, 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);

	/* found by class, by handle (hex, decimal, signed) and by name */
	j = http_get_json(&daemon_main, "/api/resources?class=RadientAnimationClip", 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources?crc32=%s", handle);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources?crc32=%d",
	         (int32_t)hash_crc32_lower("walk", 4));
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/resources?name=WALK", 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/resources?class=KeyframerRot_Z", 200);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 0);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/handles/%s", handle);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);

	/* the entry */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "tracks"), 1), "semantic")),
	                 "NORMALIZED_QUATERNION");
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "tracks"), 0), "name")),
	                 "hips translation");
	json_decref(j);

	/* keys */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/keys", (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_float_eq(
	    json_number_value(json_array_get(json_array_get(json_object_get(j, "values"), 1), 0)),
	    2.0);
	json_decref(j);

	/* samples: json */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=0.25,0.5,2",
	         (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	e = json_object_get(j, "values");
	ck_assert_float_eq(json_number_value(json_array_get(json_array_get(e, 0), 0)), 0.5);
	ck_assert_float_eq(json_number_value(json_array_get(json_array_get(e, 1), 1)), 0.5);
	ck_assert_float_eq(json_number_value(json_array_get(json_array_get(e, 2), 0)), 2.0);
	json_decref(j);
	/* a BOOL track: booleans, switching at the key */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/2/sample?t=0.49,0.5",
	         (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	e = json_object_get(j, "values");
	ck_assert(json_is_true(json_array_get(json_array_get(e, 0), 0)));
	ck_assert(json_is_false(json_array_get(json_array_get(e, 1), 0)));
	json_decref(j);

	/* csv */
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/tracks/0/sample?from=0&to=1&count=3&format=csv",
	         (long long)id);
	ck_assert_int_eq(http_request(&daemon_main, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.body, "t,x,y,z\n0,0,0,0\n0.5,1,0.5,0\n1,2,1,0\n");
	ck_assert(strncmp(r.content_type, "text/csv", 8) == 0);
	http_reply_cleanup(&r);

	/* f32: times then values, little-endian */
	snprintf(path, sizeof(path),
	         "/api/resources/%lld/tracks/0/sample?from=0&to=1&step=0.5&format=f32",
	         (long long)id);
	ck_assert_int_eq(http_request(&daemon_main, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.length, 3 * 4 + 9 * 4);
	ck_assert_str_eq(r.header_count, "3");
	ck_assert_str_eq(r.header_components, "3");
	{
		float f[12];
		memcpy(f, r.body, sizeof(f));
		ck_assert_float_eq(f[1], 0.5f);
		ck_assert_float_eq(f[3 + 3], 1.0f); /* second sample's x */
		ck_assert_float_eq(f[3 + 7], 1.0f); /* third sample's y */
	}
	http_reply_cleanup(&r);

	/* raw download, byte-identical, with its file name */
	snprintf(path, sizeof(path), "/api/resources/%lld/raw", (long long)id);
	ck_assert_int_eq(http_request(&daemon_main, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.length, strlen(walk_doc));
	ck_assert_mem_eq(r.body, walk_doc, r.length);
	ck_assert_str_eq(r.disposition, "attachment; filename=\"walk.json\"");
	http_reply_cleanup(&r);

	/* delete, then it is gone */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	ck_assert_int_eq(http_request(&daemon_main, "DELETE", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	json_decref(http_get_json(&daemon_main, path, 404));
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=0", (long long)id);
	json_decref(http_get_json(&daemon_main, path, 404));
}
END_TEST

START_TEST(raw_body_upload_with_query_parameters)
{
	struct http_reply r;
	json_t *j, *e;
	const char *doc = "{\"duration\": 0}";

	ck_assert_int_eq(
	    http_request(&daemon_main, "POST",
	                 "/api/resources?filename=idle.json&name=Idle&note=from%20curl", doc,
	                 strlen(doc), "application/json", &r),
	    0);
	ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
	j = http_json(&r);
	e = json_array_get(json_object_get(j, "resources"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(e, "name")), "Idle");
	ck_assert_str_eq(json_string_value(json_object_get(e, "note")), "from curl");
	ck_assert_str_eq(json_string_value(json_object_get(e, "filename")), "idle.json");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "crc32_decimal")),
	                 hash_crc32_lower("idle", 4));
	json_decref(j);
	http_reply_cleanup(&r);
	/* crc32= overrides the name's hash */
	{
		const char *fields[] = {"crc32", "0x1A2B3C4D", "class", "RadientAnimationClip",
		                        NULL};
		const char *doc2 = "{\"duration\": 0.5}";
		j = upload("x.bin", doc2, strlen(doc2), fields, 201);
		e = json_array_get(json_object_get(j, "resources"), 0);
		ck_assert_str_eq(json_string_value(json_object_get(e, "crc32")), "0x1A2B3C4D");
		ck_assert_str_eq(json_string_value(json_object_get(e, "crc32_source")), "crc32=");
		json_decref(j);
	}
}
END_TEST

START_TEST(list_pages_with_a_cursor)
{
	char doc[128], path[128];
	json_t *j;
	int seen = 0;
	const char *cursor = NULL;
	char cursor_copy[32] = "";

	for (int i = 0; i < 7; i++) {
		snprintf(doc, sizeof(doc), "{\"name\": \"page%d\", \"duration\": %d}", i, i);
		json_decref(upload("p.json", doc, strlen(doc), NULL, 201));
	}
	do {
		snprintf(path, sizeof(path), "/api/resources?q=page&limit=3%s%s",
		         cursor ? "&cursor=" : "", cursor ? cursor_copy : "");
		j = http_get_json(&daemon_main, path, 200);
		seen += (int)json_array_size(json_object_get(j, "resources"));
		cursor = json_string_value(json_object_get(j, "next_cursor"));
		if (cursor)
			snprintf(cursor_copy, sizeof(cursor_copy), "%s", cursor);
		json_decref(j);
	} while (cursor);
	ck_assert_int_eq(seen, 7);
}
END_TEST

/* Pages sorted by duration, when durations differ past six digits (a float32's last bits):
 * each cursor holds its last duration exactly, so no entry is skipped or repeated. */
START_TEST(a_list_sorted_by_duration_pages_on_exactly)
{
	char doc[128], path[256], cursor[256] = "";
	json_t *j, *e;
	size_t i;
	int seen[5] = {0}, pages = 0, last = -1;

	for (int k = 0; k < 5; k++) {
		/* 1 + (5 - k) float32 steps: names in the reverse of their durations' order */
		snprintf(doc, sizeof(doc), "{\"name\": \"close %d\", \"duration\": %.9g}", k,
		         (double)(1.0f + (float)(5 - k) * 0x1p-23f));
		json_decref(upload("close.json", doc, strlen(doc), NULL, 201));
	}
	do {
		snprintf(path, sizeof(path), "/api/resources?q=close&sort=duration&limit=2%s%s",
		         cursor[0] ? "&cursor=" : "", cursor);
		j = http_get_json(&daemon_main, path, 200);
		json_array_foreach(json_object_get(j, "resources"), i, e)
		{
			int k =
			    atoi(json_string_value(json_object_get(e, "name")) + strlen("close "));
			ck_assert(k >= 0 && k < 5);
			seen[k]++;
			ck_assert_msg(last < 0 || k < last, "close %d after close %d", k, last);
			last = k;
		}
		cursor[0] = '\0';
		if (json_object_get(j, "next_cursor"))
			snprintf(cursor, sizeof(cursor), "%s",
			         json_string_value(json_object_get(j, "next_cursor")));
		json_decref(j);
		pages++;
	} while (cursor[0] && pages < 10);
	for (int k = 0; k < 5; k++)
		ck_assert_msg(seen[k] == 1, "close %d listed %d times", k, seen[k]);
}
END_TEST

/* ?sort=&order=: the server sorts the whole list (not a page of it), pages keep the order, the
 * total is said on every page; bad values are 400s naming the parameter. */
START_TEST(list_sorts_on_the_server_and_pages_in_order)
{
	static const char *const names[] = {"Sort b", "sort A", "sort c", "sort a", "SORT D"};
	char doc[128], path[256], cursor[256] = "", last[64] = "";
	json_t *j, *e;
	size_t i;
	int seen = 0, pages = 0;

	for (int k = 0; k < 5; k++) {
		snprintf(doc, sizeof(doc), "{\"name\": \"%s\", \"duration\": %d}", names[k], k + 1);
		json_decref(upload("s.json", doc, strlen(doc), NULL, 201));
	}
	do {
		snprintf(path, sizeof(path),
		         "/api/resources?q=sort&sort=name&order=desc&limit=2%s%s",
		         cursor[0] ? "&cursor=" : "", cursor);
		for (char *p = path; *p; p++) /* a cursor's space, as a client encodes it */
			if (*p == ' ')
				*p = '+';
		j = http_get_json(&daemon_main, path, 200);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "total")), 5);
		json_array_foreach(json_object_get(j, "resources"), i, e)
		{
			char lower[64];
			snprintf(lower, sizeof(lower), "%s",
			         json_string_value(json_object_get(e, "name")));
			for (char *p = lower; *p; p++)
				*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
			ck_assert_msg(!last[0] || strcmp(lower, last) <= 0, "%s after %s", lower,
			              last);
			snprintf(last, sizeof(last), "%s", lower);
			seen++;
		}
		cursor[0] = '\0';
		if (json_object_get(j, "next_cursor"))
			snprintf(cursor, sizeof(cursor), "%s",
			         json_string_value(json_object_get(j, "next_cursor")));
		json_decref(j);
		pages++;
	} while (cursor[0] && pages < 10);
	ck_assert_int_eq(seen, 5);
	ck_assert_int_eq(pages, 3);
	ck_assert_str_eq(last, "sort a");
	j = http_get_json(&daemon_main, "/api/resources?q=sort&sort=duration&limit=1", 200);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "resources"), 0), "name")),
	                 "Sort b"); /* ascending unless said */
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/resources?sort=weight", 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "sort");
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/resources?sort=name&order=up", 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "order");
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/resources?sort=size&cursor=3:sort+a", 400);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "path")),
	                 "cursor");
	json_decref(j);
}
END_TEST

/* Every invalid document of tests/data/radient/invalid over HTTP: the right status and code,
 * and nothing stored. */
START_TEST(bad_uploads_answer_their_error_and_store_nothing)
{
	char folder[1024], file[1400];
	json_int_t before[3], after[3];
	struct dirent **names;
	int n, checked = 0;

	counts(before);
	testutil_src_path("tests/data/radient/invalid", folder, sizeof(folder));
	n = scandir(folder, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *base = names[i]->d_name;
		char want[64];
		size_t len;
		char *text;
		json_t *j, *e;

		if (!strstr(base, ".json")) {
			free(names[i]);
			continue;
		}
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(base, "-."), base);
		snprintf(file, sizeof(file), "%s/%s", folder, base);
		text = testutil_read_file(file, &len);
		j = upload(base, text, len, NULL, strcmp(want, "malformed") == 0 ? 400 : 422);
		e = json_object_get(j, "error");
		ck_assert_msg(strcmp(json_string_value(json_object_get(e, "code")), want) == 0,
		              "%s: %s", base, json_string_value(json_object_get(e, "message")));
		ck_assert_ptr_nonnull(json_object_get(e, "message"));
		json_decref(j);
		free(text);
		free(names[i]);
		checked++;
	}
	free(names);
	ck_assert_int_gt(checked, 20);
	counts(after);
	ck_assert_mem_eq(before, after, sizeof(before));
}
END_TEST

/* Uploads arriving at the same moment (on SQLite, stored by the catalogue's writing thread in
 * shared transactions): each gets its own answer. The same bytes from six clients: one 201,
 * five 200, one entry; six different clips: six 201s; four broken ones: 400, nothing stored. */
START_TEST(uploads_at_once_each_get_their_answer)
{
	enum { SAME = 6, DISTINCT = 6, BROKEN = 4, CLIENTS = SAME + DISTINCT + BROKEN };
	int gate[2], out[CLIENTS][2];
	pid_t pid[CLIENTS];
	long status[CLIENTS];
	long long id[CLIENTS];
	json_int_t before[3], after[3];
	int created_same = 0;

	counts(before);
	ck_assert_int_eq(pipe(gate), 0);
	for (int i = 0; i < CLIENTS; i++) {
		ck_assert_int_eq(pipe(out[i]), 0);
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			char doc[128], byte;
			const char *names[1] = {"at-once.json"};
			const void *data[1] = {doc};
			size_t len;
			struct http_reply r;
			json_t *j;
			long long got = 0;
			close(gate[1]);
			if (i < SAME)
				snprintf(doc, sizeof(doc),
				         "{\"name\": \"at once\", \"duration\": 1}");
			else if (i < SAME + DISTINCT)
				snprintf(doc, sizeof(doc),
				         "{\"name\": \"at once %d\", \"duration\": 1}", i);
			else
				snprintf(doc, sizeof(doc),
				         "{\"name\": \"broken %d\", \"duration\": ", i);
			len = strlen(doc);
			(void)!read(gate[0], &byte, 1); /* all of them start when the gate closes */
			if (http_upload(&daemon_main, 1, names, data, &len, NULL, &r) != 0)
				_exit(1);
			j = http_json(&r);
			got = first_id(j);
			dprintf(out[i][1], "%ld %lld\n", r.status, got);
			json_decref(j);
			http_reply_cleanup(&r);
			_exit(0);
		}
		close(out[i][1]);
	}
	close(gate[0]);
	close(gate[1]); /* go */
	for (int i = 0; i < CLIENTS; i++) {
		char line[64] = "";
		int wstatus;
		ssize_t n = read(out[i][0], line, sizeof(line) - 1);
		line[n > 0 ? n : 0] = '\0';
		close(out[i][0]);
		ck_assert_int_eq(waitpid(pid[i], &wstatus, 0), pid[i]);
		ck_assert_msg(sscanf(line, "%ld %lld", &status[i], &id[i]) == 2, "client %d: '%s'",
		              i, line);
	}
	for (int i = 0; i < SAME; i++) {
		ck_assert_msg(status[i] == 201 || status[i] == 200, "same bytes: %ld", status[i]);
		created_same += status[i] == 201;
		ck_assert_int_eq(id[i], id[0]);
	}
	ck_assert_int_eq(created_same, 1);
	for (int i = SAME; i < SAME + DISTINCT; i++) {
		ck_assert_int_eq(status[i], 201);
		for (int k = 0; k < SAME + DISTINCT; k++)
			ck_assert(k == i || id[k] != id[i]);
	}
	for (int i = SAME + DISTINCT; i < CLIENTS; i++)
		ck_assert_int_eq(status[i], 400);
	counts(after);
	ck_assert_int_eq(after[0] - before[0], 1 + DISTINCT);
	ck_assert_int_eq(after[2] - before[2], 1 + DISTINCT);
}
END_TEST

START_TEST(other_bad_requests)
{
	json_int_t before[3], after[3];
	struct http_reply r;
	json_t *j;
	char big[70000];

	counts(before);
	/* unknown bytes: 415 naming what was tried */
	j = upload("mystery.bin", "\x01\x02\x03\x04", 4, NULL, 415);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
	                 "unsupported_format");
	ck_assert(strstr(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	                 "radient") != NULL);
	json_decref(j);
	/* named .glb, in any case: the glTF decoder says what is wrong, not 415 */
	for (int i = 0; i < 2; i++) {
		j = upload(i ? "MYSTERY.GLB" : "mystery.glb", "\x01\x02\x03\x04", 4, NULL, 400);
		ck_assert_msg(
		    strstr(
		        json_string_value(json_object_get(json_object_get(j, "error"), "message")),
		        "glTF") != NULL,
		    "%s",
		    json_string_value(json_object_get(json_object_get(j, "error"), "message")));
		json_decref(j);
	}
	/* a byte-order mark is only taken off JSON: a .glb after one is not a .glb */
	{
		static const char marked[] = "\xEF\xBB\xBFglTF\x02\x00\x00\x00\x14\x00\x00\x00";
		json_decref(upload("marked.bin", marked, sizeof(marked) - 1, NULL, 415));
	}
	/* an empty file, a class nobody reads, a bad handle */
	json_decref(upload("empty.json", "", 0, NULL, 400));
	{
		const char *fields[] = {"class", "NoSuchClass_Z", NULL};
		json_decref(upload("walk.json", walk_doc, strlen(walk_doc), fields, 415));
	}
	{
		const char *fields[] = {"crc32", "0xZZ", NULL};
		json_decref(upload("walk.json", walk_doc, strlen(walk_doc), fields, 400));
	}
	/* too large (the daemon runs with --max-upload 64K) */
	memset(big, ' ', sizeof(big));
	big[0] = '{';
	ck_assert_int_eq(http_request(&daemon_main, "POST", "/api/resources?filename=big.json", big,
	                              sizeof(big), "application/json", &r),
	                 0);
	ck_assert_int_eq(r.status, 413);
	http_reply_cleanup(&r);
	/* two files, one bad: nothing stored, the message names the file */
	{
		const char *names[2] = {"good.json", "bad.json"};
		const char *good = "{\"name\": \"good-one\", \"duration\": 3}",
		           *bad = "{\"duration\": -3}";
		const void *data[2] = {good, bad};
		size_t lengths[2] = {strlen(good), strlen(bad)};
		ck_assert_int_eq(http_upload(&daemon_main, 2, names, data, lengths, NULL, &r), 0);
		ck_assert_int_eq(r.status, 422);
		ck_assert(strstr(r.body, "bad.json") != NULL);
		http_reply_cleanup(&r);
	}
	/* no file at all */
	ck_assert_int_eq(http_request(&daemon_main, "POST", "/api/resources", NULL, 0, NULL, &r),
	                 0);
	ck_assert_int_eq(r.status, 400);
	http_reply_cleanup(&r);
	counts(after);
	ck_assert_mem_eq(before, after, sizeof(before));

	/* parameters */
	json_decref(http_get_json(&daemon_main, "/api/resources/abc", 400));
	json_decref(http_get_json(&daemon_main, "/api/resources/999999", 404));
	json_decref(http_get_json(&daemon_main, "/api/resources/999999/raw", 404));
	json_decref(http_get_json(&daemon_main, "/api/resources?limit=0", 400));
	json_decref(http_get_json(&daemon_main, "/api/resources?limit=501", 400));
	json_decref(http_get_json(&daemon_main, "/api/resources?cursor=x", 400));
	json_decref(http_get_json(&daemon_main, "/api/resources?crc32=0x", 400));
	json_decref(http_get_json(&daemon_main, "/api/handles/banana", 400));
	json_decref(http_get_json(&daemon_main, "/api/nothing", 404));
	ck_assert_int_eq(http_request(&daemon_main, "PUT", "/api/resources", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 405);
	http_reply_cleanup(&r);
	{
		/* a 405 says what the path takes; HEAD of the page is answered as GET is */
		char cmd[600], *out;
		int status;
		snprintf(cmd, sizeof(cmd), "curl -s -i -X PUT '%s/api/resources/1' | tr -d '\\r'",
		         daemon_main.base);
		out = testutil_shell(cmd, &status);
		ck_assert_msg(strstr(out, "\nAllow: GET, HEAD, DELETE\n"), "%s", out);
		free(out);
		snprintf(cmd, sizeof(cmd), "curl -s -I '%s/' | tr -d '\\r'", daemon_main.base);
		out = testutil_shell(cmd, &status);
		ck_assert_msg(strncmp(out, "HTTP/1.1 200", 12) == 0 && strstr(out, "text/html"),
		              "%s", out);
		free(out);
	}
}
END_TEST

START_TEST(sample_parameters_are_checked)
{
	char doc[2048], path[256];
	json_int_t id;
	json_t *j;

	snprintf(doc, sizeof(doc), "%s ", walk_doc); /* different bytes, same clip */
	j = upload("walk2.json", doc, strlen(doc), NULL, 201);
	id = first_id(j);
	json_decref(j);
	static const char *const bad[] = {
	    "t=abc",
	    "t=1,,2",
	    "t=nan",
	    "t=1e99",
	    "from=1&to=0",
	    "count=0",
	    "count=-3",
	    "count=5001",
	    "step=0",
	    "step=-1",
	    "count=3&step=0.1",
	    "t=0&from=0",
	    "format=xml",
	    "digits=0",
	    "digits=12",
	    "from=0&to=1000&step=0.0001",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?%s",
		         (long long)id, bad[i]);
		j = http_get_json(&daemon_main, path, 400);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(j, "error"), "code")),
		    "bad_parameter");
		json_decref(j);
	}
	/* f32 of a BOOL track is refused; json of it is fine */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/2/sample?format=f32",
	         (long long)id);
	json_decref(http_get_json(&daemon_main, path, 400));
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/9/sample", (long long)id);
	json_decref(http_get_json(&daemon_main, path, 404));
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/x/keys", (long long)id);
	json_decref(http_get_json(&daemon_main, path, 400));
	/* defaults: 101 samples over the keys; digits shortens */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?digits=2&t=0.3333",
	         (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_float_eq(
	    json_number_value(json_array_get(json_array_get(json_object_get(j, "values"), 0), 0)),
	    0.67);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample", (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 101);
	json_decref(j);
}
END_TEST

START_TEST(static_files_stay_inside_www)
{
	struct http_reply r;

	ck_assert_int_eq(http_request(&daemon_main, "GET", "/", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(strncmp(r.content_type, "text/html", 9) == 0);
	ck_assert(strstr(r.body, "animdex") != NULL);
	http_reply_cleanup(&r);
	static const char *const escapes[] = {"/../../../../etc/passwd",
	                                      "/%2e%2e/%2e%2e/etc/passwd", "/.git/config",
	                                      "/..%2fMakefile.am", "/nothing.js"};
	for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
		ck_assert_int_eq(http_request(&daemon_main, "GET", escapes[i], NULL, 0, NULL, &r),
		                 0);
		ck_assert_msg(r.status == 404, "%s: %ld", escapes[i], r.status);
		ck_assert(strstr(r.body, "root:") == NULL);
		http_reply_cleanup(&r);
	}
}
END_TEST

START_TEST(restart_finds_everything_again)
{
	struct daemon_proc d;
	char *tmp = testutil_temp_dir(), db[512], path[128];
	struct http_reply r;
	json_int_t id;
	json_t *j;

	ck_assert_ptr_nonnull(testutil_catalog(tmp, "restart.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	{
		const char *names[1] = {"walk.json"};
		const void *data[1] = {walk_doc};
		size_t len = strlen(walk_doc);
		ck_assert_int_eq(http_upload(&d, 1, names, data, &len, NULL, &r), 0);
		ck_assert_int_eq(r.status, 201);
		j = http_json(&r);
		id = first_id(j);
		json_decref(j);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(daemon_stop(&d), 0); /* SIGTERM: a clean exit 0 */
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	snprintf(path, sizeof(path), "/api/resources/%lld/raw", (long long)id);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_mem_eq(r.body, walk_doc, strlen(walk_doc));
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=0.5", (long long)id);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(strstr(r.body, "[[1,0.5,0]]") != NULL);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

START_TEST(a_second_daemon_cannot_take_the_same_port)
{
	char cmd[1024], db[512];
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "second.db", db, sizeof(db)));
	snprintf(cmd, sizeof(cmd), "'%s' --listen 127.0.0.1:%d --db '%s' --quiet 2>&1",
	         getenv("ANIMDEXD"), daemon_main.port, db);
	status = system(cmd);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
}
END_TEST

/* The glTF importer over HTTP: BoxAnimated's rotation samples like the independent
 * implementation (quaternions up to sign). */
START_TEST(conformance_over_http)
{
	const char *fixtures = testutil_fixtures("glTF conformance over HTTP");
	char gltf[1024], expected_path[1024], path[256];
	json_t *expected, *track, *sample, *j;
	char *text;
	size_t i, len;
	json_int_t id;

	if (!fixtures)
		return;
	snprintf(gltf, sizeof(gltf), "%s/gltf/BoxAnimated.gltf", fixtures);
	snprintf(expected_path, sizeof(expected_path), "%s/gltf/expected/BoxAnimated.json",
	         fixtures);
	text = testutil_read_file(gltf, &len);
	j = upload("BoxAnimated.gltf", text, len, NULL, 201);
	id = first_id(j);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "resources"), 0), "family")),
	                 "gltf");
	json_decref(j);
	expected = json_load_file(expected_path, 0, NULL);
	track = json_array_get(
	    json_object_get(json_array_get(json_object_get(expected, "clips"), 0), "tracks"),
	    0); /* inner_box.quaternion: 180-degree key pairs */
	json_array_foreach(json_object_get(track, "samples"), i, sample)
	{
		json_t *want = json_array_get(sample, 1), *got;
		double dot = 0, norm = 0;
		snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=%.17g",
		         (long long)id, json_number_value(json_array_get(sample, 0)));
		j = http_get_json(&daemon_main, path, 200);
		got = json_array_get(json_object_get(j, "values"), 0);
		for (size_t k = 0; k < 4; k++) {
			double w = json_number_value(json_array_get(want, k));
			dot += w * json_number_value(json_array_get(got, k));
			norm += w * w;
		}
		ck_assert_msg(fabs(fabs(dot) / sqrt(norm) - 1.0) < 1e-5, "t=%g: dot %g",
		              json_number_value(json_array_get(sample, 0)), dot);
		json_decref(j);
	}
	json_decref(expected);
	free(text);
}
END_TEST

/* A .gltf with its .bin and the image its material names, in one request: both kept inside it. */
START_TEST(gltf_with_its_bin_file)
{
	const char *fixtures = testutil_fixtures("glTF with a .bin over HTTP");
	char path[1024];
	char *gltf, *bin;
	size_t lengths[3];
	const char *names[3] = {"InterpolationTest.gltf", "interpolation.bin", "l.jpg"};
	const void *data[3];
	struct http_reply r;
	json_t *j, *d;
	json_int_t id;

	if (!fixtures)
		return;
	snprintf(path, sizeof(path), "%s/gltf/InterpolationTest-separate/InterpolationTest.gltf",
	         fixtures);
	gltf = testutil_read_file(path, &lengths[0]);
	snprintf(path, sizeof(path), "%s/gltf/InterpolationTest-separate/interpolation.bin",
	         fixtures);
	bin = testutil_read_file(path, &lengths[1]);
	static const char image[] = "\xFF\xD8\xFF\xE0 not really a jpeg";
	data[0] = gltf, data[1] = bin, data[2] = image;
	lengths[2] = sizeof(image) - 1;
	/* without the .bin: 400 naming the missing file */
	ck_assert_int_eq(http_upload(&daemon_main, 1, names, data, lengths, NULL, &r), 0);
	ck_assert_int_eq(r.status, 400);
	ck_assert_msg(strstr(r.body, "interpolation.bin") != NULL, "%s", r.body);
	http_reply_cleanup(&r);
	/* with it and the image: nine clips, nothing skipped (the image goes in with the .gltf) */
	ck_assert_int_eq(http_upload(&daemon_main, 3, names, data, lengths, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "%s", r.body);
	j = http_json(&r);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 9);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "skipped")), 0);
	id = first_id(j);
	json_decref(j);
	http_reply_cleanup(&r);
	/* the stored file is self-contained: it decodes again on its own */
	snprintf(path, sizeof(path), "/api/resources/%lld/raw", (long long)id);
	ck_assert_int_eq(http_request(&daemon_main, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert(strstr(r.body, "data:application/octet-stream;base64,") != NULL);
	ck_assert(strstr(r.body, "data:image/jpeg;base64,") != NULL);
	d = json_loadb(r.body, r.length, 0, NULL);
	ck_assert_ptr_nonnull(d);
	json_decref(d);
	/* uploading the same files again finds it */
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_upload(&daemon_main, 3, names, data, lengths, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	free(gltf);
	free(bin);
}
END_TEST

/* Runs an animdexd command line; returns its output and exit status. */
static char *run_cli(const char *args, int *status)
{
	char cmd[2048], *out = calloc(1, 65536);
	size_t len = 0, n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", getenv("ANIMDEXD"), args);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while ((n = fread(out + len, 1, 65535 - len, p)) > 0)
		len += n;
	*status = pclose(p);
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	return out;
}

START_TEST(classes_list_what_is_stored)
{
	char doc[64];
	json_t *j, *c;
	size_t i;
	int found = 0;

	snprintf(doc, sizeof(doc), "{\"name\": \"classy\", \"duration\": 9}");
	json_decref(upload("classy.json", doc, strlen(doc), NULL, 201));
	j = http_get_json(&daemon_main, "/api/classes", 200);
	json_array_foreach(json_object_get(j, "classes"), i, c)
	{
		if (strcmp(json_string_value(json_object_get(c, "class")),
		           "RadientAnimationClip") == 0 &&
		    strcmp(json_string_value(json_object_get(c, "family")), "radient") == 0) {
			ck_assert_int_ge(json_integer_value(json_object_get(c, "count")), 1);
			found = 1;
		}
	}
	ck_assert(found);
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/health", 200);
	ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(j, "counts"), "schema_version")),
	    testutil_backend == TESTUTIL_POSTGRES
	        ? (json_int_t)postgres_migrations[postgres_migration_count - 1].version
	        : (json_int_t)schema_migrations[schema_migration_count - 1].version);
	/* which database answers, and its version */
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(j, "database"), "backend")),
	    testutil_backend == TESTUTIL_POSTGRES ? "postgresql" : "sqlite");
	ck_assert_ptr_nonnull(json_string_value(json_object_get(
	    json_object_get(j, "database"),
	    testutil_backend == TESTUTIL_POSTGRES ? "server_version" : "sqlite_version")));
	json_decref(j);
}
END_TEST

START_TEST(cli_hash_prints_both_hashes)
{
	int status;
	char *out = run_cli("hash Animation_Z pusmc01_vanm", &status);

	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "Animation_Z\tasobo32 0x46107D89 1175485833\t") != NULL, "%s",
	              out);
	ck_assert_msg(strstr(out, "pusmc01_vanm\tasobo32 ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "crc32 0x2CE66AC1 753298113") != NULL, "%s", out);
	free(out);
	out = run_cli("hash", &status);
	ck_assert_int_eq(status, 2);
	free(out);
}
END_TEST

START_TEST(cli_decode_prints_what_an_upload_would_store)
{
	char path[1024], args[1200];
	int status;
	char *out;
	json_t *j;

	testutil_src_path("tests/data/radient/valid/walk.json", path, sizeof(path));
	snprintf(args, sizeof(args), "decode '%s'", path);
	out = run_cli(args, &status);
	ck_assert_int_eq(status, 0);
	j = json_loads(out, 0, NULL);
	ck_assert_msg(j != NULL, "%s", out);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "resources"), 0), "class")),
	                 "RadientAnimationClip");
	ck_assert_str_eq(
	    json_string_value(json_object_get(
	        json_array_get(
	            json_object_get(json_array_get(json_object_get(j, "resources"), 0), "tracks"),
	            0),
	        "name")),
	    "hips translation");
	json_decref(j);
	free(out);
	testutil_src_path("tests/data/radient/invalid/unused_sampler.json", path, sizeof(path));
	snprintf(args, sizeof(args), "decode '%s'", path);
	out = run_cli(args, &status);
	ck_assert_int_eq(status, 1);
	ck_assert_msg(strstr(out, "\"unused_sampler\"") != NULL, "%s", out);
	free(out);
	out = run_cli("decode /nonexistent/file.json", &status);
	ck_assert_int_eq(status, 1);
	ck_assert_msg(strstr(out, "No such file") != NULL, "%s", out);
	free(out);
}
END_TEST

/* A bff-extracted Animation_Z with two bones, their rotations and one message. */
static void hero_run(struct zbuf *b)
{
	static struct zkey rot[4] = {{.time = 0, .v = {0, 0, 0, 1}},
	                             {.time = 2, .v = {0, 0, 1, 0}},
	                             {.time = 0, .v = {1, 0, 0, 0}},
	                             {.time = 2, .v = {0, 1, 0, 0}}};
	static struct zmessage msg = {36, 0, 0, 0.75f, 0};
	static struct zkey msgs[2] = {{.time = 0.5f, .messages = &msg, .message_count = 1},
	                              {.time = 1.5f, .messages = &msg, .message_count = 1}};
	struct znode nodes[2] = {
	    {0, 0, 2, {0, 0}, {0, 2}, {0, 0}, {0, 0}, {0, 2}},
	    {0, 1, 0, {0, 0}, {2, 2}, {0, 0}, {0, 0}, {0, 0}},
	};
	struct zanimation a = {0};

	msg.receiver = hash_asobo32("snd_step", 8);
	nodes[0].bone_crc = hash_asobo32("Bip01 Pelvis", 12);
	nodes[1].bone_crc = hash_asobo32("Bip01 Head", 10);
	a.max_time = 2.0f;
	a.keys[0] = rot, a.counts[0] = 4;
	a.keys[4] = msgs, a.counts[4] = 2;
	a.nodes = nodes, a.node_count = 2;
	a.name_crc = hash_asobo32("hero_run", 8);
	zbuf_init(b, 0);
	zouna_write_animation(b, &a, 16, 0);
}

START_TEST(zouna_animation_end_to_end)
{
	struct zbuf b;
	struct http_reply r;
	json_t *j, *e, *tracks;
	json_int_t id;
	char path[256], handle[16];
	const char *names = "Bip01 Pelvis\r\n# a comment\n\nhero_run\nsnd_step\n";

	hero_run(&b);
	j = upload("hero_run.Animation_Z", (const char *)b.data, b.len, NULL, 201);
	e = json_array_get(json_object_get(j, "resources"), 0);
	id = json_integer_value(json_object_get(e, "id"));
	ck_assert_str_eq(json_string_value(json_object_get(e, "class")), "Animation_Z");
	ck_assert_str_eq(json_string_value(json_object_get(e, "name")), "hero_run");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "track_count")), 3);
	json_decref(j);
	/* found by the name CRC of its header */
	snprintf(handle, sizeof(handle), "0x%08X", hash_asobo32("hero_run", 8));
	snprintf(path, sizeof(path), "/api/handles/%s", handle);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);
	/* the message receiver is a reference */
	snprintf(path, sizeof(path), "/api/handles/0x%08X", hash_asobo32("snd_step", 8));
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "references"), 0), "kind")),
	                 "message_receiver");
	json_decref(j);
	/* names: stored with both hashes; then handles print with them */
	ck_assert_int_eq(http_request(&daemon_main, "POST", "/api/names", names, strlen(names),
	                              "text/plain", &r),
	                 0);
	ck_assert_msg(r.status == 200, "%s", r.body);
	j = http_json(&r);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "added")), 3);
	json_decref(j);
	http_reply_cleanup(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(j, "crc32_name")), "hero_run");
	tracks = json_object_get(j, "tracks");
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_object_get(json_array_get(tracks, 0), "target"), "handle_name")),
	                 "Bip01 Pelvis");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(tracks, 1), "kind")),
	                 "events");
	ck_assert_uint_gt(json_array_size(json_object_get(j, "assumed")), 0);
	json_decref(j);
	/* the pelvis rotation at 1 s: halfway from identity to 180 degrees about z */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=1&digits=6",
	         (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_float_eq_tol(
	    json_number_value(json_array_get(json_array_get(json_object_get(j, "values"), 0), 2)),
	    0.707107, 1e-6);
	json_decref(j);
	/* the events fired in [0, 1): the first message, with its receiver's name */
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/1/sample?from=0&to=1",
	         (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "count")), 1);
	e = json_array_get(json_object_get(j, "events"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(e, "receiver_name")), "snd_step");
	ck_assert_float_eq(json_number_value(json_object_get(e, "parameter")), 0.75);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/1/sample?t=1", (long long)id);
	json_decref(http_get_json(&daemon_main, path, 400));
	zbuf_free(&b);
}
END_TEST

START_TEST(zouna_bad_uploads_store_nothing)
{
	struct zbuf b;
	json_int_t before[3], after[3];

	hero_run(&b);
	b.data[40] ^= 0x40; /* maxTime's sign and exponent */
	counts(before);
	for (size_t len = 0; len < b.len; len += 7) {
		json_t *j =
		    upload("cut.Animation_Z", (const char *)b.data, len, NULL, len == 0 ? 400 : 0);
		json_decref(j);
	}
	counts(after);
	ck_assert_mem_eq(before, after, sizeof(before));
	zbuf_free(&b);
}
END_TEST

/* A vehicle bundle: one entry per Vehicle Animation and Body Part Remap Data resource. */
START_TEST(burnout_bundle_end_to_end)
{
	static const struct bstate states[1] = {{3, 11, 1, {0, 0, 0, 0, 2, 4, 6, 8}}};
	static const struct bpart parts[4] = {
	    {{0, -1, -1}}, {{1, -1, -1}}, {{2, -1, -1}}, {{3, -1, -1}}};
	static const uint16_t map[2] = {7, 9};
	static const uint8_t other[16] = {0};
	struct bvehicle v = {parts, 4, NULL, 0, states, 1, {0, 1, 2, 3}, {{0}}, 0};
	struct zbuf va, bpr, bnd;
	struct bentry e[3];
	json_int_t before[3], after[3];
	json_t *j;
	char path[256];
	json_int_t id;

	zbuf_init(&va, 1);
	burnout_write_vehicle(&va, &v, 0);
	zbuf_init(&bpr, 1);
	burnout_write_remap(&bpr, map, 2);
	e[0] = (struct bentry){0x2CE66AC1u, 0x10023, va.data, va.len, NULL, 0};
	e[1] = (struct bentry){0x12345678u, 0x00002, other, sizeof(other), NULL, 0};
	e[2] = (struct bentry){0x87654321u, 0x10024, bpr.data, bpr.len, NULL, 0};
	zbuf_init(&bnd, 1);
	burnout_write_bundle(&bnd, e, 3, 1,
	                     "<Resource id=\"2ce66ac1\" type=\"VehicleAnimation\" "
	                     "name=\"pusmc01_vanm\"/>");
	counts(before);
	j = upload("VEH_PUSMC01_AT.BIN", (const char *)bnd.data, bnd.len, NULL, 201);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "skipped")), 1);
	json_decref(j);
	counts(after);
	ck_assert_int_eq(after[0] - before[0], 2); /* two entries */
	ck_assert_int_eq(after[2] - before[2], 1); /* one copy of the bundle's bytes */
	/* found by its resource ID and by its name */
	j = http_get_json(&daemon_main, "/api/handles/0x2CE66AC1", 200);
	id = first_id(j);
	json_decref(j);
	j = http_get_json(&daemon_main, "/api/resources?name=pusmc01_vanm", 200);
	ck_assert_int_eq(first_id(j), id);
	json_decref(j);
	/* every field readable; the state track samples */
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_str_eq(json_string_value(json_object_get(j, "class")), "VehicleAnimation");
	ck_assert_str_eq(
	    json_string_value(json_object_get(
	        json_object_get(
	            json_array_get(
	                json_object_get(
	                    json_object_get(json_object_get(j, "structure"), "metadata"), "states"),
	                0),
	            "trigger"),
	        "name")),
	    "throttle");
	json_decref(j);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=0.25", (long long)id);
	j = http_get_json(&daemon_main, path, 200);
	ck_assert_float_eq(
	    json_number_value(json_array_get(json_array_get(json_object_get(j, "values"), 0), 3)),
	    2.0);
	json_decref(j);
	zbuf_free(&va);
	zbuf_free(&bpr);
	zbuf_free(&bnd);
}
END_TEST

/* Runs a shell command line; returns its first output line (caller frees) and status. */
static char *shell_line(const char *cmd, int *status)
{
	char *line = calloc(1, 512);
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(p);
	if (!fgets(line, 512, p))
		line[0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	*status = pclose(p);
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	return line;
}

static int upload_with_token(const struct daemon_proc *d, const char *token, const char *doc,
                             struct http_reply *r)
{
	char path[64];

	snprintf(path, sizeof(path), "/api/resources?filename=t.json");
	return http_request_auth(d, "POST", path, doc, strlen(doc), "application/json", token, r);
}

START_TEST(tokens_guard_writes_and_name_the_uploader)
{
	struct daemon_proc d;
	char *tmp = testutil_temp_dir(), db[512], cmd[1400], *token, *line;
	struct http_reply r;
	json_t *j;
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(tmp, "tokens.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	/* no token yet: the catalogue is open */
	ck_assert_int_eq(upload_with_token(&d, NULL, "{\"duration\": 1}", &r), 0);
	ck_assert_int_eq(r.status, 201);
	http_reply_cleanup(&r);
	/* a token is made while the daemon runs; from then on writes need one */
	snprintf(cmd, sizeof(cmd), "'%s' token add alice --db '%s' 2>/dev/null", getenv("ANIMDEXD"),
	         db);
	token = shell_line(cmd, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strncmp(token, "adx_", 4) == 0 && strlen(token) == 68, "%s", token);
	ck_assert_int_eq(upload_with_token(&d, NULL, "{\"duration\": 2}", &r), 0);
	ck_assert_int_eq(r.status, 401);
	ck_assert(strstr(r.body, "\"unauthorized\""));
	http_reply_cleanup(&r);
	ck_assert_int_eq(upload_with_token(&d, "adx_0000", "{\"duration\": 2}", &r), 0);
	ck_assert_int_eq(r.status, 403);
	http_reply_cleanup(&r);
	ck_assert_int_eq(
	    http_request_auth(&d, "DELETE", "/api/resources/1", NULL, 0, NULL, NULL, &r), 0);
	ck_assert_int_eq(r.status, 401);
	http_reply_cleanup(&r);
	ck_assert_int_eq(upload_with_token(&d, token, "{\"duration\": 2}", &r), 0);
	ck_assert_msg(r.status == 201, "%s", r.body);
	j = http_json(&r);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "resources"), 0), "uploaded_by")),
	                 "alice");
	json_decref(j);
	http_reply_cleanup(&r);
	/* reads stay open */
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	/* listed by name, never by value; revoked: 403 */
	snprintf(cmd, sizeof(cmd), "'%s' token list --db '%s'", getenv("ANIMDEXD"), db);
	line = shell_line(cmd, &status);
	ck_assert_msg(strncmp(line, "alice\t", 6) == 0 && !strstr(line, token), "%s", line);
	free(line);
	snprintf(cmd, sizeof(cmd), "'%s' token revoke alice --db '%s' 2>/dev/null",
	         getenv("ANIMDEXD"), db);
	free(shell_line(cmd, &status));
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(upload_with_token(&d, token, "{\"duration\": 3}", &r), 0);
	ck_assert_int_eq(r.status, 403);
	ck_assert(strstr(r.body, "revoked"));
	http_reply_cleanup(&r);
	/* and listed as revoked, with when */
	snprintf(cmd, sizeof(cmd), "'%s' token list --db '%s'", getenv("ANIMDEXD"), db);
	line = shell_line(cmd, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strncmp(line, "alice\tcreated 20", 16) == 0 && strstr(line, "\trevoked 20"),
	              "%s", line);
	free(line);
	ck_assert_int_eq(daemon_stop(&d), 0);
	/* --private: reads need a token too */
	snprintf(cmd, sizeof(cmd), "'%s' token add bob --db '%s' 2>/dev/null", getenv("ANIMDEXD"),
	         db);
	free(token);
	token = shell_line(cmd, &status);
	ck_assert_int_eq(daemon_start(&d, db, "--private"), 0);
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 401);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request_auth(&d, "GET", "/api/resources", NULL, 0, NULL, token, &r),
	                 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", "/", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200); /* the page itself is not secret */
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);
	free(token);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

START_TEST(a_public_address_needs_a_token)
{
	char *tmp = testutil_temp_dir(), cmd[1200], db[512], *line;
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(tmp, "open.db", db, sizeof(db)));
	snprintf(cmd, sizeof(cmd), "'%s' --listen 0.0.0.0:0 --db '%s' 2>&1", getenv("ANIMDEXD"),
	         db);
	line = shell_line(cmd, &status);
	ck_assert_int_eq(status, 2);
	ck_assert_msg(strstr(line, "refusing to listen on 0.0.0.0:0 without a write token"), "%s",
	              line);
	free(line);
	snprintf(cmd, sizeof(cmd), "'%s' --private --db '%s' 2>&1", getenv("ANIMDEXD"), db);
	line = shell_line(cmd, &status);
	ck_assert_int_eq(status, 2);
	free(line);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

/* Every entry of every part of a daemon's catalogue, by "sha256/part": what the entry says
 * of itself, less what depends on when and how it came (id, time, file name, url). */
static json_t *entries_by_content(const struct daemon_proc *d)
{
	json_t *out = json_object(), *list;
	struct http_reply r;
	size_t i;
	json_t *e;

	ck_assert_int_eq(http_request(d, "GET", "/api/resources?limit=500", NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
	list = http_json(&r);
	http_reply_cleanup(&r);
	json_array_foreach(json_object_get(list, "resources"), i, e)
	{
		char path[64], key[128];
		json_t *entry;
		snprintf(path, sizeof(path), "/api/resources/%lld",
		         (long long)json_integer_value(json_object_get(e, "id")));
		ck_assert_int_eq(http_request(d, "GET", path, NULL, 0, NULL, &r), 0);
		entry = http_json(&r);
		http_reply_cleanup(&r);
		snprintf(key, sizeof(key), "%s/%lld",
		         json_string_value(json_object_get(entry, "sha256")),
		         (long long)json_integer_value(json_object_get(entry, "part")));
		json_object_del(entry, "id");
		json_object_del(entry, "uploaded_at");
		json_object_del(entry, "filename");
		json_object_del(entry, "url");
		{ /* the versions name other entries by id and time; their files and decoders stay
		   */
			size_t v;
			json_t *version;
			json_array_foreach(json_object_get(entry, "versions"), v, version)
			{
				json_object_del(version, "id");
				json_object_del(version, "uploaded_at");
				json_object_del(version, "filename");
			}
		}
		json_object_set_new(out, key, entry);
	}
	json_decref(list);
	return out;
}

/* `animdexd import` reads, decodes and renders on one thread and stores on another: what it
 * stores is what an upload of the same files stores, entry for entry, part for part (files
 * of one entry and of several, a .gltf with its .bin beside it). */
START_TEST(cli_import_stores_what_uploads_store)
{
	char *tmp = testutil_temp_dir(), cmd[4096], src[600], db[512], upload_db[512];
	const char *fixtures = testutil_fixtures("glTF files with several animations (import)");
	struct daemon_proc imported, uploaded;
	json_t *a, *b;
	int status;
	char *line;

	ck_assert_ptr_nonnull(testutil_catalog(tmp, "import.db", db, sizeof(db)));
	ck_assert_ptr_nonnull(testutil_catalog(tmp, "upload.db", upload_db, sizeof(upload_db)));
	testutil_src_path("tests/data/radient", src, sizeof(src));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/in' && cp '%s'/valid/*.json '%s/in/'", tmp, src,
	         tmp);
	ck_assert_int_eq(system(cmd), 0);
	if (fixtures) {
		snprintf(cmd, sizeof(cmd),
		         "cp '%s/gltf/InterpolationTest.embedded-notextures.gltf' "
		         "'%s/gltf/BoxAnimated.gltf' '%s/in/' && mkdir '%s/in/separate' && cp "
		         "'%s/gltf/InterpolationTest-separate/'* '%s/in/separate/'",
		         fixtures, fixtures, tmp, tmp, fixtures, tmp);
		ck_assert_int_eq(system(cmd), 0);
	}
	{ /* and one whose keys are larger than what goes back to the reading thread */
		enum { TRACKS = 20, KEYS = 2000 };
		size_t cap = (size_t)TRACKS * KEYS * 48 + 4096, len = 0;
		char *doc = malloc(cap), path[700];
		FILE *f;
		ck_assert_ptr_nonnull(doc);
		len +=
		    (size_t)snprintf(doc + len, cap - len,
		                     "{\"name\": \"large\", \"duration\": 19.99, \"targets\": [");
		for (int t = 0; t < TRACKS; t++)
			len += (size_t)snprintf(
			    doc + len, cap - len,
			    "%s{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", "
			    "\"object\": %d}",
			    t ? "," : "", t);
		len += (size_t)snprintf(doc + len, cap - len, "], \"samplers\": [");
		for (int t = 0; t < TRACKS; t++) {
			len += (size_t)snprintf(doc + len, cap - len,
			                        "%s{\"value\": {\"type\": \"FLOAT3\"}, "
			                        "\"interpolation\": \"LINEAR\", \"times\": [",
			                        t ? "," : "");
			for (int k = 0; k < KEYS; k++)
				len += (size_t)snprintf(doc + len, cap - len, "%s%d.%02d",
				                        k ? "," : "", k / 100, k % 100);
			len += (size_t)snprintf(doc + len, cap - len, "], \"values\": [");
			for (int k = 0; k < 3 * KEYS; k++)
				len += (size_t)snprintf(doc + len, cap - len, "%s%d", k ? "," : "",
				                        (k * 7 + t) % 100);
			len += (size_t)snprintf(doc + len, cap - len, "]}");
		}
		len += (size_t)snprintf(doc + len, cap - len, "], \"channels\": [");
		for (int t = 0; t < TRACKS; t++)
			len +=
			    (size_t)snprintf(doc + len, cap - len,
			                     "%s{\"target\": %d, \"property\": 1, \"sampler\": %d}",
			                     t ? "," : "", t, t);
		len += (size_t)snprintf(doc + len, cap - len, "]}");
		ck_assert_uint_lt(len, cap - 1);
		snprintf(path, sizeof(path), "%s/in/large.json", tmp);
		ck_assert_ptr_nonnull(f = fopen(path, "wb"));
		ck_assert_uint_eq(fwrite(doc, 1, len, f), len);
		fclose(f);
		free(doc);
	}
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s' '%s/in' 2>&1 | tail -n 1",
	         getenv("ANIMDEXD"), db, tmp);
	line = shell_line(cmd, &status);
	ck_assert_msg(strstr(line, " 0 failed"), "%s", line);
	free(line);
	ck_assert_int_eq(daemon_start(&uploaded, upload_db, NULL), 0);
	{ /* the same files, uploaded (a .gltf and its .bin together) */
		DIR *folder;
		struct dirent *ent;
		char path[1024];
		snprintf(path, sizeof(path), "%s/in", tmp);
		ck_assert_ptr_nonnull(folder = opendir(path));
		while ((ent = readdir(folder))) {
			struct http_reply r;
			size_t length;
			char *data, url[512];
			if (ent->d_name[0] == '.' || strcmp(ent->d_name, "separate") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/in/%s", tmp, ent->d_name);
			ck_assert_ptr_nonnull(data = testutil_read_file(path, &length));
			snprintf(url, sizeof(url), "/api/resources?filename=%s", ent->d_name);
			ck_assert_int_eq(http_request(&uploaded, "POST", url, data, length,
			                              "application/octet-stream", &r),
			                 0);
			ck_assert_msg(r.status == 201, "%s: %ld %s", ent->d_name, r.status, r.body);
			http_reply_cleanup(&r);
			free(data);
		}
		closedir(folder);
	}
	if (fixtures) {
		const char *names[2] = {"InterpolationTest.gltf", "interpolation.bin"};
		const void *datas[2];
		size_t lengths[2];
		struct http_reply r;
		char path[1024];
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/in/separate/%s", tmp, names[i]);
			ck_assert_ptr_nonnull(datas[i] = testutil_read_file(path, &lengths[i]));
		}
		ck_assert_int_eq(http_upload(&uploaded, 2, names, datas, lengths, NULL, &r), 0);
		ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
		http_reply_cleanup(&r);
		free((void *)datas[0]);
		free((void *)datas[1]);
	}
	ck_assert_int_eq(daemon_start(&imported, db, NULL), 0);
	a = entries_by_content(&imported);
	b = entries_by_content(&uploaded);
	ck_assert_uint_ge(json_object_size(a), fixtures ? 11 : 4);
	ck_assert_uint_eq(json_object_size(a), json_object_size(b));
	{
		const char *key;
		json_t *entry;
		json_object_foreach(a, key, entry)
		{
			json_t *other = json_object_get(b, key);
			char *x = json_dumps(entry, JSON_SORT_KEYS),
			     *y = json_dumps(other, JSON_SORT_KEYS);
			ck_assert_msg(other && json_equal(entry, other),
			              "%s:\nimported %s\nuploaded %s", key, x, y ? y : "(none)");
			free(x);
			free(y);
		}
	}
	json_decref(a);
	json_decref(b);
	ck_assert_int_eq(daemon_stop(&imported), 0);
	ck_assert_int_eq(daemon_stop(&uploaded), 0);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

START_TEST(cli_import_loads_folders_and_reports_errors)
{
	char *tmp = testutil_temp_dir(), cmd[4096], sub[600], src[600], db[512], *line;
	struct daemon_proc d;
	struct http_reply r;
	json_t *j;
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(tmp, "import.db", db, sizeof(db)));
	snprintf(sub, sizeof(sub), "%s/in/sub", tmp);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", sub);
	ck_assert_int_eq(system(cmd), 0);
	testutil_src_path("tests/data/radient", src, sizeof(src));
	snprintf(cmd, sizeof(cmd),
	         "cp '%s'/valid/*.json '%s/' && cp '%s/invalid/no_keys.json' '%s/in/' && "
	         "cp '%s/valid/walk.json' '%s/in/walk-again.json' && echo text > '%s/in/notes.txt'",
	         src, sub, src, tmp, src, tmp, tmp);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s' '%s/in' 2>&1 | tail -n 1",
	         getenv("ANIMDEXD"), db, tmp);
	line = shell_line(cmd, &status);
	ck_assert_msg(strstr(line, "6 files") && strstr(line, "3 entries created") &&
	                  strstr(line, "1 duplicate,") && strstr(line, "1 not animation data") &&
	                  strstr(line, "1 failed"),
	              "%s", line);
	free(line);
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s' '%s/in' 2>&1 | grep no_keys",
	         getenv("ANIMDEXD"), db, tmp);
	line = shell_line(cmd, &status);
	ck_assert_msg(
	    strstr(line, "no_keys.json: samplers[0].times: a sampler needs at least one key"), "%s",
	    line);
	free(line);
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s' '%s/in' >/dev/null 2>&1",
	         getenv("ANIMDEXD"), db, tmp);
	ck_assert_int_ne(system(cmd), 0); /* a file failed: the exit status says so */
	/* what was imported is served */
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources", NULL, 0, NULL, &r), 0);
	j = http_json(&r);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 3);
	json_decref(j);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

/* Two uploads over the server-wide budget: the second is told to come back; the first is
 * stored. Oversized headers are refused. */
START_TEST(upload_memory_and_header_limits)
{
	struct daemon_proc d;
	char *tmp = testutil_temp_dir(), db[512], file[512], cmd[2048], *line;
	int status;
	FILE *f;

	ck_assert_ptr_nonnull(testutil_catalog(tmp, "limits.db", db, sizeof(db)));
	snprintf(file, sizeof(file), "%s/big.json", tmp);
	f = fopen(file, "w");
	fputs("{\"duration\": 1", f);
	for (int i = 0; i < 6000; i++)
		fputs("          ", f); /* 60 kB of white space */
	fputs("}", f);
	fclose(f);
	ck_assert_int_eq(daemon_start(&d, db, "--upload-memory 80K --max-upload 1M"), 0);
	/* the first upload trickles at 20 kB/s, holding its bytes for about three seconds */
	snprintf(cmd, sizeof(cmd),
	         "curl -s -o /dev/null -w '%%{http_code}' --limit-rate 20k --data-binary @'%s' "
	         "'%s/api/resources?filename=slow.json' > '%s/first.txt' &",
	         file, d.base, tmp);
	ck_assert_int_eq(system(cmd), 0);
	/* the state the next upload meets: the first admitted, its bytes held (the health says) */
	for (int i = 0; i < 500; i++) {
		json_t *h = http_get_json(&d, "/api/health", 200);
		json_int_t held =
		    json_integer_value(json_object_get(json_object_get(h, "memory"), "uploads"));
		json_decref(h);
		if (held > 0)
			break;
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	}
	snprintf(
	    cmd, sizeof(cmd),
	    "curl -s -D - -o /dev/null --data-binary @'%s' '%s/api/resources?filename=fast.json' "
	    "| tr -d '\\r' | grep -iE '^(HTTP|Retry-After)' | tr '\\n' ' '",
	    file, d.base);
	line = shell_line(cmd, &status);
	ck_assert_msg(strstr(line, " 503") && strstr(line, "Retry-After: 2"), "%s", line);
	free(line);
	/* the first, once curl has written its status */
	snprintf(cmd, sizeof(cmd), "cat '%s/first.txt'", tmp);
	for (int i = 0; i < 1500; i++) {
		line = shell_line(cmd, &status);
		if (*line)
			break;
		free(line);
		line = NULL;
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	}
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line, "201");
	free(line);
	/* 100 kB of headers against a 64 kB limit */
	snprintf(
	    cmd, sizeof(cmd),
	    "curl -s -o /dev/null -w '%%{http_code}' -H \"X-Big: $(head -c 100000 /dev/zero | tr "
	    "'\\0' a)\" '%s/api/health'",
	    d.base);
	line = shell_line(cmd, &status);
	ck_assert_msg(strcmp(line, "431") == 0 || strcmp(line, "413") == 0, "%s", line);
	free(line);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

/* The tests that use a catalogue, against `backend`. */
static void add_catalogue_tests(Suite *s, int backend)
{
	int pg = backend == TESTUTIL_POSTGRES;
	TCase *tc = tcase_create(pg ? "daemon-postgresql" : "daemon");

	tcase_add_unchecked_fixture(tc, pg ? start_main_daemon_postgres : start_main_daemon,
	                            stop_main_daemon);
	tcase_add_checked_fixture(tc, pg ? use_postgres : use_sqlite, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, upload_find_get_keys_sample_download_delete);
	tcase_add_test(tc, raw_body_upload_with_query_parameters);
	tcase_add_test(tc, list_pages_with_a_cursor);
	tcase_add_test(tc, list_sorts_on_the_server_and_pages_in_order);
	tcase_add_test(tc, a_list_sorted_by_duration_pages_on_exactly);
	tcase_add_test(tc, bad_uploads_answer_their_error_and_store_nothing);
	tcase_add_test(tc, uploads_at_once_each_get_their_answer);
	tcase_add_test(tc, other_bad_requests);
	tcase_add_test(tc, sample_parameters_are_checked);
	tcase_add_test(tc, static_files_stay_inside_www);
	tcase_add_test(tc, restart_finds_everything_again);
	tcase_add_test(tc, a_second_daemon_cannot_take_the_same_port);
	tcase_add_test(tc, conformance_over_http);
	tcase_add_test(tc, gltf_with_its_bin_file);
	tcase_add_test(tc, burnout_bundle_end_to_end);
	tcase_add_test(tc, classes_list_what_is_stored);
	tcase_add_test(tc, zouna_animation_end_to_end);
	tcase_add_test(tc, zouna_bad_uploads_store_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create(pg ? "tokens-postgresql" : "tokens");
	tcase_add_checked_fixture(tc, pg ? use_postgres : use_sqlite, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, tokens_guard_writes_and_name_the_uploader);
	tcase_add_test(tc, a_public_address_needs_a_token);
	tcase_add_test(tc, upload_memory_and_header_limits);
	tcase_add_test(tc, cli_import_loads_folders_and_reports_errors);
	tcase_add_test(tc, cli_import_stores_what_uploads_store);
	suite_add_tcase(s, tc);
}

static Suite *http_suite(void)
{
	Suite *s = suite_create("http");
	TCase *tc;

	add_catalogue_tests(s, TESTUTIL_SQLITE);
	tc = tcase_create("cli");
	tcase_add_test(tc, cli_hash_prints_both_hashes);
	tcase_add_test(tc, cli_decode_prints_what_an_upload_would_store);
	suite_add_tcase(s, tc);
	if (testutil_postgres_wanted())
		add_catalogue_tests(s, TESTUTIL_POSTGRES);
	else
		suite_add_tcase(s, testutil_postgres_skipped());
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (testutil_postgres_wanted() && !testutil_postgres())
		fprintf(stderr, "check_http: the PostgreSQL tests will fail: no cluster\n");
	sr = srunner_create(http_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (daemon_main_status != 0) {
		printf("FAIL: the daemon exited with status %d after SIGTERM (see its report "
		       "above)\n",
		       daemon_main_status);
		failed++;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
