/* catalog.h: the catalogue. Every SQL statement and every database handle lives in the
 * catalog*.c files; this interface speaks in model structures and JSON, never in SQL, and the
 * HTTP layer cannot tell which database answers it.
 *
 * Two backends (catalog_backend.h): a SQLite file (the default: a path), or a PostgreSQL
 * database shared by several daemons (a connection string: "postgresql://...",
 * "postgres://..." or libpq's "host=... dbname=..."). A `struct catalog` is one connection
 * with its prepared statements; it is used by one thread at a time. A `struct catalog_pool`
 * hands each thread its own connection, opened on first use, and closes them all at shutdown.
 *
 * Each upload is one transaction: its bytes, every entry, track and reference, or nothing.
 * When a shared database goes away, calls fail with ERROR_UNAVAILABLE, and the connection is
 * made again by the next call that finds it broken.
 */
#ifndef ANIMDEX_CATALOG_H
#define ANIMDEX_CATALOG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "formats/format.h"
#include "core/model.h"
#include "core/pose.h"

struct catalog;
struct catalog_pool;

/* Opens (creating if needed) and applies the migrations of schema/ not yet applied. `target`
 * is a file path or a PostgreSQL connection string. */
struct catalog *catalog_open(const char *target, struct error *err);
/* Opens for reading: never creates, migrates or writes (a SQLite file on a read-only file
 * system is read as immutable). An old schema is refused with a message that says to serve
 * it once; writes fail with ERROR_READ_ONLY. */
struct catalog *catalog_open_read_only(const char *target, struct error *err);
void catalog_close(struct catalog *cat);
/* Which of a SQLite catalogue's files `path` names, as words for a message ("the catalogue",
 * "the catalogue's write-ahead log"...): the file itself, its -wal, -shm or -journal, by inode
 * or by canonical path (it need not exist). NULL when none, or for PostgreSQL. */
const char *catalog_files_match(const char *target, const char *path);
/* 0 when writes may be made; -1 with err set when not: ERROR_READ_ONLY (opened for reading
 * only), ERROR_UNAVAILABLE (a SQLite file removed, moved or replaced since it was opened). */
int catalog_writable(struct catalog *cat, struct error *err);
/* The schema version of an open catalogue (the last migration applied). */
int catalog_schema_version(struct catalog *cat);
/* {"backend": ..., "sqlite_version" or "server_version": ...} for /api/health. */
json_t *catalog_describe(struct catalog *cat);
/* How long an answer from a shared database is waited for before the call fails with
 * ERROR_UNAVAILABLE (the daemon passes its --timeout; default 30 s). */
void catalog_set_timeout(unsigned seconds);
/* A --db for messages and logs: a path as it is, a connection string without its password. */
void catalog_display_name(const char *target, char *out, size_t size);

/* read_only: its connections are opened with catalog_open_read_only. A pool on a SQLite
 * file opens no connection once the path names another file than at its creation. */
struct catalog_pool *catalog_pool_create(const char *target, int read_only);
void catalog_pool_free(struct catalog_pool *pool);
/* The calling thread's connection, opened on first use; NULL with err set on failure. */
struct catalog *catalog_pool_get(struct catalog_pool *pool, struct error *err);
/* The connection to write with, held until catalog_pool_release_writer. For a local file
 * (SQLite: one writer at a time), one connection the process's threads take turns on: a
 * writer waits on a mutex instead of polling the file's lock, and finds the pages the last
 * writer changed still in its cache (a connection of its own would read them again). For a
 * database server, which takes writers side by side, the calling thread's own connection.
 * NULL with err set on failure (nothing held). */
struct catalog *catalog_pool_writer(struct catalog_pool *pool, struct error *err);
void catalog_pool_release_writer(struct catalog_pool *pool, struct catalog *writer);

/* Group commit, for a local file: writes handed over by many threads are made by one thread
 * of the pool's, several jobs to a transaction, each job inside a savepoint of its own, so
 * that a job that fails leaves nothing and the others are stored. A commit costs about as
 * much for eight uploads as for one (the pages of the tables and indexes they share are
 * written to the WAL once), and the threads that hand jobs over are free meanwhile. */
