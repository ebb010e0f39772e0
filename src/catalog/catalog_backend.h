/* catalog_backend.h: what catalog.c asks of a database, and the two that answer it.
 *
 * catalog.c holds everything that does not depend on the database (JSON shaping, the
 * deduplication rules, token checks, the track cache, copying); each backend holds its SQL,
 * its connections, its migrations and its error mapping: catalog_sqlite.c for a file,
 * catalog_postgres.c for a PostgreSQL server. Only catalog*.c include this header.
 *
 * Statements are named by `enum statement`; their SQL is written once in catalog_sql.c, and a
 * backend gives its own text only where its dialect must differ, with the same parameters
 * (1-based) and the same result columns in the same order, so that catalog.c reads a row the
 * same way from either. A value bound to a statement must stay valid until
 * the statement is stepped for the first time.
 */
#ifndef ANIMDEX_CATALOG_BACKEND_H
#define ANIMDEX_CATALOG_BACKEND_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "catalog/catalog.h"

/* The uploaded bytes are stored in chunks of this size, a row each (schema/009_blob_chunks.sql):
 * a download's block is one chunk, found by its key, at the same cost anywhere in the upload. */
#define CATALOG_BLOB_CHUNK 131072

enum statement {
	ST_BEGIN,      /* a write transaction: writers queue for it */
	ST_BEGIN_READ, /* a read transaction: one snapshot for many reads, no lock */
	ST_COMMIT,
	ST_ROLLBACK,
	ST_LOCK_UPLOAD, /* ?1 sha256: serialises the storing of the same bytes across daemons */
	ST_SAVEPOINT,   /* an upload inside a longer transaction (import) */
	ST_RELEASE,
	ST_ROLLBACK_TO, /* undoes that upload alone */
	ST_RESERVE_IDS, /* ids for the entries of a bulk transaction (PostgreSQL only) */
	ST_FIND_BY_SHA256,
	ST_INSERT_BLOB,
	ST_INSERT_BLOB_CHUNK, /* ?1 sha256, ?2 n, ?3 bytes */
	ST_GET_BLOB_CHUNKS,   /* ?1 sha256: every chunk's bytes, in order */
	ST_INSERT_RESOURCE,   /* RETURNING id */
	ST_INSERT_TRACK,
	ST_INSERT_REF,
	ST_GET_RESOURCE,
	ST_GET_ENTRY_NAMES, /* id, class, family, name, crc32, filename: what an export names */
	ST_GET_TRACKS,
	ST_GET_TRACK_TARGETS, /* n, name, target_schema, target_object, target_name, property, kind,
	                       * handle, its known name, key_count, value_type, array_size,
	                       * interpolation */
	ST_GET_RAW,           /* ?1 id: the blob's sha256, its size, the entry's file name */
	ST_READ_BLOB,         /* ?1 sha256, ?2 n: chunk n of the bytes (schema/009) */
	ST_GET_BLOB_OF,       /* ?1 id: its bytes' sha256, class, family, crc32, decoder_version */
	ST_DELETE_RESOURCE,
	ST_DELETE_UNUSED_CHUNKS, /* ?1 sha256: the chunks of bytes no entry has any more */
	ST_DELETE_UNUSED_BLOB,
	ST_LOAD_TRACK,
	ST_HANDLE_RESOURCES,
	ST_HANDLE_REFS,
	ST_HANDLE_NAMES,
	ST_CLASSES,
	ST_COUNT_KEPT, /* ?1 class or NULL, ?2 family or NULL: the entries counted, kept by triggers
	                */
	ST_STATS,
	ST_ADD_NAME, /* RETURNING a row when the name is new */
	ST_NAME_BY_ASOBO32,
	ST_NAME_BY_CRC32,
	ST_TOKEN_ADD,    /* fails with ERROR_CONFLICT when the name exists */
	ST_TOKEN_REVOKE, /* RETURNING a row when a token was revoked */
	ST_TOKEN_LIST,
	ST_TOKEN_ALL,
	ST_OUTDATED,
	ST_GET_STORED,
	ST_TRACK_DIGESTS,
	ST_REF_DIGESTS,
	ST_DELETE_TRACKS,
	ST_DELETE_REFS,
	ST_UPDATE_DECODED,
	ST_BLOB_ENTRY_COUNT,
	ST_SET_BLOB_ENTRY_COUNT,
	ST_SELECT_IDS,
	ST_GENERATION,      /* the catalogue's generation: bumped by every delete or redecode */
	ST_BUMP_GENERATION, /* in the transaction that deletes or redecodes */
	ST_COUNT_ROWS,      /* blobs, resources, tracks, refs, names, tokens */
	/* animdexd copy: whole rows, every column, in the order of schema/001 */
	ST_COPY_BLOB_LIST, /* sha256 of every blob */
	ST_COPY_BLOB_GET,  /* ?1 sha256 */
	ST_COPY_BLOB_PUT, /* nothing when the sha256 is there already; RETURNING a row when added */
	ST_COPY_BLOB_CHECK, /* ?1 sha256: its size, to verify (the bytes: ST_GET_BLOB_CHUNKS) */
	ST_COPY_RESOURCE_GET,
	ST_COPY_RESOURCE_PUT,     /* with its id */
	ST_COPY_RESOURCE_PUT_NEW, /* without: RETURNING the new id */
	ST_COPY_RESOURCE_ID_FREE, /* ?1 id: a row when no entry has it */
	ST_COPY_RESOURCE_OF_PART, /* ?1 sha256, ?2 part: the id of that entry, if any */
	ST_COPY_TRACKS_GET,
	ST_COPY_TRACK_PUT,
	ST_COPY_REFS_GET,
	ST_COPY_REF_PUT,
	ST_COPY_NAMES_GET,
	ST_COPY_NAME_PUT, /* nothing when the name is there; RETURNING a row when added */
	ST_COPY_TOKENS_GET,
	ST_COPY_TOKEN_PUT, /* nothing when the name is there; RETURNING a row when added */
	ST_COPY_FINISH,    /* after copying in: ids continue after the largest */
	ST_INSERT_RIG_NODE,
	ST_GET_RIG,    /* ?1 id: its rig's nodes in order, with their handles' known names */
	ST_DELETE_RIG, /* ?1 id */
	ST_COPY_RIG_GET,
	ST_COPY_RIG_PUT,
	ST_RIGS_BY_HANDLE, /* ?1 handle: the entries with a rig node of that handle */
	ST_RIGS_BY_NAME,   /* ?1 name */
	ST_RIGS_BY_SOURCE, /* ?1 source index: the entries with an unnamed rig node of it */
	ST_RIG_SIZE,       /* ?1 id: how many nodes its rig has */
	ST_ENTRY_WEIGHT,   /* ?1 id: its text's bytes, tracks, rig nodes (what its answer holds) */
	ST_VERSIONS,       /* ?1 handle, ?2 class, ?3 id: the other entries of that handle and
	                    * class, newest first */
	ST_LOCK_EVENTS,    /* held to the commit: event ids follow the order of commits */
	ST_INSERT_EVENT,   /* at, kind, resource_id, class, family, crc32, decoder_version */
	ST_TRIM_EVENTS,    /* ?1: how many of the newest event ids to keep, ?2: and those at or
	                    * after this time (ms) */
	ST_EVENTS_AFTER,   /* ?1 id, ?2 limit: SUMMARY_COLUMNS of the entry (NULLs when gone),
	                    * then the event's id, at, kind, resource_id, class, family, crc32,
	                    * decoder_version */
	ST_EVENTS_NEWEST,  /* the newest and the oldest event's id, 0 when none */
	/* SQLite's alone: the entries noted since the last commit put in the search index, and
	 * the notes cleared (schema/012_search_index_by_transaction.sql) */
	ST_TEXT_INDEX_PENDING,
	ST_TEXT_CLEAR_PENDING,
	ST_COUNT
};

