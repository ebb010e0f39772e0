/* check_powercut.c: what animdex acknowledged survives a power cut.
 *
 * The daemon runs with writelog.so preloaded, which logs every write and sync of the
 * catalogue's files. After SIGKILL the test rebuilds the files as a power cut would leave
 * them, keeping of each file only what its last completed sync covered, then opens the rebuilt
 * catalogue with a new daemon and reads back every upload that was answered 201.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define BUSY_CLIENTS 8

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

/* The preloaded library, built beside this program. */
static const char *writelog_library(char *out, size_t size)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	/* libtool-free builds put the program itself here; .libs never appears */
	snprintf(out, size, "%s/writelog.so", self);
	return access(out, R_OK) == 0 ? out : NULL;
}

/* Starts a daemon on dir/cat/animdex.db whose writes there are logged to dir/write.log. */
static void start_logged_daemon(struct daemon_proc *d, const char *dir)
{
	char lib[600], cat[600], db[700], log[600], asan[1024];
	const char *old_asan = getenv("ASAN_OPTIONS");

	ck_assert_ptr_nonnull(writelog_library(lib, sizeof(lib)));
	snprintf(cat, sizeof(cat), "%s/cat/", dir);
	snprintf(db, sizeof(db), "%sanimdex.db", cat);
	snprintf(log, sizeof(log), "%s/write.log", dir);
	ck_assert_int_eq(mkdir(cat, 0755), 0);
	/* a sanitizer's runtime must otherwise come first among the libraries */
	snprintf(asan, sizeof(asan), "%s%sverify_asan_link_order=0", old_asan ? old_asan : "",
	         old_asan && *old_asan ? ":" : "");
	setenv("ASAN_OPTIONS", asan, 1);
	setenv("ANIMDEX_WRITELOG", log, 1);
	setenv("ANIMDEX_WRITELOG_DIR", cat, 1);
	setenv("LD_PRELOAD", lib, 1);
	ck_assert_int_eq(daemon_start(d, db, NULL), 0);
	unsetenv("LD_PRELOAD");
	unsetenv("ANIMDEX_WRITELOG");
	unsetenv("ANIMDEX_WRITELOG_DIR");
	if (old_asan)
		setenv("ASAN_OPTIONS", old_asan, 1);
	else
		unsetenv("ASAN_OPTIONS");
}

/* A file of the log and where the power cut's copy of it is written. */
struct replayed {
	char path[600];
	long last_sync; /* index of its last completed sync, -1 if none */
	int fd;
};

/* Rebuilds dir/cat's files in dir/after as a power cut would leave them: each file holds the
 * writes and truncations made before its last completed sync, in order; a file never synced
 * is not there; a removed file is gone. Returns how many records were read. */
