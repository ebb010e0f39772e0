/* catalog_sqlite.c: the catalogue in a SQLite file: its connections,
 * migrations and errors. catalog.c holds what does not depend on the database.
 *
 * WAL, synchronous=FULL: every commit syncs the log before it returns, so what was answered
 * 201 is on disk and survives a power cut (a group commit pays one sync for all its uploads),
 * foreign keys, a short-stepped busy handler. Statements
 * are prepared once per connection. u64 fields are stored as decimal text, since SQLite
 * integers are signed 64-bit; CRC32 handles fit a SQLite integer as they are.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/buf.h"
#include "catalog_backend.h"
#include "catalog/schema.h"
#include "catalog/sqlite_wal.h"

/* SQLite's own text for what catalog_sql.c's shared statements cannot say the same way. */
static const char *const sqlite_sql[ST_COUNT] = {
    /* IMMEDIATE: a writer takes the write lock at BEGIN, so that writers queue in the busy
     * handler rather than fail at their first write */
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_BEGIN_READ] = "BEGIN DEFERRED",
    [ST_LOCK_UPLOAD] = "SELECT ?1",           /* BEGIN IMMEDIATE already serialises every writer */
    [ST_LOCK_EVENTS] = "SELECT 1",            /* and commits come one at a time */
    [ST_RESERVE_IDS] = "SELECT NULL WHERE 0", /* ids come from the inserts themselves */
    /* a track's arrays are read by sqlite_read_blob_into, straight into the track's own
     * memory: their lengths here, and the row */
    [ST_LOAD_TRACK] = "SELECT name, value_type, array_size, interpolation, semantic, "
                      "key_count, length(times), length(key_values), kind, rules, rowid FROM "
                      "tracks WHERE resource_id = ?1 AND n = ?2",
    /* refs keep the order they were stored in by rowid here, by a seq column on PostgreSQL */
    [ST_REF_DIGESTS] = "SELECT crc32, kind, track, key FROM refs WHERE resource_id = ?1 "
                       "ORDER BY rowid",
    [ST_COPY_REFS_GET] = "SELECT resource_id, crc32, kind, track, key FROM refs WHERE "
                         "resource_id = ?1 ORDER BY rowid",
    /* AUTOINCREMENT already continues after the largest id inserted */
    [ST_COPY_FINISH] = "SELECT 1",
    [ST_TEXT_INDEX_PENDING] = "INSERT INTO resources_text (rowid, name, class, filename, note) "
                              "SELECT r.id, r.name, r.class, r.filename, r.note FROM "
                              "resources_text_pending p JOIN resources r ON r.id = p.id",
    [ST_TEXT_CLEAR_PENDING] = "DELETE FROM resources_text_pending",
};

struct sqlite_stmt {
	struct db_stmt base;
	struct sqlite_db *db;
	sqlite3_stmt *stmt;
};

/* Checkpoints on a thread of their own, for a busy writer (sqlite_busy_writer): its commits
 * only note that the WAL has grown past CHECKPOINT_FRAMES, and the copying back into the
 * database (a PASSIVE checkpoint, as SQLite's own automatic one) happens beside the next
 * writes instead of inside one of them. */
#define CHECKPOINT_FRAMES 1000 /* SQLite's own default */
/* The WAL's bound, 64 MiB of 4 KiB pages: the writer finishes a checkpoint itself (with its
 * fsync) only this rarely. At 4000 frames it did so often enough to cost uploads 20%. */
#define CHECKPOINT_LIMIT 16000
/* Woken again only after this many more frames: a page written often (a table's last leaf,
 * the short indexes') is copied once a step, so every 4000 frames costs the checkpointer
 * about half of what every 500 did (uploads: 13 against 27 us of its CPU each). */
#define CHECKPOINT_STEP 4000
struct checkpointer {
	sqlite3 *conn; /* its own connection */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int due, stop;
	int next_frames; /* the WAL size at which to wake it again (the writer's alone) */
};

struct sqlite_db {
	struct db base;
	sqlite3 *conn;
	int read_only; /* opened for reading only: no migration, no write */
	char *path;    /* the database file's full path */
	dev_t device;  /* ... and which file it named when opened */
	ino_t inode;
	int log_emptied; /* the path names another file now, and this log went into the old one */
	struct checkpointer *checkpointer; /* or NULL: SQLite checkpoints after commits */
	struct sqlite_stmt stmt[ST_COUNT]; /* prepared on first use */
	/* list queries by filters, order and direction (LIST_VARIANT), and counts by filters:
	 * made on first use */
	struct sqlite_stmt *list_stmt[LIST_VARIANTS];
	struct sqlite_stmt *count_stmt[FILTER_COMBINATIONS];
};

static const struct db_ops sqlite_ops;

