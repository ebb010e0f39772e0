/* check_answers.c: answers a user can trust, against the real daemon: errors that stay JSON
 * whatever bytes they quote, fields given twice or too long named as such, numbers in paths
 * read strictly, HEAD and Allow, floats written as the shortest text of their float32
 * everywhere, a newline after every JSON answer, file names in every script. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"
#include "testutil.h"

static struct daemon_proc d;
static char *dir;

/* the README's clip: one FLOAT3 LINEAR translation, (0,0,0) at 0 s to (2,1,0) at 1 s */
#define walk_doc testutil_walk_doc

static void start(void)
{
	char db[512];

	dir = testutil_temp_dir();
	snprintf(db, sizeof(db), "%s/a.db", dir);
	if (daemon_start(&d, db, NULL) < 0)
		exit(1);
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

/* A raw request's answer: status, and the body after the blank line. */
struct raw {
	long status;
	char *text;
	const char *body;
};

static void raw(const char *request, struct raw *r)
{
	r->text = raw_exchange(&d, request, strlen(request), 0, 5000, &r->status);
	ck_assert_ptr_nonnull(r->text);
	r->body = strstr(r->text, "\r\n\r\n");
	r->body = r->body ? r->body + 4 : "";
}

static void expect_error(const char *request, long status, const char *code, const char *quote)
{
	struct raw r;
	json_t *j;
	const char *message;

	raw(request, &r);
	ck_assert_msg(r.status == status, "%s: %ld %s", request, r.status, r.text);
	j = json_loads(r.body, 0, NULL);
	ck_assert_msg(j != NULL, "%s: not JSON: %s", request, r.text);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
	                 code);
	message = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
	ck_assert_msg(message && (!quote || strstr(message, quote)), "%s: %s", request, r.body);
	ck_assert_msg(strstr(r.text, "Content-Type: application/json"), "%s", r.text);
	json_decref(j);
	free(r.text);
}

static void upload_walk(void)
{
	struct http_reply r;
	ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=walk.json", walk_doc,
	                              strlen(walk_doc), "application/json", &r),
	                 0);
	ck_assert_msg(r.status == 201 || r.status == 200, "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
}

START_TEST(errors_quoting_bytes_that_are_not_utf8_stay_json)
{
	expect_error("GET /api/handles/%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400,
	             "bad_parameter", "\\xFF");
	expect_error("GET /%c0%ae%c0%ae/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404,
	             "not_found", "\\xC0\\xAE");
	expect_error("POST /api/resources?filename=w.json&class=%ff%fe HTTP/1.1\r\nHost: x\r\n"
	             "Content-Length: 2\r\nConnection: close\r\n\r\n{}",
	             400, "bad_parameter", "class: '\\xFF\\xFE' is not valid UTF-8");
}
END_TEST

static void multipart(const char *fields, const char *filename, char *out, size_t size)
{
	char body[16384];
	int n = snprintf(body, sizeof(body),
	                 "%s--XB\r\nContent-Disposition: form-data; name=\"file\"; "
	                 "filename=\"%s\"\r\n\r\n%s\r\n--XB--\r\n",
	                 fields, filename, walk_doc);
	snprintf(out, size,
	         "POST /api/resources HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
	         "boundary=XB\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
	         n, body);
}

