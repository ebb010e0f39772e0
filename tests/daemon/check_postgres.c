/* check_postgres.c: several daemons on one PostgreSQL catalogue (a throwaway cluster of the
 * test's own): uploads seen everywhere at once, the same bytes at the same moment stored once,
 * deletes and tokens seen by every daemon within a second, one migration for daemons starting
 * together, 503 while the server is away and reconnection after it, SIGKILLs and a server
 * restart under load, passwords kept out of every message, and animdexd copy from SQLite to
 * PostgreSQL to SQLite. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catalog/schema.h"
#include "testutil.h"

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static char *dir;
static char db[512];

static void setup(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
	if (testutil_postgres_control("status") != 0) /* a failed test left it stopped */
		ck_assert_int_eq(testutil_postgres_control("start"), 0);
	dir = testutil_temp_dir();
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(testutil_catalog(dir, "shared.db", db, sizeof(db)));
}

static void teardown(void)
{
	testutil_remove_tree(dir);
	free(dir);
}

/* An upload of a small clip; its status, and the id of its entry in *id. */
static long upload(const struct daemon_proc *d, const char *doc, const char *token, long long *id)
{
	struct http_reply r;
	long status;

	if (http_request_auth(d, "POST", "/api/resources?filename=c.json", doc, strlen(doc),
	                      "application/json", token, &r) != 0)
		return 0;
	status = r.status;
	if (id && (status == 200 || status == 201)) {
		json_t *j = http_json(&r);
		*id = json_integer_value(
		    json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id"));
		json_decref(j);
	}
	http_reply_cleanup(&r);
	return status;
}

static long get_status(const struct daemon_proc *d, const char *path)
{
	struct http_reply r;
	long status;

	if (http_request(d, "GET", path, NULL, 0, NULL, &r) != 0)
		return 0;
	status = r.status;
	http_reply_cleanup(&r);
	return status;
}

static json_t *get_json(const struct daemon_proc *d, const char *path)
{
	struct http_reply r;
	json_t *j = NULL;

	if (http_request(d, "GET", path, NULL, 0, NULL, &r) == 0 && r.status == 200)
		j = http_json(&r);
	http_reply_cleanup(&r);
	return j;
}

START_TEST(daemons_starting_together_migrate_once)
{
	char cmd[2400];
	int status;
	char *out;

	/* four commands open the empty database at the same moment */
	snprintf(cmd, sizeof(cmd),
	         "for i in 1 2 3 4; do '%s' token list --db '%s' & done; wait 2>&1; echo done",
	         getenv("ANIMDEXD"), db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(strstr(out, "done") != NULL, "%s", out);
	free(out);
	{ /* each migration recorded once, none twice */
		char sql[300];
		snprintf(sql, sizeof(sql),
		         "DO $$ BEGIN IF (SELECT count(*) FROM animdex_schema) <> %u OR (SELECT "
		         "count(DISTINCT version) FROM animdex_schema) <> %u THEN RAISE EXCEPTION "
		         "'migrated more than once'; END IF; END $$",
		         postgres_migration_count, postgres_migration_count);
		ck_assert_int_eq(testutil_postgres_exec(db, sql), 0);
	}
	/* a schema newer than this animdexd: refused, saying so */
	ck_assert_int_eq(testutil_postgres_exec(db, "INSERT INTO animdex_schema (version, file) "
	                                            "VALUES (99, '099_future.sql')"),
	                 0);
	snprintf(cmd, sizeof(cmd), "'%s' token list --db '%s' 2>&1", getenv("ANIMDEXD"), db);
	out = testutil_shell(cmd, &status);
	ck_assert_int_ne(status, 0);
	ck_assert_msg(strstr(out, "schema version 99 is newer than this animdexd knows"), "%s",
	              out);
	free(out);
}
END_TEST

START_TEST(two_daemons_share_one_catalogue)
{
	struct daemon_proc a, b;
	char path[128], cmd[2400], doc[128], *token, *out;
	long long id, id_a, id_b;
	long long start;
	int status;
	json_t *ha, *hb;

	ck_assert_int_eq(daemon_start(&a, db, NULL), 0);
	ck_assert_int_eq(daemon_start(&b, db, NULL), 0);
	/* acknowledged by one, seen by the other at once */
	ck_assert_int_eq(upload(&a, "{\"name\": \"shared\", \"duration\": 1}", NULL, &id), 201);
	snprintf(path, sizeof(path), "/api/resources/%lld", id);
	ck_assert_int_eq(get_status(&b, path), 200);
	/* the same bytes at the same moment on both: one 201, one 200, the same id */
	for (int round = 0; round < 8; round++) {
		int pipes[2][2];
		pid_t pid[2];
		long statuses[2];
		long long ids[2];
		snprintf(doc, sizeof(doc), "{\"name\": \"race %d\", \"duration\": 2}", round);
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(pipe(pipes[k]), 0);
			pid[k] = fork();
			if (pid[k] == 0) {
				long long got = 0;
				long st = upload(k ? &b : &a, doc, NULL, &got);
				dprintf(pipes[k][1], "%ld %lld\n", st, got);
				_exit(0);
			}
			close(pipes[k][1]);
		}
		for (int k = 0; k < 2; k++) {
			char line[64] = "";
			ssize_t n = read(pipes[k][0], line, sizeof(line) - 1);
			line[n > 0 ? n : 0] = '\0';
			close(pipes[k][0]);
			waitpid(pid[k], NULL, 0);
			ck_assert_int_eq(sscanf(line, "%ld %lld", &statuses[k], &ids[k]), 2);
		}
		ck_assert_msg((statuses[0] == 201 && statuses[1] == 200) ||
		                  (statuses[0] == 200 && statuses[1] == 201),
		              "round %d: %ld and %ld", round, statuses[0], statuses[1]);
		ck_assert_int_eq(ids[0], ids[1]);
	}
	/* B's threads cache the track while sampling; a DELETE on A makes it 404 on B within 1 s */
	ck_assert_int_eq(upload(&a, testutil_walk_doc, NULL, &id), 201);
	snprintf(path, sizeof(path), "/api/resources/%lld/tracks/0/sample?t=0.5", id);
	for (int i = 0; i < 20; i++) /* a connection each: spread over B's threads */
		ck_assert_int_eq(get_status(&b, path), 200);
	{
		struct http_reply r;
		char del[64];
		snprintf(del, sizeof(del), "/api/resources/%lld", id);
		ck_assert_int_eq(http_request(&a, "DELETE", del, NULL, 0, NULL, &r), 0);
		ck_assert_int_eq(r.status, 200);
		http_reply_cleanup(&r);
	}
	/* B may answer from a thread's cache until it reads the generation (every 200 ms while it
	 * samples), so 404s from uncached threads prove nothing yet: the promise is that every
	 * answer from 1 s after the delete on is 404, whichever thread gives it */
	start = now_ms();
	while (get_status(&b, path) != 404 && now_ms() - start < 3000)
		pause_ms(5);
	ck_assert_msg(now_ms() - start <= 1000, "the delete took %lld ms to reach B",
	              now_ms() - start);
	while (now_ms() - start < 1000)
		pause_ms(20);
	for (int i = 0; i < 40; i++)
		ck_assert_msg(get_status(&b, path) == 404,
		              "answer %d, 1 s after the delete: not 404", i);
	/* a token made with the command line guards both daemons within 1 s */
	snprintf(cmd, sizeof(cmd), "'%s' token add alice --db '%s' 2>/dev/null", getenv("ANIMDEXD"),
	         db);
	token = testutil_shell(cmd, &status);
	ck_assert_int_eq(status, 0);
	token[strcspn(token, "\n")] = '\0';
	start = now_ms();
	while ((upload(&a, "{\"name\": \"t1\", \"duration\": 1}", NULL, NULL) != 401 ||
	        upload(&b, "{\"name\": \"t2\", \"duration\": 1}", NULL, NULL) != 401) &&
	       now_ms() - start < 3000)
		pause_ms(10);
	ck_assert_msg(now_ms() - start <= 1000, "the token took %lld ms", now_ms() - start);
	ck_assert_int_eq(upload(&b, "{\"name\": \"t3\", \"duration\": 1}", token, &id_b), 201);
	ck_assert_int_eq(upload(&a, "{\"name\": \"t4\", \"duration\": 1}", token, &id_a), 201);
	snprintf(cmd, sizeof(cmd), "'%s' token revoke alice --db '%s' 2>&1", getenv("ANIMDEXD"),
	         db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s", out);
	free(out);
	start = now_ms();
	while (upload(&b, "{\"name\": \"t5\", \"duration\": 1}", token, NULL) != 403 &&
	       now_ms() - start < 3000)
		pause_ms(10);
	ck_assert_int_eq(upload(&a, "{\"name\": \"t6\", \"duration\": 1}", token, NULL), 403);
	ck_assert_msg(now_ms() - start <= 1000, "the revocation took %lld ms", now_ms() - start);
	free(token);
	/* both count the same */
	ha = get_json(&a, "/api/health");
	hb = get_json(&b, "/api/health");
	ck_assert_ptr_nonnull(ha);
	ck_assert_ptr_nonnull(hb);
	ck_assert(json_equal(json_object_get(ha, "counts"), json_object_get(hb, "counts")));
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(ha, "database"), "backend")),
	    "postgresql");
	json_decref(ha);
	json_decref(hb);
	ck_assert_int_eq(daemon_stop(&a), 0);
	ck_assert_int_eq(daemon_stop(&b), 0);
}
END_TEST