static int sqlite_fail(struct sqlite_db *db, struct error *err, const char *what)
{
	int code = sqlite3_extended_errcode(db->conn);
	enum error_code ec = ERROR_INTERNAL;

	if ((code & 0xFF) == SQLITE_FULL) {
		error_set(err, ERROR_STORAGE_FULL, NULL, -1,
		          "catalogue: %s: the disk that holds the catalogue is full; reads go on, "
		          "and writes work again once there is room on it (SQLite code %d)",
		          what, code);
		return -1;
	}
	if ((code & 0xFF) == SQLITE_BUSY || (code & 0xFF) == SQLITE_LOCKED)
		ec = ERROR_UNAVAILABLE;
	else if ((code & 0xFF) == SQLITE_READONLY)
		ec = ERROR_UNAVAILABLE; /* the file became read-only under the daemon */
	else if (code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY)
		ec = ERROR_CONFLICT;
	error_set(err, ec, NULL, -1, "catalogue: %s: %s (SQLite code %d)", what,
	          sqlite3_errmsg(db->conn), code);
	return -1;
}

static struct db_stmt *sqlite_ready(struct sqlite_stmt *s)
{
	sqlite3_reset(s->stmt);
	sqlite3_clear_bindings(s->stmt);
	return &s->base;
}

static struct db_stmt *sqlite_prepare_sql(struct sqlite_db *db, struct sqlite_stmt *s,
                                          const char *sql, struct error *err)
{
	if (s->stmt)
		return sqlite_ready(s);
	if (sqlite3_prepare_v3(db->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->stmt, NULL) !=
	    SQLITE_OK) {
		sqlite_fail(db, err, "preparing a statement");
		return NULL;
	}
	s->base.ops = &sqlite_ops;
	s->db = db;
	return &s->base;
}

#define TRUNCATE_TRIES 1500 /* 20 ms apart: 30 s for other connections to let the log go */

/* Before a write transaction: does the path still name the file this connection opened? A
 * catalogue removed, moved or replaced under a running daemon would otherwise take writes
 * that are lost at the next start, or have its old log replayed over another file. Once it
 * has happened the log is emptied into the file that was opened (whatever path that file has
 * now), so that no start replays it over the file now at the path, and every write is
 * refused. One stat() a transaction. */
static int sqlite_still_at_path(struct sqlite_db *db, struct error *err)
{
	static int said; /* the log hears of it once */
	struct stat now;
	int gone = stat(db->path, &now) != 0;

	if (!gone && now.st_dev == db->device && now.st_ino == db->inode)
		return 0;
	/* until it empties the log, once: another connection's checkpoint or read may hold it up
	 * for a moment (SQLITE_BUSY), and a log left whole is replayed over the new file at the
	 * next start */
	for (int tries = 0; !db->log_emptied && tries < TRUNCATE_TRIES; tries++) {
		struct timespec pause = {0, 20 * 1000 * 1000};
		if (sqlite3_wal_checkpoint_v2(db->conn, "main", SQLITE_CHECKPOINT_TRUNCATE, NULL,
		                              NULL) == SQLITE_OK)
			db->log_emptied = 1;
		else
			nanosleep(&pause, NULL);
	}
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_SEQ_CST))
		fprintf(
		    stderr,
		    "animdexd: ERROR: the catalogue %s was %s while animdexd had it open: every "
		    "write is refused from now on (answered 503), since it would go into a file "
		    "that is no longer the catalogue; restart animdexd on the file you mean\n",
		    db->path, gone ? "removed or moved away" : "replaced by another file");
	/* the path is the log's, not a client's to know */
	error_set(err, ERROR_UNAVAILABLE, NULL, -1,
	          "catalogue: its file is no longer the one animdexd opened (it was %s while the "
	          "daemon ran); writes are refused until animdexd is restarted",
	          gone ? "removed or moved away" : "replaced");
	return -1;
}

static int sqlite_writable(struct db *base, struct error *err)
{
	struct sqlite_db *db = (struct sqlite_db *)base;

	if (db->read_only) {
		error_set(err, ERROR_READ_ONLY, NULL, -1,
		          "catalogue: it is served for reading only (--read-only): nothing can be "
		          "written to it");
		return -1;
	}
	return sqlite_still_at_path(db, err);
}

/* A blob by SQLite's incremental blob I/O: its pages copied into out, without the whole value
 * made first in SQLite's own memory (a 16 MB array would be held twice). Called while the
 * statement that found the row holds the read transaction. */
static int sqlite_read_blob_into(struct db *base, const char *table, const char *column,
                                 int64_t row, void *out, size_t n, struct error *err)
{
	struct sqlite_db *db = (struct sqlite_db *)base;
	sqlite3_blob *blob = NULL;
	int rc = -1;

	if (n > INT_MAX) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: a stored %s of %zu bytes",
		          column, n);
		return -1;
	}
	if (sqlite3_blob_open(db->conn, "main", table, column, row, 0, &blob) == SQLITE_OK &&
	    (size_t)sqlite3_blob_bytes(blob) == n &&
	    (n == 0 || sqlite3_blob_read(blob, out, (int)n, 0) == SQLITE_OK))
		rc = 0;
	else
		sqlite_fail(db, err, "reading a track's keys");
	sqlite3_blob_close(blob);
	return rc;
}