START_TEST(fields_given_twice_too_long_or_not_text_are_named)
{
	char req[20000], fields[8000], note[5001];
	json_int_t before;
	struct http_reply h;
	json_t *j;

	ck_assert_int_eq(http_request(&d, "GET", "/api/health", NULL, 0, NULL, &h), 0);
	j = http_json(&h);
	before = json_integer_value(json_object_get(json_object_get(j, "counts"), "resources"));
	json_decref(j);
	http_reply_cleanup(&h);
	snprintf(
	    fields, sizeof(fields),
	    "--XB\r\nContent-Disposition: form-data; name=\"class\"\r\n\r\nRadientAnimationClip"
	    "\r\n--XB\r\nContent-Disposition: form-data; name=\"class\"\r\n\r\n"
	    "RadientAnimationClip\r\n");
	multipart(fields, "w2.json", req, sizeof(req));
	expect_error(req, 400, "bad_parameter", "class: the field is given twice");
	memset(note, 'n', 5000);
	note[5000] = '\0';
	snprintf(fields, sizeof(fields),
	         "--XB\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n%s\r\n", note);
	multipart(fields, "w3.json", req, sizeof(req));
	expect_error(req, 413, "too_large", "note: the field is longer than 4096 bytes");
	multipart("", "w\xff\xfe.json", req, sizeof(req));
	expect_error(req, 400, "bad_parameter", "filename: 'w\\xFF\\xFE.json' is not valid UTF-8");
	snprintf(fields, sizeof(fields),
	         "--XB\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nbad\xc3\r\n");
	multipart(fields, "w4.json", req, sizeof(req));
	expect_error(req, 400, "bad_parameter", "name: 'bad\\xC3' is not UTF-8 text");
	expect_error("POST /api/resources?filename=a.json&name=x&name=y HTTP/1.1\r\nHost: x\r\n"
	             "Content-Length: 2\r\nConnection: close\r\n\r\n{}",
	             400, "bad_parameter", "name: the argument is given 2 times");
	expect_error("POST /api/names HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n"
	             "Connection: close\r\n\r\nok\nbad\xff\n\n",
	             400, "bad_parameter", "line 2 is not UTF-8 text");
	expect_error("POST /api/names HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n"
	             "Connection: close\r\n\r\nok\nPK\x03\x04zip\n\n",
	             400, "bad_parameter", "line 2 holds the control character 0x03 at its byte 3");
	/* nothing of these was stored */
	ck_assert_int_eq(http_request(&d, "GET", "/api/health", NULL, 0, NULL, &h), 0);
	j = http_json(&h);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(j, "counts"), "resources")), before);
	json_decref(j);
	http_reply_cleanup(&h);
}
END_TEST

START_TEST(numbers_in_paths_and_cursors_are_read_strictly)
{
	static const char *const bad[] = {
	    "/api/resources/+1",
	    "/api/resources/%201",
	    "/api/resources/01",
	    "/api/resources/99999999999999999999",
	    "/api/resources/0",
	    "/api/resources/1%00",
	    "/api/resources/1/tracks/+0/keys",
	    "/api/resources/1/tracks/00/keys",
	    "/api/resources?cursor=%20%205",
	    "/api/resources?limit=+5",
	    "/api/resources/1/tracks/0/sample?count=+3",
	    "/api/resources/1/tracks/0/sample?count=03",
	};
	char req[512];

	upload_walk();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(req, sizeof(req),
		         "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", bad[i]);
		expect_error(req, 400, "bad_parameter", NULL);
	}
	expect_error("GET /api/resources/99999999999999999999 HTTP/1.1\r\nHost: x\r\nConnection: "
	             "close\r\n\r\n",
	             400, "bad_parameter", "'99999999999999999999' is not a resource id");
}
END_TEST