/* The list query's filters, one bit each; one prepared statement per combination. */
enum list_filter {
	FILTER_CLASS = 1,      /* ?1 */
	FILTER_FAMILY = 2,     /* ?2 */
	FILTER_NAME = 4,       /* ?3, case-insensitive (ASCII letters), exact */
	FILTER_Q = 8,          /* ?4, a LIKE pattern with \ escapes, case-insensitive (ASCII) */
	FILTER_CRC32 = 16,     /* ?5 */
	FILTER_CURSOR = 32,    /* ?6: the last row's id, ?8 its order's key (the rows after it) */
	FILTER_FILENAME = 64,  /* ?10, exact */
	FILTER_UPLOADER = 128, /* ?11, exact */
	/* with FILTER_Q: the rows are found through the search index, by ?9 (db_ops.search_key);
	 * in id order they come in the index's order, in another they are sorted */
	FILTER_TEXT_INDEX = 256,
	/* in an order other than id: class and family are not looked up by their index, but
	 * checked along the order's (they select so many entries that a page comes sooner) */
	FILTER_WALK_ORDER = 512,
	FILTER_COMBINATIONS = 1024
	/* ?7: the row limit; ?12 a count's limit */
};
/* The shortest q the search index finds: its trigrams. A shorter one is looked for along the
 * list's order, row by row. */
