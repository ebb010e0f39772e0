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
			testutil_upload_client(c, dir, &port, 1);
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
	checked = testutil_check_acknowledged(dir, CLIENTS, &d, 1);
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