START_TEST(head_works_where_get_does_and_405_says_what_is_allowed)
{
	struct raw r;

	upload_walk();
	raw("HEAD /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r);
	ck_assert_msg(r.status == 200 && strstr(r.text, "Content-Type: application/json") &&
	                  r.body[0] == '\0',
	              "%s", r.text);
	free(r.text);
	raw("HEAD /api/resources/1/tracks/0/sample?t=0.5 HTTP/1.1\r\nHost: x\r\nConnection: "
	    "close\r\n\r\n",
	    &r);
	ck_assert_msg(r.status == 200 && r.body[0] == '\0', "%s", r.text);
	free(r.text);
	raw("PUT /api/resources/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: "
	    "close\r\n\r\n",
	    &r);
	ck_assert_msg(r.status == 405 && strstr(r.text, "Allow: GET, HEAD, DELETE"), "%s", r.text);
	free(r.text);
	raw("DELETE /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r);
	ck_assert_msg(r.status == 405 && strstr(r.text, "Allow: GET, HEAD\r\n"), "%s", r.text);
	free(r.text);
	raw("GET /api/names HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r);
	ck_assert_msg(r.status == 405 && strstr(r.text, "Allow: POST\r\n"), "%s", r.text);
	free(r.text);
}
END_TEST

START_TEST(every_json_answer_ends_with_a_newline_and_404s_name_the_path)
{
	static const char *const paths[] = {
	    "/api/health",
	    "/api/classes",
	    "/api/resources",
	    "/api/resources/1",
	    "/api/resources/1/tracks/0/keys",
	    "/api/resources/1/tracks/0/sample?t=0.5",
	    "/api/handles/0x8D917A55",
	    "/api/resources/77",
	    "/nothing-here.html",
	};
	struct http_reply r;

	upload_walk();
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		ck_assert_int_eq(http_request(&d, "GET", paths[i], NULL, 0, NULL, &r), 0);
		ck_assert_msg(r.length > 0 && r.body[r.length - 1] == '\n', "%s: %s", paths[i],
		              r.body);
		if (r.status == 404 && strstr(paths[i], ".html")) {
			json_t *j = http_json(&r);
			/* not "path": "path"; a 404 names the request path in its message */
			ck_assert_ptr_null(json_object_get(json_object_get(j, "error"), "path"));
			json_decref(j);
		}
		http_reply_cleanup(&r);
	}
}
END_TEST

/* A .glb whose keys sit at 0.2301 s and 1.9144 s: float32 values that %.9g writes as
 * 0.230100006 and 1.91439998. */
START_TEST(floats_are_their_shortest_text_everywhere)
{
	static const float times[2] = {0.2301f, 1.9144f}, moves[6] = {0, 0, 0, 0.1f, 2, 3};
	struct gltf_writer w;
	struct http_reply r;
	const char *names[1] = {"floats.glb"};
	const void *datas[1];
	size_t len;
	uint8_t *file;
	int in, out;

	gltf_writer_init(&w);
	in = gltf_writer_accessor(&w, 5126, "SCALAR", 2, times, sizeof(times), 0, 1);
	out = gltf_writer_accessor(&w, 5126, "VEC3", 2, moves, sizeof(moves), 0, 0);
	gltf_writer_channel(&w, 0, gltf_writer_node(&w, "n", 0), "translation", "LINEAR", in, out);
	json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 0), "name",
	                    json_string("floats"));
	file = gltf_writer_glb(&w, &len);
	datas[0] = file;
	ck_assert_int_eq(http_upload(&d, 1, names, datas, &len, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "%s", r.body);
	ck_assert_msg(strstr(r.body, "\"duration\":1.9144,"), "%s", r.body);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources?name=floats", NULL, 0, NULL, &r),
	                 0);
	ck_assert_msg(strstr(r.body, "\"duration\":1.9144,"), "%s", r.body);
	http_reply_cleanup(&r);
	{
		char path[64], *entry;
		ck_assert_int_eq(
		    http_request(&d, "GET", "/api/resources?name=floats", NULL, 0, NULL, &r), 0);
		{
			json_t *j = http_json(&r);
			snprintf(path, sizeof(path), "/api/resources/%lld",
			         (long long)json_integer_value(json_object_get(
			             json_array_get(json_object_get(j, "resources"), 0), "id")));
			json_decref(j);
		}
		http_reply_cleanup(&r);
		ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
		entry = r.body;
		ck_assert_msg(strstr(entry, "\"time_range\":[0.2301,1.9144]"), "%s", entry);
		ck_assert_msg(!strstr(entry, "0.230100006") && !strstr(entry, "1.91439998") &&
		                  !strstr(entry, "0.10000000"),
		              "%s", entry);
		http_reply_cleanup(&r);
		strcat(path, "/tracks/0/keys");
		ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
		ck_assert_msg(strstr(r.body, "\"times\":[0.2301,1.9144]") &&
		                  strstr(r.body, "[0.1,2,3]"),
		              "%s", r.body);
		http_reply_cleanup(&r);
	}
	free(file);
	gltf_writer_cleanup(&w);
}
END_TEST

