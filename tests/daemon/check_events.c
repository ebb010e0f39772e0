/* check_events.c: GET /api/events on real daemons, on SQLite and on PostgreSQL: a client
 * holding a stream on one daemon sees, within a second, an upload and a delete made through
 * another daemon on the same catalogue, an `animdexd import` and an `animdexd redecode` run
 * beside them; a reconnect with Last-Event-ID gets exactly the missed events, and one past
 * the kept window a `reset`; filters; --max-event-streams and its 503; a client that goes away
 * frees its slot; the keep-alive comment; streams end cleanly when the daemon stops; --private.
 *
 * The client is a raw socket reading the chunked body as it comes (curl would buffer it). */
#include <check.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "testutil.h"

#define WITHIN_MS 1000 /* the bound for another daemon's or process's change */

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A stream being read: the raw bytes, and the body made of their chunks. */
struct sse {
	int fd;
	long status;
	char head[2048]; /* the status line and headers */
	char *raw;       /* received, not yet taken apart */
	size_t raw_len;
	char *body; /* the body so far */
	size_t body_len;
	size_t taken; /* of body: events handed out by sse_next */
	int ended;    /* the last chunk came */
	int closed;   /* the connection closed */
	int in_body;
};

static void append(char **to, size_t *len, const char *data, size_t n)
{
	*to = realloc(*to, *len + n + 1);
	memcpy(*to + *len, data, n);
	*len += n;
	(*to)[*len] = '\0';
}

/* Takes the head, then whole chunks, from what was received. */
static void sse_parse(struct sse *s)
{
	for (;;) {
		if (!s->in_body) {
			char *end = s->raw ? strstr(s->raw, "\r\n\r\n") : NULL;
			size_t n;
			if (!end)
				return;
			n = (size_t)(end - s->raw) + 4;
			snprintf(s->head, sizeof(s->head), "%.*s", (int)n, s->raw);
			sscanf(s->head, "HTTP/1.1 %ld", &s->status);
			memmove(s->raw, s->raw + n, s->raw_len - n + 1);
			s->raw_len -= n;
			s->in_body = 1;
			if (!strstr(s->head, "chunked")) { /* an error answer with its length */
				append(&s->body, &s->body_len, s->raw, s->raw_len);
				s->raw_len = 0;
				s->ended = 1;
				return;
			}
			continue;
		}
		char *line_end = s->raw ? strstr(s->raw, "\r\n") : NULL;
		unsigned long size;
		size_t head;
		if (!line_end)
			return;
		size = strtoul(s->raw, NULL, 16);
		head = (size_t)(line_end - s->raw) + 2;
		if (s->raw_len < head + size + 2)
			return;
		if (size == 0) {
			s->ended = 1;
			return;
		}
		append(&s->body, &s->body_len, s->raw + head, size);
		memmove(s->raw, s->raw + head + size + 2, s->raw_len - head - size - 2 + 1);
		s->raw_len -= head + size + 2;
	}
}

/* Reads what comes within timeout_ms (returns sooner once something came and want_more is 0). */
static void sse_read(struct sse *s, int timeout_ms)
{
	double until = now_ms() + timeout_ms;

	while (!s->closed && !s->ended) {
		struct pollfd p = {s->fd, POLLIN, 0};
		char block[65536];
		double left = until - now_ms();
		ssize_t n;
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return;
		n = recv(s->fd, block, sizeof(block), 0);
		if (n <= 0) {
			s->closed = 1;
			return;
		}
		append(&s->raw, &s->raw_len, block, (size_t)n);
		sse_parse(s);
		return;
	}
}