struct catalog_job {
	/* stores the job's rows on cat, inside the job's savepoint; -1 with err set to have
	 * them rolled back */
	int (*store)(struct catalog_job *job, struct catalog *cat, struct error *err);
	/* once the transaction holding the job has committed, or failed: err is set when the
	 * job's rows are not stored. Called on the pool's thread; the job is the caller's. */
	void (*done)(struct catalog_job *job, const struct error *err);
	struct catalog_job *next; /* the pool's */
	struct error err;         /* the pool's */
};
/* Whether catalog_pool_submit takes jobs here: a local file whose writes are not stopped. */
int catalog_pool_groups_writes(struct catalog_pool *pool);
/* Hands a job to the pool's writing thread (started on first use). Returns 0, or -1 when
 * jobs are not grouped here (a database server, whose writers go side by side, or writes
 * stopped by catalog_pool_stop_writes): the caller then writes itself. */
int catalog_pool_submit(struct catalog_pool *pool, struct catalog_job *job);
/* Finishes the jobs handed over and stops taking new ones (the server's shutdown). */
void catalog_pool_stop_writes(struct catalog_pool *pool);

/* Who and what came with an upload. */
struct catalog_upload {
	const void *bytes; /* the raw upload; not owned */
	size_t length;
	const char *sha256;      /* hex digest of bytes */
	const char *filename;    /* may be NULL */
	const char *note;        /* may be NULL */
	const char *uploaded_by; /* may be NULL */
};

/* A write transaction around several catalog_put calls (BEGIN IMMEDIATE: writers queue for
 * the lock instead of failing with SQLITE_BUSY on upgrade). catalog_put outside one opens its
 * own. */
int catalog_begin(struct catalog *cat, struct error *err);
/* The same for a long run of uploads by one writer (animdexd import), faster: uploads in it
 * are not isolated from each other (after a failed catalog_put the writer must roll the whole
 * transaction back), catalog_put answers only {"id", "part", "status"} per entry, and on
 * PostgreSQL entries take ids reserved in blocks (an entry uploaded meanwhile through a daemon
 * may sort among them instead of after them). */
int catalog_begin_bulk(struct catalog *cat, struct error *err);
/* A read transaction around many reads (an export's): one snapshot, one start instead of
 * one a statement; takes no lock (a SQLite writer goes on; its checkpoint stops at the
 * snapshot until catalog_commit). */
int catalog_begin_read(struct catalog *cat, struct error *err);
int catalog_commit(struct catalog *cat, struct error *err);
void catalog_rollback(struct catalog *cat);
/* After many entries were made, outside a transaction: the database's statistics brought up
 * to date so that its plans are those of a catalogue of this size at once (PostgreSQL's
 * VACUUM (ANALYZE); SQLite's plans need none). 1 when done, 0 when the backend has nothing to
 * do, -1 with err set. */
int catalog_refresh_statistics(struct catalog *cat, struct error *err);

/* The entries already stored for these bytes: a JSON array of summaries, empty when new. */
json_t *catalog_find_by_sha256(struct catalog *cat, const char *sha256, struct error *err);

/* How many entries these bytes gave when stored: -1 when unknown (stored by an older animdex,
 * or not stored), -2 on failure. */
int64_t catalog_blob_entry_count(struct catalog *cat, const char *sha256, struct error *err);

/* What catalog_put did with the entries of one upload. */
struct catalog_put_counts {
	size_t created;  /* entries made now */
	size_t existing; /* entries of these bytes that were there already */
};

/* Stores the bytes and every decoded resource in one transaction, and returns the summaries
 * of every entry of these bytes, each with "status": "created" or "existing"; NULL with err
 * set (and nothing stored) on failure. When the bytes are already catalogued, only the
 * entries missing among them (parts deleted since) are created; when none is missing,
 * nothing is stored (counts->created is 0). */
json_t *catalog_put(struct catalog *cat, const struct catalog_upload *up,
                    const struct decode_result *decoded, struct catalog_put_counts *counts,
                    struct error *err);
/* Makes ahead, in decoded->texts, the JSON texts catalog_put stores for each entry, so that
 * a writer need not (any thread; no catalogue needed). -1 when out of memory. */
int catalog_render_texts(struct decode_result *decoded);

