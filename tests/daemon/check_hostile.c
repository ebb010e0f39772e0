/* check_hostile.c: hostile and careless clients against the real daemon over loopback. Each
 * test is one way a client could make animdex lose data, store what was not sent, or spend
 * memory or time without bound; each asserts the answer, what is stored, and the daemon's
 * memory or responsiveness where that is the point. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burnout_writer.h"
#include "formats/format.h"
#include "gltf_writer.h"
#include "base/hash.h"
#include "testutil.h"
#include "zouna_writer.h"

/* the README's clip: one FLOAT3 LINEAR translation, (0,0,0) at 0 s to (2,1,0) at 1 s */
#define walk_doc testutil_walk_doc

struct fixture {
	struct daemon_proc d;
	char *dir;
	char db[512];
};

static void start(struct fixture *f, const char *args)
{
	f->dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(f->dir);
	snprintf(f->db, sizeof(f->db), "%s/animdex.db", f->dir);
	ck_assert_msg(daemon_start(&f->d, f->db, args) == 0, "daemon with %s", args);
}

static void stop(struct fixture *f)
{
	ck_assert_int_eq(daemon_stop(&f->d), 0);
	testutil_remove_tree(f->dir);
	free(f->dir);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

static json_t *request_json(const struct fixture *f, const char *method, const char *path,
                            long want)
{
	struct http_reply r;
	json_t *j;

	ck_assert_int_eq(http_request(&f->d, method, path, NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == want, "%s %s: %ld %s", method, path, r.status, r.body);
	j = http_json(&r);
	http_reply_cleanup(&r);
	ck_assert_ptr_nonnull(j);
	return j;
}

static json_t *upload_bytes(const struct fixture *f, const char *name, const void *data, size_t len,
                            long want)
{
	struct http_reply r;
	const char *names[1] = {name};
	const void *datas[1] = {data};
	json_t *j;

	ck_assert_int_eq(http_upload(&f->d, 1, names, datas, &len, NULL, &r), 0);
	ck_assert_msg(r.status == want, "upload %s: %ld %s", name, r.status, r.body);
	j = http_json(&r);
	http_reply_cleanup(&r);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* resources and blobs, from /api/health */
static void counts(const struct fixture *f, json_int_t out[2])
{
	json_t *h = request_json(f, "GET", "/api/health", 200), *c = json_object_get(h, "counts");
	out[0] = json_integer_value(json_object_get(c, "resources"));
	out[1] = json_integer_value(json_object_get(c, "blobs"));
	json_decref(h);
}

static size_t count_status(json_t *reply, const char *status)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(json_object_get(reply, "resources"), i, e) n +=
	    strcmp(json_string_value(json_object_get(e, "status")), status) == 0;
	return n;
}

/* A bundle with a Vehicle Animation and a Body Part Remap Data resource. */
static void two_resource_bundle(struct zbuf *bnd)
{
	static const struct bpart parts[2] = {{{0, -1, -1}}, {{1, -1, -1}}};
	struct bvehicle v = {parts, 2, NULL, 0, NULL, 0, {0, 1, -1, -1}, {{0}}, 0};

	burnout_write_vehicle_bundle(bnd, &v, 0, NULL);
}

/* A .glb with two named animations. */
static uint8_t *two_animation_glb(size_t *len)
{
	static const float times[2] = {0, 1}, moves[6] = {0, 0, 0, 1, 2, 3};
	struct gltf_writer w;
	uint8_t *file;
	int in, out, node;

	gltf_writer_init(&w);
	in = gltf_writer_accessor(&w, 5126, "SCALAR", 2, times, sizeof(times), 0, 1);
	out = gltf_writer_accessor(&w, 5126, "VEC3", 2, moves, sizeof(moves), 0, 0);
	node = gltf_writer_node(&w, "mover", 0);
	gltf_writer_channel(&w, 0, node, "translation", "LINEAR", in, out);
	gltf_writer_channel(&w, 1, node, "scale", "STEP", in, out);
	json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 0), "name",
	                    json_string("Step Scale"));
	json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 1), "name",
	                    json_string("slide"));
	file = gltf_writer_glb(&w, len);
	gltf_writer_cleanup(&w);
	return file;
}