/* Opens a stream: path with its query, and a Last-Event-ID header when last is not NULL. */
static struct sse *sse_open(const struct daemon_proc *d, const char *path, const char *last,
                            const char *token)
{
	struct sse *s = calloc(1, sizeof(*s));
	char request[1024];
	double until = now_ms() + 5000;

	s->fd = raw_connect(d, NULL);
	ck_assert_int_ge(s->fd, 0);
	snprintf(
	    request, sizeof(request),
	    "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n%s%s%s%s%s\r\n",
	    path, last ? "Last-Event-ID: " : "", last ? last : "", last ? "\r\n" : "",
	    token ? "Authorization: Bearer " : "", token ? token : "");
	if (token)
		strcat(request, "\r\n");
	ck_assert_int_eq(raw_send(s->fd, request, strlen(request)), 0);
	while (!s->in_body && !s->closed && now_ms() < until)
		sse_read(s, 100);
	ck_assert_msg(s->in_body, "%s: no answer", path);
	return s;
}

static void sse_close(struct sse *s)
{
	close(s->fd);
	free(s->raw);
	free(s->body);
	free(s);
}

/* One event of the stream. */
struct event {
	long long id;
	char kind[16];
	json_t *data;
};

/* The next event (comments and retry: lines skipped), waiting up to timeout_ms; 0 when it came,
 * -1 when not. */
static int sse_next(struct sse *s, int timeout_ms, struct event *e)
{
	double until = now_ms() + timeout_ms;

	for (;;) {
		char *start = s->body ? s->body + s->taken : NULL;
		char *end = start ? strstr(start, "\n\n") : NULL;
		if (end) {
			char block[1 << 16];
			size_t n = (size_t)(end - start);
			snprintf(block, sizeof(block), "%.*s", (int)n, start);
			s->taken += n + 2;
			memset(e, 0, sizeof(*e));
			e->id = -1;
			for (char *line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
				if (strncmp(line, "id: ", 4) == 0)
					e->id = atoll(line + 4);
				else if (strncmp(line, "event: ", 7) == 0)
					snprintf(e->kind, sizeof(e->kind), "%s", line + 7);
				else if (strncmp(line, "data: ", 6) == 0)
					e->data = json_loads(line + 6, 0, NULL);
			}
			if (e->kind[0])
				return 0;
			continue; /* a comment or retry: */
		}
		if (now_ms() >= until || s->closed || s->ended)
			return -1;
		sse_read(s, (int)(until - now_ms()));
	}
}

static void event_cleanup(struct event *e)
{
	json_decref(e->data);
	e->data = NULL;
}

/* The next event, which must be of this kind and about entry `id` (0: any), within ms. */
static void expect(struct sse *s, const char *kind, json_int_t id, int ms, struct event *e,
                   const char *what)
{
	double t0 = now_ms();

	ck_assert_msg(sse_next(s, ms, e) == 0, "%s: no %s event within %d ms", what, kind, ms);
	ck_assert_msg(strcmp(e->kind, kind) == 0, "%s: a %s event came instead of %s", what,
	              e->kind, kind);
	if (id)
		ck_assert_int_eq(json_integer_value(json_object_get(e->data, "id")), id);
	ck_assert_int_eq(json_integer_value(json_object_get(e->data, "event")), e->id);
	printf("note: %s: the %s event came %.0f ms after it was looked for\n", what, kind,
	       now_ms() - t0);
}

/* Nothing more than comments comes within ms. */
static void expect_quiet(struct sse *s, int ms)
{
	struct event e;
	int got = sse_next(s, ms, &e);
	ck_assert_msg(got < 0, "an unexpected %s event %lld", e.kind, e.id);
}

static char *clip_doc(const char *name, double value);

/* Writes `count` clips into dir/name/ (its path into folder). */
static void write_clips(char *folder, size_t size, const char *dir, const char *name, int count)
{
	snprintf(folder, size, "%s/%s", dir, name);
	ck_assert_int_eq(mkdir(folder, 0755), 0);
	for (int i = 0; i < count; i++) {
		char clip[64], file[700], *doc;
		FILE *f;
		snprintf(clip, sizeof(clip), "%s%04d", name, i);
		snprintf(file, sizeof(file), "%s/%s.json", folder, clip);
		doc = clip_doc(clip, i);
		f = fopen(file, "w");
		ck_assert_ptr_nonnull(f);
		fputs(doc, f);
		fclose(f);
		free(doc);
	}
}