/* The orders of a list: by id (the default, newest first), or by one of the summary's fields
 * (ties by id); named as those fields are (catalog_sort_names). Names sort by their ASCII
 * letters' lower case, an entry without one first; text otherwise by its UTF-8 bytes; an
 * entry without a duration before every one with. */
enum catalog_sort {
	CATALOG_SORT_ID,
	CATALOG_SORT_CLASS,
	CATALOG_SORT_NAME,
	CATALOG_SORT_FAMILY,
	CATALOG_SORT_CRC32,
	CATALOG_SORT_TRACK_COUNT,
	CATALOG_SORT_DURATION,
	CATALOG_SORT_SIZE,
	CATALOG_SORT_UPLOADED_AT,
	CATALOG_SORTS
};
extern const char *const catalog_sort_names[CATALOG_SORTS];

struct catalog_query {
	const char *class_name;  /* exact class, or NULL */
	const char *family;      /* exact family, or NULL */
	const char *name;        /* exact name (case-insensitive), or NULL */
	const char *q;           /* substring of name, class, filename or note, or NULL */
	const char *filename;    /* exact file name, or NULL */
	const char *uploaded_by; /* exact uploader (a token's name), or NULL */
	int has_crc32;
	uint32_t crc32;
	enum catalog_sort sort;
	int ascending;      /* else descending */
	const char *cursor; /* a next_cursor of the same query and order, or NULL: the first page */
	unsigned limit;     /* rows per page, >= 1 */
};

/* {"resources": [...], "total": n, "total_exact": true|false, "next_cursor": "..."} (no cursor
 * on the last page); a cursor that is not one of this order's is an ERROR_BAD_PARAMETER naming
 * "cursor". Every page is read through an index, at any depth. The total is exact where it is
 * kept (no filter, or class and family alone) or cheap to count (up to CATALOG_TOTAL_EXACT
 * entries found by an index, CATALOG_SEARCH_EXACT candidates of a search); past that it is a
 * count of entries that match, fewer than all, and total_exact is false. */
#define CATALOG_TOTAL_EXACT  10000
#define CATALOG_SEARCH_EXACT 500
json_t *catalog_list(struct catalog *cat, const struct catalog_query *q, struct error *err);
/* The ids of every entry the query's filters select (its cursor and limit are ignored),
 * newest first; more than `max` is a 413 naming the limit. *ids is malloc'd. */
int catalog_select_matching(struct catalog *cat, const struct catalog_query *q, size_t max,
                            int64_t **ids, size_t *count, struct error *err);
/* An entry's name (malloc'd, NULL when it has none) into *name: 0, or -1 with err set
 * (ERROR_NOT_FOUND). Nothing else of it is read. */
int catalog_entry_name(struct catalog *cat, int64_t id, char **name, struct error *err);

/* What an entry's answers hold, read without reading them: its JSON text's bytes (structure,
 * notes, tracks' names and details), its tracks, its rig's nodes and its stored file's bytes.
 * 0, or -1 with err set (ERROR_NOT_FOUND). */
struct catalog_weight {
	int64_t text_bytes, tracks, rig_nodes, file_bytes;
};
int catalog_entry_weight(struct catalog *cat, int64_t id, struct catalog_weight *out,
                         struct error *err);
/* About the bytes catalog_get's JSON tree of such an entry holds while it is made. */
size_t catalog_weight_tree_bytes(const struct catalog_weight *w);

/* The whole entry: summary, structure, assumed notes, tracks, rig, and its versions (the other
 * entries of its handle and class: {"id", "name", "uploaded_by", "uploaded_at", "filename",
 * "decoder_version", "size", "track_count"}, newest first, at most 100). */
json_t *catalog_get(struct catalog *cat, int64_t id, struct error *err);
/* What pose, export, compare and native encoding read of an entry, as records read straight
 * from its rows (JSON is made only by the answers that are JSON). */

/* A track: what it moves and the shape of its keys (the keys themselves: catalog_read_track).
 * Its strings belong to the entry that lists it. */
struct catalog_target {
	unsigned n;                /* its number in the entry */
	const char *name;          /* its name, or NULL */
	const char *kind;          /* what it holds (model.h's track kinds: "node", "events"...) */
	int events;                /* its kind is "events": its keys are events, not values */
	struct pose_target target; /* what it moves: schema, object, name (or NULL), handle,
	                              property */
	const char *handle_name;   /* the handle's known name (POST /api/names), or NULL */
	enum value_type type;      /* its keys' shape, as stored */
	uint32_t array_size, key_count;
	enum interpolation interp;
};