static struct db_stmt *sqlite_prepare(struct db *base, enum statement st, struct error *err)
{
	struct sqlite_db *db = (struct sqlite_db *)base;

	if (st == ST_BEGIN && sqlite_writable(base, err) < 0)
		return NULL;
	if (!catalog_sql(sqlite_sql, st)) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: statement %d has no SQL",
		          (int)st);
		return NULL;
	}
	return sqlite_prepare_sql(db, &db->stmt[st], catalog_sql(sqlite_sql, st), err);
}

/* The list's filters (not its cursor) as SQL conditions, each after " AND ". */
static void sqlite_list_filters(struct buf *sql, unsigned bits)
{
	/* unary +: not by the class's or family's index (FILTER_WALK_ORDER) */
	const char *walk = bits & FILTER_WALK_ORDER ? "+" : "";

	if (bits & FILTER_CLASS)
		buf_printf(sql, " AND %sr.class = ?1", walk);
	if (bits & FILTER_FAMILY)
		buf_printf(sql, " AND %sr.family = ?2", walk);
	if (bits & FILTER_NAME)
		buf_puts(sql, " AND r.name = ?3 COLLATE NOCASE");
	if (bits & FILTER_Q) /* SQLite's LIKE ignores the case of ASCII letters */
		buf_puts(sql, " AND (r.name LIKE ?4 ESCAPE '\\' OR r.class LIKE ?4 ESCAPE '\\'"
		              " OR r.filename LIKE ?4 ESCAPE '\\' OR r.note LIKE ?4 ESCAPE '\\')");
	if (bits & FILTER_CRC32)
		buf_puts(sql, " AND r.crc32 = ?5");
	if (bits & FILTER_FILENAME)
		buf_puts(sql, " AND r.filename = ?10");
	if (bits & FILTER_UPLOADER)
		buf_puts(sql, " AND r.uploaded_by = ?11");
}

/* A list or count statement, prepared once into *slot (allocated on first use). */
static struct db_stmt *sqlite_prepare_variant(struct sqlite_db *db, struct sqlite_stmt **slot,
                                              struct buf *sql, struct error *err)
{
	struct db_stmt *s;

	if (!sql->data || (!*slot && !(*slot = calloc(1, sizeof(**slot))))) {
		buf_cleanup(sql);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	s = sqlite_prepare_sql(db, *slot, sql->data, err);
	buf_cleanup(sql);
	return s;
}

/* SELECT the SUMMARY_COLUMNS and `key` of the rows `bits` select, then `more`. With
 * FILTER_TEXT_INDEX the rows come from the search index's candidates (CROSS JOIN keeps it the
 * outer loop). */
static void sqlite_list_rows(struct buf *sql, unsigned bits, const char *key, const char *more)
{
	buf_printf(sql, "SELECT " SUMMARY_COLUMNS ", %s", key);
	if (bits & FILTER_TEXT_INDEX)
		buf_puts(
		    sql,
		    " FROM resources_text CROSS JOIN resources r ON r.id = resources_text.rowid "
		    "JOIN blobs b ON b.sha256 = r.blob_sha256 WHERE resources_text MATCH ?9");
	else
		buf_puts(sql, SUMMARY_FROM "WHERE 1");
	sqlite_list_filters(sql, bits);
	buf_puts(sql, more);
}

/* In id order, the rows after the cursor are a range of the id (or, from the search index, of
 * its rowid: its own order). In another, they are the rest of the cursor key's ties, then the
 * keys past it, each a range of the order's index (SQLite seeks no index by a row value such
 * as (key, id) > (?8, ?6): it would walk every row before the cursor), the two sorted
 * together. */
static struct db_stmt *sqlite_prepare_list(struct db *base, unsigned bits, enum catalog_sort sort,
                                           int ascending, struct error *err)
{
	struct sqlite_db *db = (struct sqlite_db *)base;
	struct sqlite_stmt **slot = &db->list_stmt[LIST_VARIANT(bits, sort, ascending)];
	const char *key = catalog_sort_sql[sort].sqlite, *dir = ascending ? "ASC" : "DESC";
	const char *past = ascending ? ">" : "<";
	const char *id = bits & FILTER_TEXT_INDEX ? "resources_text.rowid" : "r.id";
	struct buf sql, tail;

	if (*slot && (*slot)->stmt)
		return sqlite_ready(*slot);
	buf_init(&sql, 8192);
	buf_init(&tail, 1024);
	if (sort == CATALOG_SORT_ID) {
		if (bits & FILTER_CURSOR)
			buf_printf(&tail, " AND %s %s ?6", id, past);
		buf_printf(&tail, " ORDER BY %s %s LIMIT ?7", id, dir);
		sqlite_list_rows(&sql, bits, key, tail.data ? tail.data : "");
	} else if (!(bits & FILTER_CURSOR)) {
		buf_printf(&tail, " ORDER BY %s %s, r.id %s LIMIT ?7", key, dir, dir);
		sqlite_list_rows(&sql, bits, key, tail.data ? tail.data : "");
	} else {
		buf_printf(&tail, " AND %s = ?8 AND r.id %s ?6 ORDER BY r.id %s LIMIT ?7", key,
		           past, dir);
		buf_puts(&sql, "SELECT * FROM (");
		sqlite_list_rows(&sql, bits, key, tail.data ? tail.data : "");
		buf_cleanup(&tail);
		buf_init(&tail, 1024);
		buf_printf(&tail, " AND %s %s ?8 ORDER BY %s %s, r.id %s LIMIT ?7", key, past, key,
		           dir, dir);
		buf_puts(&sql, ") UNION ALL SELECT * FROM (");
		sqlite_list_rows(&sql, bits, key, tail.data ? tail.data : "");
		buf_printf(&sql, ") ORDER BY 17 %s, 1 %s LIMIT ?7", dir, dir);
	}
	buf_cleanup(&tail);
	return sqlite_prepare_variant(db, slot, &sql, err);
}

static struct db_stmt *sqlite_prepare_count(struct db *base, unsigned bits, struct error *err)
{
	struct sqlite_db *db = (struct sqlite_db *)base;
	unsigned filters = bits & (FILTER_COMBINATIONS - 1) & ~(unsigned)FILTER_CURSOR;
	struct sqlite_stmt **slot = &db->count_stmt[filters];
	struct buf sql;