/* The server stops: requests get 503 unavailable with Retry-After, promptly; it comes back:
 * the daemon answers again without a restart. */
START_TEST(a_server_away_is_503_then_reconnected)
{
	struct daemon_proc d;
	struct http_reply r;
	char path[64];
	long long id, start, took;

	ck_assert_int_eq(daemon_start(&d, db, "--timeout 10"), 0);
	ck_assert_int_eq(upload(&d, "{\"name\": \"before\", \"duration\": 1}", NULL, &id), 201);
	snprintf(path, sizeof(path), "/api/resources/%lld", id);
	ck_assert_int_eq(testutil_postgres_control("stop"), 0);
	for (int i = 0; i < 3; i++) {
		start = now_ms();
		ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
		took = now_ms() - start;
		ck_assert_msg(r.status == 503, "%ld: %s", r.status, r.body);
		ck_assert_msg(strstr(r.body, "\"unavailable\"") != NULL, "%s", r.body);
		ck_assert_msg(took < 10000, "took %lld ms", took);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(upload(&d, "{\"name\": \"during\", \"duration\": 1}", NULL, NULL), 503);
	ck_assert_int_eq(testutil_postgres_control("start"), 0);
	ck_assert_int_eq(get_status(&d, path), 200);
	ck_assert_int_eq(upload(&d, "{\"name\": \"after\", \"duration\": 1}", NULL, NULL), 201);
	/* a restart between two requests is not even seen */
	ck_assert_int_eq(testutil_postgres_control("restart"), 0);
	ck_assert_int_eq(get_status(&d, path), 200);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A server that stops answering (frozen): 503 within --timeout, not a hang; answered again
 * once it runs, without a restart. */
START_TEST(a_frozen_server_is_503_within_the_timeout)
{
	struct daemon_proc d;
	struct http_reply r;
	char path[64];
	long long id, start, took;

	ck_assert_int_eq(daemon_start(&d, db, "--timeout 3"), 0);
	ck_assert_int_eq(upload(&d, "{\"name\": \"frozen\", \"duration\": 1}", NULL, &id), 201);
	snprintf(path, sizeof(path), "/api/resources/%lld", id);
	for (int i = 0; i < 6; i++) /* every thread has its connection open */
		ck_assert_int_eq(get_status(&d, path), 200);
	ck_assert_int_eq(testutil_postgres_signal("STOP"), 0);
	start = now_ms();
	ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
	took = now_ms() - start;
	testutil_postgres_signal("CONT");
	ck_assert_msg(r.status == 503, "%ld: %s", r.status, r.body);
	/* an open connection waits for its answer, a thread's first one for its connection */
	ck_assert_msg(strstr(r.body, "did not answer within 3 s") != NULL ||
	                  strstr(r.body, "cannot connect to the PostgreSQL server") != NULL,
	              "%s", r.body);
	ck_assert_msg(took >= 2500 && took < 6000, "answered after %lld ms", took);
	http_reply_cleanup(&r);
	for (int i = 0; i < 4; i++) /* every thread's connection */
		ck_assert_int_eq(get_status(&d, path), 200);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

#define CLIENTS 4
#define KILLS   4

START_TEST(two_daemons_survive_sigkills_and_a_server_restart)
{
	struct daemon_proc d[2];
	int ports[2];
	pid_t clients[CLIENTS];
	unsigned seed = (unsigned)time(NULL);
	char extra[64], cmd[700];
	int checked = 0;
	json_t *h0, *h1, *j;
	json_int_t total;

	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(daemon_start(&d[k], db, NULL), 0);
		ports[k] = d[k].port;
	}
	for (int c = 0; c < CLIENTS; c++) {
		clients[c] = fork();
		if (clients[c] == 0)
			testutil_upload_client(c, dir, ports, 2);
	}
	for (int k = 0; k < KILLS; k++) {
		int victim = rand_r(&seed) % 2;
		pause_ms(300 + rand_r(&seed) % 600);
		if (k == KILLS / 2)
			ck_assert_int_eq(testutil_postgres_control("restart"), 0);
		kill(d[victim].pid, SIGKILL);
		waitpid(d[victim].pid, NULL, 0);
		snprintf(extra, sizeof(extra), "--listen 127.0.0.1:%d", ports[victim]);
		ck_assert_msg(daemon_start(&d[victim], db, extra) == 0, "restart %d failed", k);
	}
	pause_ms(500);
	snprintf(cmd, sizeof(cmd), "touch '%s/stop'", dir);
	ck_assert_int_eq(system(cmd), 0);
	for (int c = 0; c < CLIENTS; c++)
		waitpid(clients[c], NULL, 0);
	/* every acknowledged upload is there, byte for byte, from either daemon */
	checked = testutil_check_acknowledged(dir, CLIENTS, d, 2);
	ck_assert_int_gt(checked, 20);
	/* nothing stored twice: as many entries as distinct bytes */
	h0 = get_json(&d[0], "/api/health");
	h1 = get_json(&d[1], "/api/health");
	ck_assert_ptr_nonnull(h0);
	ck_assert_ptr_nonnull(h1);
	ck_assert(json_equal(json_object_get(h0, "counts"), json_object_get(h1, "counts")));
	j = json_object_get(h0, "counts");
	total = json_integer_value(json_object_get(j, "resources"));
	ck_assert_int_eq(total, json_integer_value(json_object_get(j, "blobs")));
	ck_assert_int_ge(total, checked);
	printf("note: PostgreSQL, two daemons: %d acknowledged uploads from %d clients across %d "
	       "SIGKILLs and a server restart: all present and byte-identical, %lld entries for "
	       "%lld distinct uploads\n",
	       checked, CLIENTS, KILLS, (long long)total,
	       (long long)json_integer_value(json_object_get(j, "blobs")));
	json_decref(h0);
	json_decref(h1);
	ck_assert_int_eq(daemon_stop(&d[0]), 0);
	ck_assert_int_eq(daemon_stop(&d[1]), 0);
}
END_TEST

/* A password in the connection string appears nowhere: not in the start-up line, not in
 * /api/health, not in the errors of a connection that fails, not in the hints. */
START_TEST(a_password_appears_nowhere)
{
	struct daemon_proc d;
	struct http_reply r;
	char with_password[700], log[600], cmd[2400], *out;
	int status;

	snprintf(with_password, sizeof(with_password), "%s password=hunter2secret", db);
	snprintf(log, sizeof(log), "%s/daemon.log", dir);
	ck_assert_int_eq(daemon_start_logged(&d, with_password, NULL, log), 0);
	ck_assert_int_eq(http_request(&d, "GET", "/api/health", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(strstr(r.body, "hunter2"));
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);
	{
		size_t length;
		out = testutil_read_file(log, &length);
	}
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "hunter2") == NULL, "%s", out);
	free(out);
	/* the start-up line */
	snprintf(cmd, sizeof(cmd),
	         "'%s' --listen 0.0.0.0:0 --db '%s' 2>&1; '%s' --listen 127.0.0.1:0 --db "
	         "'postgresql://animdex:hunter2secret@127.0.0.1:1/nowhere' 2>&1; '%s' token list "
	         "--db 'host=/nonexistent password=hunter2secret' 2>&1",
	         getenv("ANIMDEXD"), with_password, getenv("ANIMDEXD"), getenv("ANIMDEXD"));
	out = testutil_shell(cmd, &status);
	ck_assert_msg(strstr(out, "hunter2") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "cannot connect to PostgreSQL") != NULL, "%s", out);
	free(out);
}
END_TEST

