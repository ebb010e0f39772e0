/* check_sqlite_wal.c: the VFS that writes a transaction's WAL frames in one write. A writer
 * opened through it beside a reader on SQLite's own VFS: what the writer commits is whole in
 * the file when COMMIT returns, large and spilled transactions, pages written again, rollbacks
 * and a failing disk behave as SQLite's own; and a commit costs a write, not two a frame (the
 * unix VFS's write calls counted through its system-call table). */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/sqlite_wal.h"

static char dir[] = "/tmp/animdex-wal-XXXXXX";
static char path[64];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/animdex-wal-XXXXXX")));
	snprintf(path, sizeof(path), "%s/t.db", dir);
}

static void teardown(void)
{
	char name[80];

	for (const char *const *s = (const char *const[]){"", "-wal", "-shm", NULL}; *s; s++) {
		snprintf(name, sizeof(name), "%s%s", path, *s);
		unlink(name);
	}
	rmdir(dir);
}

static sqlite3 *open_db(const char *vfs)
{
	sqlite3 *db = NULL;

	ck_assert_int_eq(
	    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
	                              "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
	                              "PRAGMA wal_autocheckpoint = 0;",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	return db;
}

static sqlite3 *open_writer(void)
{
	const char *vfs = sqlite_wal_vfs();

	ck_assert_msg(vfs != NULL, "the WAL VFS could not be registered");
	return open_db(vfs);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : sqlite3_errstr(rc));
}

/* A reader on another thread and SQLite's own VFS (a reader on the writer's thread would
 * have the writer's held frames written at its barrier): the first two columns of the first
 * row of sql, and whether PRAGMA integrity_check said "ok". */
struct reading {
	const char *sql;
	sqlite3_int64 column[2];
	int rc, intact;
};

static void *read_elsewhere(void *arg)
{
	struct reading *r = arg;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	r->rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (r->rc == SQLITE_OK)
		r->rc = sqlite3_prepare_v2(db, r->sql, -1, &s, NULL);
	if (r->rc == SQLITE_OK && (r->rc = sqlite3_step(s)) == SQLITE_ROW) {
		r->rc = SQLITE_OK;
		r->column[0] = sqlite3_column_int64(s, 0);
		r->column[1] = sqlite3_column_count(s) > 1 ? sqlite3_column_int64(s, 1) : 0;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (r->rc == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		r->intact = strcmp((const char *)sqlite3_column_text(s, 0), "ok") == 0;
	sqlite3_finalize(s);
	sqlite3_close(db);
	return NULL;
}

static struct reading read_now(const char *sql)
{
	struct reading r = {.sql = sql};
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, read_elsewhere, &r), 0);
	pthread_join(t, NULL);
	ck_assert_msg(r.rc == SQLITE_OK, "%s: %s", sql, sqlite3_errstr(r.rc));
	ck_assert_msg(r.intact, "the database is not intact after %s", sql);
	return r;
}

/* n rows of keys first.. and bodies of size + 1 characters, in one transaction */
static void insert_rows(sqlite3 *db, int first, int n, int size)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
	         "WITH RECURSIVE i(v) AS (SELECT %d UNION ALL SELECT v + 1 FROM i WHERE v < %d) "
	         "INSERT INTO t (k, body) "
	         "SELECT v, substr(hex(zeroblob(%d)), 1, %d) || char(65 + v %% 26) FROM i",
	         first, first + n - 1, size, size);
	exec(db, sql);
}

/* The unix VFS's write calls, counted: its system-call table lets a test put a function of
 * its own in place of pwrite (pwrite64, or write after a seek, as it was built). */
static sqlite3_syscall_ptr real_write[3];
static const char *const write_names[3] = {"pwrite", "pwrite64", "write"};
static int writes;
static int fail_writes; /* non-zero: every write fails as a full disk */

static ssize_t counted_pwrite(int fd, const void *data, size_t n, off_t offset)
{
	writes++;
	if (fail_writes) {
		errno = ENOSPC;
		return -1;
	}
	return ((ssize_t(*)(int, const void *, size_t, off_t))real_write[0])(fd, data, n, offset);
}

static ssize_t counted_pwrite64(int fd, const void *data, size_t n, off_t offset)
{
	writes++;
	if (fail_writes) {
		errno = ENOSPC;
		return -1;
	}
	return ((ssize_t(*)(int, const void *, size_t, off_t))real_write[1])(fd, data, n, offset);
}