struct catalog_text_chunk; /* where an entry's strings are held */

struct catalog_entry {
	int64_t id;
	const char *class_name, *family; /* never NULL */
	const char *name, *filename;     /* or NULL */
	uint32_t crc32;
	struct catalog_target *tracks; /* in order of n; none when read without them */
	size_t track_count;
	struct catalog_text_chunk *texts;
};

enum catalog_entry_part {
	CATALOG_ENTRY_SUMMARY, /* id, class, family, name, handle, filename */
	CATALOG_ENTRY_TRACKS,  /* and every track's target */
};
/* Reads entry id: 0, or -1 with err set (ERROR_NOT_FOUND); *out is to be cleaned up either
 * way. */
int catalog_entry_read(struct catalog *cat, int64_t id, enum catalog_entry_part part,
                       struct catalog_entry *out, struct error *err);
void catalog_entry_cleanup(struct catalog_entry *e);
/* Where an entry's uploaded bytes are, to be read a chunk at a time: stored under their
 * SHA-256, they never change (a delete may remove them meanwhile). */
struct catalog_raw {
	char sha256[65];
	int64_t size;
	char *filename; /* malloc'd, or NULL */
};
int catalog_raw_open(struct catalog *cat, int64_t id, struct catalog_raw *out, struct error *err);
/* Up to n bytes of those bytes from offset, each call a short read of its own (a slow reader
 * holds no transaction and no more than its chunk); the count, 0 past the end, or -1 with err
 * set (ERROR_NOT_FOUND when they were deleted meanwhile). */
long catalog_raw_read(struct catalog *cat, const char *sha256, int64_t offset, void *out, size_t n,
                      struct error *err);
/* Removes an entry, its tracks and references, and its bytes when no other entry uses them. */
int catalog_delete(struct catalog *cat, int64_t id, struct error *err);

/* The catalogue's events: every entry created (an upload, an import), deleted, or decoded
 * again, written in the transaction that did it, numbered in the order of commits. Only the
 * newest are kept: those whose id is within CATALOG_EVENTS_KEPT of the newest, and every
 * event younger than CATALOG_EVENTS_GRACE_MS, so that a transaction of thousands (an import's
 * batch) reaches the readers open at its commit whole. */
#define CATALOG_EVENTS_KEPT     1000
#define CATALOG_EVENTS_GRACE_MS 30000
/* One event, as the streams filter it, and the document they send of it. */
struct catalog_event {
	int64_t id;          /* its number, in the order of commits */
	char kind[16];       /* "created", "deleted" or "redecoded" */
	char class_name[48]; /* the entry's */
	char family[16];
	uint32_t crc32;
	/* {"event": id, "kind", "at", "id" (the entry's), "class", "family", "crc32",
	 * "decoder_version" (the entry's when the event happened), "entry": the entry's summary
	 * as the list gives it, or null when it is deleted (or is gone since)}; owned */
	json_t *document;
};
/* The events after id `after`, oldest first, at most `limit`: *events malloc'd, to be freed
 * with catalog_events_free. 0, or -1 with err set. */
int catalog_events_after(struct catalog *cat, int64_t after, unsigned limit,
                         struct catalog_event **events, size_t *count, struct error *err);
void catalog_events_free(struct catalog_event *events, size_t count);
/* The newest event's id (0 when there is none), or -1 with err set; *oldest (when given) the
 * oldest kept (0 when none). */
int64_t catalog_events_newest(struct catalog *cat, int64_t *oldest, struct error *err);

/* One track ready to sample: its sampler owns copies of the keys. */
struct catalog_track {
	int64_t resource_id;
	unsigned n;
	int borrowed; /* the arrays belong to the connection's cache: valid until its next load */
	char *name;
	int events; /* the keys are events (model.h, enum event_word) */
	struct sampler sampler;
};
/* Loads a track from the connection's cache of recent tracks, or from the database. The
 * result is borrowed from the cache (valid until the next load on this connection). */
int catalog_load_track(struct catalog *cat, int64_t id, unsigned n, struct catalog_track *out,
                       struct error *err);
