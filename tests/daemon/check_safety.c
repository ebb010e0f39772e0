/* check_safety.c: what no moved file, full or read-only disk, careless command or odd
 * request may do to a catalogue: the real daemon and the real command line, each case a
 * rule that was once broken.
 *
 * The disk-full and read-only cases mount a small tmpfs of their own (as root); elsewhere
 * they print a visible SKIP.
 */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "zouna_writer.h"

static const char *animdexd(void)
{
	return getenv("ANIMDEXD");
}

/* Whether the daemon under test is built with AddressSanitizer, which keeps what is freed in
 * a quarantine for a while: its memory is not the daemon's, and bounds on it are not checked
 * (said in a note). */
static bool daemon_is_sanitized(void)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "ldd '%s' | grep -q libasan", animdexd());
	if (system(cmd) != 0)
		return false;
	printf("note: the memory bound is not checked on a sanitizer build\n");
	return true;
}

/* POSTs a small clip named `name`; the status, and the new entry's id in *id when given. */
static long upload_clip(const struct daemon_proc *d, const char *name, long long *id)
{
	char doc[256];
	struct http_reply r;
	long status;

	snprintf(doc, sizeof(doc), "{\"name\": \"%s\", \"duration\": 1}", name);
	ck_assert_int_eq(http_request(d, "POST", "/api/resources?filename=clip.json", doc,
	                              strlen(doc), "application/json", &r),
	                 0);
	status = r.status;
	if (id && status == 201) {
		json_t *j = http_json(&r);
		*id = json_integer_value(
		    json_object_get(json_array_get(json_object_get(j, "resources"), 0), "id"));
		json_decref(j);
	}
	http_reply_cleanup(&r);
	return status;
}

static long get_status(const struct daemon_proc *d, const char *path, char *body, size_t size)
{
	struct http_reply r;
	long status;

	ck_assert_int_eq(http_request(d, "GET", path, NULL, 0, NULL, &r), 0);
	status = r.status;
	if (body)
		snprintf(body, size, "%.*s", (int)r.length, r.body ? r.body : "");
	http_reply_cleanup(&r);
	return status;
}

static void sqlite_ok(const char *db)
{
	char cmd[1200];
	int status;
	char *out;

	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA integrity_check' 2>&1", db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(strcmp(out, "ok\n") == 0, "%s: %s", db, out);
	free(out);
}

/* The file's SHA-256 as sha256sum prints it. */
static void file_digest(const char *path, char out[65])
{
	char cmd[1200];
	int status;
	char *text;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	text = testutil_shell(cmd, &status);
	ck_assert_int_eq(status, 0);
	snprintf(out, 65, "%.64s", text);
	free(text);
}

/* A catalogue removed or replaced under the daemon: writes are refused (503), and after a
 * crash the file at the path is whole, with nothing of the old one's log replayed over it. */