/* Waits (up to 10 s) until the daemon holds `count` event streams (/api/health). */
static void wait_for_streams(const struct daemon_proc *d, int count)
{
	json_int_t open = -1;

	for (int tries = 0; tries < 500 && open != count; tries++) {
		struct http_reply r;
		json_t *h;
		struct timespec step = {0, 20 * 1000 * 1000};
		ck_assert_int_eq(http_request(d, "GET", "/api/health", NULL, 0, NULL, &r), 0);
		h = http_json(&r);
		open = json_integer_value(json_object_get(json_object_get(h, "events"), "streams"));
		json_decref(h);
		http_reply_cleanup(&r);
		if (open != count)
			nanosleep(&step, NULL);
	}
	ck_assert_msg(open == count, "the daemon holds %lld event streams, not %d", (long long)open,
	              count);
}

/* Runs SQL on a SQLite catalogue file. */
static void sqlite_run(const char *db, const char *sql)
{
	sqlite3 *h;

	ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

static char *clip_doc(const char *name, double value)
{
	char *doc = malloc(1024);
	snprintf(
	    doc, 1024,
	    "{\"name\": \"%s\", \"duration\": 1, \"targets\": [{\"schema\": "
	    "\"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", \"object\": 0, \"name\": \"hips\"}], "
	    "\"samplers\": [{\"value\": {\"type\": \"FLOAT3\"}, \"times\": [0, 1], \"values\": "
	    "[0, 0, 0, %g, 0, 0]}], \"channels\": [{\"target\": 0, \"property\": 1, \"sampler\": "
	    "0}]}",
	    name, value);
	return doc;
}

/* Uploads a clip through d; its entry's summary as the answer gives it (the caller's). */
static json_t *upload(const struct daemon_proc *d, const char *name, double value)
{
	struct http_reply r;
	char *doc = clip_doc(name, value), file[128];
	const char *names[1] = {file};
	const void *datas[1] = {doc};
	size_t len = strlen(doc);
	json_t *j, *entry;

	snprintf(file, sizeof(file), "%s.json", name);
	ck_assert_int_eq(http_upload(d, 1, names, datas, &len, NULL, &r), 0);
	ck_assert_msg(r.status == 201, "%s: %ld %.300s", name, r.status, r.body);
	j = http_json(&r);
	entry = json_incref(json_array_get(json_object_get(j, "resources"), 0));
	json_decref(j);
	http_reply_cleanup(&r);
	free(doc);
	return entry;
}

static json_int_t id_of(const json_t *entry)
{
	return json_integer_value(json_object_get(entry, "id"));
}

static void delete_entry(const struct daemon_proc *d, json_int_t id)
{
	struct http_reply r;
	char path[64];

	snprintf(path, sizeof(path), "/api/resources/%lld", (long long)id);
	ck_assert_int_eq(http_request(d, "DELETE", path, NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_cleanup(&r);
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int status;
	char *out;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s: %s", cmd, out ? out : "");
	free(out);
}

/* Runs SQL on the catalogue behind the daemons (a file, or a PostgreSQL database). */
static void catalogue_sql(const char *db, const char *sql)
{
	if (testutil_backend == TESTUTIL_POSTGRES) {
		ck_assert_int_eq(testutil_postgres_exec(db, sql), 0);
	} else {
		sqlite3 *h;
		ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
		sqlite3_busy_timeout(h, 5000);
		ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
	}
}

static void use_sqlite(void)
{
	testutil_backend = TESTUTIL_SQLITE;
}

static void use_postgres(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
}

static const char *backend(void)
{
	return testutil_backend == TESTUTIL_POSTGRES ? "PostgreSQL" : "SQLite";
}

START_TEST(another_daemons_and_processes_changes_arrive_within_a_second)
{
	char *dir = testutil_temp_dir(), db[512], what[128], file[600];
	struct daemon_proc a, b;
	struct sse *s;
	struct event e;
	json_t *entry, *listed;
	struct http_reply r;
	json_int_t imported;
	char path[80];

	ck_assert_ptr_nonnull(testutil_catalog(dir, "events.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&a, db, NULL), 0);
	ck_assert_int_eq(daemon_start(&b, db, NULL), 0);
	s = sse_open(&a, "/api/events", NULL, NULL);
	ck_assert_int_eq(s->status, 200);
	ck_assert_ptr_nonnull(strstr(s->head, "Content-Type: text/event-stream"));
	ck_assert_ptr_nonnull(strstr(s->head, "Cache-Control: no-cache"));

	/* an upload through the other daemon: its summary, as the list gives it */
	entry = upload(&b, "walk", 1);
	snprintf(what, sizeof(what), "%s, an upload through daemon B", backend());
	expect(s, "created", id_of(entry), WITHIN_MS, &e, what);
	snprintf(path, sizeof(path), "/api/resources?limit=1");
	ck_assert_int_eq(http_request(&a, "GET", path, NULL, 0, NULL, &r), 0);
	listed = http_json(&r);
	ck_assert_msg(json_equal(json_object_get(e.data, "entry"),
	                         json_array_get(json_object_get(listed, "resources"), 0)),
	              "%.600s", r.body);
	json_decref(listed);
	http_reply_cleanup(&r);
	ck_assert_str_eq(json_string_value(json_object_get(e.data, "class")),
	                 "RadientAnimationClip");
	event_cleanup(&e);

	/* a delete through the other daemon */
	delete_entry(&b, id_of(entry));
	snprintf(what, sizeof(what), "%s, a delete through daemon B", backend());
	expect(s, "deleted", id_of(entry), WITHIN_MS, &e, what);
	ck_assert(json_is_null(json_object_get(e.data, "entry")));
	ck_assert_str_eq(json_string_value(json_object_get(e.data, "crc32")),
	                 json_string_value(json_object_get(entry, "crc32")));
	event_cleanup(&e);
	json_decref(entry);

	/* an import into the same catalogue, beside the daemons */
	{
		char *doc = clip_doc("imported", 2);
		FILE *f;
		snprintf(file, sizeof(file), "%s/imported.json", dir);
		f = fopen(file, "w");
		fputs(doc, f);
		fclose(f);
		free(doc);
	}
	run("\"$ANIMDEXD\" import --quiet --db '%s' '%s'", db, file);
	snprintf(what, sizeof(what), "%s, an animdexd import beside the daemons", backend());
	expect(s, "created", 0, WITHIN_MS, &e, what);
	imported = json_integer_value(json_object_get(e.data, "id"));
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(e.data, "entry"), "filename")),
	    "imported.json");
	event_cleanup(&e);

	/* an import of a folder, one transaction: its events in the order it made the entries */
	{
		char folder[600];
		json_int_t last = imported;
		write_clips(folder, sizeof(folder), dir, "batch", 4);
		run("\"$ANIMDEXD\" import --quiet --db '%s' '%s'", db, folder);
		for (int i = 0; i < 4; i++) {
			snprintf(what, sizeof(what), "%s, clip %d of an imported folder", backend(),
			         i);
			expect(s, "created", 0, WITHIN_MS, &e, what);
			ck_assert_msg(json_integer_value(json_object_get(e.data, "id")) > last,
			              "%s: entry %lld's event after entry %lld's", what,
			              (long long)json_integer_value(json_object_get(e.data, "id")),
			              (long long)last);
			last = json_integer_value(json_object_get(e.data, "id"));
			event_cleanup(&e);
		}
	}

	/* an entry an older decoder made, decoded again beside the daemons */
	{
		char sql[128];
		snprintf(sql, sizeof(sql),
		         "UPDATE resources SET decoder_version = 0 WHERE id = %lld",
		         (long long)imported);
		catalogue_sql(db, sql);
	}
	run("\"$ANIMDEXD\" redecode --quiet --db '%s'", db);
	snprintf(what, sizeof(what), "%s, an animdexd redecode beside the daemons", backend());
	expect(s, "redecoded", imported, WITHIN_MS, &e, what);
	ck_assert_int_gt(json_integer_value(json_object_get(e.data, "decoder_version")), 0);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(e.data, "entry"), "id")), imported);
	event_cleanup(&e);
	expect_quiet(s, 300);

	sse_close(s);
	ck_assert_int_eq(daemon_stop(&b), 0);
	ck_assert_int_eq(daemon_stop(&a), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(a_reconnect_gets_exactly_the_missed_events)
{
	char *dir = testutil_temp_dir(), db[512], last[32], folder[600];
	struct daemon_proc a, b;
	struct sse *s;
	struct event e;
	json_t *one, *two, *three;
	long long seen, newest;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "reconnect.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&a, db, NULL), 0);
	ck_assert_int_eq(daemon_start(&b, db, NULL), 0);
	s = sse_open(&a, "/api/events", NULL, NULL);
	one = upload(&a, "one", 1);
	expect(s, "created", id_of(one), WITHIN_MS, &e, "the first upload");
	seen = e.id;
	event_cleanup(&e);
	sse_close(s);

	/* missed: two uploads (through either daemon) and a delete */
	two = upload(&b, "two", 2);
	three = upload(&a, "three", 3);
	delete_entry(&b, id_of(one));
	snprintf(last, sizeof(last), "%lld", seen);
	s = sse_open(&a, "/api/events", last, NULL);
	expect(s, "created", id_of(two), WITHIN_MS, &e, "missed 1");
	ck_assert_int_gt(e.id, seen);
	seen = e.id;
	event_cleanup(&e);
	expect(s, "created", id_of(three), WITHIN_MS, &e, "missed 2");
	ck_assert_int_gt(e.id, seen);
	seen = e.id;
	event_cleanup(&e);
	expect(s, "deleted", id_of(one), WITHIN_MS, &e, "missed 3");
	ck_assert_int_gt(e.id, seen);
	newest = e.id;
	event_cleanup(&e);
	expect_quiet(s, 400);
	sse_close(s);

	/* the same through the other daemon, and from the first parameter of a new page */
	{
		char path[96];
		snprintf(path, sizeof(path), "/api/events?last_event_id=%lld", newest - 1);
		s = sse_open(&b, path, NULL, NULL);
		expect(s, "deleted", id_of(one), WITHIN_MS, &e, "the last one, from daemon B");
		ck_assert_int_eq(e.id, newest);
		event_cleanup(&e);
		expect_quiet(s, 300);
		sse_close(s);
	}

	/* an id this catalogue never gave: reset, naming the newest */
	s = sse_open(&a, "/api/events", "999999", NULL);
	expect(s, "reset", 0, WITHIN_MS, &e, "an unknown id");
	ck_assert_int_eq(e.id, newest);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e.data, "reason")),
	                             "not one of this catalogue's"));
	event_cleanup(&e);
	sse_close(s);

	/* more events than are kept: an id before them gets reset, then the stream goes on (the
	 * daemon has dropped every stream closed above, so that none holds the events for a
	 * client that is gone) */
	wait_for_streams(&a, 0);
	write_clips(folder, sizeof(folder), dir, "many", CATALOG_EVENTS_KEPT + 5);
	if (testutil_backend == TESTUTIL_SQLITE) /* the events so far older than the grace */
		sqlite_run(db, "UPDATE events SET at = 0");
	run("\"$ANIMDEXD\" import --quiet --db '%s' '%s'", db, folder);
	if (testutil_backend == TESTUTIL_SQLITE) {
		/* the table holds the import's batch whole (younger than the grace, though more
		 * than the kept window), and the older events are trimmed */
		sqlite3 *h;
		sqlite3_stmt *q;
		ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		ck_assert_int_eq(
		    sqlite3_prepare_v2(h, "SELECT count(*), max(id) - min(id) FROM events", -1, &q,
		                       NULL),
		    SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
		ck_assert_int_eq(sqlite3_column_int(q, 0), CATALOG_EVENTS_KEPT + 5);
		ck_assert_int_eq(sqlite3_column_int(q, 1), CATALOG_EVENTS_KEPT + 4);
		sqlite3_finalize(q);
		sqlite3_close(h);
	}
	snprintf(last, sizeof(last), "%lld", newest);
	s = sse_open(&a, "/api/events", last, NULL);
	expect(s, "reset", 0, 2 * WITHIN_MS, &e, "an id older than the kept events");
	ck_assert_int_ge(e.id, newest + CATALOG_EVENTS_KEPT + 5);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e.data, "reason")),
	                             "older than the events kept"));
	{
		/* the window's edge: the reset names the last event not kept (F); an id of F gets
		 * the events after it, an id one older gets a reset */
		const char *after = strstr(json_string_value(json_object_get(e.data, "reason")),
		                           "those after event ");
		long long floor_id;
		ck_assert_ptr_nonnull(after);
		floor_id = atoll(after + strlen("those after event "));
		event_cleanup(&e);
		sse_close(s);
		snprintf(last, sizeof(last), "%lld", floor_id);
		s = sse_open(&a, "/api/events", last, NULL);
		expect(s, "created", 0, 2 * WITHIN_MS, &e, "the oldest id kept");
		ck_assert_int_eq(e.id, floor_id + 1);
		event_cleanup(&e);
		sse_close(s);
		snprintf(last, sizeof(last), "%lld", floor_id - 1);
		s = sse_open(&a, "/api/events", last, NULL);
		expect(s, "reset", 0, 2 * WITHIN_MS, &e, "an id one older than the kept events");
	}
	event_cleanup(&e);
	json_decref(upload(&b, "after", 4));
	expect(s, "created", 0, WITHIN_MS, &e, "an upload after the reset");
	event_cleanup(&e);
	sse_close(s);

	/* an import's batch of more entries than the kept window, committed at once, reaches a
	 * stream open at its commit whole, in order, without a reset */
	s = sse_open(&a, "/api/events", NULL, NULL);
	write_clips(folder, sizeof(folder), dir, "burst", CATALOG_EVENTS_KEPT + 500);
	run("\"$ANIMDEXD\" import --quiet --db '%s' '%s'", db, folder);
	{
		long long previous = 0;
		for (int i = 0; i < CATALOG_EVENTS_KEPT + 500; i++) {
			ck_assert_msg(sse_next(s, 4 * WITHIN_MS, &e) == 0,
			              "the batch's event %d of %d did not come", i + 1,
			              CATALOG_EVENTS_KEPT + 500);
			ck_assert_msg(strcmp(e.kind, "created") == 0,
			              "the batch's event %d: a %s event (%s)", i + 1, e.kind,
			              json_string_value(json_object_get(e.data, "reason")));
			ck_assert_int_gt(e.id, previous);
			previous = e.id;
			event_cleanup(&e);
		}
		sse_close(s);
		/* events trimmed before a daemon read them (it had no stream open, and they were
		 * older than the grace when the next import trimmed) are said with a reset to a
		 * client that asks for them, not skipped in silence */
		if (testutil_backend == TESTUTIL_SQLITE) {
			char after[32];
			wait_for_streams(&a, 0);
			write_clips(folder, sizeof(folder), dir, "later", CATALOG_EVENTS_KEPT + 5);
			run("\"$ANIMDEXD\" import --quiet --db '%s' '%s'", db, folder);
			sqlite_run(db, "UPDATE events SET at = 0");
			write_clips(folder, sizeof(folder), dir, "last", 5);
			run("\"$ANIMDEXD\" import --quiet --db '%s' '%s'", db, folder);
			snprintf(after, sizeof(after), "%lld", previous);
			s = sse_open(&a, "/api/events", after, NULL);
			expect(s, "reset", 0, 2 * WITHIN_MS, &e,
			       "events trimmed before they were read");
			event_cleanup(&e);
			sse_close(s);
		}
	}

	json_decref(one);
	json_decref(two);
	json_decref(three);
	ck_assert_int_eq(daemon_stop(&b), 0);
	ck_assert_int_eq(daemon_stop(&a), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(filters_choose_the_events)
{
	char *dir = testutil_temp_dir(), db[512], path[160];
	struct daemon_proc d;
	struct sse *by_handle, *by_class, *by_family, *other;
	struct event e;
	json_t *walk, *run_clip;
	struct http_reply r;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "filters.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	walk = upload(&d, "walk", 1);
	snprintf(path, sizeof(path), "/api/events?crc32=%s",
	         json_string_value(json_object_get(walk, "crc32")));
	by_handle = sse_open(&d, path, NULL, NULL);
	by_class = sse_open(&d, "/api/events?class=RadientAnimationClip", NULL, NULL);
	by_family = sse_open(&d, "/api/events?family=radient&class=", NULL, NULL);
	other = sse_open(&d, "/api/events?class=Animation_Z", NULL, NULL);
	run_clip = upload(&d, "run", 2);
	delete_entry(&d, id_of(walk));
	/* the handle's stream sees only walk's delete; the others both */
	expect(by_handle, "deleted", id_of(walk), WITHIN_MS, &e, "crc32=");
	event_cleanup(&e);
	expect_quiet(by_handle, 300);
	expect(by_class, "created", id_of(run_clip), WITHIN_MS, &e, "class=");
	event_cleanup(&e);
	expect(by_class, "deleted", id_of(walk), WITHIN_MS, &e, "class=");
	event_cleanup(&e);
	expect(by_family, "created", id_of(run_clip), WITHIN_MS, &e, "family=");
	event_cleanup(&e);
	expect(by_family, "deleted", id_of(walk), WITHIN_MS, &e, "family=");
	event_cleanup(&e);
	expect_quiet(other, 300);
	sse_close(by_handle);
	sse_close(by_class);
	sse_close(by_family);
	sse_close(other);

	/* refusals name the parameter */
	ck_assert_int_eq(http_request(&d, "GET", "/api/events?crc32=walk", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 400);
	ck_assert_ptr_nonnull(strstr(r.body, "\"path\":\"crc32\""));
	http_reply_cleanup(&r);
	{
		struct sse *bad = sse_open(&d, "/api/events", "seven", NULL);
		ck_assert_int_eq(bad->status, 400);
		sse_read(bad, 500);
		ck_assert_ptr_nonnull(strstr(bad->body, "Last-Event-ID: 'seven'"));
		sse_close(bad);
	}
	/* HEAD: a stream's headers, no stream */
	ck_assert_int_eq(http_request(&d, "HEAD", "/api/events", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "text/event-stream; charset=utf-8");
	http_reply_cleanup(&r);
	ck_assert_int_eq(http_request(&d, "POST", "/api/events", "x", 1, "text/plain", &r), 0);
	ck_assert_int_eq(r.status, 405);
	http_reply_cleanup(&r);
	json_decref(walk);
	json_decref(run_clip);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(streams_are_bounded_and_a_gone_client_frees_its_slot)
{
	char *dir = testutil_temp_dir(), db[512];
	struct daemon_proc d;
	struct sse *s[3], *refused, *again;
	double t0;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "limits.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, "--max-event-streams 3"), 0);
	for (int i = 0; i < 3; i++) {
		s[i] = sse_open(&d, "/api/events", NULL, NULL);
		ck_assert_int_eq(s[i]->status, 200);
	}
	refused = sse_open(&d, "/api/events", NULL, NULL);
	ck_assert_int_eq(refused->status, 503);
	ck_assert_ptr_nonnull(strstr(refused->head, "Retry-After: "));
	sse_read(refused, 500);
	ck_assert_ptr_nonnull(strstr(refused->body, "--max-event-streams 3"));
	sse_close(refused);
	/* other requests still go through; the health says how many streams are open */
	{
		struct http_reply r;
		json_t *h, *events;
		ck_assert_int_eq(http_request(&d, "GET", "/api/health", NULL, 0, NULL, &r), 0);
		ck_assert_int_eq(r.status, 200);
		h = http_json(&r);
		events = json_object_get(h, "events");
		ck_assert_int_eq(json_integer_value(json_object_get(events, "streams")), 3);
		ck_assert_int_eq(json_integer_value(json_object_get(events, "max_streams")), 3);
		json_decref(h);
		http_reply_cleanup(&r);
	}
	/* a client goes away: its slot is free well before the keep-alive would have found out */
	sse_close(s[0]);
	t0 = now_ms();
	for (;;) {
		again = sse_open(&d, "/api/events", NULL, NULL);
		if (again->status == 200 || now_ms() - t0 > 3000)
			break;
		sse_close(again);
		nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
	}
	ck_assert_int_eq(again->status, 200);
	printf("note: a closed stream's slot was free again after %.0f ms\n", now_ms() - t0);
	sse_close(again);
	sse_close(s[1]);
	sse_close(s[2]);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(an_idle_stream_keeps_alive_and_ends_cleanly_when_the_daemon_stops)
{
	char *dir = testutil_temp_dir(), db[512];
	struct daemon_proc d;
	struct sse *s, *t;
	double t0;
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "alive.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, "--timeout 10"), 0);
	s = sse_open(&d, "/api/events", NULL, NULL);
	t = sse_open(&d, "/api/events?class=Skel_Z", NULL, NULL);
	/* nothing happens for 15 s: a comment comes, and the stream is still open after the
	 * daemon's --timeout of 10 s */
	t0 = now_ms();
	while (!(s->body && strstr(s->body, ": keep-alive\n\n")) && now_ms() - t0 < 17000 &&
	       !s->closed)
		sse_read(s, 500);
	ck_assert_msg(s->body && strstr(s->body, ": keep-alive\n\n"), "no keep-alive: %s",
	              s->body ? s->body : "");
	printf("note: the keep-alive comment came after %.1f s\n", (now_ms() - t0) / 1000);
	ck_assert_int_ge(now_ms() - t0, 14000);
	ck_assert(!s->closed);

	/* SIGTERM: both streams end their bodies (the last chunk), and the daemon stops at once */
	t0 = now_ms();
	kill(d.pid, SIGTERM);
	while ((!s->ended || !t->ended) && now_ms() - t0 < 5000) {
		sse_read(s, 100);
		sse_read(t, 100);
	}
	ck_assert_msg(s->ended && t->ended, "the streams did not end");
	ck_assert_int_eq(waitpid(d.pid, &status, 0), d.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("note: with two streams open the daemon stopped in %.0f ms\n", now_ms() - t0);
	ck_assert_double_lt(now_ms() - t0, 3000);
	sse_close(s);
	sse_close(t);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(private_reads_need_a_token_for_events_too)
{
	char *dir = testutil_temp_dir(), db[512], *token;
	struct daemon_proc d;
	struct sse *s;
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "private.db", db, sizeof(db)));
	{
		char cmd[700];
		snprintf(cmd, sizeof(cmd), "\"$ANIMDEXD\" token add --db '%s' reader 2>/dev/null",
		         db);
		token = testutil_shell(cmd, &status);
		ck_assert_int_eq(status, 0);
		token[strcspn(token, "\n")] = '\0';
	}
	ck_assert_int_eq(daemon_start(&d, db, "--private"), 0);
	s = sse_open(&d, "/api/events", NULL, NULL);
	ck_assert_int_eq(s->status, 401);
	sse_close(s);
	s = sse_open(&d, "/api/events", NULL, token);
	ck_assert_int_eq(s->status, 200);
	sse_close(s);
	free(token);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

static void add_tests(Suite *s, int pg)
{
	TCase *tc = tcase_create(pg ? "events-postgresql" : "events");

	tcase_add_checked_fixture(tc, pg ? use_postgres : use_sqlite, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, another_daemons_and_processes_changes_arrive_within_a_second);
	tcase_add_test(tc, a_reconnect_gets_exactly_the_missed_events);
	tcase_add_test(tc, filters_choose_the_events);
	tcase_add_test(tc, streams_are_bounded_and_a_gone_client_frees_its_slot);
	if (!pg) {
		tcase_add_test(tc,
		               an_idle_stream_keeps_alive_and_ends_cleanly_when_the_daemon_stops);
		tcase_add_test(tc, private_reads_need_a_token_for_events_too);
	}
	suite_add_tcase(s, tc);
}

int main(void)
{
	Suite *s = suite_create("events");

	testutil_add_both_backends(s, "check_events", add_tests);
	return testutil_run(s);
}