static ssize_t counted_write(int fd, const void *data, size_t n)
{
	writes++;
	if (fail_writes) {
		errno = ENOSPC;
		return -1;
	}
	return ((ssize_t(*)(int, const void *, size_t))real_write[2])(fd, data, n);
}

static void count_writes(int on)
{
	sqlite3_vfs *unix_vfs = sqlite3_vfs_find("unix");
	sqlite3_syscall_ptr counted[3] = {(sqlite3_syscall_ptr)counted_pwrite,
	                                  (sqlite3_syscall_ptr)counted_pwrite64,
	                                  (sqlite3_syscall_ptr)counted_write};

	ck_assert_ptr_nonnull(unix_vfs);
	for (int i = 0; i < 3; i++) {
		if (on) {
			real_write[i] = unix_vfs->xGetSystemCall(unix_vfs, write_names[i]);
			if (real_write[i])
				unix_vfs->xSetSystemCall(unix_vfs, write_names[i], counted[i]);
		} else {
			unix_vfs->xSetSystemCall(unix_vfs, write_names[i], NULL); /* the default */
		}
	}
	writes = 0;
	fail_writes = 0;
}

/* The writes one commit of 40 new 4 KiB pages costs, through `vfs`. */
static int writes_of_a_commit(const char *vfs)
{
	sqlite3 *db = open_db(vfs);
	int n;

	exec(db, "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, body BLOB)");
	exec(db, "DELETE FROM t");
	count_writes(1);
	insert_rows(db, 1, 40, 4000);
	n = writes;
	count_writes(0);
	sqlite3_close(db);
	return n;
}

START_TEST(a_commit_is_one_write_not_two_a_frame)
{
	int plain = writes_of_a_commit(NULL), grouped = writes_of_a_commit(sqlite_wal_vfs());

	/* SQLite's own: a header and a page a frame, 40 pages and more (the table's b-tree) */
	ck_assert_msg(plain >= 80, "SQLite's own VFS wrote %d times", plain);
	/* 40 frames of 4120 bytes are 161 KiB: two buffers' worth */
	ck_assert_msg(grouped >= 1 && grouped <= 3, "%d writes for one commit", grouped);
}
END_TEST

START_TEST(what_a_writer_commits_is_whole_for_a_reader)
{
	sqlite3 *writer = open_writer();

	exec(writer, "CREATE TABLE t (k INTEGER PRIMARY KEY, body BLOB)");
	for (int round = 0; round < 20; round++) {
		/* from one small page to several buffers' worth */
		int n = 1 + round * 7, size = round % 2 ? 100 : 3000;
		char sql[96];
		struct reading r;

		insert_rows(writer, round * 1000, n, size);
		snprintf(sql, sizeof(sql),
		         "SELECT count(*), sum(length(body)) FROM t WHERE k / 1000 = %d", round);
		r = read_now(sql);
		ck_assert_int_eq(r.column[0], n);
		ck_assert_int_eq(r.column[1], (sqlite3_int64)n * (size + 1));
	}
	sqlite3_close(writer);
}
END_TEST

START_TEST(large_and_spilled_transactions_commit_whole)
{
	sqlite3 *writer = open_writer();

	/* a page cache of 20 pages: the transaction spills frames into the WAL before COMMIT,
	 * and writes pages again (in place, out of order) as it updates them */
	exec(writer, "PRAGMA cache_size = 20; CREATE TABLE t (k INTEGER PRIMARY KEY, body BLOB)");
	exec(writer, "BEGIN");
	insert_rows(writer, 1, 3000, 1500); /* about 4.5 MB */
	exec(writer,
	     "UPDATE t SET body = substr(hex(zeroblob(1500)), 1, 1500) || '!' WHERE k % 3 = 0");
	exec(writer, "COMMIT");
	ck_assert_int_eq(read_now("SELECT count(*) FROM t").column[0], 3000);
	ck_assert_int_eq(
	    read_now("SELECT count(*) FROM t WHERE substr(body, 1501) = '!'").column[0], 1000);
	sqlite3_close(writer);
}
END_TEST