START_TEST(a_bom_is_skipped_and_file_names_survive_download)
{
	char doc[2048], name[] = "gal\xc3\xa9rie \xe6\xad\xa9.json", path[96];
	struct http_reply r;
	const char *names[1] = {name};
	const void *datas[1] = {doc};
	size_t len;
	json_t *j;

	snprintf(doc, sizeof(doc), "\xEF\xBB\xBF%s", walk_doc);
	/* the BOM'd document is the walk clip under another name */
	memcpy(strstr(doc, "\"walk\""), "\"wal2\"", 6);
	len = strlen(doc);
	ck_assert_int_eq(http_upload(&d, 1, names, datas, &len, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "%s", r.body);
	j = http_json(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/raw",
	         (long long)json_integer_value(
	             json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id")));
	json_decref(j);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_uint_eq(r.length, len); /* byte-identical, BOM included */
	ck_assert_msg(strstr(r.disposition, "filename=\"gal__rie ___.json\"") &&
	                  strstr(r.disposition, "filename*=UTF-8''gal%C3%A9rie%20%E6%AD%A9.json"),
	              "%s", r.disposition);
	http_reply_cleanup(&r);
}
END_TEST

/* /keys gives the keys as decoded: a KeyframerRot_Z key (1000, -500, 0, 2000) is
 * (0.5, -0.25, 0, 1), not its normalised form. */
START_TEST(keys_are_served_as_decoded)
{
	/* count 2; keys of 12 bytes: f32 time, i16 x, y, z, w */
	static const uint8_t rot[4 + 2 * 12] = {
	    2, 0, 0,    0,                                               /* count */
	    0, 0, 0,    0,    0xE8, 0x03, 0x0C, 0xFE, 0, 0, 0xD0, 0x07,  /* 0 s */
	    0, 0, 0x80, 0x3F, 0,    0,    0,    0,    0, 0, 0x30, 0xF8}; /* 1 s */
	struct http_reply r;
	json_t *j;
	char path[96];

	ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=k.KeyframerRot_Z", rot,
	                              sizeof(rot), "application/octet-stream", &r),
	                 0);
	ck_assert_msg(r.status == 201, "%s", r.body);
	j = http_json(&r);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/keys",
	         (long long)json_integer_value(
	             json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id")));
	json_decref(j);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(strstr(r.body, "\"times\":[0,1],\"values\":[[0.5,-0.25,0,1],[0,0,0,-1]]"),
	              "%s", r.body);
	http_reply_cleanup(&r);
}
END_TEST

/* A store that fails inside its transaction (here a trigger injects the fault) is a clear
 * error that stores nothing, and the next upload on the same connection (one thread, one
 * catalogue connection) goes through: the failed transaction was rolled back. */
START_TEST(a_failed_store_rolls_back)
{
	struct daemon_proc one;
	char *tmp = testutil_temp_dir(), db[512], cmd[1024];
	char poison[1024];
	struct http_reply r;
	json_t *j;

	snprintf(db, sizeof(db), "%s/f.db", tmp);
	ck_assert_int_eq(daemon_start(&one, db, "--threads 1"), 0);
	snprintf(cmd, sizeof(cmd),
	         "sqlite3 '%s' \"CREATE TRIGGER injected BEFORE INSERT ON tracks WHEN "
	         "(SELECT name FROM resources WHERE id = NEW.resource_id) = 'poison' BEGIN "
	         "SELECT RAISE(ABORT, 'injected fault'); END\"",
	         db);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(poison, sizeof(poison), "%s", walk_doc);
	memcpy(strstr(poison, "\"walk\""), "\"poison\"", 8);
	memmove(strstr(poison, "\"poison\"") + 8, strstr(walk_doc, "\"walk\"") + 6,
	        strlen(strstr(walk_doc, "\"walk\"") + 6) + 1);
	ck_assert_int_eq(http_request(&one, "POST", "/api/resources?filename=p.json", poison,
	                              strlen(poison), "application/json", &r),
	                 0);
	ck_assert_msg(r.status == 500 && strstr(r.body, "injected fault"), "%ld %s", r.status,
	              r.body);
	http_reply_cleanup(&r);
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "/api/resources?filename=w%d.json", i);
		ck_assert_int_eq(http_request(&one, "POST", name, walk_doc, strlen(walk_doc),
		                              "application/json", &r),
		                 0);
		ck_assert_msg(r.status == 201 || r.status == 200, "after the fault: %ld %s",
		              r.status, r.body);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(http_request(&one, "GET", "/api/health", NULL, 0, NULL, &r), 0);
	j = http_json(&r);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(j, "counts"), "resources")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "counts"), "blobs")),
	                 1);
	json_decref(j);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&one), 0);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