static void delete_and_upload_again(struct fixture *f, const char *name, const void *data,
                                    size_t len)
{
	json_int_t before[2], after[2];
	json_t *j = upload_bytes(f, name, data, len, 201), *again;
	json_int_t gone;
	char path[64];

	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 2);
	counts(f, before);
	gone = json_integer_value(
	    json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id"));
	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)gone);
	json_decref(request_json(f, "DELETE", path, 200));
	/* the same bytes again: the deleted entry comes back, the other is there */
	again = upload_bytes(f, name, data, len, 201);
	ck_assert_uint_eq(json_array_size(json_object_get(again, "resources")), 2);
	ck_assert_uint_eq(count_status(again, "created"), 1);
	ck_assert_uint_eq(count_status(again, "existing"), 1);
	counts(f, after);
	ck_assert_int_eq(after[0], before[0]);
	ck_assert_int_eq(after[1], before[1]);
	json_decref(again);
	/* and a third time: nothing to do */
	again = upload_bytes(f, name, data, len, 200);
	ck_assert_uint_eq(count_status(again, "existing"), 2);
	json_decref(again);
	json_decref(j);
}

START_TEST(deleted_entries_of_a_multi_entry_upload_come_back)
{
	struct fixture f;
	struct zbuf bnd;
	uint8_t *glb;
	size_t len;
	json_t *j;

	start(&f, NULL);
	two_resource_bundle(&bnd);
	delete_and_upload_again(&f, "VEH_AT.BIN", bnd.data, bnd.len);
	zbuf_free(&bnd);
	glb = two_animation_glb(&len);
	delete_and_upload_again(&f, "two.glb", glb, len);
	/* each animation has its own handle, from its own name */
	j = request_json(&f, "GET", "/api/handles/0x0A106D6F", 200);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(j, "resources"), 0), "crc32_source")),
	                 "name");
	json_decref(j);
	free(glb);
	stop(&f);
}
END_TEST

START_TEST(incomplete_bodies_are_refused_and_store_nothing)
{
	struct fixture f;
	json_int_t before[2], after[2];
	char head[4096], *answer;
	char body[2048];
	long status;
	double t0;
	int n;

	start(&f, NULL);
	counts(&f, before);
	/* multipart without its closing boundary */
	n = snprintf(body, sizeof(body),
	             "--XB\r\nContent-Disposition: form-data; name=\"file\"; "
	             "filename=\"walk.json\"\r\nContent-Type: application/json\r\n\r\n%s\r\n",
	             walk_doc);
	snprintf(head, sizeof(head),
	         "POST /api/resources HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
	         "boundary=XB\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
	         n);
	{
		size_t hl = strlen(head);
		char *req = malloc(hl + (size_t)n + 1);
		memcpy(req, head, hl);
		memcpy(req + hl, body, (size_t)n + 1);
		answer = raw_exchange(&f.d, req, strlen(req), 0, 5000, &status);
		free(req);
	}
	ck_assert_msg(status == 400 && strstr(answer, "closing boundary"), "%s", answer);
	free(answer);
	counts(&f, after);
	ck_assert_int_eq(after[0], before[0]);
	ck_assert_int_eq(after[1], before[1]);
	/* the same with its boundary is stored */
	n += snprintf(body + n, sizeof(body) - (size_t)n, "--XB--\r\n");
	snprintf(head, sizeof(head),
	         "POST /api/resources HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
	         "boundary=XB\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
	         n, body);
	answer = raw_exchange(&f.d, head, strlen(head), 0, 5000, &status);
	ck_assert_msg(status == 201, "%s", answer);
	free(answer);
	/* a raw body shorter than its Content-Length, the client's side closed: the
	 * connection is closed at once and nothing is stored */
	counts(&f, before);
	n = snprintf(head, sizeof(head),
	             "POST /api/resources?filename=cut.json HTTP/1.1\r\nHost: x\r\n"
	             "Content-Length: %zu\r\n\r\n%.100s",
	             strlen(walk_doc) + 100, walk_doc);
	t0 = now_s();
	answer = raw_exchange(&f.d, head, (size_t)n, 1, 10000, &status);
	ck_assert_msg(now_s() - t0 < 3.0, "closed after %.1f s", now_s() - t0);
	ck_assert_msg(status == 0 || status == 400, "%ld %s", status, answer);
	free(answer);
	counts(&f, after);
	ck_assert_int_eq(after[0], before[0]);
	stop(&f);
}
END_TEST