#define CATALOG_SEARCH_MIN 3

/* A list statement for each filter combination, order and direction. */
#define LIST_VARIANTS (FILTER_COMBINATIONS * CATALOG_SORTS * 2)
#define LIST_VARIANT(filters, sort, ascending) \
	((unsigned)(filters) +                 \
	 FILTER_COMBINATIONS * (2 * (unsigned)(sort) + ((ascending) ? 1u : 0u)))

/* An order's key in SQL, both dialects' (PostgreSQL compares text under COLLATE "C", which
 * orders UTF-8 as SQLite's BINARY does), and the type of its value in a cursor. */
enum sort_value { SORT_INT, SORT_REAL, SORT_TEXT };
struct sort_sql {
	const char *sqlite, *postgres;
	enum sort_value type;
	const char *postgres_type; /* of ?8 */
};
extern const struct sort_sql catalog_sort_sql[CATALOG_SORTS];

/* Columns of ST_GET_RESOURCE, ST_FIND_BY_SHA256, ST_HANDLE_RESOURCES and the list query:
 * id, class, family, name, crc32, crc32_source, filename, note, uploaded_by, uploaded_at,
 * duration, track_count, sha256, size, part, crc32_name (the first of the handle's names in
 * order: min(), which opens no sorter a row as ORDER BY ... LIMIT 1 did, names.name being a
 * key and never NULL); ST_GET_RESOURCE adds structure,
 * assumed. The SQL both backends select them with (and the columns of a copied resource and
 * track, in order): */
#define SUMMARY_COLUMNS                                                                        \
	"r.id, r.class, r.family, r.name, r.crc32, r.crc32_source, r.filename, r.note, "       \
	"r.uploaded_by, r.uploaded_at, r.duration, r.track_count, r.blob_sha256, b.size, "     \
	"r.part, CASE r.family WHEN 'zouna' THEN (SELECT min(n.name) FROM names n WHERE "      \
	"n.asobo32 = r.crc32) ELSE (SELECT min(n.name) FROM names n WHERE n.crc32 = r.crc32) " \
	"END "
#define SUMMARY_FROM " FROM resources r JOIN blobs b ON b.sha256 = r.blob_sha256 "
#define RESOURCE_COLUMNS                                                                \
	"blob_sha256, part, family, class, name, crc32, crc32_source, filename, note, " \
	"uploaded_by, uploaded_at, duration, track_count, structure, assumed, decoder_version"
#define RIG_COLUMNS "resource_id, i, source, name, handle, parent, rest, inverse_bind"
#define TRACK_COLUMNS                                                                             \
	"resource_id, n, name, target_schema, target_object, target_name, property, "             \
	"first_element, value_type, array_size, interpolation, semantic, key_count, time_first, " \
	"time_last, times, key_values, kind, info, handle, rules"