START_TEST(a_rolled_back_spill_leaves_nothing)
{
	sqlite3 *writer = open_writer();

	exec(writer, "PRAGMA cache_size = 20; CREATE TABLE t (k INTEGER PRIMARY KEY, body BLOB)");
	insert_rows(writer, 1, 10, 100);
	exec(writer, "BEGIN");
	insert_rows(writer, 100, 2000, 1500); /* spilled, then undone */
	exec(writer, "ROLLBACK");
	insert_rows(writer, 20000, 5, 100);
	ck_assert_int_eq(read_now("SELECT count(*) FROM t").column[0], 15);
	ck_assert_int_eq(read_now("SELECT count(*) FROM t WHERE k >= 100 AND k < 2100").column[0],
	                 0);
	sqlite3_close(writer);
}
END_TEST

static void *second_writer(void *arg)
{
	sqlite3 *db = NULL;

	(void)arg;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, sqlite_wal_vfs()) == SQLITE_OK)
		sqlite3_exec(db,
		             "WITH RECURSIVE i(v) AS (SELECT 5000 UNION ALL SELECT v + 1 FROM i "
		             "WHERE v < 5039) INSERT INTO t (k, body) "
		             "SELECT v, substr(hex(zeroblob(1500)), 1, 1500) || 'x' FROM i",
		             NULL, NULL, NULL);
	sqlite3_close(db);
	return NULL;
}

/* Frames a rolled-back transaction spilled must not land after the write lock is given up:
 * the next writer, another connection, writes its own frames at the same places. */
START_TEST(a_rolled_back_spill_cannot_overwrite_the_next_writer)
{
	sqlite3 *first = open_writer();

	exec(first, "PRAGMA cache_size = 20; CREATE TABLE t (k INTEGER PRIMARY KEY, body BLOB)");
	insert_rows(first, 1, 10, 100);
	/* the WAL emptied: undoing the spill reloads pages from the database file alone */
	exec(first, "PRAGMA wal_checkpoint(TRUNCATE)");
	exec(first, "BEGIN");
	insert_rows(first, 100, 60, 1500); /* a few pages spilled, and held */
	exec(first, "ROLLBACK");
	pthread_t other; /* another thread: its barriers do not write this one's frames */
	ck_assert_int_eq(pthread_create(&other, NULL, second_writer, NULL), 0);
	pthread_join(other, NULL);
	/* the first connection reads again: whatever it held must have gone out before */
	ck_assert_int_eq(read_now("SELECT count(*) FROM t").column[0], 50);
	exec(first, "SELECT count(*) FROM t");
	ck_assert_int_eq(read_now("SELECT count(*), sum(length(body)) FROM t").column[1],
	                 10 * 101 + 40 * 1501);
	sqlite3_close(first);
	ck_assert_int_eq(read_now("SELECT count(*), sum(length(body)) FROM t").column[1],
	                 10 * 101 + 40 * 1501);
}
END_TEST

START_TEST(a_full_disk_fails_the_commit_and_keeps_the_last_one)
{
	sqlite3 *writer = open_writer();
	int rc;

	exec(writer, "CREATE TABLE t (k INTEGER PRIMARY KEY, body BLOB)");
	insert_rows(writer, 1, 10, 100);
	count_writes(1);
	fail_writes = 1;
	rc = sqlite3_exec(writer, "INSERT INTO t (k, body) VALUES (500, zeroblob(30000))", NULL,
	                  NULL, NULL);
	count_writes(0);
	ck_assert_msg((rc & 0xFF) == SQLITE_FULL || (rc & 0xFF) == SQLITE_IOERR,
	              "the commit on a full disk gave %s", sqlite3_errstr(rc));
	ck_assert_int_eq(read_now("SELECT count(*) FROM t").column[0], 10);
	sqlite3_close(writer);
	ck_assert_int_eq(read_now("SELECT count(*) FROM t").column[0], 10);
}
END_TEST

/* The WAL file as SQLite sees it: what it wrote and the VFS holds reads back, and counts in
 * its size, before any commit. */