static long replay_power_cut(const char *dir)
{
	char log[600], cat[600], after[600];
	struct replayed files[16];
	size_t file_count = 0, cat_length;
	struct stat st;
	unsigned char *data;
	long records = 0;
	int fd;

	snprintf(log, sizeof(log), "%s/write.log", dir);
	snprintf(cat, sizeof(cat), "%s/cat/", dir);
	snprintf(after, sizeof(after), "%s/after", dir);
	cat_length = strlen(cat);
	ck_assert_int_eq(mkdir(after, 0755), 0);
	fd = open(log, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(data != MAP_FAILED);
	close(fd);
	for (int pass = 0; pass < 2; pass++) {
		size_t at = 0;
		for (long index = 0; at + 21 <= (size_t)st.st_size; index++) {
			uint32_t path_length;
			uint64_t offset, length, data_length;
			char path[600];
			struct replayed *f = NULL;
			char op = (char)data[at];

			memcpy(&path_length, data + at + 1, 4);
			memcpy(&offset, data + at + 5, 8);
			memcpy(&length, data + at + 13, 8);
			data_length = op == 'W' ? length : 0;
			ck_assert_uint_lt(path_length, sizeof(path));
			/* a record cut short by SIGKILL comes after every sync that was logged */
			if (at + 21 + path_length + data_length > (size_t)st.st_size)
				break;
			memcpy(path, data + at + 21, path_length);
			path[path_length] = '\0';
			ck_assert_int_eq(strncmp(path, cat, cat_length), 0);
			for (size_t i = 0; i < file_count; i++)
				if (strcmp(files[i].path, path) == 0)
					f = &files[i];
			if (!f) {
				ck_assert_uint_lt(file_count, 16);
				f = &files[file_count++];
				snprintf(f->path, sizeof(f->path), "%s", path);
				f->last_sync = -1;
				f->fd = -1;
			}
			if (pass == 0 && op == 'S') {
				f->last_sync = index;
			} else if (pass == 1 && op == 'U') {
				char target[1300];
				snprintf(target, sizeof(target), "%s/%s", after, path + cat_length);
				if (f->fd >= 0)
					close(f->fd);
				f->fd = -1;
				unlink(target);
			} else if (pass == 1 && (op == 'W' || op == 'T') && index < f->last_sync) {
				if (f->fd < 0) {
					char target[1300];
					snprintf(target, sizeof(target), "%s/%s", after,
					         path + cat_length);
					f->fd = open(target, O_WRONLY | O_CREAT, 0644);
					ck_assert_int_ge(f->fd, 0);
				}
				if (op == 'W')
					ck_assert_int_eq(pwrite(f->fd, data + at + 21 + path_length,
					                        (size_t)length, (off_t)offset),
					                 (ssize_t)length);
				else
					ck_assert_int_eq(ftruncate(f->fd, (off_t)offset), 0);
			}
			at += 21 + path_length + data_length;
			records += pass;
		}
	}
	for (size_t i = 0; i < file_count; i++)
		if (files[i].fd >= 0)
			close(files[i].fd);
	munmap(data, (size_t)st.st_size);
	return records;
}

/* A daemon on the rebuilt catalogue, after SQLite's integrity check of it. */
static void start_after_power_cut(struct daemon_proc *d, const char *dir)
{
	char db[600], cmd[1400], line[256];
	FILE *p;

	snprintf(db, sizeof(db), "%s/after/animdex.db", dir);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA integrity_check' 2>&1", db);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
	pclose(p);
	ck_assert_str_eq(line, "ok\n");
	ck_assert_int_eq(daemon_start(d, db, NULL), 0);
}

/* Is upload `id` there with exactly these bytes? */
static int upload_present(const struct daemon_proc *d, long long id, const char *doc)
{
	char path[64];
	struct http_reply r;
	int same;

	snprintf(path, sizeof(path), "/api/resources/%lld/raw", id);
	ck_assert_int_eq(http_request(d, "GET", path, NULL, 0, NULL, &r), 0);
	same = r.status == 200 && r.length == strlen(doc) && memcmp(r.body, doc, r.length) == 0;
	http_reply_cleanup(&r);
	return same;
}

START_TEST(uploads_a_tenth_of_a_second_apart_survive_a_power_cut)
{
	char *dir = testutil_temp_dir();
	char docs[30][128];
	long long ids[30];
	struct daemon_proc d;
	long records;
	int lost = 0;

	start_logged_daemon(&d, dir);
	for (int i = 0; i < 30; i++) {
		struct http_reply r;
		json_t *j;
		snprintf(docs[i], sizeof(docs[i]), "{\"name\": \"power cut %d\", \"duration\": %d}",
		         i, i % 5 + 1);
		ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=p.json", docs[i],
		                              strlen(docs[i]), "application/json", &r),
		                 0);
		ck_assert_int_eq(r.status, 201);
		j = http_json(&r);
		ids[i] = json_integer_value(
		    json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id"));
		json_decref(j);
		http_reply_cleanup(&r);
		pause_ms(100);
	}
	kill(d.pid, SIGKILL); /* the power goes */
	waitpid(d.pid, NULL, 0);
	records = replay_power_cut(dir);
	start_after_power_cut(&d, dir);
	for (int i = 0; i < 30; i++)
		lost += !upload_present(&d, ids[i], docs[i]);
	printf("note: power cut after 30 uploads 0.1 s apart (%ld writes and syncs logged): "
	       "%d of 30 acknowledged uploads lost\n",
	       records, lost);
	ck_assert_int_eq(lost, 0);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(busy_uploads_survive_a_power_cut)
{
	char *dir = testutil_temp_dir(), stop[600], line[512];
	struct daemon_proc d;
	pid_t clients[BUSY_CLIENTS];
	int lost = 0, acknowledged = 0;
	long records;

	start_logged_daemon(&d, dir);
	for (int c = 0; c < BUSY_CLIENTS; c++) {
		clients[c] = fork();
		if (clients[c] == 0)
			testutil_upload_client(c, dir, &d.port, 1);
	}
	pause_ms(2500);
	kill(d.pid, SIGKILL); /* the power goes, uploads in flight */
	waitpid(d.pid, NULL, 0);
	snprintf(stop, sizeof(stop), "%s/stop", dir);
	fclose(fopen(stop, "w"));
	for (int c = 0; c < BUSY_CLIENTS; c++)
		waitpid(clients[c], NULL, 0);
	records = replay_power_cut(dir);
	start_after_power_cut(&d, dir);
	for (int c = 0; c < BUSY_CLIENTS; c++) {
		char log[600];
		FILE *f;
		snprintf(log, sizeof(log), "%s/client%d.log", dir, c);
		f = fopen(log, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *doc = strchr(line, '\t') + 1;
			doc[strcspn(doc, "\n")] = '\0';
			acknowledged++;
			lost += !upload_present(&d, atoll(line), doc);
		}
		if (f)
			fclose(f);
	}
	printf("note: power cut under %d busy uploaders (%ld writes and syncs logged): %d of %d "
	       "acknowledged uploads lost\n",
	       BUSY_CLIENTS, records, lost, acknowledged);
	ck_assert_int_gt(acknowledged, 50);
	ck_assert_int_eq(lost, 0);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("powercut");
	TCase *tc = tcase_create("powercut");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, uploads_a_tenth_of_a_second_apart_survive_a_power_cut);
	tcase_add_test(tc, busy_uploads_survive_a_power_cut);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