START_TEST(a_moved_or_replaced_catalogue_takes_no_writes)
{
	char *dir = testutil_temp_dir(), db[600], moved[600], other[600], body[2048];
	struct daemon_proc d;
	long long id;

	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	snprintf(moved, sizeof(moved), "%s/moved.db", dir);
	snprintf(other, sizeof(other), "%s/other.db", dir);
	/* another catalogue, with one entry of its own */
	ck_assert_int_eq(daemon_start(&d, other, NULL), 0);
	ck_assert_int_eq(upload_clip(&d, "the other one", NULL), 201);
	ck_assert_int_eq(daemon_stop(&d), 0);

	/* moved away */
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(upload_clip(&d, "before the move", &id), 201);
	ck_assert_int_eq(rename(db, moved), 0);
	ck_assert_int_eq(upload_clip(&d, "after the move", NULL), 503);
	ck_assert_int_eq(get_status(&d, "/api/health", body, sizeof(body)), 503);
	ck_assert_msg(strstr(body, "no longer the one animdexd opened"), "%s", body);
	kill(d.pid, SIGKILL);
	waitpid(d.pid, NULL, 0);

	/* replaced: the old log must not be replayed over the new file */
	ck_assert_int_eq(rename(moved, db), 0);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	for (int i = 0; i < 5; i++) {
		char name[32];
		snprintf(name, sizeof(name), "in the log %d", i);
		ck_assert_int_eq(upload_clip(&d, name, NULL), 201);
	}
	ck_assert_int_eq(rename(other, db), 0);
	ck_assert_int_eq(upload_clip(&d, "after the replacement", NULL), 503);
	ck_assert_int_eq(get_status(&d, "/api/health", body, sizeof(body)), 503);
	ck_assert_msg(strstr(body, "no longer the one animdexd opened"), "%s", body);
	kill(d.pid, SIGKILL);
	waitpid(d.pid, NULL, 0);
	sqlite_ok(db);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(get_status(&d, "/api/health", body, sizeof(body)), 200);
	ck_assert_int_eq(
	    get_status(&d, "/api/resources?name=the%20other%20one", body, sizeof(body)), 200);
	ck_assert_msg(strstr(body, "\"the other one\""), "%s", body);
	ck_assert_ptr_null(strstr(body, "in the log"));
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* A catalogue with one clip in dir/name, made by a daemon that is stopped again. */
static void make_catalogue(const char *db)
{
	struct daemon_proc d;

	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(upload_clip(&d, "kept", NULL), 201);
	ck_assert_int_eq(daemon_stop(&d), 0);
}

START_TEST(export_and_native_never_write_over_the_catalogue)
{
	char *dir = testutil_temp_dir(), db[600], cmd[2400], before[65], after[65];
	/* the catalogue by its own name, by another spelling, by a hard link of another name,
	 * and its log and shared memory */
	const char *outputs[] = {"%s/team.db", "%s/./team.db", "%s/alias.db", "%s/./team.db-wal",
	                         "%s/team.db-shm"};
	int status;
	char *out, alias[700];

	snprintf(db, sizeof(db), "%s/team.db", dir);
	make_catalogue(db);
	snprintf(alias, sizeof(alias), "%s/alias.db", dir);
	ck_assert_int_eq(link(db, alias), 0);
	file_digest(db, before);
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		char output[700];
		snprintf(output, sizeof(output), outputs[i], dir);
		for (int native = 0; native < 2; native++) {
			snprintf(cmd, sizeof(cmd), "'%s' %s --db '%s' -o '%s' 2>&1", animdexd(),
			         native ? "native 1" : "export", db, output);
			out = testutil_shell(cmd, &status);
			ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: %s", cmd,
			              out);
			ck_assert_msg(strstr(out, "refusing to write over it"), "%s", out);
			free(out);
		}
	}
	file_digest(db, after);
	ck_assert_str_eq(before, after);
	sqlite_ok(db);
	/* an export elsewhere works, and leaves no temporary file beside it */
	snprintf(
	    cmd, sizeof(cmd),
	    "cd '%s' && '%s' export --db team.db -o out.glb --quiet && ls | sort | tr '\\n' ' '",
	    dir, animdexd());
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "out.glb team.db"), "%s", out);
	ck_assert_msg(!strstr(out, "out.glb."), "a temporary file was left: %s", out);
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* The command line's words do what they say: native needs somewhere to write, export
 * --format gltf writes a .gltf (JSON), --version only prints, and `serve` is the daemon. */
START_TEST(the_commands_words_do_what_they_say)
{
	char *dir = testutil_temp_dir(), db[600], cmd[2400], *out, *file;
	size_t length;
	int status;

	snprintf(db, sizeof(db), "%s/team.db", dir);
	make_catalogue(db);
	snprintf(cmd, sizeof(cmd), "'%s' native --db '%s' 1 2>&1", animdexd(), db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2 &&
	                  strstr(out, "native needs -o FILE"),
	              "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && '%s' export --db team.db --format gltf -o out.gltf --quiet", dir,
	         animdexd());
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/out.gltf", dir);
	file = testutil_read_file(cmd, &length);
	ck_assert_msg(file && length > 0 && file[0] == '{', "--format gltf wrote %.4s",
	              file ? file : "");
	free(file);
	snprintf(cmd, sizeof(cmd), "timeout 60 '%s' --version 2>&1", animdexd());
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strncmp(out, "animdexd ", 9) == 0 && !strstr(out, "listening"),
	              "%s", out);
	free(out);
	/* serve: the daemon's own options (a listen address it refuses, so that it stops) */
	snprintf(cmd, sizeof(cmd),
	         "timeout 60 '%s' serve --db '%s' --listen 999.0.0.1:1 --quiet 2>&1", animdexd(),
	         db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(strstr(out, "refusing to listen on 999.0.0.1:1") &&
	                  !strstr(out, "unexpected"),
	              "%s", out);
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* copy reads its source without changing it: an old schema is refused, not migrated; a
 * target that is one of the source's files is refused; --append counts what it copied. */
START_TEST(copy_leaves_its_source_as_it_was)
{
	char *dir = testutil_temp_dir(), db[600], old[600], target[600], cmd[3000], src[600];
	char before[65], after[65];
	int status;
	char *out;

	snprintf(db, sizeof(db), "%s/src.db", dir);
	snprintf(old, sizeof(old), "%s/old.db", dir);
	snprintf(target, sizeof(target), "%s/copy.db", dir);
	make_catalogue(db);
	/* an old catalogue (schema 1) */
	testutil_src_path("tests/data/legacy-v1/catalog.db", src, sizeof(src));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 0444 '%s'", src, old, old);
	ck_assert_int_eq(system(cmd), 0);
	file_digest(old, before);
	snprintf(cmd, sizeof(cmd), "'%s' copy '%s' '%s' 2>&1", animdexd(), old, target);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status != 0 && strstr(out, "run animdexd on it once"), "%s", out);
	free(out);
	file_digest(old, after);
	ck_assert_str_eq(before, after);

	/* a read-only source of today's schema is copied */
	snprintf(cmd, sizeof(cmd), "chmod 0444 '%s' && '%s' copy '%s' '%s' 2>&1", db, animdexd(),
	         db, target);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "copied 1 entries"), "%s", out);
	free(out);

	/* the source's own files are no target */
	file_digest(db, before);
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "'%s' copy '%s' '%s%s' 2>&1", animdexd(), db, db,
		         i ? "-shm" : "-wal");
		out = testutil_shell(cmd, &status);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2 &&
		                  strstr(out, "refusing to copy a catalogue onto itself"),
		              "%s", out);
		free(out);
	}
	file_digest(db, after);
	ck_assert_str_eq(before, after);
	sqlite_ok(db);

	/* --append of what the target has already copies no blob, and says so */
	snprintf(cmd, sizeof(cmd), "'%s' copy --append '%s' '%s' 2>&1", animdexd(), db, target);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "0 blobs (1 there already)") &&
	                  strstr(out, "1 skipped"),
	              "%s", out);
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* A tmpfs of `size` mounted on dir/disk; 0 when mounted, -1 after a visible SKIP. */
static int mount_small_disk(const char *dir, const char *size, char *disk, size_t disk_size)
{
	char options[64];

	snprintf(disk, disk_size, "%s/disk", dir);
	ck_assert_int_eq(mkdir(disk, 0755), 0);
	snprintf(options, sizeof(options), "size=%s", size);
	if (mount("tmpfs", disk, "tmpfs", 0, options) != 0) {
		printf("SKIP: a small file system of its own cannot be mounted here (not root?)\n");
		return -1;
	}
	return 0;
}