	if (*slot && (*slot)->stmt)
		return sqlite_ready(*slot);
	buf_init(&sql, 4096);
	if (filters == FILTER_TEXT_INDEX) { /* the candidates alone */
		buf_puts(&sql, "SELECT count(*), count(*) FROM (SELECT rowid FROM resources_text "
		               "WHERE resources_text MATCH ?9 LIMIT ?12)");
	} else if (filters & FILTER_TEXT_INDEX) {
		buf_puts(&sql, "SELECT count(*), coalesce(sum(1");
		sqlite_list_filters(&sql, filters);
		buf_puts(&sql, "), 0) FROM (SELECT rowid AS id FROM resources_text WHERE "
		               "resources_text MATCH ?9 LIMIT ?12) c CROSS JOIN resources r ON "
		               "r.id = c.id");
	} else {
		buf_puts(&sql, "SELECT count(*), count(*) FROM (SELECT 1 FROM resources r WHERE 1");
		sqlite_list_filters(&sql, filters);
		buf_puts(&sql, " LIMIT ?12)");
	}
	return sqlite_prepare_variant(db, slot, &sql, err);
}

/* The search index's query for q: q as one FTS5 string (its double quotes doubled), which the
 * trigram tokenizer matches as a substring. */
static char *sqlite_search_key(const char *q, const char *pattern)
{
	struct buf b;

	(void)pattern;
	buf_init(&b, SIZE_MAX);
	buf_puts(&b, "\"");
	for (; *q; q++)
		buf_puts(&b, *q == '"' ? "\"\"" : (char[]){*q, '\0'});
	buf_puts(&b, "\"");
	return buf_steal(&b, NULL);
}

static void sqlite_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	sqlite3_bind_int64(((struct sqlite_stmt *)s)->stmt, i, v);
}

static void sqlite_bind_double(struct db_stmt *s, int i, double v)
{
	sqlite3_bind_double(((struct sqlite_stmt *)s)->stmt, i, v);
}

static void sqlite_bind_text(struct db_stmt *s, int i, const char *text, size_t length)
{
	sqlite3_bind_text64(((struct sqlite_stmt *)s)->stmt, i, text, length, SQLITE_STATIC,
	                    SQLITE_UTF8);
}

static void sqlite_bind_blob(struct db_stmt *s, int i, const void *data, size_t length)
{
	sqlite3_bind_blob64(((struct sqlite_stmt *)s)->stmt, i, length ? data : "", length,
	                    SQLITE_STATIC);
}

static void sqlite_bind_null(struct db_stmt *s, int i)
{
	sqlite3_bind_null(((struct sqlite_stmt *)s)->stmt, i);
}

/* Before a COMMIT that wrote: the entries it made or renamed into the search index, with one
 * statement (one segment of the index for the whole transaction). */
static int sqlite_index_pending(struct sqlite_db *db, struct error *err)
{
	static const enum statement steps[] = {ST_TEXT_INDEX_PENDING, ST_TEXT_CLEAR_PENDING};

	if (sqlite3_txn_state(db->conn, "main") != SQLITE_TXN_WRITE)
		return 0;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct db_stmt *s = sqlite_prepare(&db->base, steps[i], err);
		int rc = s ? sqlite3_step(((struct sqlite_stmt *)s)->stmt) : SQLITE_ERROR;
		if (s && rc != SQLITE_DONE)
			sqlite_fail(db, err, "indexing the new entries for search");
		if (s)
			sqlite3_reset(((struct sqlite_stmt *)s)->stmt);
		if (rc != SQLITE_DONE)
			return -1;
	}
	return 0;
}