enum db_type { DB_NULL, DB_INTEGER, DB_REAL, DB_TEXT, DB_BLOB };

struct db_ops;
struct db {
	const struct db_ops *ops;
};
struct db_stmt {
	const struct db_ops *ops;
};

struct db_ops {
	const char *name; /* "sqlite" or "postgresql" */
	int remote;       /* every answer waited for costs a round trip to a server */
	/* the search index gives its candidates in id order, a page at a time (SQLite's FTS5);
	 * else it finds all of them before the first (a GIN index's bitmap) */
	int search_in_id_order;
	void (*close)(struct db *db);
	/* The statement, reset and without bindings; NULL with err set. */
	struct db_stmt *(*prepare)(struct db *db, enum statement st, struct error *err);
	/* The list of these filters in this order (FILTER_CURSOR: the rows after ?6 and ?8): the
	 * SUMMARY_COLUMNS, then the order's key; ?7 rows at most. */
	struct db_stmt *(*prepare_list)(struct db *db, unsigned filters, enum catalog_sort sort,
	                                int ascending, struct error *err);
	/* How many entries the filters select, counting ?12 rows at most (FILTER_CURSOR is
	 * ignored), as two columns. Without FILTER_TEXT_INDEX both are that count; with it, the
	 * first is how many of the search index's candidates were read (at most ?12) and the
	 * second how many of those the filters select (FILTER_TEXT_INDEX alone: both are the
	 * candidates, none read). */
	struct db_stmt *(*prepare_count)(struct db *db, unsigned filters, struct error *err);
	/* What the search index is asked (?9) for the substring q (whose LIKE pattern, ?4, is
	 * `pattern`), malloc'd (NULL when out of memory); only for a q of at least
	 * CATALOG_SEARCH_MIN characters. */
	char *(*search_key)(const char *q, const char *pattern);
	void (*bind_int64)(struct db_stmt *s, int i, int64_t v);
	void (*bind_double)(struct db_stmt *s, int i, double v);
	void (*bind_text)(struct db_stmt *s, int i, const char *text, size_t length);
	void (*bind_blob)(struct db_stmt *s, int i, const void *data, size_t length);
	void (*bind_null)(struct db_stmt *s, int i);
	/* 1 with a row ready, 0 when done, -1 with err set ("catalogue: WHAT: why"). */
	int (*step)(struct db_stmt *s, const char *what, struct error *err);
	int (*column_count)(struct db_stmt *s);
	enum db_type (*column_type)(struct db_stmt *s, int c);
	int64_t (*column_int64)(struct db_stmt *s, int c);
	double (*column_double)(struct db_stmt *s, int c);
	const char *(*column_text)(struct db_stmt *s, int c); /* NULL for NULL */
	const void *(*column_blob)(struct db_stmt *s, int c, size_t *length);
	void (*reset)(struct db_stmt *s);
	int (*in_transaction)(struct db *db);
	/* A long transaction of many uploads begins (on) or ends (off): the backend may trade
	 * strict id order against concurrent writers for speed. */
	void (*bulk)(struct db *db, int on);
	int (*schema_version)(struct db *db);
	/* {"backend": ..., and what the backend can say of itself} */
	json_t *(*describe)(struct db *db);
	/* This connection is a process's busy writer: the backend may move work its commits
	 * would do after them (SQLite: checkpoints) to a thread of its own. NULL: nothing to. */
	void (*busy_writer)(struct db *db);
	/* 0 when a write transaction may begin; -1 with err set when it may not (opened for
	 * reading only: ERROR_READ_ONLY; a file no longer at its path: ERROR_UNAVAILABLE). */
	int (*writable)(struct db *db, struct error *err);
	/* After a bulk import, outside a transaction: the planner's statistics and what the
	 * database knows of which pages are all visible brought up to date (PostgreSQL: VACUUM
	 * (ANALYZE), without which its plans guess, and an index-only scan reads the table too).
	 * NULL: nothing to do. */
	int (*refresh_statistics)(struct db *db, struct error *err);
	/* n bytes of a row's blob column into out, read straight from the database's pages (no
	 * copy of the whole value held by the database): 0, or -1 with err set. NULL: the column
	 * is read with its statement. Used for ST_LOAD_TRACK, whose dialect then gives the arrays'
	 * lengths in their columns and the row's id after them. */
	int (*read_blob_into)(struct db *db, const char *table, const char *column, int64_t row,
	                      void *out, size_t n, struct error *err);
};