/* Every option libpq marks secret is left out wherever the connection string is shown; a
 * string libpq cannot read is never echoed (its reason quotes it); and a client's answers
 * while the server is away say nothing of user, host or database. */
START_TEST(secrets_and_connection_details_stay_out_of_sight)
{
	struct daemon_proc d;
	struct http_reply r;
	char with_secrets[800], cmd[4000], host[300] = "", name[64] = "", *out;
	const char *at;
	int status;

	/* strings libpq cannot read */
	snprintf(cmd, sizeof(cmd),
	         "'%s' token list --db 'postgresql://animdex:pa%%zzhunter2@127.0.0.1/db' 2>&1; "
	         "'%s' token list --db 'postgresql://animdex:hunter2@[::1' 2>&1; "
	         "'%s' --listen 127.0.0.1:0 --db 'postgresql://animdex:hunter2@[::1' 2>&1",
	         getenv("ANIMDEXD"), getenv("ANIMDEXD"), getenv("ANIMDEXD"));
	out = testutil_shell(cmd, &status);
	ck_assert_msg(strstr(out, "hunter2") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "cannot be read"), "%s", out);
	free(out);
	/* sslpassword, like password */
	snprintf(with_secrets, sizeof(with_secrets), "%s sslpassword=hunter2ssl", db);
	snprintf(cmd, sizeof(cmd),
	         "'%s' --listen 0.0.0.0:0 --db '%s' 2>&1; '%s' token list --db 'host=/nonexistent "
	         "sslpassword=hunter2ssl password=hunter2pw' 2>&1",
	         getenv("ANIMDEXD"), with_secrets, getenv("ANIMDEXD"));
	out = testutil_shell(cmd, &status);
	ck_assert_msg(strstr(out, "hunter2") == NULL, "%s", out);
	free(out);
	/* 503 bodies while the server is away */
	if ((at = strstr(db, "host=")) != NULL)
		sscanf(at + 5, "%299s", host);
	if ((at = strstr(db, "dbname=")) != NULL)
		sscanf(at + 7, "%63s", name);
	ck_assert_int_eq(daemon_start(&d, with_secrets, "--timeout 5"), 0);
	ck_assert_int_eq(get_status(&d, "/api/health"), 200);
	ck_assert_int_eq(testutil_postgres_control("stop"), 0);
	for (int i = 0; i < 4; i++) { /* threads with a connection, and without */
		ck_assert_int_eq(http_request(&d, "GET", i % 2 ? "/api/resources" : "/api/health",
		                              NULL, 0, NULL, &r),
		                 0);
		ck_assert_msg(r.status == 503, "%ld: %s", r.status, r.body);
		ck_assert_msg(!strstr(r.body, "hunter2") && (!*host || !strstr(r.body, host)) &&
		                  (!*name || !strstr(r.body, name)) && !strstr(r.body, "port"),
		              "%s", r.body);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(testutil_postgres_control("start"), 0);
	ck_assert_int_eq(get_status(&d, "/api/health"), 200);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* animdexd copy: SQLite to PostgreSQL to a new SQLite file gives the same entries, bytes,
 * samples and tokens; a non-empty target is refused unless --append. */
START_TEST(copy_round_trip_keeps_everything)
{
	struct daemon_proc d;
	char sqlite_a[600], sqlite_b[600], cmd[3000], *token, *out, *listing[3], path[96];
	long long ids[6];
	int status;

	snprintf(sqlite_a, sizeof(sqlite_a), "%s/a.db", dir);
	snprintf(sqlite_b, sizeof(sqlite_b), "%s/b.db", dir);
	ck_assert_int_eq(daemon_start(&d, sqlite_a, NULL), 0);
	ck_assert_int_eq(upload(&d, testutil_walk_doc, NULL, &ids[0]), 201); /* with tracks */
	for (int i = 0; i < 6; i++) {
		char doc[160];
		snprintf(doc, sizeof(doc), "{\"name\": \"copy %d\", \"duration\": %d}", i, i + 1);
		ck_assert_int_eq(upload(&d, doc, NULL, &ids[i]), 201);
	}
	{
		struct http_reply r;
		char del[64];
		const char *names = "hips\ncopy 1\n";
		snprintf(del, sizeof(del), "/api/resources/%lld", ids[2]); /* a gap in the ids */
		ck_assert_int_eq(http_request(&d, "DELETE", del, NULL, 0, NULL, &r), 0);
		ck_assert_int_eq(r.status, 200);
		http_reply_cleanup(&r);
		ck_assert_int_eq(
		    http_request(&d, "POST", "/api/names", names, strlen(names), "text/plain", &r),
		    0);
		ck_assert_int_eq(r.status, 200);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
	snprintf(cmd, sizeof(cmd), "'%s' token add alice --db '%s' 2>/dev/null", getenv("ANIMDEXD"),
	         sqlite_a);
	token = testutil_shell(cmd, &status);
	token[strcspn(token, "\n")] = '\0';
	ck_assert_int_eq(status, 0);
	/* SQLite -> PostgreSQL -> SQLite */
	snprintf(cmd, sizeof(cmd), "'%s' copy '%s' '%s' 2>&1 && '%s' copy '%s' '%s' 2>&1",
	         getenv("ANIMDEXD"), sqlite_a, db, getenv("ANIMDEXD"), db, sqlite_b);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s", out);
	ck_assert_msg(strstr(out, "copied 6 entries") && strstr(out, "6 blobs verified"), "%s",
	              out);
	free(out);
	/* every entry, its bytes, a sample, its name: the same in all three */
	{
		const char *targets[3] = {sqlite_a, db, sqlite_b};
		for (int k = 0; k < 3; k++) {
			json_t *list;
			ck_assert_int_eq(daemon_start(&d, targets[k], NULL), 0);
			list = get_json(&d, "/api/resources?limit=100");
			ck_assert_ptr_nonnull(list);
			for (size_t i = 0; i < json_array_size(json_object_get(list, "resources"));
			     i++) {
				json_t *e = json_array_get(json_object_get(list, "resources"), i);
				json_t *full;
				snprintf(path, sizeof(path), "/api/resources/%lld",
				         (long long)json_integer_value(json_object_get(e, "id")));
				full = get_json(&d, path);
				json_object_set_new(e, "full", full);
				snprintf(path, sizeof(path),
				         "/api/resources/%lld/tracks/0/sample?t=0.25",
				         (long long)json_integer_value(json_object_get(e, "id")));
				json_object_set_new(e, "sample", get_json(&d, path));
			}
			listing[k] = json_dumps(list, JSON_SORT_KEYS);
			json_decref(list);
			/* the token works in every copy, and only it */
			ck_assert_int_eq(upload(&d, "{\"duration\": 1}", NULL, NULL), 401);
			ck_assert_int_eq(upload(&d, "{\"duration\": 1}", "adx_wrong", NULL), 403);
			if (k == 2) /* the last: the others are compared with it after */
				ck_assert_int_eq(upload(&d, "{\"duration\": 1}", token, NULL), 201);
			ck_assert_int_eq(daemon_stop(&d), 0);
		}
	}
	ck_assert_msg(strstr(listing[0], "\"crc32_name\": \"copy 1\"") != NULL, "%s", listing[0]);
	ck_assert_str_eq(listing[0], listing[1]);
	ck_assert_str_eq(listing[0], listing[2]);
	for (int k = 0; k < 3; k++)
		free(listing[k]);
	{ /* the command line's export (read ahead on a connection of its own): the same asset,
	   * byte for byte, from SQLite and from PostgreSQL */
		const char *sources[2] = {sqlite_a, db};
		char *assets[2];
		size_t lengths[2];
		for (int k = 0; k < 2; k++) {
			char file[700];
			snprintf(file, sizeof(file), "%s/export-%d.glb", dir, k);
			snprintf(cmd, sizeof(cmd), "'%s' export --db '%s' --quiet -o '%s' 2>&1",
			         getenv("ANIMDEXD"), sources[k], file);
			out = testutil_shell(cmd, &status);
			ck_assert_msg(status == 0, "%s", out);
			free(out);
			assets[k] = testutil_read_file(file, &lengths[k]);
			ck_assert_ptr_nonnull(assets[k]);
		}
		ck_assert_uint_gt(lengths[0], 1000);
		ck_assert(lengths[0] == lengths[1] &&
		          memcmp(assets[0], assets[1], lengths[0]) == 0);
		free(assets[0]);
		free(assets[1]);
	}
	/* into a catalogue that has entries: refused, and it is unchanged */
	snprintf(cmd, sizeof(cmd), "'%s' copy '%s' '%s' 2>&1", getenv("ANIMDEXD"), sqlite_a, db);
	out = testutil_shell(cmd, &status);
	ck_assert_int_ne(status, 0);
	ck_assert_msg(strstr(out, "already holds 6 entries") && strstr(out, "--append"), "%s", out);
	free(out);
	/* --append: what is there is skipped, a new entry whose id is taken gets another */
	ck_assert_int_eq(daemon_start(&d, sqlite_a, NULL), 0);
	ck_assert_int_eq(upload(&d, "{\"name\": \"only in a\", \"duration\": 1}", NULL, &ids[0]),
	                 401);
	ck_assert_int_eq(daemon_stop(&d), 0);
	snprintf(cmd, sizeof(cmd), "'%s' copy --append '%s' '%s' 2>&1", getenv("ANIMDEXD"),
	         sqlite_a, db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "copied 0 entries (6 skipped"), "%s", out);
	free(out);
	free(token);
}
END_TEST

START_TEST(copy_append_renumbers_what_collides)
{
	struct daemon_proc d;
	char sqlite_a[600], cmd[3000], *out;
	long long id_pg, id_a;
	int status;
	json_t *list;

	snprintf(sqlite_a, sizeof(sqlite_a), "%s/a.db", dir);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(upload(&d, "{\"name\": \"in postgres\", \"duration\": 1}", NULL, &id_pg),
	                 201);
	ck_assert_int_eq(daemon_stop(&d), 0);
	ck_assert_int_eq(daemon_start(&d, sqlite_a, NULL), 0);
	ck_assert_int_eq(upload(&d, "{\"name\": \"in sqlite\", \"duration\": 1}", NULL, &id_a),
	                 201);
	ck_assert_int_eq(daemon_stop(&d), 0);
	ck_assert_int_eq(id_pg, id_a); /* both are 1 */
	snprintf(cmd, sizeof(cmd), "'%s' copy --append '%s' '%s' 2>&1", getenv("ANIMDEXD"),
	         sqlite_a, db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "copied 1 entries (0 skipped, 1 renumbered)"),
	              "%s", out);
	free(out);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	list = get_json(&d, "/api/resources");
	ck_assert_uint_eq(json_array_size(json_object_get(list, "resources")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(list, "resources"), 0), "name")),
	                 "in sqlite");
	json_decref(list);
	/* and the next upload continues after the largest id */
	ck_assert_int_eq(upload(&d, "{\"name\": \"next\", \"duration\": 1}", NULL, &id_pg), 201);
	ck_assert_int_eq(id_pg, 3);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