static int sqlite_step(struct db_stmt *base, const char *what, struct error *err)
{
	struct sqlite_stmt *s = (struct sqlite_stmt *)base;
	int rc;

	if (s == &s->db->stmt[ST_COMMIT] && sqlite_index_pending(s->db, err) < 0)
		return -1;
	rc = sqlite3_step(s->stmt);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	sqlite_fail(s->db, err, what);
	sqlite3_reset(s->stmt);
	return -1;
}

static int sqlite_column_count(struct db_stmt *s)
{
	return sqlite3_column_count(((struct sqlite_stmt *)s)->stmt);
}

static enum db_type sqlite_column_type(struct db_stmt *s, int c)
{
	switch (sqlite3_column_type(((struct sqlite_stmt *)s)->stmt, c)) {
	case SQLITE_INTEGER: return DB_INTEGER;
	case SQLITE_FLOAT: return DB_REAL;
	case SQLITE_TEXT: return DB_TEXT;
	case SQLITE_BLOB: return DB_BLOB;
	default: return DB_NULL;
	}
}

static int64_t sqlite_column_int64(struct db_stmt *s, int c)
{
	return sqlite3_column_int64(((struct sqlite_stmt *)s)->stmt, c);
}

static double sqlite_column_double(struct db_stmt *s, int c)
{
	return sqlite3_column_double(((struct sqlite_stmt *)s)->stmt, c);
}

static const char *sqlite_column_text(struct db_stmt *s, int c)
{
	return (const char *)sqlite3_column_text(((struct sqlite_stmt *)s)->stmt, c);
}

static const void *sqlite_column_blob(struct db_stmt *s, int c, size_t *length)
{
	sqlite3_stmt *stmt = ((struct sqlite_stmt *)s)->stmt;
	const void *p = sqlite3_column_blob(stmt, c);

	*length = (size_t)sqlite3_column_bytes(stmt, c);
	return p;
}

static void sqlite_reset(struct db_stmt *s)
{
	sqlite3_reset(((struct sqlite_stmt *)s)->stmt);
}

static int sqlite_in_transaction(struct db *base)
{
	return !sqlite3_get_autocommit(((struct sqlite_db *)base)->conn);
}