/* --max-samples bounds every way of asking: count, step and t lists. */
START_TEST(max_samples_holds_on_every_path)
{
	struct daemon_proc few;
	char *tmp = testutil_temp_dir(), db[512];
	static const char *const over[] = {"count=5", "from=0&to=1&step=0.25",
	                                   "t=0,0.2,0.4,0.6,0.8"};
	static const char *const fits[] = {"count=4", "from=0&to=0.75&step=0.25",
	                                   "t=0,0.2,0.4,0.6"};
	struct http_reply r;

	snprintf(db, sizeof(db), "%s/s.db", tmp);
	ck_assert_int_eq(daemon_start(&few, db, "--max-samples 4"), 0);
	ck_assert_int_eq(http_request(&few, "POST", "/api/resources?filename=w.json", walk_doc,
	                              strlen(walk_doc), "application/json", &r),
	                 0);
	http_reply_cleanup(&r);
	for (int i = 0; i < 3; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/api/resources/1/tracks/0/sample?%s", over[i]);
		ck_assert_int_eq(http_request(&few, "GET", path, NULL, 0, NULL, &r), 0);
		ck_assert_msg(r.status == 400 && strstr(r.body, "--max-samples"), "%s: %ld %s",
		              path, r.status, r.body);
		http_reply_cleanup(&r);
		snprintf(path, sizeof(path), "/api/resources/1/tracks/0/sample?%s", fits[i]);
		ck_assert_int_eq(http_request(&few, "GET", path, NULL, 0, NULL, &r), 0);
		ck_assert_msg(r.status == 200 && strstr(r.body, "\"count\":4,"), "%s: %ld %s", path,
		              r.status, r.body);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(daemon_stop(&few), 0);
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

/* The float32 numbers of an f32 answer (times, then values) are those of the JSON answer
 * to the same query, bit for bit: streamed in large pieces or made at once, with times
 * from count, step or a list. */
START_TEST(f32_answers_hold_the_numbers_of_json_answers)
{
	static const char *const queries[] = {
	    "from=0&to=1&count=30001",               /* streamed: evenly spaced */
	    "from=-0.5&to=1.5&step=0.0001",          /* streamed: stepped, past both ends */
	    "t=0.1,0.25,-1,0.999,3,0.5,0.75,0.0001", /* made at once: a list */
	};
	char path[256];

	upload_walk();
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		struct http_reply js, f32;
		json_t *doc, *times, *values;
		size_t count;
		const float *numbers;

		snprintf(path, sizeof(path), "/api/resources/1/tracks/0/sample?%s", queries[q]);
		ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &js), 0);
		snprintf(path, sizeof(path), "/api/resources/1/tracks/0/sample?%s&format=f32",
		         queries[q]);
		ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &f32), 0);
		ck_assert_msg(js.status == 200 && f32.status == 200, "%s: %ld, %ld", queries[q],
		              js.status, f32.status);
		doc = json_loads(js.body, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		times = json_object_get(doc, "times");
		values = json_object_get(doc, "values");
		count = json_array_size(times);
		ck_assert_uint_eq(json_array_size(values), count);
		ck_assert_uint_gt(count, 7);
		ck_assert_uint_eq(f32.length, count * 4 * sizeof(float));
		numbers = (const float *)(const void *)f32.body;
		for (size_t i = 0; i < count; i++) {
			json_t *value = json_array_get(values, i);
			float t = (float)json_number_value(json_array_get(times, i));
			ck_assert_msg(memcmp(&numbers[i], &t, 4) == 0,
			              "%s: time %zu: %a in f32, %a in JSON", queries[q], i,
			              (double)numbers[i], (double)t);
			for (size_t c = 0; c < 3; c++) {
				float v = (float)json_number_value(json_array_get(value, c));
				const float *got = &numbers[count + i * 3 + c];
				ck_assert_msg(memcmp(got, &v, 4) == 0,
				              "%s: value %zu[%zu]: %a in f32, %a in JSON",
				              queries[q], i, c, (double)*got, (double)v);
			}
		}
		json_decref(doc);
		http_reply_cleanup(&js);
		http_reply_cleanup(&f32);
	}
}
END_TEST

/* Large answers are written straight into the connection's buffers: keys, CSV and JSON
 * samples of a long track come out whole, every number the track's own or the JSON
 * answer's. */
