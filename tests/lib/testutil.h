/* testutil.h: what several test programs share: files, fixtures, a real daemon, HTTP. */
#ifndef ANIMDEX_TESTUTIL_H
#define ANIMDEX_TESTUTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/model.h"
#include "formats/format.h"
#include "formats/native.h"

/* A small Radient clip, "walk": one FLOAT3 LINEAR translation of "hips". */
extern const char testutil_walk_doc[];

struct Suite;
/* Runs a Check suite (freeing it) and returns the process's exit status. */
int testutil_run(struct Suite *suite);

/* Runs a shell command; its standard output (up to 64 KiB, malloc'd, NUL-terminated) and
 * its wait status. */
char *testutil_shell(const char *cmd, int *status);
/* Reads a whole file; NULL when it cannot. */
char *testutil_read_file(const char *path, size_t *length);
/* $ANIMDEX_SRCDIR/rel */
const char *testutil_src_path(const char *rel, char *out, size_t size);
/* The shared fixtures folder, or NULL after printing a visible "SKIP:" line naming `what`. */
const char *testutil_fixtures(const char *what);
/* A new empty temporary folder (removed by testutil_remove_tree). */
char *testutil_temp_dir(void);
void testutil_remove_tree(const char *dir);

/* A Radient clip document rebuilt from animation `index` of a glTF file: float accessors,
 * embedded or external buffers. One target per node, one sampler and channel per glTF
 * channel, in order. NULL when the file cannot be read. */
json_t *testutil_gltf_to_radient(const char *gltf_path, size_t index);

/* Zouna bytes (Animation_Z, Skel_Z or a bare keyframer of class_name) decoded as the
 * catalogue decodes them, asserted to succeed: the first resource (r the caller's). */
struct resource *testutil_zouna_decode(const uint8_t *data, size_t length, const char *class_name,
                                       struct decode_result *r);
/* The game's file written from `source` on a Zouna template's bytes (native_zouna). */
int testutil_zouna_native(const uint8_t *tmpl, size_t length, const char *class_name,
                          const struct resource *source, const struct native_options *opt,
                          struct native_file *out, struct error *err);

/* The folder a suite's assets go to for tests/scripts/export.sh's validator and Blender:
 * $ANIMDEX_EXPORT_DIR/part (else tests/output/export/part), made, and emptied of an earlier
 * run's files. testutil_write_export writes a file into it, asserting it is written whole. */
const char *testutil_export_folder(const char *part);
void testutil_write_export(const char *name, const void *data, size_t length);

/* Samples track n of a decoded resource at t into out, with a fresh cursor. */
void testutil_sample(const struct resource *res, size_t n, float t, float *out);

/* The real daemon on an ephemeral loopback port. */
struct daemon_proc {
	pid_t pid;
	int port;
	char db[512];
	char base[64]; /* "http://127.0.0.1:PORT" */
};
int daemon_start(struct daemon_proc *d, const char *db, const char *extra_args);
/* The same with the request log and messages (stderr) written to log_path. */
int daemon_start_logged(struct daemon_proc *d, const char *db, const char *extra_args,
                        const char *log_path);
/* SIGTERM, then waits; returns the exit status (or -1). */
int daemon_stop(struct daemon_proc *d);

struct http_reply {
	long status;
	char *body;
	size_t length;
	size_t capacity; /* of body (grown twice over: a large answer is copied a few times) */
	char content_type[128];
	char disposition[256];
	char header_count[32];      /* X-Animdex-Count */
	char header_components[32]; /* X-Animdex-Components */
	char header_native[256];    /* X-Animdex-Native */
};
/* method, url path (appended to d->base), optional raw body. Returns 0 when an answer came. */
int http_request(const struct daemon_proc *d, const char *method, const char *path,
                 const void *body, size_t length, const char *content_type,
                 struct http_reply *reply);
/* The same with "Authorization: Bearer token" when token is not NULL. */
int http_request_auth(const struct daemon_proc *d, const char *method, const char *path,
                      const void *body, size_t length, const char *content_type, const char *token,
                      struct http_reply *reply);