static int sqlite_schema_version(struct db *base)
{
	struct sqlite_db *db = (struct sqlite_db *)base;
	sqlite3_stmt *s;
	int version = -1;

	if (sqlite3_prepare_v2(db->conn, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return version;
}

/* From its first bulk transaction on (an import's), a connection keeps up to 64 MiB of pages
 * in its cache rather than SQLite's default 2 MiB, across its transactions: an import writes
 * into every index of the catalogue at once, and pages read again from the file for each entry
 * made the last tenth of an import of 200,000 entries a third slower than its first. */
static void sqlite_bulk(struct db *base, int on)
{
	struct sqlite_db *db = (struct sqlite_db *)base;

	if (on) /* only a speed: a failure is no harm */
		sqlite3_exec(db->conn, "PRAGMA cache_size = -65536", NULL, NULL, NULL);
}

static json_t *sqlite_describe(struct db *base)
{
	(void)base;
	return json_pack("{s:s, s:s}", "backend", "sqlite", "sqlite_version", sqlite3_libversion());
}

static void *checkpointer_main(void *arg)
{
	struct checkpointer *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->due && !c->stop)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		c->due = 0;
		pthread_mutex_unlock(&c->lock);
		sqlite3_wal_checkpoint_v2(c->conn, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* After each commit of the busy writer: frames in the WAL. The WAL starts over only once a
 * checkpoint has copied all of it, which one running beside the writes never quite does:
 * past CHECKPOINT_LIMIT frames the writer finishes the copy itself (most of it done). */
static int wal_grown(void *arg, sqlite3 *conn, const char *name, int frames)
{
	struct checkpointer *c = arg;

	if (frames >= CHECKPOINT_LIMIT) {
		sqlite3_wal_checkpoint_v2(conn, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	} else if (frames < c->next_frames - CHECKPOINT_STEP) {
		c->next_frames = CHECKPOINT_FRAMES; /* the WAL started over */
	} else if (frames >= c->next_frames && frames >= CHECKPOINT_FRAMES) {
		/* woken every CHECKPOINT_STEP frames, not after every commit */
		c->next_frames = frames + CHECKPOINT_STEP;
		pthread_mutex_lock(&c->lock);
		if (!c->due) {
			c->due = 1;
			pthread_cond_signal(&c->wake);
		}
		pthread_mutex_unlock(&c->lock);
	}
	return SQLITE_OK;
}

static void checkpointer_stop(struct sqlite_db *db)
{
	struct checkpointer *c = db->checkpointer;

	if (!c)
		return;
	sqlite3_wal_autocheckpoint(db->conn, CHECKPOINT_FRAMES); /* SQLite's hook again */
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	sqlite3_close(c->conn);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	free(c);
	db->checkpointer = NULL;
}

static void sqlite_busy_writer(struct db *base)
{
	struct sqlite_db *db = (struct sqlite_db *)base;
	const char *path = sqlite3_db_filename(db->conn, "main");
	struct checkpointer *c;

	if (db->checkpointer || !path || !*path || !(c = calloc(1, sizeof(*c))))
		return;
	/* a connection checkpoints only once it has read the database and knows it is in WAL
	 * mode: until then sqlite3_wal_checkpoint_v2 does nothing and says SQLITE_OK */
	if (sqlite3_open_v2(path, &c->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
	                    sqlite_wal_vfs()) != SQLITE_OK ||
	    sqlite3_exec(c->conn, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) !=
	        SQLITE_OK) {
		sqlite3_close(c->conn);
		free(c);
		return; /* SQLite goes on checkpointing after commits */
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	if (pthread_create(&c->thread, NULL, checkpointer_main, c) != 0) {
		sqlite3_close(c->conn);
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return;
	}
	db->checkpointer = c;
	sqlite3_wal_hook(db->conn, wal_grown, c); /* replaces SQLite's automatic checkpoints */
}

static void sqlite_close(struct db *base)
{
	struct sqlite_db *db = (struct sqlite_db *)base;

	if (!db)
		return;
	checkpointer_stop(db);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(db->stmt[i].stmt);
	for (int i = 0; i < LIST_VARIANTS; i++)
		if (db->list_stmt[i]) {
			sqlite3_finalize(db->list_stmt[i]->stmt);
			free(db->list_stmt[i]);
		}
	for (int i = 0; i < FILTER_COMBINATIONS; i++)
		if (db->count_stmt[i]) {
			sqlite3_finalize(db->count_stmt[i]->stmt);
			free(db->count_stmt[i]);
		}
	sqlite3_close(db->conn);
	free(db->path);
	free(db);
}

static const struct db_ops sqlite_ops = {
    .name = "sqlite",
    .remote = 0,
    .close = sqlite_close,
    .prepare = sqlite_prepare,
    .prepare_list = sqlite_prepare_list,
    .search_in_id_order = 1,
    .prepare_count = sqlite_prepare_count,
    .search_key = sqlite_search_key,
    .bind_int64 = sqlite_bind_int64,
    .bind_double = sqlite_bind_double,
    .bind_text = sqlite_bind_text,
    .bind_blob = sqlite_bind_blob,
    .bind_null = sqlite_bind_null,
    .step = sqlite_step,
    .column_count = sqlite_column_count,
    .column_type = sqlite_column_type,
    .column_int64 = sqlite_column_int64,
    .column_double = sqlite_column_double,
    .column_text = sqlite_column_text,
    .column_blob = sqlite_column_blob,
    .reset = sqlite_reset,
    .in_transaction = sqlite_in_transaction,
    .bulk = sqlite_bulk,
    .schema_version = sqlite_schema_version,
    .describe = sqlite_describe,
    .busy_writer = sqlite_busy_writer,
    .writable = sqlite_writable,
    .read_blob_into = sqlite_read_blob_into,
};

/* Runs SQL, waiting while another process holds the file: two processes that start on a new
 * file at once both ask for WAL mode, and SQLite answers one of them SQLITE_BUSY at once,
 * without its busy handler, since each holds the read lock the other needs to give up. Up
 * to 10 s in steps of 1 to 20 ms. */
static int exec_waiting(struct sqlite_db *db, const char *sql, char **msg)
{
	int rc;

	for (long waited_us = 0, step = 1000;;
	     waited_us += step, step = step < 20000 ? 2 * step : step) {
		struct timespec pause = {0, step * 1000};
		sqlite3_free(*msg);
		*msg = NULL;
		rc = sqlite3_exec(db->conn, sql, NULL, NULL, msg);
		if ((rc & 0xFF) != SQLITE_BUSY && (rc & 0xFF) != SQLITE_LOCKED)
			return rc;
		if (waited_us > 10L * 1000 * 1000)
			return rc;
		nanosleep(&pause, NULL);
	}
}

/* The schema version of a catalogue opened for reading: it must be this animdexd's, since
 * reading never migrates. */
static int sqlite_check_version(struct sqlite_db *db, int version, unsigned latest,
                                struct error *err)
{
	if ((unsigned)version == latest)
		return 0;
	if ((unsigned)version > latest)
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the database's schema version %d is newer than this "
		          "animdexd knows (%u); use a newer animdexd",
		          version, latest);
	else
		error_set(
		    err, ERROR_INTERNAL, NULL, -1,
		    "catalogue: %s has schema version %d, and this animdexd reads only version "
		    "%u without changing it; run animdexd on it once (serving it brings it up "
		    "to date), then try again",
		    db->path, version, latest);
	return -1;
}

/* schema/009_blob_chunks.sql's second half: every upload's bytes moved into chunks, one upload
 * read at a time, then blobs.bytes dropped. Done here rather than in the SQL file: substr()
 * there would read the whole upload again for every chunk. */
static int sqlite_move_bytes_to_chunks(struct sqlite_db *db, char **msg)
{
	sqlite3_stmt *get = NULL, *put = NULL;
	int rc = sqlite3_prepare_v2(db->conn, "SELECT sha256, bytes FROM blobs", -1, &get, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
		    db->conn, "INSERT INTO blob_chunks (sha256, n, bytes) VALUES (?1, ?2, ?3)", -1,
		    &put, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(get)) == SQLITE_ROW) {
		const uint8_t *bytes = sqlite3_column_blob(get, 1);
		int64_t length = sqlite3_column_bytes(get, 1);
		rc = SQLITE_OK;
		for (int64_t at = 0; at < length && rc == SQLITE_OK; at += CATALOG_BLOB_CHUNK) {
			int64_t n =
			    length - at < CATALOG_BLOB_CHUNK ? length - at : CATALOG_BLOB_CHUNK;
			sqlite3_bind_text(put, 1, (const char *)sqlite3_column_text(get, 0), -1,
			                  SQLITE_TRANSIENT);
			sqlite3_bind_int64(put, 2, at / CATALOG_BLOB_CHUNK);
			sqlite3_bind_blob(put, 3, bytes + at, (int)n, SQLITE_STATIC);
			rc = sqlite3_step(put) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
			sqlite3_reset(put);
		}
	}
	sqlite3_finalize(get);
	sqlite3_finalize(put);
	if (rc != SQLITE_DONE && rc != SQLITE_OK) {
		*msg = sqlite3_mprintf("moving the uploaded bytes into chunks: %s",
		                       sqlite3_errmsg(db->conn));
		return SQLITE_ERROR;
	}
	return sqlite3_exec(db->conn, "ALTER TABLE blobs DROP COLUMN bytes", NULL, NULL, msg);
}

/* A step of a migration (catalog_migrate.c), its error message kept for the caller. */
struct sqlite_step {
	struct sqlite_db *db;
	char *msg;
};

static int sqlite_run_step(void *ctx, const char *sql)
{
	struct sqlite_step *step = ctx;

	return sqlite3_exec(step->db->conn, sql, NULL, NULL, &step->msg) == SQLITE_OK ? 0 : -1;
}

static int sqlite_migrate(struct sqlite_db *db, struct error *err)
{
	int version = sqlite_schema_version(&db->base);
	unsigned latest = schema_migrations[schema_migration_count - 1].version;
	char *msg = NULL;

	if (version < 0)
		return sqlite_fail(db, err, "reading PRAGMA user_version");
	if (db->read_only || (unsigned)version >= latest)
		return sqlite_check_version(db, version, latest, err);
	if (exec_waiting(db, "BEGIN IMMEDIATE", &msg) != SQLITE_OK) {
		sqlite3_free(msg);
		return sqlite_fail(db, err, "starting the migration");
	}
	/* Another connection may have migrated while this one waited for the lock. */
	version = sqlite_schema_version(&db->base);
	for (unsigned i = 0; i < schema_migration_count; i++) {
		const struct schema_migration *m = &schema_migrations[i];
		char pragma[48];
		if (m->version <= (unsigned)version)
			continue;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %u", m->version);
		struct sqlite_step step = {db, NULL};
		int failed = catalog_migrate_steps(m, version > 0, sqlite_run_step, &step) < 0;
		msg = step.msg;
		if (failed ||
		    (m->version == 9 && sqlite_move_bytes_to_chunks(db, &msg) != SQLITE_OK) ||
		    sqlite3_exec(db->conn, pragma, NULL, NULL, &msg) != SQLITE_OK) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: migration %s: %s",
			          m->file, msg ? msg : "failed");
			sqlite3_free(msg);
			sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite_fail(db, err, "committing the migration");
		sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* Waits for another connection's write lock in short, growing steps (50 us doubling to 2 ms)
 * for up to 10 s. SQLite's own busy timeout sleeps 1, 2, 5, 10... 100 ms, which puts a
 * writer that waited a moment tens of milliseconds behind. */
static int sqlite_busy(void *unused, int attempt)
{
	/* steps of 50 << attempt us up to attempt 5 (1.6 ms), then 2 ms each */
	long step = attempt < 6 ? 50L << attempt : 2000;
	long waited = attempt < 6 ? 50L * ((1L << attempt) - 1) : 3150 + (attempt - 6) * 2000L;
	struct timespec pause;

	(void)unused;
	if (waited > 10L * 1000 * 1000)
		return 0; /* SQLITE_BUSY after about 10 s */
	pause.tv_sec = 0;
	pause.tv_nsec = step * 1000;
	nanosleep(&pause, NULL);
	return 1;
}

/* Once, before SQLite starts: no global memory statistics (animdex reads none), so that an
 * allocation takes no process-wide mutex. */
static void sqlite_configure(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* A file: URI for a path, every byte but unreserved ones and '/' percent-encoded, with the
 * query given (sqlite3_malloc'd; NULL when out of memory). */
static char *file_uri(const char *path, const char *query)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t length = strlen(path);
	char *uri = sqlite3_malloc64(3 * length + strlen(query) + 8), *p = uri;

	if (!uri)
		return NULL;
	p += sprintf(p, "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("-._~/", *c)) {
			*p++ = (char)*c;
		} else {
			*p++ = '%';
			*p++ = hex[*c >> 4];
			*p++ = hex[*c & 15];
		}
	}
	sprintf(p, "?%s", query);
	return uri;
}

/* Opens the connection. For reading only: a WAL database whose -shm cannot be made (a
 * read-only file system, a folder animdexd cannot write) can only be read as immutable, which
 * is what such a file is to every process. */
static int sqlite_connect(struct sqlite_db *db, const char *path, struct error *err)
{
	int flags =
	    db->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	if (sqlite3_open_v2(path, &db->conn, flags | SQLITE_OPEN_NOMUTEX, sqlite_wal_vfs()) ==
	        SQLITE_OK &&
	    db->read_only &&
	    sqlite3_exec(db->conn, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) ==
	        SQLITE_CANTOPEN) {
		char *uri = file_uri(path, "immutable=1"), wal[4096];
		struct stat st;
		sqlite3_close(db->conn);
		db->conn = NULL;
		/* immutable reads the file alone: a log with commits in it would be passed over */
		snprintf(wal, sizeof(wal), "%s-wal", path);
		if (stat(wal, &st) == 0 && st.st_size > 0) {
			sqlite3_free(uri);
			error_set(
			    err, ERROR_INTERNAL, NULL, -1,
			    "catalogue: %s cannot be read here: its write-ahead log %s holds "
			    "commits, and without its -shm file on this read-only file system "
			    "they cannot be read; open it once where it can be written (animdexd "
			    "serving it and stopping moves them into the file)",
			    path, wal);
			return -1;
		}
		if (uri)
			sqlite3_open_v2(uri, &db->conn,
			                flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
			                sqlite_wal_vfs());
		sqlite3_free(uri);
	}
	if (!db->conn || sqlite3_errcode(db->conn) != SQLITE_OK) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: cannot open %s%s: %s", path,
		          db->read_only ? " for reading" : "",
		          db->conn ? sqlite3_errmsg(db->conn) : "out of memory");
		return -1;
	}
	return 0;
}

/* Which file the path names now, kept to notice it moving (sqlite_still_at_path). */
static int sqlite_identify(struct sqlite_db *db, struct error *err)
{
	const char *full = sqlite3_db_filename(db->conn, "main");
	struct stat st;

	db->path = strdup(full && *full ? full : "");
	if (!db->path || stat(db->path, &st) != 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: cannot find %s again: %s",
		          db->path ? db->path : "the file", strerror(errno));
		return -1;
	}
	db->device = st.st_dev;
	db->inode = st.st_ino;
	return 0;
}

struct db *db_sqlite_open(const char *path, int read_only, struct error *err)
{
	/* SQLite's default page size (4 KiB) is kept: 8 KiB pages made imports about 8% faster
	 * but uploads, a commit each, about 20% slower (each commit writes whole pages) */
	static const char *const pragmas = "PRAGMA journal_mode = WAL;"
	                                   "PRAGMA synchronous = FULL;"
	                                   "PRAGMA foreign_keys = ON;"
	                                   "PRAGMA temp_store = MEMORY;";
	static const char *const reading = "PRAGMA foreign_keys = ON;"
	                                   "PRAGMA temp_store = MEMORY;";
	struct sqlite_db *db = calloc(1, sizeof(*db));
	char *msg = NULL;

	static pthread_once_t configured = PTHREAD_ONCE_INIT;

	pthread_once(&configured, sqlite_configure);
	if (!db) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	db->base.ops = &sqlite_ops;
	db->read_only = read_only;
	if (sqlite_connect(db, path, err) < 0)
		goto fail;
	sqlite3_busy_handler(db->conn, sqlite_busy, NULL);
	sqlite3_extended_result_codes(db->conn, 1);
	if (!read_only && sqlite3_db_readonly(db->conn, "main") == 1) {
		error_set(
		    err, ERROR_READ_ONLY, NULL, -1,
		    "catalogue: %s cannot be written (a read-only file, folder or file system); "
		    "start animdexd with --read-only to serve it for reading",
		    path);
		goto fail;
	}
	if (exec_waiting(db, read_only ? reading : pragmas, &msg) != SQLITE_OK) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: %s: %s", path,
		          msg ? msg : "cannot configure");
		sqlite3_free(msg);
		goto fail;
	}
	if (sqlite_identify(db, err) < 0 || sqlite_migrate(db, err) < 0)
		goto fail;
	return &db->base;
fail:
	sqlite_close(&db->base);
	return NULL;
}