/* A statement's SQL: the backend's own text in `dialect` where it has one, else the text
 * both backends share (catalog_sql.c); NULL for a statement neither has. */
const char *catalog_sql(const char *const dialect[ST_COUNT], enum statement st);

/* The connection under a catalogue (for catalog_copy.c). */
struct catalog;
struct db *catalog_db(struct catalog *cat);

/* Opens and migrates; or, read_only, opens for reading without creating or migrating (the
 * schema must then be this animdexd's). `target` is a path for SQLite; a connection string
 * for PostgreSQL. */
struct db *db_sqlite_open(const char *path, int read_only, struct error *err);
struct db *db_postgres_open(const char *conninfo, int read_only, struct error *err);
/* Is this --db a PostgreSQL connection string rather than a file? */
int db_is_postgres(const char *target);
/* How long a PostgreSQL answer is waited for (the daemon's --timeout; default 30 s). */
void db_postgres_set_timeout(unsigned seconds);
/* The connection string without its password, for messages. */
void db_postgres_redact(const char *conninfo, char *out, size_t size);

/* Short forms. */
static inline struct db_stmt *db_prepare(struct db *db, enum statement st, struct error *err)
{
	return db->ops->prepare(db, st, err);
}
static inline void db_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	s->ops->bind_int64(s, i, v);
}
static inline void db_bind_double(struct db_stmt *s, int i, double v)
{
	s->ops->bind_double(s, i, v);
}
static inline void db_bind_text(struct db_stmt *s, int i, const char *text)
{
	if (text)
		s->ops->bind_text(s, i, text, strlen(text));
	else
		s->ops->bind_null(s, i);
}
static inline void db_bind_text_n(struct db_stmt *s, int i, const char *text, size_t length)
{
	s->ops->bind_text(s, i, text, length);
}
static inline void db_bind_blob(struct db_stmt *s, int i, const void *data, size_t length)
{
	s->ops->bind_blob(s, i, data, length);
}
static inline void db_bind_null(struct db_stmt *s, int i)
{
	s->ops->bind_null(s, i);
}
static inline int db_step(struct db_stmt *s, const char *what, struct error *err)
{
	return s->ops->step(s, what, err);
}
static inline enum db_type db_column_type(struct db_stmt *s, int c)
{
	return s->ops->column_type(s, c);
}
static inline int db_column_is_null(struct db_stmt *s, int c)
{
	return s->ops->column_type(s, c) == DB_NULL;
}
static inline int64_t db_column_int64(struct db_stmt *s, int c)
{
	return s->ops->column_int64(s, c);
}
static inline double db_column_double(struct db_stmt *s, int c)
{
	return s->ops->column_double(s, c);
}
static inline const char *db_column_text(struct db_stmt *s, int c)
{
	return s->ops->column_text(s, c);
}
static inline const void *db_column_blob(struct db_stmt *s, int c, size_t *length)
{
	return s->ops->column_blob(s, c, length);
}
static inline void db_reset(struct db_stmt *s)
{
	s->ops->reset(s);
}

/* Runs migration m a step at a time through run (0, or -1 when it failed), each step told on
 * stderr when `tell` (an existing catalogue being upgraded): catalog_migrate.c. */
struct schema_migration;
int catalog_migrate_steps(const struct schema_migration *m, int tell,
                          int (*run)(void *ctx, const char *sql), void *ctx);

#endif