/* A bundle of 20,000 resources that animdex skips, each named in the debug XML: naming them
 * must cost O(n log n), not O(n^2) (the XML searched once per entry took 31 s for 1.3 MB).
 * The test case's timeout (20 s, with sanitizers) is the bound. */
START_TEST(bundle_names_are_found_in_linear_time)
{
	const size_t count = 20000;
	struct bentry *e = calloc(count, sizeof(*e));
	static const uint8_t other[16] = {0};
	size_t xml_len = count * 80 + 64, used = 0;
	char *xml = malloc(xml_len);
	struct zbuf bnd;
	struct upload up = {0};
	struct decode_result r;
	struct error err;
	double t0;

	for (size_t i = 0; i < count; i++) {
		e[i] = (struct bentry){0x10000000u + i, 0x2, other, sizeof(other), NULL, 0};
		used +=
		    (size_t)snprintf(xml + used, xml_len - used,
		                     "<Resource id=\"%08zx\" type=\"Texture\" name=\"tex_%zu\"/>\n",
		                     (size_t)0x10000000u + i, i);
	}
	zbuf_init(&bnd, 0);
	burnout_write_bundle(&bnd, e, count, 0, xml);
	up.data = bnd.data;
	up.length = bnd.len;
	up.filename = "WORLD.BIN";
	error_init(&err);
	decode_result_init(&r);
	t0 = now_s();
	ck_assert_int_eq(format_decode(&up, &r, &err), -1); /* nothing animdex reads */
	printf("bundle of %zu named resources (%zu bytes) decoded in %.3f s\n", count, bnd.len,
	       now_s() - t0);
	ck_assert_int_eq(err.code, ERROR_UNSUPPORTED_FORMAT);
	ck_assert_uint_eq(json_array_size(r.skipped), count);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r.skipped, 0), "name")),
	                 "tex_0");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(r.skipped, count - 1), "name")),
	    "tex_19999");
	decode_result_cleanup(&r);
	zbuf_free(&bnd);
	free(e);
	free(xml);
}
END_TEST

/* A clip with one FLOAT4X4[16] track: 256 floats a value. */
static char *matrix_clip(void)
{
	char *doc = malloc(64 * 1024), *p = doc;

	p += sprintf(p, "{\"name\": \"matrices\", \"duration\": 1, \"targets\": [{\"schema\": "
	                "\"11111111-2222-3333-4444-555555555555\", \"object\": 0}], "
	                "\"samplers\": [{\"value\": {\"type\": \"FLOAT4X4\", \"array_size\": 16}, "
	                "\"interpolation\": \"LINEAR\", \"times\": [0, 1], \"values\": [");
	for (int i = 0; i < 512; i++)
		p += sprintf(p, "%s%d.125", i ? "," : "", i);
	sprintf(p, "]}], \"channels\": [{\"target\": 0, \"property\": 7, \"sampler\": 0}]}");
	return doc;
}