/* A raw request's status line and headers. */
static char *raw_headers(const struct daemon_proc *d, const char *request, long *status)
{
	return raw_exchange(d, request, strlen(request), 0, 5000, status);
}

START_TEST(a_full_disk_answers_507_and_recovers)
{
	char *dir = testutil_temp_dir(), disk[600], db[700], filler[700], cmd[3200], body[2048];
	struct daemon_proc d;
	long status = 0;
	long long id = 0;
	int stored = 0, exit_status;
	char *answer;

	if (mount_small_disk(dir, "3m", disk, sizeof(disk)) < 0) {
		testutil_remove_tree(dir);
		free(dir);
		return;
	}
	snprintf(db, sizeof(db), "%s/animdex.db", disk);
	snprintf(filler, sizeof(filler), "%s/filler", disk);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(upload_clip(&d, "before the disk filled", &id), 201);
	snprintf(cmd, sizeof(cmd), "dd if=/dev/zero of='%s' bs=64k 2>/dev/null; sync", filler);
	(void)system(cmd); /* until the disk is full */
	for (int i = 0; i < 200; i++) {
		char name[48];
		snprintf(name, sizeof(name), "filling %d", i);
		status = upload_clip(&d, name, NULL);
		if (status != 201)
			break;
		stored++;
	}
	ck_assert_msg(status == 507, "an upload on a full disk: %ld (after %d stored)", status,
	              stored);
	{
		char request[512];
		snprintf(request, sizeof(request),
		         "POST /api/resources?filename=x.json HTTP/1.1\r\nHost: x\r\nContent-Type: "
		         "application/json\r\nContent-Length: 31\r\nConnection: close\r\n\r\n"
		         "{\"name\": \"full\", \"duration\": 1}");
		answer = raw_headers(&d, request, &status);
		ck_assert_int_eq(status, 507);
		ck_assert_msg(strstr(answer, "Retry-After:") && strstr(answer, "is full"), "%s",
		              answer);
		free(answer);
	}
	/* reads go on */
	snprintf(cmd, sizeof(cmd), "/api/resources/%lld", id);
	ck_assert_int_eq(get_status(&d, cmd, body, sizeof(body)), 200);
	ck_assert_int_eq(get_status(&d, "/api/resources", NULL, 0), 200);
	/* room again: uploads work again, by themselves */
	ck_assert_int_eq(unlink(filler), 0);
	ck_assert_int_eq(upload_clip(&d, "after the room came back", NULL), 201);
	ck_assert_int_eq(daemon_stop(&d), 0);
	sqlite_ok(db);

	/* an export that does not fit leaves nothing behind */
	snprintf(
	    cmd, sizeof(cmd),
	    "dd if=/dev/zero of='%s' bs=64k 2>/dev/null; '%s' export --db '%s' -o '%s/out.glb' "
	    "2>&1; echo \"exit $?\"; ls '%s'",
	    filler, animdexd(), db, disk, disk);
	answer = testutil_shell(cmd, &exit_status);
	ck_assert_msg(strstr(answer, "exit 1") && !strstr(answer, "out.glb\n") &&
	                  !strstr(answer, "out.glb."),
	              "%s", answer);
	free(answer);
	ck_assert_int_eq(umount(disk), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(a_read_only_catalogue_is_served_for_reading_or_refused)
{
	char *dir = testutil_temp_dir(), disk[600], db[700], cmd[1600], body[4096];
	struct daemon_proc d;
	long long id = 0;
	int status;
	char *out;

	if (mount_small_disk(dir, "8m", disk, sizeof(disk)) < 0) {
		testutil_remove_tree(dir);
		free(dir);
		return;
	}
	snprintf(db, sizeof(db), "%s/animdex.db", disk);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(upload_clip(&d, "published", &id), 201);
	ck_assert_int_eq(daemon_stop(&d), 0);
	ck_assert_int_eq(mount("tmpfs", disk, "tmpfs", MS_REMOUNT | MS_RDONLY, NULL), 0);
	/* without --read-only: refused at start, with what to do */
	snprintf(cmd, sizeof(cmd), "'%s' --listen 127.0.0.1:0 --db '%s' 2>&1", animdexd(), db);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status != 0 && strstr(out, "--read-only"), "%s", out);
	free(out);
	/* with it: reads, and writes refused with 405 */
	ck_assert_int_eq(daemon_start(&d, db, "--read-only"), 0);
	snprintf(cmd, sizeof(cmd), "/api/resources/%lld", id);
	ck_assert_int_eq(get_status(&d, cmd, body, sizeof(body)), 200);
	ck_assert_int_eq(get_status(&d, "/api/health", body, sizeof(body)), 200);
	ck_assert_msg(strstr(body, "\"writes\":\"read-only\""), "%s", body);
	ck_assert_int_eq(upload_clip(&d, "refused", NULL), 405);
	{
		struct http_reply r;
		ck_assert_int_eq(http_request(&d, "DELETE", cmd, NULL, 0, NULL, &r), 0);
		ck_assert_int_eq(r.status, 405);
		ck_assert_msg(strstr(r.body, "reading only"), "%s", r.body);
		http_reply_cleanup(&r);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
	ck_assert_int_eq(umount(disk), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* --read-only on a writable file changes nothing in it either. */
START_TEST(read_only_writes_nothing_to_a_writable_file)
{
	char *dir = testutil_temp_dir(), db[600], before[65], after[65], body[2048];
	struct daemon_proc d;

	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	make_catalogue(db);
	file_digest(db, before);
	ck_assert_int_eq(daemon_start(&d, db, "--read-only"), 0);
	ck_assert_int_eq(upload_clip(&d, "refused", NULL), 405);
	ck_assert_int_eq(get_status(&d, "/api/resources", body, sizeof(body)), 200);
	ck_assert_msg(strstr(body, "\"kept\""), "%s", body);
	ck_assert_int_eq(daemon_stop(&d), 0);
	file_digest(db, after);
	ck_assert_str_eq(before, after);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* Many processes starting at once on a new file all wait their turn. */
START_TEST(processes_starting_together_on_a_new_file_wait)
{
	char *dir = testutil_temp_dir(), cmd[3000];
	int status, failures = 0;
	char *out;

	for (int round = 0; round < 2; round++) {
		snprintf(
		    cmd, sizeof(cmd),
		    "cd '%s' && rm -f t.db*; for i in $(seq 8); do ('%s' token add user$i --db "
		    "t.db >/dev/null 2>err$i.txt || cat err$i.txt) & (timeout -k 3 2 '%s' --listen "
		    "127.0.0.1:0 --db t.db --quiet >/dev/null 2>derr$i.txt; [ $? = 124 ] || cat "
		    "derr$i.txt) & done; wait",
		    dir, animdexd(), animdexd());
		out = testutil_shell(cmd, &status);
		if (*out) /* what a process said, when it did not start or stop in time */
			printf("round %d: %s\n", round, out);
		failures += strstr(out, "locked") != NULL;
		free(out);
	}
	ck_assert_int_eq(failures, 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(requests_the_server_cannot_read_are_refused_at_once)
{
	char *dir = testutil_temp_dir(), db[600];
	const char *codings[] = {"identity", "gzip", "gzip, chunked"};
	struct daemon_proc d;

	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	for (size_t i = 0; i < 3; i++) {
		char request[400];
		long status = 0;
		struct timespec a, b;
		char *answer;
		snprintf(request, sizeof(request),
		         "POST /api/resources?filename=x.json HTTP/1.1\r\nHost: x\r\n"
		         "Transfer-Encoding: %s\r\n\r\n{\"name\": \"x\"}",
		         codings[i]);
		clock_gettime(CLOCK_MONOTONIC, &a);
		answer = raw_headers(&d, request, &status);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ck_assert_msg(status == 501, "%s: %ld %s", codings[i], status, answer);
		ck_assert_msg(strstr(answer, "Transfer-Encoding"), "%s", answer);
		ck_assert_msg(b.tv_sec - a.tv_sec < 3, "%s: answered after %ld s", codings[i],
		              (long)(b.tv_sec - a.tv_sec));
		free(answer);
	}
	/* bake: decimal digits only */
	ck_assert_int_eq(upload_clip(&d, "baked", NULL), 201);
	{
		const char *bakes[] = {"0x10", "1e2", "%2B30", "%2030", "30.", "inf", "0"};
		for (size_t i = 0; i < sizeof(bakes) / sizeof(bakes[0]); i++) {
			char path[96], body[1024];
			snprintf(path, sizeof(path), "/api/resources/1/export?bake=%s", bakes[i]);
			ck_assert_msg(get_status(&d, path, body, sizeof(body)) == 400, "%s: %s",
			              path, body);
		}
		ck_assert_int_eq(get_status(&d, "/api/resources/1/export?bake=29.97", NULL, 0),
		                 200);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(an_option_like_word_is_no_name_or_path)
{
	char *dir = testutil_temp_dir(), cmd[2000];
	const char *commands[] = {"token add --db --db t.db",  "token add -- --db",
	                          "export --db -x -o out.glb", "export --db t.db -o --format",
	                          "copy -- --a t.db",          "--db --quiet"};
	int status;
	char *out;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s 2>&1; echo \"exit $?\"; ls", dir,
		         animdexd(), commands[i]);
		out = testutil_shell(cmd, &status);
		ck_assert_msg(strstr(out, "exit 2") && strstr(out, "looks like an option"),
		              "%s: %s", commands[i], out);
		ck_assert_msg(!strstr(out, "\n-"), "%s made a file: %s", commands[i], out);
		free(out);
	}
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* import stores each file's path below the argument it was found under, not the importer's
 * folders, and counts in words that fit. */
START_TEST(import_stores_paths_below_its_argument)
{
	char *dir = testutil_temp_dir(), cmd[3000], db[600];
	int status;
	char *out;

	snprintf(db, sizeof(db), "%s/team.db", dir);
	snprintf(cmd, sizeof(cmd),
	         "mkdir -p '%s/home/alice/rips/sub' && printf '%s' > "
	         "'%s/home/alice/rips/sub/hero.json' && printf '{\"name\": \"solo\", \"duration\": "
	         "2}' > '%s/home/alice/solo.json'",
	         dir, "{\"name\": \"hero\", \"duration\": 1}", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s' '%s/home/alice/rips/' 2>&1", animdexd(),
	         db, dir);
	out = testutil_shell(cmd, &status);
	ck_assert_msg(status == 0 && strstr(out, "1 file,") && strstr(out, "1 entry created"), "%s",
	              out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' import --db '%s' '%s/home/alice/solo.json' 2>&1",
	         animdexd(), db, dir);
	out = testutil_shell(cmd, &status);
	ck_assert_int_eq(status, 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'SELECT filename FROM resources ORDER BY id'", db);
	out = testutil_shell(cmd, &status);
	ck_assert_str_eq(out, "sub/hero.json\nsolo.json\n");
	free(out);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* An Euler track 100,000 s long is baked at fewer samples a second, and the asset says so; a
 * set holding it exports too. */
START_TEST(a_very_long_euler_track_exports)
{
	char *dir = testutil_temp_dir(), db[600], body[4096];
	struct zkey keys[2] = {{.time = 0, .v = {0, 0, 0}}, {.time = 100000, .v = {1, 2, 3}}};
	struct daemon_proc d;
	struct http_reply r;
	struct zbuf b;

	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	zbuf_init(&b, 0);
	ck_assert_int_eq(zouna_write_keyframer(&b, "KeyframerBezierRot_Z", 0, keys, 2, ZW_DEFAULT),
	                 0);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(upload_clip(&d, "ordinary", NULL), 201);
	ck_assert_int_eq(http_request(&d, "POST",
	                              "/api/resources?filename=long.KeyframerBezierRot_Z", b.data,
	                              b.len, "application/octet-stream", &r),
	                 0);
	ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	ck_assert_int_eq(get_status(&d, "/api/resources/2/export?summary=1", body, sizeof(body)),
	                 200);
	ck_assert_msg(strstr(body, "past the limit of 100000 a track"), "%s", body);
	ck_assert_int_eq(get_status(&d, "/api/resources/2/export", NULL, 0), 200);
	ck_assert_int_eq(get_status(&d, "/api/export", NULL, 0), 200);
	ck_assert_int_eq(daemon_stop(&d), 0);
	zbuf_free(&b);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* Waits until every one of the sockets has received bytes and none receives more (the daemon
 * has sent what the connections take and waits for the clients): the received bytes are
 * polled every 20 ms, and the same total 25 polls in a row is the state (at most 120 s). */
static long wait_until_the_sockets_are_full(const int *fds, int count)
{
	long last = -1, total = 0;
	int same = 0;

	for (int poll = 0; poll < 6000 && same < 25; poll++) {
		struct timespec step = {0, 20 * 1000 * 1000};
		int all = 1;
		total = 0;
		for (int c = 0; c < count; c++) {
			int queued = 0;
			ck_assert_int_eq(ioctl(fds[c], FIONREAD, &queued), 0);
			all = all && queued > 0;
			total += queued;
		}
		same = all && total == last ? same + 1 : 0;
		last = total;
		nanosleep(&step, NULL);
	}
	ck_assert_msg(same >= 25, "the downloads never settled (%ld bytes received)", total);
	return total;
}

/* Six clients that do not read a 40 MB download hold a block each, not the upload. */
START_TEST(slow_raw_downloads_hold_a_block_not_the_upload)
{
	enum { SIZE = 40 << 20, CLIENTS = 6 };
	char *dir = testutil_temp_dir(), db[600], request[256];
	static const char head[] = "{\"name\": \"big\", \"duration\": 1";
	char *doc = malloc(SIZE);
	struct daemon_proc d;
	struct http_reply r;
	int fds[CLIENTS];
	long before, after, received;

	ck_assert_ptr_nonnull(doc);
	memset(doc, ' ', SIZE);
	memcpy(doc, head, strlen(head));
	doc[SIZE - 1] = '}';
	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=big.json", doc, SIZE,
	                              "application/json", &r),
	                 0);
	ck_assert_int_eq(r.status, 201);
	http_reply_cleanup(&r);
	/* one read whole, byte for byte */
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources/1/raw", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.length, SIZE);
	ck_assert(memcmp(r.body, doc, SIZE) == 0);
	http_reply_cleanup(&r);
	before = process_rss_kib(d.pid, "VmRSS");
	snprintf(request, sizeof(request),
	         "GET /api/resources/1/raw HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	for (int c = 0; c < CLIENTS; c++) {
		fds[c] = raw_connect(&d, NULL);
		ck_assert_int_ge(fds[c], 0);
		ck_assert_int_eq(raw_send(fds[c], request, strlen(request)), 0);
	}
	/* the daemon sends what the sockets take, then waits */
	received = wait_until_the_sockets_are_full(fds, CLIENTS);
	after = process_rss_kib(d.pid, "VmRSS");
	printf("note: %d clients not reading a %d MiB download (%ld bytes in their sockets): the "
	       "daemon's RSS %ld -> %ld KiB\n",
	       CLIENTS, SIZE >> 20, received, before, after);
	if (!daemon_is_sanitized())
		ck_assert_msg(after - before < 32 * 1024, "RSS grew by %ld KiB", after - before);
	for (int c = 0; c < CLIENTS; c++)
		close(fds[c]);
	ck_assert_int_eq(daemon_stop(&d), 0);
	free(doc);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* A Radient clip of `tracks` node translations of `keys` LINEAR keys each (malloc'd). */
static char *large_clip(int tracks, int keys, size_t *length)
{
	size_t cap = (size_t)tracks * ((size_t)keys * 48 + 512) + 4096, n = 0;
	char *doc = malloc(cap);

	ck_assert_ptr_nonnull(doc);
	n += (size_t)sprintf(doc + n, "{\"name\": \"large\", \"duration\": %d, \"targets\": [",
	                     keys);
	for (int t = 0; t < tracks; t++)
		n += (size_t)sprintf(doc + n,
		                     "%s{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", "
		                     "\"object\": %d, \"name\": \"n%d\"}",
		                     t ? ", " : "", t, t);
	n += (size_t)sprintf(doc + n, "], \"samplers\": [");
	for (int t = 0; t < tracks; t++) {
		n += (size_t)sprintf(doc + n,
		                     "%s{\"value\": {\"type\": \"FLOAT3\"}, \"interpolation\": "
		                     "\"LINEAR\", \"times\": [",
		                     t ? ", " : "");
		for (int k = 0; k < keys; k++)
			n += (size_t)sprintf(doc + n, "%s%d", k ? "," : "", k);
		n += (size_t)sprintf(doc + n, "], \"values\": [");
		for (int k = 0; k < keys; k++)
			n += (size_t)sprintf(doc + n, "%s%d.5,%d,-%d", k ? "," : "", k % 1000, t,
			                     k % 7);
		n += (size_t)sprintf(doc + n, "]}");
	}
	n += (size_t)sprintf(doc + n, "], \"channels\": [");
	for (int t = 0; t < tracks; t++)
		n +=
		    (size_t)sprintf(doc + n, "%s{\"target\": %d, \"property\": 1, \"sampler\": %d}",
		                    t ? ", " : "", t, t);
	n += (size_t)sprintf(doc + n, "]}");
	ck_assert_uint_lt(n, cap);
	*length = n;
	return doc;
}

/* Three exports of one large entry at once, under --answer-memory 64M, hold a fraction of
 * the asset each: its buffer is made again from the catalogue as it is sent. */
START_TEST(exports_side_by_side_stay_in_bounded_memory)
{
	char *dir = testutil_temp_dir(), db[600], cmd[3000], *doc, *out;
	struct daemon_proc d;
	struct http_reply r;
	size_t length;
	long rest, peak;
	int status;

	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	doc = large_clip(20, 50000, &length);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=large.json", doc, length,
	                              "application/json", &r),
	                 0);
	ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	free(doc);
	ck_assert_int_eq(daemon_stop(&d), 0);
	ck_assert_int_eq(daemon_start(&d, db, "--answer-memory 64M"), 0);
	rest = process_rss_kib(d.pid, "VmRSS");
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && for i in 1 2 3; do curl -s -o e$i.glb -w '%%{http_code} "
	         "%%{size_download}\n' '%s/api/resources/1/export' & done; wait; cmp e1.glb e2.glb "
	         "&& cmp e1.glb e3.glb && echo same",
	         dir, d.base);
	out = testutil_shell(cmd, &status);
	peak = process_rss_kib(d.pid, "VmHWM");
	printf("note: three exports of a %zu MB upload at once (16 MB of keys, --answer-memory "
	       "64M): the daemon's peak RSS %ld KiB, at rest %ld KiB\n%s",
	       length / 1000000, peak, rest, out);
	ck_assert_msg(strstr(out, "same") && !strstr(out, "503"), "%s", out);
	if (!daemon_is_sanitized())
		ck_assert_msg(peak - rest < 40 * 1024, "peak %ld KiB, at rest %ld KiB", peak, rest);
	free(out);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* A track glTF cannot animate costs what a channel costs: a bare keyframer of 2,000,000 keys
 * (a 16 MB upload, its float track kept in extras) exports in about its upload's size (its
 * keys go into the buffer, made again as they are sent), and is planned (summary=1, HEAD)
 * without reading its keys; three exports at once under --answer-memory 64M stay within it. */
START_TEST(an_export_costs_its_upload_not_a_tree_of_its_keys)
{
	enum { KEYS = 2000000 };
	char *dir = testutil_temp_dir(), db[600], cmd[3000], *out;
	struct zkey *keys = calloc(KEYS, sizeof(*keys));
	struct daemon_proc d;
	struct http_reply r;
	struct zbuf b;
	long rest, planned, exported, three;
	int status, sanitized;

	ck_assert_ptr_nonnull(keys);
	for (int i = 0; i < KEYS; i++) {
		keys[i].time = (float)i * 0.01f;
		keys[i].v[0] = (float)(i % 2000 - 1000) / 512.0f;
	}
	zbuf_init(&b, 0);
	ck_assert_int_eq(
	    zouna_write_keyframer(&b, "KeyframerFloatLinearComp_Z", 0, keys, KEYS, ZW_DEFAULT), 0);
	free(keys);
	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	ck_assert_int_eq(http_request(&d, "POST",
	                              "/api/resources?filename=long.KeyframerFloatLinearComp_Z",
	                              b.data, b.len, "application/octet-stream", &r),
	                 0);
	ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
	http_reply_cleanup(&r);
	ck_assert_int_eq(daemon_stop(&d), 0);

	ck_assert_int_eq(daemon_start(&d, db, "--answer-memory 64M"), 0);
	rest = process_rss_kib(d.pid, "VmHWM");
	ck_assert_int_eq(get_status(&d, "/api/resources/1/export?summary=1", NULL, 0), 200);
	snprintf(cmd, sizeof(cmd),
	         "curl -s -I -o /dev/null -w '%%{http_code}' '%s/api/resources/1/export'", d.base);
	out = testutil_shell(cmd, &status);
	ck_assert_str_eq(out, "200");
	free(out);
	planned = process_rss_kib(d.pid, "VmHWM");
	snprintf(cmd, sizeof(cmd),
	         "curl -s -o '%s/one.glb' -w '%%{http_code}' '%s/api/resources/1/export'", dir,
	         d.base);
	out = testutil_shell(cmd, &status);
	ck_assert_str_eq(out, "200");
	free(out);
	exported = process_rss_kib(d.pid, "VmHWM");
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && for i in 1 2 3; do curl -s -o e$i.glb -w '%%{http_code}\n' "
	         "'%s/api/resources/1/export' & done; wait",
	         dir, d.base);
	out = testutil_shell(cmd, &status);
	three = process_rss_kib(d.pid, "VmHWM");
	for (char *c = out; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	printf("note: a %zu-byte bare keyframer of %d keys kept in extras: the daemon's peak RSS "
	       "at rest %ld KiB, planned (summary=1, HEAD) %ld, exported %ld, three exports at "
	       "once under --answer-memory 64M %ld (%s)\n",
	       b.len, KEYS, rest, planned, exported, three, out);
	sanitized = daemon_is_sanitized();
	if (!sanitized) {
		ck_assert_msg(planned - rest < 4 * 1024, "planning grew the daemon by %ld KiB",
		              planned - rest);
		/* the bound is the upload's size plus 16 MiB; it takes about 2 MiB more
		 * than the keys, and a copy of them held beside them (the buffer's first 8 MiB)
		 * would show past 6 */
		ck_assert_msg(exported - rest < (long)(b.len / 1024) + 6 * 1024,
		              "an export grew the daemon by %ld KiB for a %zu-byte upload",
		              exported - rest, b.len);
		ck_assert_msg(three - rest < 64 * 1024 + 16 * 1024,
		              "three exports grew the daemon by %ld KiB", three - rest);
	}
	free(out);
	ck_assert_int_eq(daemon_stop(&d), 0);
	zbuf_free(&b);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

/* An entry's answer and a comparison are counted against --answer-memory before they are
 * made: under 8M, the entry of 20,000 tracks (a JSON tree of about 120 MB) is refused with 503
 * at once, and the daemon does not grow; comparing a one-track entry with it counts both
 * sides' tracks against --max-samples. */
START_TEST(answers_are_counted_before_they_are_made)
{
	char *dir = testutil_temp_dir(), db[600], *doc, cmd[600];
	struct daemon_proc d;
	struct http_reply r;
	size_t length;
	long rest, peak;

	snprintf(db, sizeof(db), "%s/animdex.db", dir);
	ck_assert_int_eq(daemon_start(&d, db, NULL), 0);
	for (int i = 0; i < 2; i++) { /* entry 1: 20,000 tracks; entry 2: one */
		doc = large_clip(i == 0 ? 20000 : 1, 2, &length);
		ck_assert_int_eq(http_request(&d, "POST", "/api/resources?filename=clip.json", doc,
		                              length, "application/json", &r),
		                 0);
		ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
		http_reply_cleanup(&r);
		free(doc);
	}
	ck_assert_int_eq(get_status(&d, "/api/resources/1", NULL, 0), 200); /* it fits 256M */
	ck_assert_int_eq(daemon_stop(&d), 0);

	ck_assert_int_eq(daemon_start(&d, db, "--answer-memory 8M --max-samples 100000"), 0);
	rest = process_rss_kib(d.pid, "VmHWM");
	ck_assert_int_eq(http_request(&d, "GET", "/api/resources/1", NULL, 0, NULL, &r), 0);
	ck_assert_int_eq(r.status, 503);
	ck_assert_msg(strstr(r.body, "the entry's answer needs about") &&
	                  strstr(r.body, "--answer-memory 8388608"),
	              "%s", r.body);
	http_reply_cleanup(&r);
	/* 1 + 20,000 tracks x 5 times: past --max-samples, whichever side is a */
	for (int side = 0; side < 2; side++) {
		char body[4096];
		snprintf(cmd, sizeof(cmd), "/api/compare?a=%d&b=%d&count=5", side ? 1 : 2,
		         side ? 2 : 1);
		ck_assert_int_eq(get_status(&d, cmd, body, sizeof(body)), 400);
		ck_assert_msg(
		    strstr(body, side ? "(20000 in a, 1 in b)" : "(1 in a, 20000 in b)") &&
		        strstr(body, "\"path\":\"count\""),
		    "%s", body);
	}
	/* within the samples, past the memory */
	ck_assert_int_eq(http_request(&d, "GET", "/api/compare?a=2&b=1&count=2", NULL, 0, NULL, &r),
	                 0);
	ck_assert_int_eq(r.status, 503);
	ck_assert_msg(strstr(r.body, "the comparison needs about"), "%s", r.body);
	http_reply_cleanup(&r);
	peak = process_rss_kib(d.pid, "VmHWM");
	printf("note: an entry of 20,000 tracks asked for and compared under --answer-memory 8M: "
	       "the daemon's peak RSS %ld KiB, at rest %ld KiB\n",
	       peak, rest);
	if (!daemon_is_sanitized())
		/* what is read to weigh it (its 6 MB of structure text, in the memory of each
		 * thread that answered) and SQLite's page cache, not the 120 MB tree */
		ck_assert_msg(peak - rest < 32 * 1024, "peak %ld KiB, at rest %ld KiB", peak, rest);
	ck_assert_int_eq(daemon_stop(&d), 0);
	testutil_remove_tree(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("safety");
	TCase *tc = tcase_create("safety");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, a_moved_or_replaced_catalogue_takes_no_writes);
	tcase_add_test(tc, export_and_native_never_write_over_the_catalogue);
	tcase_add_test(tc, the_commands_words_do_what_they_say);
	tcase_add_test(tc, copy_leaves_its_source_as_it_was);
	tcase_add_test(tc, a_full_disk_answers_507_and_recovers);
	tcase_add_test(tc, a_read_only_catalogue_is_served_for_reading_or_refused);
	tcase_add_test(tc, read_only_writes_nothing_to_a_writable_file);
	tcase_add_test(tc, processes_starting_together_on_a_new_file_wait);
	tcase_add_test(tc, requests_the_server_cannot_read_are_refused_at_once);
	tcase_add_test(tc, an_option_like_word_is_no_name_or_path);
	tcase_add_test(tc, import_stores_paths_below_its_argument);
	tcase_add_test(tc, a_very_long_euler_track_exports);
	tcase_add_test(tc, slow_raw_downloads_hold_a_block_not_the_upload);
	tcase_add_test(tc, answers_are_counted_before_they_are_made);
	tcase_add_test(tc, an_export_costs_its_upload_not_a_tree_of_its_keys);
	tcase_add_test(tc, exports_side_by_side_stay_in_bounded_memory);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