/* The same read from the database, past the cache: the result is the caller's own. */
int catalog_read_track(struct catalog *cat, int64_t id, unsigned n, struct catalog_track *out,
                       struct error *err);
void catalog_track_cleanup(struct catalog_track *track);

/* An entry's rig as it was stored (rig.h), each handle's known name in handle_name; an entry
 * without one gives an empty rig. */
int catalog_read_rig(struct catalog *cat, int64_t id, struct rig *rig, struct error *err);
/* The rig of entry id named by a skeleton= parameter: an entry that does not exist, or has no
 * rig, is an ERROR_BAD_PARAMETER naming "skeleton". */
int catalog_read_skeleton(struct catalog *cat, int64_t id, struct rig *rig, struct error *err);
/* The same for another parameter's name ("from", "to"). */
int catalog_read_rig_of(struct catalog *cat, int64_t id, const char *parameter, struct rig *rig,
                        struct error *err);
/* How many nodes an entry's rig has (without reading them), or -1 with err set. */
int64_t catalog_rig_size(struct catalog *cat, int64_t id, struct error *err);

/* A node to look rigs up by: a handle (a Zouna bone), a name, or an unnamed node's source
 * index. */
struct catalog_rig_key {
	enum { RIG_KEY_HANDLE, RIG_KEY_NAME, RIG_KEY_SOURCE } kind;
	uint32_t handle;
	const char *name;
	uint32_t source;
};
/* The ids of the entries whose rig has such a node (*ids malloc'd, in no order; an entry with
 * several such nodes comes once for each). */
int catalog_rigs_with(struct catalog *cat, const struct catalog_rig_key *key, int64_t **ids,
                      size_t *count, struct error *err);

/* Everything known about a handle: entries, references, names. */
json_t *catalog_handle(struct catalog *cat, uint32_t crc32, struct error *err);
/* [{"class", "family", "count"}] */
json_t *catalog_classes(struct catalog *cat, struct error *err);
/* {"resources": n, "tracks": n, "blobs": n, "bytes": n, "schema_version": n} */
json_t *catalog_stats(struct catalog *cat, struct error *err);

/* Stores names (one per line of text; blank lines and lines starting with # are skipped)
 * with both of their hashes. Returns {"added": n, "known": n, "names": [...]}. */
json_t *catalog_add_names(struct catalog *cat, const char *text, size_t length, struct error *err);

/* The name known for a handle (by Asobo32 when `asobo32`, else by CRC-32) into out; 0 when
 * found, -1 when not. */
int catalog_handle_name(struct catalog *cat, uint32_t handle, int asobo32, char *out, size_t size);

/* Write tokens: only their SHA-256 is stored. */
enum token_check {
	TOKEN_NONE_EXIST, /* no token was ever made: the catalogue is open */
	TOKEN_MISSING,    /* tokens exist, and none was given */
	TOKEN_VALID,      /* the token matches a valid one; its name is in `name` */
	TOKEN_REVOKED,    /* it matches a revoked one */
	TOKEN_WRONG,      /* it matches none */
	TOKEN_UNKNOWN,    /* the database did not answer: refuse, with 503 */
};
int catalog_token_add(struct catalog *cat, const char *name, const char *token_sha256,
                      struct error *err);
int catalog_token_revoke(struct catalog *cat, const char *name, struct error *err);
/* The tokens, by name (never their hashes): *rows malloc'd, to be freed with
 * catalog_token_rows_free. 0, or -1 with err set. */
struct catalog_token_row {
	char *name;
	int64_t created_at; /* milliseconds since 1970 */
	int revoked;        /* and when: */
	int64_t revoked_at;
};
int catalog_token_list(struct catalog *cat, struct catalog_token_row **rows, size_t *count,
                       struct error *err);
void catalog_token_rows_free(struct catalog_token_row *rows, size_t count);
/* How many valid (not revoked) tokens there are, or -1. */
int catalog_token_count(struct catalog *cat);
/* Compares the given token's hash with every stored one in constant time. */
enum token_check catalog_token_check(struct catalog *cat, const char *token, char *name,
                                     size_t name_size);

/* Redecoding stored bytes with today's decoders (animdexd redecode). */

/* How many entries an older version of their family's decoder made, or -1. */
int64_t catalog_outdated(struct catalog *cat, struct error *err);