START_TEST(the_wal_reads_back_what_it_holds)
{
	sqlite3_vfs *vfs = sqlite3_vfs_find(sqlite_wal_vfs());
	sqlite3_file *f;
	char name[80], frame[4096 + 24], back[sizeof(frame)];
	sqlite3_int64 size = 0;
	int out = 0;

	ck_assert_ptr_nonnull(vfs);
	sqlite3_close(open_db(NULL)); /* the database the WAL belongs to (its mode is copied) */
	f = calloc(1, (size_t)vfs->szOsFile);
	snprintf(name, sizeof(name), "%s-wal", path);
	ck_assert_int_eq(vfs->xOpen(vfs, name, f,
	                            SQLITE_OPEN_WAL | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
	                            &out),
	                 SQLITE_OK);
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (char)(i * 7);
	memset(frame + 4, 0, 4); /* the header's "database size after commit": not a commit */
	ck_assert_int_eq(f->pMethods->xWrite(f, frame, 24, 32), SQLITE_OK);
	ck_assert_int_eq(f->pMethods->xWrite(f, frame + 24, 4096, 56), SQLITE_OK);
	ck_assert_int_eq(f->pMethods->xFileSize(f, &size), SQLITE_OK);
	ck_assert_int_eq(size, 32 + 24 + 4096);
	ck_assert_int_eq(f->pMethods->xWrite(f, frame, 24, 4152), SQLITE_OK); /* held again */
	ck_assert_int_eq(f->pMethods->xWrite(f, frame + 24, 4096, 4176), SQLITE_OK);
	ck_assert_int_eq(f->pMethods->xRead(f, back, sizeof(back), 4152), SQLITE_OK);
	ck_assert_mem_eq(back, frame, sizeof(frame));
	ck_assert_int_eq(f->pMethods->xClose(f), SQLITE_OK);
	free(f);
	vfs->xDelete(vfs, name, 0);
}
END_TEST

/* Frames that do not say they end a commit are still in the file once the thread that wrote
 * them passes a shared-memory barrier, where SQLite publishes a commit. */
START_TEST(the_barrier_writes_what_its_thread_holds)
{
	sqlite3_vfs *vfs = sqlite3_vfs_find(sqlite_wal_vfs());
	sqlite3_file *db, *wal;
	char name[80], frame[4096 + 24] = {0};
	int out = 0;
	struct stat st;

	ck_assert_ptr_nonnull(vfs);
	sqlite3_close(open_db(NULL));
	db = calloc(1, (size_t)vfs->szOsFile);
	wal = calloc(1, (size_t)vfs->szOsFile);
	ck_assert_int_eq(
	    vfs->xOpen(vfs, path, db, SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READWRITE, &out),
	    SQLITE_OK);
	snprintf(name, sizeof(name), "%s-wal", path);
	ck_assert_int_eq(vfs->xOpen(vfs, name, wal,
	                            SQLITE_OPEN_WAL | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
	                            &out),
	                 SQLITE_OK);
	ck_assert_int_eq(wal->pMethods->xWrite(wal, frame, 24, 32), SQLITE_OK);
	ck_assert_int_eq(wal->pMethods->xWrite(wal, frame + 24, 4096, 56), SQLITE_OK);
	ck_assert_int_eq(stat(name, &st), 0);
	ck_assert_int_eq(st.st_size, 0); /* held */
	db->pMethods->xShmBarrier(db);
	ck_assert_int_eq(stat(name, &st), 0);
	ck_assert_int_eq(st.st_size, 56 + 4096);
	ck_assert_int_eq(wal->pMethods->xClose(wal), SQLITE_OK);
	ck_assert_int_eq(db->pMethods->xClose(db), SQLITE_OK);
	free(wal);
	free(db);
	vfs->xDelete(vfs, name, 0);
}
END_TEST

static Suite *sqlite_wal_suite(void)
{
	Suite *s = suite_create("sqlite_wal");
	TCase *tc = tcase_create("wal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_wal_reads_back_what_it_holds);
	tcase_add_test(tc, the_barrier_writes_what_its_thread_holds);
	tcase_add_test(tc, a_commit_is_one_write_not_two_a_frame);
	tcase_add_test(tc, what_a_writer_commits_is_whole_for_a_reader);
	tcase_add_test(tc, large_and_spilled_transactions_commit_whole);
	tcase_add_test(tc, a_rolled_back_spill_leaves_nothing);
	tcase_add_test(tc, a_rolled_back_spill_cannot_overwrite_the_next_writer);
	tcase_add_test(tc, a_full_disk_fails_the_commit_and_keeps_the_last_one);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sqlite_wal_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