#ifndef HAVE_POSTGRESQL
/* A build without PostgreSQL refuses a PostgreSQL --db at start, saying so, rather than
 * taking it for a file name. */
START_TEST(a_build_without_postgresql_says_so)
{
	const char *daemon = getenv("ANIMDEXD");
	char cmd[1024], said[4096];
	size_t n;
	FILE *p;
	int status;

	ck_assert_ptr_nonnull(daemon);
	snprintf(cmd, sizeof(cmd),
	         "'%s' --listen 127.0.0.1:0 --db 'postgresql://localhost/animdex' 2>&1 </dev/null",
	         daemon);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(said, 1, sizeof(said) - 1, p);
	said[n] = '\0';
	status = pclose(p);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status %d: %s", status,
	              said);
	ck_assert_msg(strstr(said, "built without PostgreSQL") != NULL, "it said: %s", said);
	ck_assert_msg(access("postgresql:", F_OK) != 0, "a file was made of the connection string");
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("postgres");
	TCase *tc;
	SRunner *sr;
	int failed;

	if (testutil_postgres_wanted()) {
		if (!testutil_postgres())
			fprintf(stderr, "check_postgres: no cluster: every test will fail\n");
		tc = tcase_create("shared");
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, daemons_starting_together_migrate_once);
		tcase_add_test(tc, two_daemons_share_one_catalogue);
		tcase_add_test(tc, a_server_away_is_503_then_reconnected);
		tcase_add_test(tc, a_frozen_server_is_503_within_the_timeout);
		tcase_add_test(tc, two_daemons_survive_sigkills_and_a_server_restart);
		tcase_add_test(tc, a_password_appears_nowhere);
		tcase_add_test(tc, secrets_and_connection_details_stay_out_of_sight);
		tcase_add_test(tc, copy_round_trip_keeps_everything);
		tcase_add_test(tc, copy_append_renumbers_what_collides);
		suite_add_tcase(s, tc);
	} else {
		suite_add_tcase(s, testutil_postgres_skipped());
	}
#ifndef HAVE_POSTGRESQL
	tc = tcase_create("without");
	tcase_add_test(tc, a_build_without_postgresql_says_so);
	suite_add_tcase(s, tc);
#endif
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