/* The ids of the entries of a family and class (NULL: any) or the one id (0: any), in
 * ascending order; *ids is malloc'd. */
int catalog_select_ids(struct catalog *cat, const char *family, const char *class_name, int64_t id,
                       int64_t **ids, size_t *count, struct error *err);

/* An entry's stored bytes and what its first decoding recorded. */
struct catalog_stored {
	int64_t id;
	unsigned part; /* which of its upload's entries it is */
	char family[16];
	char class_name[48];
	unsigned decoder_version;
	char crc32_source[32]; /* "" when the decoder gave it no handle of its own */
	json_t *structure;     /* the stored structure (metadata: byte order, layout...); owned */
	/* how its first decoding read the upload, as its structure's metadata recorded it, to read
	 * it again the same way */
	char byte_order[16]; /* Zouna: the byte order read or given ("" when not recorded) */
	int layout_given;    /* Burnout: the layout was given by layout= ... */
	int layout;          /* ... and is this one */
	int from_bundle;     /* Burnout: it came out of a bundle */
	char *filename;      /* malloc'd, or NULL */
	uint8_t *bytes;      /* the stored upload, malloc'd */
	size_t length;
};
int catalog_get_stored(struct catalog *cat, int64_t id, struct catalog_stored *out,
                       struct error *err);
void catalog_stored_cleanup(struct catalog_stored *stored);
/* The upload an entry's first decoding came from, as far as the catalogue recorded it (its
 * family, the class where the class chose the decoder, the byte order or layout its structure
 * shows, its file name): up points into st; `layout` holds layout= text. */
void catalog_stored_upload(const struct catalog_stored *st, struct upload *up, char *layout,
                           size_t layout_size);
/* Decodes an entry's stored bytes again as its first upload was: the resource at the entry's
 * part, owned by *result (cleaned up by the caller either way); NULL with err set when today's
 * decoder refuses them or reads another class there. */
struct resource *catalog_stored_decode(const struct catalog_stored *st,
                                       struct decode_result *result, struct error *err);

/* What replacing an entry's decoding changed. */
struct catalog_changes {
	int changed;             /* anything at all */
	unsigned tracks_added;   /* tracks the new decoding has beyond the old count */
	unsigned tracks_removed; /* tracks it no longer has */
	unsigned tracks_changed; /* tracks with the same index whose keys or details differ */
	int structure;           /* the decoded structure or the assumed notes differ */
	int references;          /* the handles the entry refers to differ */
	int rig;                 /* the rig differs (or there was none and is one now) */
	int handle;              /* an entry without a handle of its own got one */
};
/* Replaces an entry's structure, tracks and references with `res` in one transaction,
 * keeping its id, name, handle, note, uploaded_at and uploaded_by. */
int catalog_replace_decoded(struct catalog *cat, int64_t id, const struct resource *res,
                            struct catalog_changes *changes, struct error *err);

/* animdexd copy: every entry with its bytes, tracks and references, every name and token
 * hash, from one catalogue to another, keeping ids, uploaded_at and uploaded_by. */
enum copy_mode {
	COPY_INTO_EMPTY, /* refuse a target that holds any entry, name or token */
	COPY_APPEND,     /* add to it: entries whose bytes and part are there already are
	                    skipped, an id taken there gets a new one, names and tokens
	                    already there stay as they are */
};
struct copy_report {
	int64_t entries, entries_skipped, entries_renumbered;
	int64_t blobs, blobs_skipped; /* copied; there already (--append) */
	int64_t tracks, refs, rig_nodes;
	int64_t names, names_skipped;
	int64_t tokens, tokens_skipped;
	int64_t bytes_verified; /* blobs whose SHA-256 was checked in the target */
};
/* progress(done, total, arg) is called now and then (may be NULL). */
int catalog_copy(struct catalog *from, struct catalog *to, enum copy_mode mode,
                 void (*progress)(int64_t done, int64_t total, void *arg), void *arg,
                 struct copy_report *report, struct error *err);

/* Row counts of each table ("blobs", "resources", "tracks", "refs", "names", "tokens"), for
 * tests that check a failed upload changed nothing. */
int catalog_count(struct catalog *cat, const char *table, int64_t *out, struct error *err);

#endif