/* multipart/form-data with one or more files (names[i], data[i], lengths[i]) and optional
 * fields ("class", "value", ..., NULL). */
int http_upload(const struct daemon_proc *d, size_t count, const char *const *names,
                const void *const *data, const size_t *lengths, const char *const *fields,
                struct http_reply *reply);
json_t *http_json(const struct http_reply *reply);
/* GET path on d: asserts that an answer came, with status `want`, as JSON; the JSON (the
 * caller's). */
json_t *http_get_json(const struct daemon_proc *d, const char *path, long want);
/* One file uploaded to d: asserts 201; the id of the first entry it made. */
json_int_t http_upload_one(const struct daemon_proc *d, const char *name, const void *data,
                           size_t length);

/* Raw sockets, for requests libcurl would not send. A connection to the daemon, from the
 * local address `source` (NULL: any); -1 when it cannot be made. */
int raw_connect(const struct daemon_proc *d, const char *source);
int raw_send(int fd, const void *data, size_t length);
/* Reads until the peer closes (*closed set) or timeout_ms pass; malloc'd, NUL-terminated. */
char *raw_read(int fd, int timeout_ms, size_t *length, int *closed);
/* One request on a new connection (half-closed after it when asked); the answer's text and
 * status (0 when none came). */
char *raw_exchange(const struct daemon_proc *d, const void *request, size_t length, int half_close,
                   int timeout_ms, long *status);
/* A field of /proc/PID/status in KiB ("VmRSS", "VmHWM"), or -1. */
long process_rss_kib(pid_t pid, const char *field);
void http_reply_cleanup(struct http_reply *reply);

/* An uploading client, to run in a forked process: unique small clips until DIR/stop exists,
 * to the ports in turn; after each 2xx answer it appends "id<TAB>document" to
 * DIR/clientN.log; failed, refused and 503 answers are retried with the same document. Never
 * returns. */
void testutil_upload_client(int n, const char *dir, const int *ports, size_t port_count);
/* Asserts that every upload the clients' logs say was acknowledged is there, byte for byte
 * (read through the daemons in turn); returns how many it checked. */
int testutil_check_acknowledged(const char *dir, int clients, const struct daemon_proc *daemons,
                                size_t count);

/* Which catalogue testutil_catalog makes: suites run their tests against both. */
enum { TESTUTIL_SQLITE, TESTUTIL_POSTGRES };
extern int testutil_backend;
/* A new empty catalogue standing for file `name`: dir/name for SQLite; for PostgreSQL a new
 * database in the tests' cluster, as a connection string. NULL when it cannot be made. */
const char *testutil_catalog(const char *dir, const char *name, char *out, size_t size);
/* Is PostgreSQL to be tested (ANIMDEX_NO_POSTGRES is not 1)? */
int testutil_postgres_wanted(void);
/* Starts the tests' throwaway cluster, once per process (removed when the process that
 * started it exits); its connection string without a dbname, or NULL after saying why. */
const char *testutil_postgres(void);
/* pg_ctl ACTION ("stop", "start", "restart"; fast shutdown, waiting); 0 when done. */
int testutil_postgres_control(const char *action);
/* Sends a signal ("STOP", "CONT") to its server and every process of it. */
int testutil_postgres_signal(const char *signal_name);
/* Runs SQL on a database of it; 0 when it succeeded. */
int testutil_postgres_exec(const char *conninfo, const char *sql);
struct TCase;
/* A test case whose one test prints "SKIP:" for a suite's PostgreSQL variants. */
struct TCase *testutil_postgres_skipped(void);
/* add_tests(s, 0) for SQLite, and add_tests(s, 1) for PostgreSQL when it is to be tested (its
 * cluster started first, for the whole suite), else the skipped variants' test case. */
void testutil_add_both_backends(struct Suite *s, const char *suite,
                                void (*add_tests)(struct Suite *s, int pg));

#endif