START_TEST(large_answers_to_clients_that_do_not_read_stay_bounded)
{
	struct fixture f;
	char *doc = matrix_clip(), req[256], *answer;
	int fds[3];
	long base, held, status;
	json_t *j;

	start(&f, "--max-samples 1000000 --answer-memory 64M");
	j = upload_bytes(&f, "m.json", doc, strlen(doc), 201);
	json_decref(j);
	free(doc);
	base = process_rss_kib(f.d.pid, "VmRSS");
	/* three clients ask for 1,000,000 samples of 256 floats (some 2.5 GB of JSON) each and
	 * read nothing: before streaming, each pinned a whole answer */
	snprintf(req, sizeof(req),
	         "GET /api/resources/1/tracks/0/sample?from=0&to=1&count=1000000 HTTP/1.1\r\n"
	         "Host: x\r\n\r\n");
	for (int i = 0; i < 3; i++) {
		fds[i] = raw_connect(&f.d, NULL);
		ck_assert_int_ge(fds[i], 0);
		ck_assert_int_eq(raw_send(fds[i], req, strlen(req)), 0);
	}
	pause_ms(2000);
	held = process_rss_kib(f.d.pid, "VmRSS");
	printf("daemon RSS: %ld KiB before, %ld KiB with three unread 1M-sample answers\n", base,
	       held);
	ck_assert_msg(held - base < 48 * 1024, "RSS grew by %ld KiB", held - base);
	/* the server still answers others */
	json_decref(request_json(&f, "GET", "/api/health", 200));
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	stop(&f);

	/* past --answer-memory: 503 with Retry-After, and room again once it is freed */
	start(&f, "--max-samples 1000000 --answer-memory 100K");
	doc = matrix_clip();
	json_decref(upload_bytes(&f, "m.json", doc, strlen(doc), 201));
	free(doc);
	fds[0] = raw_connect(&f.d, NULL);
	ck_assert_int_eq(raw_send(fds[0], req, strlen(req)), 0);
	pause_ms(500);
	answer = raw_exchange(&f.d, req, strlen(req), 0, 3000, &status);
	ck_assert_msg(status == 503 && strstr(answer, "Retry-After: 2") &&
	                  strstr(answer, "--answer-memory"),
	              "%.300s", answer);
	free(answer);
	close(fds[0]);
	pause_ms(500);
	snprintf(req, sizeof(req),
	         "GET /api/resources/1/tracks/0/sample?t=0.5 HTTP/1.1\r\nHost: x\r\n"
	         "Connection: close\r\n\r\n");
	answer = raw_exchange(&f.d, req, strlen(req), 0, 3000, &status);
	ck_assert_msg(status == 200, "%.300s", answer);
	free(answer);
	stop(&f);
}
END_TEST

/* With --answer-memory too small for any answer, errors still go out (an error answer is small
 * and never waits for room): a 404 as itself, anything else as a 503 that says why; the daemon
 * lives on. (An error answer sent without room once wrote to its freed hold: the sanitizer
 * build of this test catches that.) */
START_TEST(errors_go_out_when_answer_memory_is_full)
{
	struct fixture f;
	json_t *j;

	start(&f, "--answer-memory 1");
	for (int i = 0; i < 3; i++) {
		j = request_json(&f, "GET", "/api/resources/999", 404);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(j, "error"), "code")),
		    "not_found");
		json_decref(j);
		j = request_json(&f, "GET", "/api/health", 503);
		ck_assert_ptr_nonnull(strstr(
		    json_string_value(json_object_get(json_object_get(j, "error"), "message")),
		    "--answer-memory"));
		json_decref(j);
	}
	stop(&f);
}
END_TEST

static void vehicle_bundle(struct zbuf *bnd, size_t entries)
{
	static const struct bpart parts[1] = {{{0, -1, -1}}};
	struct bvehicle v = {parts, 1, NULL, 0, NULL, 0, {0, -1, -1, -1}, {{0}}, 0};
	struct bentry *e = calloc(entries, sizeof(*e));
	struct zbuf va;

	zbuf_init(&va, 0);
	burnout_write_vehicle(&va, &v, 0);
	for (size_t i = 0; i < entries; i++)
		e[i] = (struct bentry){0x1000 + i, 0x10023, va.data, va.len, NULL, 0};
	zbuf_init(bnd, 0);
	burnout_write_bundle(bnd, e, entries, 1, NULL);
	zbuf_free(&va);
	free(e);
}

START_TEST(entries_per_upload_are_bounded)
{
	struct fixture f;
	json_int_t before[2], after[2];
	struct zbuf bnd;
	json_t *j;

	start(&f, "--max-entries 100");
	vehicle_bundle(&bnd, 150);
	counts(&f, before);
	j = upload_bytes(&f, "MANY.BIN", bnd.data, bnd.len, 413);
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	           "more than 100 entries"));
	json_decref(j);
	counts(&f, after);
	ck_assert_int_eq(after[0], before[0]);
	ck_assert_int_eq(after[1], before[1]);
	zbuf_free(&bnd);
	vehicle_bundle(&bnd, 101); /* one past: refused too */
	json_decref(upload_bytes(&f, "ONE MORE.BIN", bnd.data, bnd.len, 413));
	zbuf_free(&bnd);
	vehicle_bundle(&bnd, 100);
	j = upload_bytes(&f, "ENOUGH.BIN", bnd.data, bnd.len, 201);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "resources")), 100);
	json_decref(j);
	zbuf_free(&bnd);
	stop(&f);
}
END_TEST

