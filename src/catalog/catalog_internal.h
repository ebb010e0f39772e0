/* catalog_internal.h: what the catalogue's files share and nobody else sees (as SQLite's
 * sqliteInt.h is to its delete.c, insert.c, select.c ...).
 *
 * The catalogue is one public interface (catalog.h) written in one file per job:
 *   catalog.c          opening and closing, transactions, the helpers below
 *   catalog_pool.c     the connection pool and the thread that commits uploads in groups
 *   catalog_store.c    storing an upload (deduplicated) and deleting an entry
 *   catalog_query.c    listing, search, one entry, raw bytes, handles, classes, counts
 *   catalog_tracks.c   reading a track, and the per-connection cache of recent tracks
 *   catalog_rig.c      an entry's rig: storing and reading its nodes
 *   catalog_names.c    the handle names users add
 *   catalog_tokens.c   upload tokens
 *   catalog_redecode.c entries made again by a newer decoder
 *   catalog_copy.c     copying a whole catalogue to another
 *   catalog_events.c   what each transaction created, deleted or redecoded, in commit order
 *   catalog_files.c    which files on disk belong to a catalogue
 *   catalog_migrate.c  a schema migration, step by step, told on the terminal
 *   catalog_sql.c      the SQL both databases run; catalog_sqlite.c and catalog_postgres.c
 *                      answer catalog_backend.h with it
 */
#ifndef ANIMDEX_CATALOG_INTERNAL_H
#define ANIMDEX_CATALOG_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "catalog_backend.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tracks store native little-endian arrays; a big-endian host needs byte swapping here"
#endif

/* A few recently sampled tracks per connection: entries never change once stored, so a cached
 * track stays right until a delete or a redecode, which bumps the generation and empties every
 * cache: at once in this process, and within GENERATION_CHECK_MS in any other process sharing
 * the database (each process reads the stored generation that often while it samples). */
#define TRACK_CACHE_SIZE 16

struct cached_track {
	struct catalog_track track; /* owns its arrays; track.name "" when the slot is empty */
	uint64_t used;              /* for least-recently-used eviction */
};

struct catalog {
	struct db *db;                               /* the connection */
	struct cached_track cache[TRACK_CACHE_SIZE]; /* recent tracks */
	uint64_t cache_generation;                   /* catalog_generation when last filled */
	uint64_t cache_clock;
	int bulk;             /* in catalog_begin_bulk's transaction */
	struct catalog *next; /* in its pool's list */
	/* the events of the transaction under way, written just before its commit */
	struct event_note *notes;
	size_t note_count, note_capacity;
	size_t marks[8];   /* note_count at each open savepoint, innermost last */
	size_t mark_count; /* open savepoints (the marks of those past 8 are not kept) */
};

/* Opens a connection, for reading only or not (catalog_open, catalog_open_read_only). */
struct catalog *catalog_open_as(const char *target, int read_only, struct error *err);

/* Runs a statement that returns no rows (or whose rows do not matter): 0, or -1 with err set. */
int catalog_exec(struct catalog *cat, enum statement st, const char *what, struct error *err);
/* Steps a statement whose ?1 is a resource id: 0 with a row ready, -1 (reset, err set to
 * not_found or the database's failure) otherwise. */
int catalog_step_resource(struct db_stmt *s, int64_t id, const char *what, struct error *err);
/* Milliseconds since 1970 (the clock stored in uploaded_at, created_at ...). */
int64_t catalog_now_ms(void);

/* Columns as JSON: a string or null; an integer or null. */
json_t *catalog_json_text(struct db_stmt *s, int c);
json_t *catalog_json_int(struct db_stmt *s, int c);
/* Stores `length` bytes as the chunks of blob sha256: 0, or -1 with err set. */
int catalog_put_chunks(struct db *db, const char *sha256, const void *bytes, size_t length,
                       struct error *err);
/* The whole of blob sha256, from its chunks, malloc'd (never NULL when it succeeds, even when
 * empty), checked to be `size` bytes: NULL with err set. */
uint8_t *catalog_read_chunks(struct db *db, const char *sha256, int64_t size, struct error *err);

/* A malloc'd copy of a blob column (never NULL when it succeeds, even when empty). */
void *catalog_blob_copy(struct db_stmt *s, int c, size_t *length);
/* Steps s to its end, the first column of each row into *ids (malloc'd); then resets it. 0, or
 * -1 with err set (nothing kept). */
int catalog_collect_ids(struct db_stmt *s, const char *what, int64_t **ids, size_t *count,
                        struct error *err);
/* Steps s to its end, row(s) of each row into a JSON array; then resets it. NULL with err set
 * (nothing kept). */
json_t *catalog_collect_json(struct db_stmt *s, json_t *(*row)(struct db_stmt *s), const char *what,
                             struct error *err);
/* A strdup of a text column; NULL for NULL, and *failed set when out of memory. */
char *catalog_text_copy(struct db_stmt *s, int c, int *failed);

/* The rows of a decoded resource, written inside the caller's transaction (catalog_store.c;
 * a redecode writes them too). A track's info_text is its info as JSON made ahead, or NULL to
 * make it here. */
int catalog_insert_track(struct catalog *cat, int64_t id, const struct resource *res, unsigned n,
                         const char *info_text, struct error *err);
int catalog_insert_refs(struct catalog *cat, int64_t id, const struct resource *res,
                        struct error *err);
int catalog_insert_rig(struct catalog *cat, int64_t id, const struct rig *rig, struct error *err);
int catalog_delete_rig(struct catalog *cat, int64_t id, struct error *err);
/* A resource's structure and assumptions as JSON text, as they are stored; -1 when out of
 * memory. */
int catalog_stored_texts(const struct resource *res, char **structure_text, char **assumed_text);

/* Notes an event of the transaction under way (kind: "created", "deleted", "redecoded"; a
 * static string); it is written with the transaction, or forgotten with it. */
int catalog_event_note(struct catalog *cat, const char *kind, int64_t id, const char *class_name,
                       const char *family, uint32_t crc32, unsigned decoder_version,
                       struct error *err);
/* Writes the noted events, under the events' lock (catalog_exec calls it before COMMIT). */
int catalog_events_flush(struct catalog *cat, struct error *err);
/* The notes follow a transaction statement (BEGIN, SAVEPOINT, RELEASE, ROLLBACK...) that
 * catalog_exec has just run. */
void catalog_events_follow(struct catalog *cat, enum statement st);
/* Forgets every note (a rollback, a closed connection). */
void catalog_events_forget(struct catalog *cat);
/* An entry's summary from the SUMMARY_COLUMNS at the start of the current row. */
json_t *catalog_row_summary(struct db_stmt *s);

/* Bumps the stored generation, inside the transaction that deletes or redecodes. */
int catalog_bump_generation(struct catalog *cat, struct error *err);
/* After such a commit: every connection's track cache in this process drops what it holds. */
void catalog_cache_invalidate(void);
/* Empties one connection's track cache (when it closes). */
void catalog_cache_clear(struct catalog *cat);

#endif
