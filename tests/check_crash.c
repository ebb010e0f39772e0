/* check_crash.c: what animdex acknowledged survives SIGKILL; SIGTERM lets uploads finish. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define CLIENTS 4
#define KILLS   5

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

/* A client: uploads unique documents until the stop file exists; after each 2xx it appends
 * "id<TAB>document" to its log. Connection errors (the daemon is down) are retried. */
static void client(int n, const char *dir, int port)
{
	struct daemon_proc d = {0};
	char stop[600], log[600];
	FILE *f;

	snprintf(stop, sizeof(stop), "%s/stop", dir);
	snprintf(log, sizeof(log), "%s/client%d.log", dir, n);
	snprintf(d.base, sizeof(d.base), "http://127.0.0.1:%d", port);
	for (int i = 0; access(stop, F_OK) != 0; i++) {
		char doc[128];
		struct http_reply r;
		snprintf(doc, sizeof(doc), "{\"name\": \"client %d upload %d\", \"duration\": %d}",
		         n, i, i % 7);
		if (http_request(&d, "POST", "/api/resources?filename=c.json", doc, strlen(doc),
		                 "application/json", &r) == 0 &&
		    (r.status == 200 || r.status == 201)) {
			json_t *j = http_json(&r);
			long long id = json_integer_value(json_object_get(
			    json_array_get(json_object_get(j, "resources"), 0), "id"));
			f = fopen(log, "a");
			fprintf(f, "%lld\t%s\n", id, doc);
			fclose(f);
			json_decref(j);
		} else {
			i--; /* the same document again once the daemon is back */
			pause_ms(20);
		}
		http_reply_cleanup(&r);
	}
	_exit(0);
}

START_TEST(acknowledged_uploads_survive_sigkill)
{
	char *dir = testutil_temp_dir(), db[512], extra[64], cmd[1200], line[512];
	struct daemon_proc d;
	pid_t clients[CLIENTS];
	unsigned seed = (unsigned)time(NULL);
	int port, checked = 0;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "crash.db", db, sizeof(db)));
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	port = d.port;
	snprintf(extra, sizeof(extra), "--listen 127.0.0.1:%d", port);
	for (int c = 0; c < CLIENTS; c++) {
		clients[c] = fork();
		if (clients[c] == 0)
			client(c, dir, port);
	}
	for (int k = 0; k < KILLS; k++) {
		pause_ms(300 + rand_r(&seed) % 700);
		kill(d.pid, SIGKILL);
		waitpid(d.pid, NULL, 0);
		ck_assert_msg(daemon_start(&d, db, extra) == 0, "restart %d failed", k);
	}
	pause_ms(300);
	snprintf(cmd, sizeof(cmd), "touch '%s/stop'", dir);
	ck_assert_int_eq(system(cmd), 0);
	for (int c = 0; c < CLIENTS; c++)
		waitpid(clients[c], NULL, 0);
	/* the file is sound (PostgreSQL keeps its own) */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA integrity_check'", db);
	if (testutil_backend == TESTUTIL_SQLITE) {
		FILE *p = popen(cmd, "r");
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
		pclose(p);
		ck_assert_str_eq(line, "ok\n");
	}
	/* every acknowledged upload is there, byte for byte */
	for (int c = 0; c < CLIENTS; c++) {
		char log[600];
		FILE *f;
		snprintf(log, sizeof(log), "%s/client%d.log", dir, c);
		f = fopen(log, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *doc = strchr(line, '\t') + 1, path[64];
			struct http_reply r;
			doc[strcspn(doc, "\n")] = '\0';
			snprintf(path, sizeof(path), "/api/resources/%lld/raw", atoll(line));
			ck_assert_int_eq(http_request(&d, "GET", path, NULL, 0, NULL, &r), 0);
			ck_assert_msg(r.status == 200, "%s: %ld", path, r.status);
			ck_assert_uint_eq(r.length, strlen(doc));
			ck_assert_mem_eq(r.body, doc, r.length);
			http_reply_cleanup(&r);
			checked++;
		}
		if (f)
			fclose(f);
	}
	ck_assert_int_gt(checked, 20);
	printf("note: %s: %d acknowledged uploads from %d clients across %d SIGKILLs: all present "
	       "and byte-identical\n",
	       testutil_backend == TESTUTIL_SQLITE ? "SQLite (integrity_check ok)" : "PostgreSQL",
	       checked, CLIENTS, KILLS);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(sigterm_lets_an_upload_in_flight_finish)
{
	char *dir = testutil_temp_dir(), db[512], file[512], cmd[1600], line[64];
	struct daemon_proc d;
	struct http_reply r;
	FILE *f;
	int status;

	ck_assert_ptr_nonnull(testutil_catalog(dir, "drain.db", db, sizeof(db)));
	snprintf(file, sizeof(file), "%s/slow.json", dir);
	f = fopen(file, "w");
	fputs("{\"name\": \"slow\", \"duration\": 1", f);
	for (int i = 0; i < 4000; i++)
		fputs("          ", f);
	fputs("}", f);
	fclose(f);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	snprintf(cmd, sizeof(cmd),
	         "curl -s -o /dev/null -w '%%{http_code}' --limit-rate 20k --data-binary @'%s' "
	         "'%s/api/resources?filename=slow.json' > '%s/code.txt'",
	         file, d.base, dir);
	pid_t uploader = fork();
	if (uploader == 0)
		_exit(system(cmd) == 0 ? 0 : 1);
	pause_ms(700);
	kill(d.pid, SIGTERM); /* mid-upload */
	waitpid(d.pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	waitpid(uploader, NULL, 0);
	snprintf(cmd, sizeof(cmd), "%s/code.txt", dir);
	f = fopen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_str_eq(line, "201");
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources?name=slow", NULL, 0, NULL, &r), 0);
	ck_assert(strstr(r.body, "\"slow\""));
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

static void use_postgres(void)
{
	testutil_backend = TESTUTIL_POSTGRES;
}

int main(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("crash");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, acknowledged_uploads_survive_sigkill);
	tcase_add_test(tc, sigterm_lets_an_upload_in_flight_finish);
	suite_add_tcase(s, tc);
	if (testutil_postgres_wanted()) {
		if (!testutil_postgres())
			fprintf(stderr,
			        "check_crash: the PostgreSQL tests will fail: no cluster\n");
		tc = tcase_create("crash-postgresql");
		tcase_add_checked_fixture(tc, use_postgres, NULL);
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, acknowledged_uploads_survive_sigkill);
		tcase_add_test(tc, sigterm_lets_an_upload_in_flight_finish);
		suite_add_tcase(s, tc);
	} else {
		suite_add_tcase(s, testutil_postgres_skipped());
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