/* Slowloris: 270 connections from 127.0.0.2 to 127.0.0.10 send one header line every 2 s
 * and never finish their headers. 127.0.0.1 must be answered at once throughout, and the
 * slow connections are closed after --header-timeout. Bounded: 14 s. */
START_TEST(slow_headers_do_not_keep_others_out)
{
	enum { ATTACKERS = 270, SECONDS = 14 };
	struct fixture f;
	int fds[ATTACKERS], open_count = 0, closed_by_server = 0, answered = 0, asked = 0;
	double start_s, next_line, worst = 0;

	start(&f, "--header-timeout 6 --max-connections 256 --max-connections-per-ip 32");
	for (int i = 0; i < ATTACKERS; i++) {
		char source[16];
		snprintf(source, sizeof(source), "127.0.0.%d", 2 + i % 9);
		fds[i] = raw_connect(&f.d, source);
		if (fds[i] >= 0) {
			open_count++;
			raw_send(fds[i], "GET /api/health HTTP/1.1\r\n", 26);
		}
	}
	ck_assert_int_ge(open_count, 250);
	start_s = now_s();
	next_line = start_s + 2;
	while (now_s() - start_s < SECONDS) {
		char *answer;
		long status;
		double t0 = now_s(), took;
		static const char health[] =
		    "GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
		answer = raw_exchange(&f.d, health, sizeof(health) - 1, 0, 3000, &status);
		took = now_s() - t0;
		asked++;
		answered += status == 200;
		if (took > worst)
			worst = took;
		free(answer);
		if (now_s() >= next_line) {
			for (int i = 0; i < ATTACKERS; i++)
				if (fds[i] >= 0 && raw_send(fds[i], "X-Slow: 1\r\n", 11) < 0) {
					close(fds[i]);
					fds[i] = -1;
					closed_by_server++;
				}
			next_line += 2;
		}
		pause_ms(200);
	}
	/* whatever is still open was closed by the server (EOF waiting), or is closed now */
	for (int i = 0; i < ATTACKERS; i++) {
		if (fds[i] < 0)
			continue;
		{
			char c;
			struct pollfd p = {fds[i], POLLIN, 0};
			if (poll(&p, 1, 0) > 0 && recv(fds[i], &c, 1, MSG_DONTWAIT) <= 0)
				closed_by_server++;
		}
		close(fds[i]);
	}
	printf("slowloris: %d slow connections, %d closed by the server within %d s; %d of %d "
	       "requests from 127.0.0.1 answered, the slowest in %.3f s\n",
	       open_count, closed_by_server, SECONDS, answered, asked, worst);
	ck_assert_int_eq(answered, asked);
	ck_assert_msg(worst < 2.0, "slowest answer %.2f s", worst);
	ck_assert_int_ge(closed_by_server, open_count - 10);
	stop(&f);
}
END_TEST

/* Ten uploads of 6,000,000 bytes declared at once against --upload-memory 50M: the eight
 * that fit are admitted (and stored), the two that do not get 503 at once; two against 10M:
 * one each. */