START_TEST(streamed_text_answers_are_whole)
{
	enum { KEYS = 6000 };
	size_t cap = (size_t)KEYS * 80 + 1024, len = 0;
	char *doc = malloc(cap), path[160];
	struct http_reply r, js, csv;
	json_t *keys, *samples;
	long id;
	const char *line;
	size_t rows = 0;

	ck_assert_ptr_nonnull(doc);
	len +=
	    (size_t)snprintf(doc + len, cap - len,
	                     "{\"name\": \"long\", \"duration\": 59.99, \"targets\": [{\"schema\": "
	                     "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0}], "
	                     "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, "
	                     "\"interpolation\": \"LINEAR\", \"times\": [");
	for (int i = 0; i < KEYS; i++)
		len += (size_t)snprintf(doc + len, cap - len, "%s%.9g", i ? "," : "",
		                        (double)((float)i * 0.01f));
	len += (size_t)snprintf(doc + len, cap - len, "], \"values\": [");
	for (int i = 0; i < KEYS * 3; i++)
		len += (size_t)snprintf(doc + len, cap - len, "%s%.9g", i ? "," : "",
		                        (double)sinf((float)i * 0.37f));
	len += (size_t)snprintf(doc + len, cap - len,
	                        "]}], \"channels\": [{\"target\": 0, \"property\": 1, "
	                        "\"sampler\": 0}]}");
	ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=long.json", doc, len,
	                              "application/json", &r),
	                 0);
	ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
	keys = json_loads(r.body, 0, NULL);
	id = (long)json_integer_value(
	    json_object_get(json_array_get(json_object_get(keys, "resources"), 0), "id"));
	ck_assert_int_gt(id, 0);
	json_decref(keys);
	http_reply_cleanup(&r);
	free(doc);

	/* the keys: every time and value as uploaded */
	snprintf(path, sizeof(path), "/api/resources/%ld/tracks/0/keys", id);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	keys = json_loads(r.body, 0, NULL);
	ck_assert_msg(keys != NULL, "the keys answer is not JSON (%zu bytes)", r.length);
	ck_assert_uint_eq(json_array_size(json_object_get(keys, "times")), KEYS);
	for (size_t i = 0; i < KEYS; i++) {
		json_t *v = json_array_get(json_object_get(keys, "values"), i);
		ck_assert((float)json_number_value(json_array_get(json_object_get(keys, "times"),
		                                                  i)) == (float)i * 0.01f);
		for (size_t c = 0; c < 3; c++)
			ck_assert((float)json_number_value(json_array_get(v, c)) ==
			          sinf((float)(i * 3 + c) * 0.37f));
	}
	json_decref(keys);
	http_reply_cleanup(&r);

	/* CSV and JSON samples: the same numbers, row by row */
	snprintf(path, sizeof(path), "/api/resources/%ld/tracks/0/sample?count=30001", id);
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &js), 0);
	strcat(path, "&format=csv");
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &csv), 0);
	ck_assert(js.status == 200 && csv.status == 200);
	samples = json_loads(js.body, 0, NULL);
	ck_assert_msg(samples != NULL, "the samples answer is not JSON (%zu bytes)", js.length);
	line = strchr(csv.body, '\n'); /* past the column names */
	ck_assert_ptr_nonnull(line);
	for (line++; *line; rows++) {
		json_t *v = json_array_get(json_object_get(samples, "values"), rows);
		char *end;
		float t = strtof(line, &end);
		ck_assert_ptr_nonnull(v);
		ck_assert(t == (float)json_number_value(
		                   json_array_get(json_object_get(samples, "times"), rows)));
		for (size_t c = 0; c < 3; c++) {
			ck_assert_msg(*end == ',', "row %zu: %.40s", rows, line);
			ck_assert(strtof(end + 1, &end) ==
			          (float)json_number_value(json_array_get(v, c)));
		}
		ck_assert_msg(*end == '\n', "row %zu: %.40s", rows, line);
		line = end + 1;
	}
	ck_assert_uint_eq(rows, 30001);
	json_decref(samples);
	http_reply_cleanup(&js);
	http_reply_cleanup(&csv);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("answers");
	TCase *tc = tcase_create("daemon");

	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_add_test(tc, errors_quoting_bytes_that_are_not_utf8_stay_json);
	tcase_add_test(tc, fields_given_twice_too_long_or_not_text_are_named);
	tcase_add_test(tc, numbers_in_paths_and_cursors_are_read_strictly);
	tcase_add_test(tc, head_works_where_get_does_and_405_says_what_is_allowed);
	tcase_add_test(tc, every_json_answer_ends_with_a_newline_and_404s_name_the_path);
	tcase_add_test(tc, floats_are_their_shortest_text_everywhere);
	tcase_add_test(tc, a_bom_is_skipped_and_file_names_survive_download);
	tcase_add_test(tc, keys_are_served_as_decoded);
	tcase_add_test(tc, a_failed_store_rolls_back);
	tcase_add_test(tc, max_samples_holds_on_every_path);
	tcase_add_test(tc, f32_answers_hold_the_numbers_of_json_answers);
	tcase_add_test(tc, streamed_text_answers_are_whole);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