static void concurrent_uploads(const char *budget, int clients, int want_admitted)
{
	struct fixture f;
	const size_t size = 6000000;
	char args[128], head[256], *body = malloc(size);
	int fds[16], refused = 0, stored = 0;

	snprintf(args, sizeof(args), "--upload-memory %s", budget);
	start(&f, args);
	memset(body, ' ', size);
	memcpy(body, walk_doc, strlen(walk_doc));
	snprintf(
	    head, sizeof(head),
	    "POST /api/resources?filename=big.json HTTP/1.1\r\nHost: x\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
	    size);
	for (int i = 0; i < clients; i++) {
		fds[i] = raw_connect(&f.d, NULL);
		ck_assert_int_ge(fds[i], 0);
		ck_assert_int_eq(raw_send(fds[i], head, strlen(head)), 0);
	}
	pause_ms(1000);
	for (int i = 0; i < clients; i++) {
		struct pollfd p = {fds[i], POLLIN, 0};
		if (poll(&p, 1, 0) > 0) {
			size_t len;
			int closed;
			char *answer = raw_read(fds[i], 1000, &len, &closed);
			ck_assert_msg(strncmp(answer, "HTTP/1.1 503", 12) == 0, "%.200s", answer);
			free(answer);
			refused++;
			close(fds[i]);
			fds[i] = -1;
		}
	}
	for (int i = 0; i < clients; i++) {
		size_t len;
		int closed;
		char *answer;
		if (fds[i] < 0)
			continue;
		raw_send(fds[i], body, size); /* a late 503 may have closed it already */
		answer = raw_read(fds[i], 20000, &len, &closed);
		if (strncmp(answer, "HTTP/1.1 503", 12) == 0) {
			refused++; /* refused at once, though the answer came after the wait */
		} else {
			ck_assert_msg(strncmp(answer, "HTTP/1.1 201", 12) == 0 ||
			                  strncmp(answer, "HTTP/1.1 200", 12) == 0,
			              "%.200s", answer);
			stored++;
		}
		free(answer);
		close(fds[i]);
	}
	printf("--upload-memory %s: %d uploads of %zu bytes at once: %d admitted, %d refused\n",
	       budget, clients, size, stored, refused);
	ck_assert_int_eq(stored, want_admitted);
	ck_assert_int_eq(refused, clients - want_admitted);
	free(body);
	stop(&f);
}

START_TEST(uploads_are_admitted_by_their_declared_length)
{
	concurrent_uploads("10M", 2, 1);
	concurrent_uploads("50M", 10, 8);
}
END_TEST

START_TEST(conflicting_content_lengths_are_refused)
{
	struct fixture f;
	char req[1024], *answer;
	long status;

	start(&f, NULL);
	snprintf(req, sizeof(req),
	         "POST /api/resources?filename=w.json HTTP/1.1\r\nHost: x\r\nContent-Length: "
	         "%zu\r\nContent-Length: 1073741824\r\n\r\n%s",
	         strlen(walk_doc), walk_doc);
	answer = raw_exchange(&f.d, req, strlen(req), 0, 3000, &status);
	ck_assert_msg(status == 400 && strstr(answer, "Content-Length"), "%.300s", answer);
	free(answer);
	/* the same length twice is one length */
	snprintf(req, sizeof(req),
	         "POST /api/resources?filename=w.json HTTP/1.1\r\nHost: x\r\nContent-Length: "
	         "%zu\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	         strlen(walk_doc), strlen(walk_doc), walk_doc);
	answer = raw_exchange(&f.d, req, strlen(req), 0, 3000, &status);
	ck_assert_msg(status == 201, "%.300s", answer);
	free(answer);
	stop(&f);
}
END_TEST

START_TEST(the_request_log_escapes_control_bytes)
{
	struct daemon_proc d;
	char *dir = testutil_temp_dir(), db[512], log[512], *text;
	struct http_reply r;
	size_t len;

	snprintf(db, sizeof(db), "%s/a.db", dir);
	snprintf(log, sizeof(log), "%s/log.txt", dir);
	ck_assert_int_eq(daemon_start_logged(&d, db, NULL, log), 0);
	http_request(&d, "GET", "/x%0a2026-01-01T00:00:00.000Z%20GET%20/forged%20200%201B", NULL, 0,
	             NULL, &r);
	http_reply_cleanup(&r);
	http_request(&d, "GET", "/%1b[31mred%1b[0m", NULL, 0, NULL, &r);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);
	text = testutil_read_file(log, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "/x\\x0A2026-01-01T00:00:00.000Z GET /forged 200 1B 404"), "%s",
	              text);
	ck_assert_msg(!strstr(text, "\n2026-01-01T00:00:00.000Z GET /forged"), "%s", text);
	ck_assert_msg(strstr(text, "/\\x1B[31mred\\x1B[0m 404"), "%s", text);
	ck_assert_msg(!strchr(text, '\x1b'), "an escape byte reached the log");
	free(text);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* Waits (at most 10 s) until the server closes fd: 1 when it did. */
static int closed_by_server(int fd)
{
	for (int i = 0; i < 200; i++) {
		char c[4096];
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 50) > 0) {
			ssize_t n = recv(fd, c, sizeof(c), MSG_DONTWAIT);
			if (n == 0)
				return 1;
			if (n < 0 && errno != EAGAIN)
				return 1;
		}
	}
	return 0;
}

/* What happens every day is not logged as a failure: an idle connection, or one kept alive
 * after its answer, timing out; a client closing its event stream or a download half way.
 * A connection that stops half way through its headers is said, in the daemon's words. */
START_TEST(ordinary_closes_are_not_logged_as_failures)
{
	static const char health[] = "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char events[] = "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char partial[] = "GET /api/health HTTP/1.1\r\nHost: x\r\n";
	struct daemon_proc d;
	char *dir = testutil_temp_dir(), db[512], log[512], *text = NULL;
	size_t len;
	int idle, kept, stream, slow;

	snprintf(db, sizeof(db), "%s/a.db", dir);
	snprintf(log, sizeof(log), "%s/log.txt", dir);
	ck_assert_int_eq(daemon_start_logged(&d, db, "--header-timeout 1", log), 0);
	idle = raw_connect(&d, NULL);
	kept = raw_connect(&d, NULL);
	stream = raw_connect(&d, NULL);
	ck_assert(idle >= 0 && kept >= 0 && stream >= 0);
	ck_assert_int_eq(raw_send(kept, health, sizeof(health) - 1), 0);
	ck_assert_int_eq(raw_send(stream, events, sizeof(events) - 1), 0);
	{
		char c[256];
		struct pollfd p = {stream, POLLIN, 0};
		ck_assert_int_gt(poll(&p, 1, 5000), 0); /* the stream's first comment */
		ck_assert_int_gt(recv(stream, c, sizeof(c), 0), 0);
	}
	close(stream); /* the client goes away */
	ck_assert_msg(closed_by_server(idle), "an idle connection stays open");
	ck_assert_msg(closed_by_server(kept), "a kept-alive connection stays open");
	/* one that stops half way through its headers */
	slow = raw_connect(&d, NULL);
	ck_assert_int_eq(raw_send(slow, partial, sizeof(partial) - 1), 0);
	ck_assert_msg(closed_by_server(slow), "a half-sent request stays open");
	close(idle);
	close(kept);
	close(slow);
	/* its line comes within the watchdog's log period (10 s) */
	for (int i = 0; i < 300; i++) {
		free(text);
		text = testutil_read_file(log, &len);
		if (text && strstr(text, "sending its request too slowly"))
			break;
		pause_ms(100);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
	free(text);
	text = testutil_read_file(log, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "animdexd: closed 1 connection sending its request too slowly"),
	              "%s", text);
	ck_assert_msg(!strstr(text, "application error") && !strstr(text, "libmicrohttpd:"), "%s",
	              text);
	free(text);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* Static files: regular files inside --www only. A FIFO would hang a polling thread (and
 * SIGTERM with it); a NUL in the path must not cut it short; hidden files and links out of
 * the folder are not served, each defence on its own. */
START_TEST(static_files_refuse_fifos_nuls_hidden_files_and_links_out)
{
	struct daemon_proc d;
	char *dir = testutil_temp_dir(), www[512], path[600], db[512], args[700];
	struct http_reply r;
	double t0;
	FILE *fp;

	snprintf(www, sizeof(www), "%s/www", dir);
	mkdir(www, 0755);
	snprintf(path, sizeof(path), "%s/index.html", www);
	fp = fopen(path, "w");
	fputs("<!doctype html><title>x</title>", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/.env", www);
	fp = fopen(path, "w");
	fputs("SECRET=1\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/secret.txt", dir); /* outside www */
	fp = fopen(path, "w");
	fputs("outside\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/link.txt", www);
	ck_assert_int_eq(symlink("../secret.txt", path), 0);
	snprintf(path, sizeof(path), "%s/pipe.html", www);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	snprintf(db, sizeof(db), "%s/a.db", dir);
	snprintf(args, sizeof(args), "--www %s", www);
	ck_assert_int_eq(daemon_start(&d, db, args), 0);
	t0 = now_s();
	ck_assert_int_eq(http_request(&d, "GET", "/pipe.html", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 404);
	ck_assert_msg(now_s() - t0 < 2.0, "a FIFO took %.1f s", now_s() - t0);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", "/index.html%00.txt", NULL, 0, NULL, &r), 0);
	ck_assert_msg(r.status == 404 || r.status == 400, "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", "/.env", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 404);
	ck_assert_ptr_null(strstr(r.body, "SECRET"));
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", "/link.txt", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 404);
	ck_assert_ptr_null(strstr(r.body, "outside"));
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "GET", "/", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
	t0 = now_s();
	ck_assert_int_eq(daemon_stop(&d), 0);
	ck_assert_msg(now_s() - t0 < 5.0, "stopping took %.1f s", now_s() - t0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* Runs a command; its stderr and stdout together, and its exit status. */
static char *run(const char *cmd, int *status)
{
	char full[4096], *out = calloc(1, 65536);
	FILE *p;
	size_t n;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	n = fread(out, 1, 65535, p);
	out[n] = '\0';
	*status = pclose(p);
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	return out;
}

START_TEST(import_visits_each_folder_once_and_names_what_it_skips)
{
	char *dir = testutil_temp_dir(), path[600], cmd[2048], *out;
	int status;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tree", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tree/sub", dir);
	mkdir(path, 0755);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/tree/%s/c%d.json", dir, i ? "sub" : ".", i);
		fp = fopen(path, "w");
		fprintf(fp, "%.*sc%d%s", 10, walk_doc, i, walk_doc + 14);
		fclose(fp);
	}
	/* links back up the tree: a loop */
	snprintf(path, sizeof(path), "%s/tree/sub/up", dir);
	ck_assert_int_eq(symlink("..", path), 0);
	snprintf(path, sizeof(path), "%s/tree/sub/loop", dir);
	ck_assert_int_eq(symlink(".", path), 0);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s/i.db' '%s/tree' '%s/fifo'",
	         getenv("ANIMDEXD"), dir, dir, dir);
	out = run(cmd, &status);
	ck_assert_msg(strstr(out, "3 files,") && strstr(out, "3 entries created"), "%s", out);
	ck_assert_msg(strstr(out, "fifo: a FIFO, skipped"), "%s", out);
	ck_assert_msg(strstr(out, "1 skipped (not regular files)"), "%s", out);
	free(out);
	testutil_remove_tree(dir); /* leaves the links' targets alone */
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile");
	TCase *data = tcase_create("data"), *limits = tcase_create("limits");
	TCase *slow = tcase_create("slow clients"), *misc = tcase_create("requests");

	signal(SIGPIPE, SIG_IGN);
	tcase_add_test(data, deleted_entries_of_a_multi_entry_upload_come_back);
	tcase_add_test(data, incomplete_bodies_are_refused_and_store_nothing);
	tcase_add_test(data, entries_per_upload_are_bounded);
	tcase_add_test(limits, bundle_names_are_found_in_linear_time);
	tcase_set_timeout(limits, 20);
	tcase_add_test(slow, large_answers_to_clients_that_do_not_read_stay_bounded);
	tcase_add_test(slow, errors_go_out_when_answer_memory_is_full);
	tcase_add_test(slow, slow_headers_do_not_keep_others_out);
	tcase_add_test(slow, uploads_are_admitted_by_their_declared_length);
	tcase_set_timeout(slow, 120);
	tcase_add_test(misc, conflicting_content_lengths_are_refused);
	tcase_add_test(misc, the_request_log_escapes_control_bytes);
	tcase_add_test(misc, ordinary_closes_are_not_logged_as_failures);
	tcase_set_timeout(misc, 60);
	tcase_add_test(misc, static_files_refuse_fifos_nuls_hidden_files_and_links_out);
	tcase_add_test(misc, import_visits_each_folder_once_and_names_what_it_skips);
	suite_add_tcase(s, data);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, slow);
	suite_add_tcase(s, misc);
	return testutil_run(s);
}
