/* catalog.c: the SQLite catalogue (DESIGN section 5). Every SQL statement of animdex is here.
 *
 * Statements are prepared once per connection (the list filters too: one statement per
 * combination of filters, prepared on first use). u64 fields are stored as decimal text, since
 * SQLite integers are signed 64-bit; CRC32 handles fit a SQLite integer as they are.
 */
#include "catalog.h"

#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "hash.h"
#include "render.h"
#include "schema.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tracks store native little-endian arrays; a big-endian host needs byte swapping here"
#endif

enum statement {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_FIND_BY_SHA256,
	ST_INSERT_BLOB,
	ST_INSERT_RESOURCE,
	ST_INSERT_TRACK,
	ST_INSERT_REF,
	ST_GET_RESOURCE,
	ST_GET_TRACKS,
	ST_GET_RAW,
	ST_GET_BLOB_OF,
	ST_DELETE_RESOURCE,
	ST_DELETE_UNUSED_BLOB,
	ST_LOAD_TRACK,
	ST_HANDLE_RESOURCES,
	ST_HANDLE_REFS,
	ST_HANDLE_NAMES,
	ST_CLASSES,
	ST_STATS,
	ST_ADD_NAME,
	ST_NAME_BY_ASOBO32,
	ST_NAME_BY_CRC32,
	ST_TOKEN_ADD,
	ST_TOKEN_REVOKE,
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
	ST_COUNT
};

#define SUMMARY_COLUMNS                                                                         \
	"r.id, r.class, r.family, r.name, r.crc32, r.crc32_source, r.filename, r.note, "        \
	"r.uploaded_by, r.uploaded_at, r.duration, r.track_count, r.blob_sha256, b.size, "      \
	"r.part, (SELECT n.name FROM names n WHERE (CASE r.family WHEN 'zouna' THEN n.asobo32 " \
	"ELSE n.crc32 END) = r.crc32 ORDER BY n.name LIMIT 1) "
#define SUMMARY_FROM " FROM resources r JOIN blobs b ON b.sha256 = r.blob_sha256 "

static const char *const statement_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_FIND_BY_SHA256] =
        "SELECT " SUMMARY_COLUMNS SUMMARY_FROM "WHERE r.blob_sha256 = ?1 ORDER BY r.part",
    [ST_INSERT_BLOB] = "INSERT INTO blobs (sha256, size, bytes, filename, uploaded_at, "
                       "entry_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_BLOB_ENTRY_COUNT] = "SELECT entry_count FROM blobs WHERE sha256 = ?1",
    [ST_SET_BLOB_ENTRY_COUNT] = "UPDATE blobs SET entry_count = ?2 WHERE sha256 = ?1",
    [ST_INSERT_RESOURCE] =
        "INSERT INTO resources (blob_sha256, part, family, class, name, crc32, "
        "crc32_source, filename, note, uploaded_by, uploaded_at, duration, track_count, "
        "structure, assumed, decoder_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
        "?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    [ST_INSERT_TRACK] =
        "INSERT INTO tracks (resource_id, n, name, target_schema, target_object, "
        "target_name, property, first_element, value_type, array_size, interpolation, "
        "semantic, key_count, time_first, time_last, times, key_values, kind, info, handle, "
        "rules) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
        "?17, ?18, ?19, ?20, ?21)",
    [ST_INSERT_REF] = "INSERT INTO refs (resource_id, crc32, kind, track, key) "
                      "VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_GET_RESOURCE] =
        "SELECT " SUMMARY_COLUMNS ", r.structure, r.assumed" SUMMARY_FROM "WHERE r.id = ?1",
    [ST_GET_TRACKS] = "SELECT n, name, target_schema, target_object, target_name, property, "
                      "first_element, value_type, array_size, interpolation, semantic, "
                      "key_count, time_first, time_last, kind, info, handle, (SELECT n.name FROM "
                      "names n WHERE n.asobo32 = t.handle ORDER BY n.name LIMIT 1), rules "
                      "FROM tracks t WHERE resource_id = ?1 ORDER BY n",
    [ST_GET_RAW] = "SELECT b.bytes, r.filename" SUMMARY_FROM "WHERE r.id = ?1",
    [ST_GET_BLOB_OF] = "SELECT blob_sha256 FROM resources WHERE id = ?1",
    [ST_DELETE_RESOURCE] = "DELETE FROM resources WHERE id = ?1",
    [ST_DELETE_UNUSED_BLOB] = "DELETE FROM blobs WHERE sha256 = ?1 AND NOT EXISTS "
                              "(SELECT 1 FROM resources WHERE blob_sha256 = ?1)",
    [ST_LOAD_TRACK] = "SELECT name, value_type, array_size, interpolation, semantic, "
                      "key_count, times, key_values, kind, rules FROM tracks WHERE resource_id = "
                      "?1 AND n = ?2",
    [ST_HANDLE_RESOURCES] =
        "SELECT " SUMMARY_COLUMNS SUMMARY_FROM "WHERE r.crc32 = ?1 ORDER BY r.id DESC LIMIT 1000",
    [ST_HANDLE_REFS] = "SELECT f.resource_id, f.kind, f.track, f.key, r.class, r.name "
                       "FROM refs f JOIN resources r ON r.id = f.resource_id "
                       "WHERE f.crc32 = ?1 ORDER BY f.resource_id DESC, f.track, f.key "
                       "LIMIT 1000",
    [ST_HANDLE_NAMES] = "SELECT name, asobo32 = ?1, crc32 = ?1 FROM names "
                        "WHERE asobo32 = ?1 OR crc32 = ?1 ORDER BY name LIMIT 1000",
    [ST_CLASSES] = "SELECT class, family, count(*) FROM resources GROUP BY class, family "
                   "ORDER BY class",
    [ST_ADD_NAME] = "INSERT OR IGNORE INTO names (name, asobo32, crc32) VALUES (?1, ?2, ?3)",
    [ST_NAME_BY_ASOBO32] = "SELECT name FROM names WHERE asobo32 = ?1 ORDER BY name LIMIT 1",
    [ST_NAME_BY_CRC32] = "SELECT name FROM names WHERE crc32 = ?1 ORDER BY name LIMIT 1",
    [ST_TOKEN_ADD] = "INSERT INTO tokens (name, hash, created_at) VALUES (?1, ?2, ?3)",
    [ST_TOKEN_REVOKE] = "UPDATE tokens SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL",
    [ST_TOKEN_LIST] = "SELECT name, created_at, revoked_at FROM tokens ORDER BY name",
    [ST_TOKEN_ALL] = "SELECT name, hash, revoked_at IS NOT NULL FROM tokens",
    [ST_OUTDATED] = "SELECT count(*) FROM resources WHERE family = ?1 AND decoder_version < ?2",
    [ST_GET_STORED] = "SELECT r.part, r.family, r.class, r.decoder_version, r.crc32_source, "
                      "r.structure, r.filename, b.bytes" SUMMARY_FROM "WHERE r.id = ?1",
    [ST_TRACK_DIGESTS] = "SELECT n, name, target_schema, target_object, target_name, property, "
                         "first_element, value_type, array_size, interpolation, semantic, "
                         "key_count, times, key_values, kind, info, handle, rules FROM tracks "
                         "WHERE resource_id = ?1 ORDER BY n",
    [ST_REF_DIGESTS] = "SELECT crc32, kind, track, key FROM refs WHERE resource_id = ?1 "
                       "ORDER BY rowid",
    [ST_DELETE_TRACKS] = "DELETE FROM tracks WHERE resource_id = ?1",
    [ST_DELETE_REFS] = "DELETE FROM refs WHERE resource_id = ?1",
    [ST_UPDATE_DECODED] = "UPDATE resources SET duration = ?2, track_count = ?3, structure = ?4, "
                          "assumed = ?5, decoder_version = ?6, crc32 = ?7, crc32_source = ?8 "
                          "WHERE id = ?1",
    [ST_STATS] = "SELECT (SELECT count(*) FROM resources), (SELECT count(*) FROM tracks), "
                 "(SELECT count(*) FROM blobs), (SELECT coalesce(sum(size), 0) FROM blobs)",
};

/* The list query's filters, one bit each; one prepared statement per combination. */
enum list_filter {
	FILTER_CLASS = 1,
	FILTER_FAMILY = 2,
	FILTER_NAME = 4,
	FILTER_Q = 8,
	FILTER_CRC32 = 16,
	FILTER_CURSOR = 32,
	FILTER_COMBINATIONS = 64
};

/* A few recently sampled tracks per connection: entries never change once stored, so a cached
 * track stays right until a delete, which bumps the generation and empties every cache. */
#define TRACK_CACHE_SIZE      16
#define TRACK_CACHE_MAX_BYTES (4u * 1024 * 1024)

struct cached_track {
	struct catalog_track track; /* owns its arrays; track.name "" when the slot is empty */
	uint64_t used;              /* for least-recently-used eviction */
};

static uint64_t catalog_generation; /* bumped by every delete, in any connection (atomic) */

struct catalog;
static void cache_clear(struct catalog *cat);

struct catalog {
	sqlite3 *db;                                 /* the connection */
	struct cached_track cache[TRACK_CACHE_SIZE]; /* recent tracks */
	uint64_t cache_generation;                   /* catalog_generation when last filled */
	uint64_t cache_clock;
	sqlite3_stmt *stmt[ST_COUNT];                 /* prepared on first use */
	sqlite3_stmt *list_stmt[FILTER_COMBINATIONS]; /* list queries by filter bits */
	struct catalog *next;                         /* in its pool's list */
};

static int catalog_fail(struct catalog *cat, struct error *err, const char *what)
{
	int code = sqlite3_extended_errcode(cat->db);
	enum error_code ec = (code & 0xFF) == SQLITE_BUSY || (code & 0xFF) == SQLITE_LOCKED
	                         ? ERROR_UNAVAILABLE
	                         : ERROR_INTERNAL;

	error_set(err, ec, NULL, -1, "catalogue: %s: %s (SQLite code %d)", what,
	          sqlite3_errmsg(cat->db), code);
	return -1;
}

static sqlite3_stmt *catalog_stmt(struct catalog *cat, enum statement st, struct error *err)
{
	if (!statement_sql[st]) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: statement %d has no SQL",
		          (int)st);
		return NULL;
	}
	if (!cat->stmt[st] &&
	    sqlite3_prepare_v3(cat->db, statement_sql[st], -1, SQLITE_PREPARE_PERSISTENT,
	                       &cat->stmt[st], NULL) != SQLITE_OK) {
		catalog_fail(cat, err, "preparing a statement");
		return NULL;
	}
	sqlite3_reset(cat->stmt[st]);
	sqlite3_clear_bindings(cat->stmt[st]);
	return cat->stmt[st];
}

static int catalog_exec(struct catalog *cat, enum statement st, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, st, err);
	int rc;

	if (!s)
		return -1;
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return catalog_fail(cat, err, statement_sql[st]);
	return 0;
}

static int catalog_migrate(struct catalog *cat, struct error *err)
{
	int version = catalog_schema_version(cat);
	unsigned latest = schema_migrations[schema_migration_count - 1].version;
	char *msg = NULL;

	if (version < 0)
		return catalog_fail(cat, err, "reading PRAGMA user_version");
	if ((unsigned)version > latest) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the database's schema version %d is newer than this "
		          "animdexd knows (%u); use a newer animdexd",
		          version, latest);
		return -1;
	}
	if ((unsigned)version == latest)
		return 0;
	if (sqlite3_exec(cat->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return catalog_fail(cat, err, "starting the migration");
	/* Another connection may have migrated while this one waited for the lock. */
	version = catalog_schema_version(cat);
	for (unsigned i = 0; i < schema_migration_count; i++) {
		const struct schema_migration *m = &schema_migrations[i];
		char pragma[48];
		if (m->version <= (unsigned)version)
			continue;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %u", m->version);
		if (sqlite3_exec(cat->db, m->sql, NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(cat->db, pragma, NULL, NULL, &msg) != SQLITE_OK) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: migration %s: %s",
			          m->file, msg ? msg : "failed");
			sqlite3_free(msg);
			sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (sqlite3_exec(cat->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		catalog_fail(cat, err, "committing the migration");
		sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* Waits for another connection's write lock in short, growing steps (50 us doubling to 2 ms)
 * for up to 10 s. SQLite's own busy timeout sleeps 1, 2, 5, 10... 100 ms, which puts a
 * writer that waited a moment tens of milliseconds behind. */
static int catalog_busy(void *unused, int attempt)
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

struct catalog *catalog_open(const char *path, struct error *err)
{
	static const char *const pragmas = "PRAGMA journal_mode = WAL;"
	                                   "PRAGMA synchronous = NORMAL;"
	                                   "PRAGMA foreign_keys = ON;"
	                                   "PRAGMA temp_store = MEMORY;";
	struct catalog *cat = calloc(1, sizeof(*cat));
	char *msg = NULL;

	if (!cat) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &cat->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                    NULL) != SQLITE_OK) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: cannot open %s: %s", path,
		          cat->db ? sqlite3_errmsg(cat->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_handler(cat->db, catalog_busy, NULL);
	sqlite3_extended_result_codes(cat->db, 1);
	if (sqlite3_exec(cat->db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: %s: %s", path,
		          msg ? msg : "cannot configure");
		sqlite3_free(msg);
		goto fail;
	}
	if (catalog_migrate(cat, err) < 0)
		goto fail;
	return cat;
fail:
	catalog_close(cat);
	return NULL;
}

void catalog_close(struct catalog *cat)
{
	if (!cat)
		return;
	cache_clear(cat);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(cat->stmt[i]);
	for (int i = 0; i < FILTER_COMBINATIONS; i++)
		sqlite3_finalize(cat->list_stmt[i]);
	sqlite3_close(cat->db);
	free(cat);
}

int catalog_schema_version(struct catalog *cat)
{
	sqlite3_stmt *s;
	int version = -1;

	if (sqlite3_prepare_v2(cat->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return version;
}

/* The pool: one connection per thread. */

struct catalog_pool {
	char *path;           /* the database file */
	pthread_key_t key;    /* the calling thread's connection */
	pthread_mutex_t lock; /* guards all */
	struct catalog *all;  /* every connection opened, closed by catalog_pool_free */
};

struct catalog_pool *catalog_pool_create(const char *path)
{
	struct catalog_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return NULL;
	pool->path = strdup(path);
	if (!pool->path || pthread_key_create(&pool->key, NULL) != 0) {
		free(pool->path);
		free(pool);
		return NULL;
	}
	pthread_mutex_init(&pool->lock, NULL);
	return pool;
}

void catalog_pool_free(struct catalog_pool *pool)
{
	struct catalog *cat, *next;

	if (!pool)
		return;
	for (cat = pool->all; cat; cat = next) {
		next = cat->next;
		catalog_close(cat);
	}
	pthread_key_delete(pool->key);
	pthread_mutex_destroy(&pool->lock);
	free(pool->path);
	free(pool);
}

struct catalog *catalog_pool_get(struct catalog_pool *pool, struct error *err)
{
	struct catalog *cat = pthread_getspecific(pool->key);

	if (cat)
		return cat;
	cat = catalog_open(pool->path, err);
	if (!cat)
		return NULL;
	pthread_mutex_lock(&pool->lock);
	cat->next = pool->all;
	pool->all = cat;
	pthread_mutex_unlock(&pool->lock);
	pthread_setspecific(pool->key, cat);
	return cat;
}

/* Rows to JSON. */

static json_t *column_text_or_null(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	return t ? json_string((const char *)t) : json_null();
}

/* A summary from the SUMMARY_COLUMNS of the current row. */
static json_t *row_summary(sqlite3_stmt *s)
{
	int64_t id = sqlite3_column_int64(s, 0);
	uint32_t crc = (uint32_t)sqlite3_column_int64(s, 4);
	char handle[11], when[32], self[48];
	json_t *o = json_object();

	render_handle(crc, handle);
	render_time_ms(sqlite3_column_int64(s, 9), when);
	snprintf(self, sizeof(self), "/api/resources/%" PRId64, id);
	json_object_set_new(o, "id", json_integer(id));
	json_object_set_new(o, "class", column_text_or_null(s, 1));
	json_object_set_new(o, "family", column_text_or_null(s, 2));
	json_object_set_new(o, "name", column_text_or_null(s, 3));
	json_object_set_new(o, "crc32", json_string(handle));
	json_object_set_new(o, "crc32_decimal", json_integer(crc));
	json_object_set_new(o, "crc32_name", column_text_or_null(s, 15));
	json_object_set_new(o, "crc32_source", column_text_or_null(s, 5));
	json_object_set_new(o, "filename", column_text_or_null(s, 6));
	json_object_set_new(o, "note", column_text_or_null(s, 7));
	json_object_set_new(o, "uploaded_by", column_text_or_null(s, 8));
	json_object_set_new(o, "uploaded_at", json_string(when));
	json_object_set_new(o, "duration",
	                    sqlite3_column_type(s, 10) == SQLITE_NULL
	                        ? json_null()
	                        : json_real(sqlite3_column_double(s, 10)));
	json_object_set_new(o, "track_count", json_integer(sqlite3_column_int(s, 11)));
	json_object_set_new(o, "sha256", column_text_or_null(s, 12));
	json_object_set_new(o, "size", json_integer(sqlite3_column_int64(s, 13)));
	json_object_set_new(o, "part", json_integer(sqlite3_column_int(s, 14)));
	json_object_set_new(o, "url", json_string(self));
	return o;
}

static json_t *collect_summaries(struct catalog *cat, sqlite3_stmt *s, struct error *err)
{
	json_t *list = json_array();
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(list, row_summary(s));
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		catalog_fail(cat, err, "reading entries");
		return NULL;
	}
	return list;
}

json_t *catalog_find_by_sha256(struct catalog *cat, const char *sha256, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_FIND_BY_SHA256, err);

	if (!s)
		return NULL;
	sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC);
	return collect_summaries(cat, s, err);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int bind_text_or_null(sqlite3_stmt *s, int col, const char *text)
{
	return text ? sqlite3_bind_text(s, col, text, -1, SQLITE_TRANSIENT)
	            : sqlite3_bind_null(s, col);
}

static int insert_track(struct catalog *cat, int64_t id, const struct resource *res, unsigned n,
                        struct error *err)
{
	const struct channel *ch = &res->clip.channels[n];
	const struct target *tg = &res->clip.targets[ch->target];
	const struct sampler *sp = &res->clip.samplers[ch->sampler];
	const struct track_extra *extra = res->extras ? &res->extras[n] : NULL;
	sqlite3_stmt *s = catalog_stmt(cat, ST_INSERT_TRACK, err);
	char object[24], property[24];
	int rc;

	if (!s)
		return -1;
	snprintf(object, sizeof(object), "%" PRIu64, tg->object);
	snprintf(property, sizeof(property), "%" PRIu64, ch->property);
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, (int)n);
	sqlite3_bind_text(s, 3, res->track_names ? res->track_names[n] : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, tg->schema, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, object, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 6, tg->name);
	sqlite3_bind_text(s, 7, property, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 8, ch->first_element);
	sqlite3_bind_text(s, 9, value_type_name(sp->type), -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 10, sp->array_size);
	sqlite3_bind_text(s, 11, interpolation_name(sp->interp), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 12, semantic_name(sp->semantic), -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 13, sp->key_count);
	sqlite3_bind_double(s, 14, sp->times[0]);
	sqlite3_bind_double(s, 15, sp->times[sp->key_count - 1]);
	sqlite3_bind_blob64(s, 16, sp->times, (sqlite3_uint64)sp->key_count * sizeof(float),
	                    SQLITE_STATIC);
	sqlite3_bind_blob64(s, 17, sp->values ? sp->values : "", sp->value_bytes, SQLITE_STATIC);
	sqlite3_bind_text(s, 18, extra && extra->events ? "events" : "curve", -1, SQLITE_STATIC);
	if (extra && extra->info)
		sqlite3_bind_text(s, 19, json_dumps(extra->info, JSON_COMPACT), -1, free);
	if (extra && extra->has_handle)
		sqlite3_bind_int64(s, 20, extra->handle);
	sqlite3_bind_int(s, 21, (int)sp->rules);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : catalog_fail(cat, err, "storing a track");
}

static int insert_resource(struct catalog *cat, const struct catalog_upload *up,
                           const struct resource *res, unsigned part, int64_t when, int64_t *id,
                           struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_INSERT_RESOURCE, err);
	json_t *structure;
	char *structure_text, *assumed_text;
	int rc;

	if (!s)
		return -1;
	structure = render_structure(res);
	structure_text = structure ? json_dumps(structure, JSON_COMPACT) : NULL;
	assumed_text = json_dumps(res->assumed, JSON_COMPACT);
	json_decref(structure);
	if (!structure_text || !assumed_text) {
		free(structure_text);
		free(assumed_text);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	sqlite3_bind_text(s, 1, up->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, (int)part);
	sqlite3_bind_text(s, 3, res->family, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, res->class_name, -1, SQLITE_STATIC);
	bind_text_or_null(s, 5, res->name);
	sqlite3_bind_int64(s, 6, res->crc32);
	sqlite3_bind_text(s, 7, res->crc32_source, -1, SQLITE_STATIC);
	bind_text_or_null(s, 8, up->filename);
	bind_text_or_null(s, 9, up->note);
	bind_text_or_null(s, 10, up->uploaded_by);
	sqlite3_bind_int64(s, 11, when);
	if (res->clip.sampler_count || res->clip.duration > 0)
		sqlite3_bind_double(s, 12, res->clip.duration);
	else
		sqlite3_bind_null(s, 12);
	sqlite3_bind_int64(s, 13, (sqlite3_int64)res->clip.channel_count);
	sqlite3_bind_text(s, 14, structure_text, -1, free);
	sqlite3_bind_text(s, 15, assumed_text, -1, free);
	sqlite3_bind_int(s, 16, (int)res->decoder_version);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return catalog_fail(cat, err, "storing an entry");
	*id = sqlite3_last_insert_rowid(cat->db);
	return 0;
}

static int insert_refs(struct catalog *cat, int64_t id, const struct resource *res,
                       struct error *err)
{
	for (size_t i = 0; i < res->ref_count; i++) {
		const struct reference *ref = &res->refs[i];
		sqlite3_stmt *s = catalog_stmt(cat, ST_INSERT_REF, err);
		int rc;
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, ref->crc32);
		sqlite3_bind_text(s, 3, ref->kind, -1, SQLITE_STATIC);
		if (ref->track >= 0)
			sqlite3_bind_int(s, 4, ref->track);
		if (ref->key >= 0)
			sqlite3_bind_int(s, 5, ref->key);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return catalog_fail(cat, err, "storing a reference");
	}
	return 0;
}

int64_t catalog_blob_entry_count(struct catalog *cat, const char *sha256, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_BLOB_ENTRY_COUNT, err);
	int64_t n = -1;
	int rc;

	if (!s)
		return -2;
	sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		n = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return catalog_fail(cat, err, "reading the stored bytes' entry count") - 1;
	return n;
}

/* Is a part of these bytes already among the stored entries? */
static int has_part(const json_t *entries, size_t part)
{
	size_t i;
	json_t *e;

	json_array_foreach(entries, i, e) if ((size_t)json_integer_value(
	                                          json_object_get(e, "part")) == part) return 1;
	return 0;
}

static int contains_id(const int64_t *ids, size_t count, int64_t id)
{
	for (size_t i = 0; i < count; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

json_t *catalog_put(struct catalog *cat, const struct catalog_upload *up,
                    const struct decode_result *decoded, int *existed, struct error *err)
{
	int64_t when = now_ms(), *created_ids = NULL;
	size_t created_count = 0;
	sqlite3_stmt *s;
	json_t *stored = NULL, *e;
	int own = sqlite3_get_autocommit(cat->db);
	int rc;
	size_t i;

	*existed = 0;
	if (own && catalog_exec(cat, ST_BEGIN, err) < 0)
		return NULL;
	/* Inside the write lock: a concurrent upload of the same bytes is seen here. */
	stored = catalog_find_by_sha256(cat, up->sha256, err);
	if (!stored)
		goto fail;
	if (json_array_size(stored) == 0) {
		s = catalog_stmt(cat, ST_INSERT_BLOB, err);
		if (!s)
			goto fail;
		sqlite3_bind_text(s, 1, up->sha256, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)up->length);
		sqlite3_bind_blob64(s, 3, up->length ? up->bytes : "", up->length, SQLITE_STATIC);
		bind_text_or_null(s, 4, up->filename);
		sqlite3_bind_int64(s, 5, when);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)decoded->count);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE) {
			catalog_fail(cat, err, "storing the uploaded bytes");
			goto fail;
		}
	} else {
		/* the bytes are here: recreate the entries of them that were deleted */
		s = catalog_stmt(cat, ST_SET_BLOB_ENTRY_COUNT, err);
		if (!s)
			goto fail;
		sqlite3_bind_text(s, 1, up->sha256, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)decoded->count);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE) {
			catalog_fail(cat, err, "counting the stored bytes' entries");
			goto fail;
		}
	}
	created_ids = calloc(decoded->count + 1, sizeof(*created_ids));
	if (!created_ids) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (size_t p = 0; p < decoded->count; p++) {
		const struct resource *res = decoded->resources[p];
		int64_t id = 0;
		if (has_part(stored, p))
			continue;
		if (insert_resource(cat, up, res, (unsigned)p, when, &id, err) < 0 ||
		    insert_refs(cat, id, res, err) < 0)
			goto fail;
		for (size_t n = 0; n < res->clip.channel_count; n++)
			if (insert_track(cat, id, res, (unsigned)n, err) < 0)
				goto fail;
		created_ids[created_count++] = id;
	}
	if (created_count == 0) {
		*existed = 1;
		if (own)
			catalog_exec(cat, ST_ROLLBACK, NULL);
	} else {
		json_decref(stored);
		stored = catalog_find_by_sha256(cat, up->sha256, err);
		if (!stored || (own && catalog_exec(cat, ST_COMMIT, err) < 0))
			goto fail;
	}
	json_array_foreach(stored, i, e)
	{
		int64_t id = (int64_t)json_integer_value(json_object_get(e, "id"));
		json_object_set_new(e, "status",
		                    json_string(contains_id(created_ids, created_count, id)
		                                    ? "created"
		                                    : "existing"));
	}
	free(created_ids);
	return stored;
fail:
	free(created_ids);
	json_decref(stored);
	if (own)
		catalog_exec(cat, ST_ROLLBACK, NULL);
	return NULL;
}

int catalog_begin(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BEGIN, err);
}

int catalog_commit(struct catalog *cat, struct error *err)
{
	if (catalog_exec(cat, ST_COMMIT, err) < 0) {
		catalog_rollback(cat);
		return -1;
	}
	return 0;
}

void catalog_rollback(struct catalog *cat)
{
	if (!sqlite3_get_autocommit(cat->db))
		catalog_exec(cat, ST_ROLLBACK, NULL);
}

/* List with filters and keyset paging. */

static sqlite3_stmt *list_statement(struct catalog *cat, unsigned bits, struct error *err)
{
	struct buf sql;

	if (cat->list_stmt[bits]) {
		sqlite3_reset(cat->list_stmt[bits]);
		sqlite3_clear_bindings(cat->list_stmt[bits]);
		return cat->list_stmt[bits];
	}
	buf_init(&sql, 4096);
	buf_puts(&sql, "SELECT " SUMMARY_COLUMNS SUMMARY_FROM "WHERE 1");
	if (bits & FILTER_CLASS)
		buf_puts(&sql, " AND r.class = ?1");
	if (bits & FILTER_FAMILY)
		buf_puts(&sql, " AND r.family = ?2");
	if (bits & FILTER_NAME)
		buf_puts(&sql, " AND r.name = ?3 COLLATE NOCASE");
	if (bits & FILTER_Q)
		buf_puts(&sql, " AND (r.name LIKE ?4 ESCAPE '\\' OR r.class LIKE ?4 ESCAPE '\\'"
		               " OR r.filename LIKE ?4 ESCAPE '\\' OR r.note LIKE ?4 ESCAPE '\\')");
	if (bits & FILTER_CRC32)
		buf_puts(&sql, " AND r.crc32 = ?5");
	if (bits & FILTER_CURSOR)
		buf_puts(&sql, " AND r.id < ?6");
	buf_puts(&sql, " ORDER BY r.id DESC LIMIT ?7");
	if (!sql.data || sqlite3_prepare_v3(cat->db, sql.data, -1, SQLITE_PREPARE_PERSISTENT,
	                                    &cat->list_stmt[bits], NULL) != SQLITE_OK) {
		buf_cleanup(&sql);
		catalog_fail(cat, err, "preparing the list query");
		return NULL;
	}
	buf_cleanup(&sql);
	return cat->list_stmt[bits];
}

/* "%q%" with LIKE's wildcards escaped. */
static char *like_pattern(const char *q)
{
	size_t n = strlen(q);
	char *p = malloc(2 * n + 3), *o = p;

	if (!p)
		return NULL;
	*o++ = '%';
	for (; *q; q++) {
		if (*q == '%' || *q == '_' || *q == '\\')
			*o++ = '\\';
		*o++ = *q;
	}
	*o++ = '%';
	*o = '\0';
	return p;
}

json_t *catalog_list(struct catalog *cat, const struct catalog_query *q, struct error *err)
{
	unsigned bits = (q->class_name ? FILTER_CLASS : 0) | (q->family ? FILTER_FAMILY : 0) |
	                (q->name ? FILTER_NAME : 0) | (q->q ? FILTER_Q : 0) |
	                (q->has_crc32 ? FILTER_CRC32 : 0) | (q->before_id > 0 ? FILTER_CURSOR : 0);
	sqlite3_stmt *s = list_statement(cat, bits, err);
	json_t *list, *out;
	size_t count;

	if (!s)
		return NULL;
	if (q->class_name)
		sqlite3_bind_text(s, 1, q->class_name, -1, SQLITE_STATIC);
	if (q->family)
		sqlite3_bind_text(s, 2, q->family, -1, SQLITE_STATIC);
	if (q->name)
		sqlite3_bind_text(s, 3, q->name, -1, SQLITE_STATIC);
	if (q->q)
		sqlite3_bind_text(s, 4, like_pattern(q->q), -1, free);
	if (q->has_crc32)
		sqlite3_bind_int64(s, 5, q->crc32);
	if (q->before_id > 0)
		sqlite3_bind_int64(s, 6, q->before_id);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)q->limit + 1);
	list = collect_summaries(cat, s, err);
	if (!list)
		return NULL;
	out = json_object();
	count = json_array_size(list);
	if (count > q->limit) {
		char cursor[24];
		json_array_remove(list, count - 1);
		snprintf(cursor, sizeof(cursor), "%" PRId64,
		         (int64_t)json_integer_value(
		             json_object_get(json_array_get(list, q->limit - 1), "id")));
		json_object_set_new(out, "next_cursor", json_string(cursor));
	}
	json_object_set_new(out, "resources", list);
	return out;
}

int catalog_select_matching(struct catalog *cat, const struct catalog_query *given, size_t max,
                            int64_t **ids, size_t *count, struct error *err)
{
	struct catalog_query q = *given;
	size_t cap = 0;

	*ids = NULL;
	*count = 0;
	q.before_id = 0;
	q.limit = 500;
	for (;;) {
		json_t *page = catalog_list(cat, &q, err), *e;
		const char *cursor;
		size_t i;
		if (!page)
			goto fail;
		json_array_foreach(json_object_get(page, "resources"), i, e)
		{
			if (*count == max) {
				json_decref(page);
				error_set(
				    err, ERROR_TOO_LARGE, NULL, -1,
				    "the filters select more than %zu entries, the most one export "
				    "may hold; narrow them",
				    max);
				goto fail;
			}
			if (*count == cap) {
				int64_t *grown =
				    realloc(*ids, (cap = cap ? 2 * cap : 64) * sizeof(**ids));
				if (!grown) {
					json_decref(page);
					error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
					goto fail;
				}
				*ids = grown;
			}
			(*ids)[(*count)++] = json_integer_value(json_object_get(e, "id"));
		}
		cursor = json_string_value(json_object_get(page, "next_cursor"));
		q.before_id = cursor ? strtoll(cursor, NULL, 10) : 0;
		json_decref(page);
		if (!q.before_id)
			return 0;
	}
fail:
	free(*ids);
	*ids = NULL;
	*count = 0;
	return -1;
}

static json_t *track_row(sqlite3_stmt *s, int with_info)
{
	const char *schema = (const char *)sqlite3_column_text(s, 2);
	uint64_t property = strtoull((const char *)sqlite3_column_text(s, 5), NULL, 10);
	uint64_t object = strtoull((const char *)sqlite3_column_text(s, 3), NULL, 10);
	const char *prop_name = schema_property_name(schema, property);
	const char *info = (const char *)sqlite3_column_text(s, 15);
	json_t *o = json_object(), *target = json_object();
	char handle[11];

	json_object_set_new(target, "schema", json_string(schema));
	json_object_set_new(target, "object", render_u64(object));
	json_object_set_new(target, "name", column_text_or_null(s, 4));
	if (sqlite3_column_type(s, 16) != SQLITE_NULL) {
		render_handle((uint32_t)sqlite3_column_int64(s, 16), handle);
		json_object_set_new(target, "handle", json_string(handle));
		json_object_set_new(target, "handle_name", column_text_or_null(s, 17));
	}
	json_object_set_new(o, "n", json_integer(sqlite3_column_int(s, 0)));
	json_object_set_new(o, "name", column_text_or_null(s, 1));
	json_object_set_new(o, "kind", column_text_or_null(s, 14));
	json_object_set_new(o, "target", target);
	json_object_set_new(o, "property", render_u64(property));
	json_object_set_new(o, "property_name", prop_name ? json_string(prop_name) : json_null());
	json_object_set_new(o, "first_array_element", json_integer(sqlite3_column_int64(s, 6)));
	json_object_set_new(o, "type", column_text_or_null(s, 7));
	json_object_set_new(o, "array_size", json_integer(sqlite3_column_int64(s, 8)));
	json_object_set_new(o, "interpolation", column_text_or_null(s, 9));
	json_object_set_new(o, "semantic", column_text_or_null(s, 10));
	json_object_set_new(o, "key_count", json_integer(sqlite3_column_int64(s, 11)));
	json_object_set_new(
	    o, "time_range",
	    json_pack("[f, f]", sqlite3_column_double(s, 12), sqlite3_column_double(s, 13)));
	if (strcmp((const char *)sqlite3_column_text(s, 14), "events") != 0) {
		unsigned rules = (unsigned)sqlite3_column_int(s, 18);
		json_object_set_new(o, "before_first_key",
		                    json_string(rules & RULE_LAST_BEFORE_FIRST
		                                    ? "last key's value"
		                                    : "first key's value"));
		if (rules & RULE_W_ONE_BETWEEN_KEYS)
			json_object_set_new(o, "w_between_keys", json_integer(1));
	}
	if (info && with_info)
		json_object_set_new(o, "info", json_loads(info, 0, NULL));
	return o;
}

/* Steps a statement whose ?1 is a resource id: 0 with a row ready, -1 (reset, err set to
 * not_found or the SQLite failure) otherwise. */
static int step_resource(struct catalog *cat, sqlite3_stmt *s, int64_t id, const char *what,
                         struct error *err)
{
	int rc;

	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		return 0;
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		error_set(err, ERROR_NOT_FOUND, "id", -1, "no resource has id %" PRId64, id);
	else
		catalog_fail(cat, err, what);
	return -1;
}

/* An entry's summary and tracks, with its structure and assumed notes when asked. */
static json_t *entry_json(struct catalog *cat, int64_t id, int structure, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_GET_RESOURCE, err);
	json_t *entry, *tracks;
	int rc;

	if (!s)
		return NULL;
	if (step_resource(cat, s, id, "reading an entry", err) < 0)
		return NULL;
	entry = row_summary(s);
	if (structure) {
		json_object_set_new(entry, "structure",
		                    json_loads((const char *)sqlite3_column_text(s, 16), 0, NULL));
		json_object_set_new(entry, "assumed",
		                    json_loads((const char *)sqlite3_column_text(s, 17), 0, NULL));
	}
	sqlite3_reset(s);
	s = catalog_stmt(cat, ST_GET_TRACKS, err);
	if (!s) {
		json_decref(entry);
		return NULL;
	}
	sqlite3_bind_int64(s, 1, id);
	tracks = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(tracks, track_row(s, structure));
	sqlite3_reset(s);
	json_object_set_new(entry, "tracks", tracks);
	if (rc != SQLITE_DONE) {
		json_decref(entry);
		catalog_fail(cat, err, "reading tracks");
		return NULL;
	}
	return entry;
}

json_t *catalog_get(struct catalog *cat, int64_t id, struct error *err)
{
	return entry_json(cat, id, 1, err);
}

json_t *catalog_get_tracks(struct catalog *cat, int64_t id, struct error *err)
{
	return entry_json(cat, id, 0, err);
}

int catalog_get_raw(struct catalog *cat, int64_t id, void **bytes, size_t *length, char **filename,
                    struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_GET_RAW, err);
	const unsigned char *name;

	if (!s)
		return -1;
	if (step_resource(cat, s, id, "reading the uploaded bytes", err) < 0)
		return -1;
	*length = (size_t)sqlite3_column_bytes(s, 0);
	*bytes = malloc(*length ? *length : 1);
	name = sqlite3_column_text(s, 1);
	*filename = name ? strdup((const char *)name) : NULL;
	if (!*bytes) {
		sqlite3_reset(s);
		free(*filename);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (*length)
		memcpy(*bytes, sqlite3_column_blob(s, 0), *length);
	sqlite3_reset(s);
	return 0;
}

int catalog_delete(struct catalog *cat, int64_t id, struct error *err)
{
	sqlite3_stmt *s;
	char *sha = NULL;
	int rc;

	if (catalog_exec(cat, ST_BEGIN, err) < 0)
		return -1;
	s = catalog_stmt(cat, ST_GET_BLOB_OF, err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		sha = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_reset(s);
	if (rc == SQLITE_DONE) {
		error_set(err, ERROR_NOT_FOUND, "id", -1, "no resource has id %" PRId64, id);
		goto fail;
	}
	if (!sha) {
		catalog_fail(cat, err, "finding the entry");
		goto fail;
	}
	s = catalog_stmt(cat, ST_DELETE_RESOURCE, err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		catalog_fail(cat, err, "deleting the entry");
		goto fail;
	}
	s = catalog_stmt(cat, ST_DELETE_UNUSED_BLOB, err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		catalog_fail(cat, err, "deleting the uploaded bytes");
		goto fail;
	}
	if (catalog_exec(cat, ST_COMMIT, err) < 0)
		goto fail;
	__atomic_add_fetch(&catalog_generation, 1, __ATOMIC_ACQ_REL); /* every cache drops it */
	free(sha);
	return 0;
fail:
	free(sha);
	catalog_exec(cat, ST_ROLLBACK, NULL);
	return -1;
}

static int load_track_from_db(struct catalog *cat, int64_t id, unsigned n,
                              struct catalog_track *out, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_LOAD_TRACK, err);
	struct sampler *sp = &out->sampler;
	size_t times_len, values_len;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, n);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return catalog_fail(cat, err, "reading a track");
		error_set(err, ERROR_NOT_FOUND, "n", -1,
		          "resource %" PRId64 " has no track %u (or does not exist)", id, n);
		return -1;
	}
	out->resource_id = id;
	out->n = n;
	out->name = strdup((const char *)sqlite3_column_text(s, 0));
	sp->type = value_type_from_name((const char *)sqlite3_column_text(s, 1));
	sp->array_size = (uint32_t)sqlite3_column_int64(s, 2);
	interpolation_from_name((const char *)sqlite3_column_text(s, 3), &sp->interp);
	semantic_from_name((const char *)sqlite3_column_text(s, 4), &sp->semantic);
	sp->key_count = (uint32_t)sqlite3_column_int64(s, 5);
	times_len = (size_t)sqlite3_column_bytes(s, 6);
	values_len = (size_t)sqlite3_column_bytes(s, 7);
	sp->value_bytes = values_len;
	out->events = strcmp((const char *)sqlite3_column_text(s, 8), "events") == 0;
	sp->rules = (unsigned)sqlite3_column_int(s, 9) & RULES_KNOWN;
	/* Copies: SQLite's blob pointers carry no alignment promise. */
	sp->times = malloc(times_len ? times_len : 1);
	sp->values = malloc(values_len ? values_len : 1);
	if (!out->name || !sp->times || !sp->values) {
		sqlite3_reset(s);
		catalog_track_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (times_len)
		memcpy(sp->times, sqlite3_column_blob(s, 6), times_len);
	if (values_len)
		memcpy(sp->values, sqlite3_column_blob(s, 7), values_len);
	sqlite3_reset(s);
	if (times_len != (size_t)sp->key_count * sizeof(float) || sp->key_count == 0 ||
	    sp->type == VALUE_UNKNOWN ||
	    values_len != sampler_components(sp) * value_type_component_size(sp->type) *
	                      sp->key_count * (sp->interp == INTERP_CUBIC_SPLINE ? 3 : 1)) {
		catalog_track_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: track %u of resource %" PRId64 " is damaged (key arrays of "
		          "the wrong size)",
		          n, id);
		return -1;
	}
	return 0;
}

static void cache_clear(struct catalog *cat)
{
	for (int i = 0; i < TRACK_CACHE_SIZE; i++) {
		if (cat->cache[i].track.name)
			catalog_track_cleanup(&cat->cache[i].track);
		cat->cache[i].used = 0;
	}
}

int catalog_load_track(struct catalog *cat, int64_t id, unsigned n, struct catalog_track *out,
                       struct error *err)
{
	uint64_t generation = __atomic_load_n(&catalog_generation, __ATOMIC_ACQUIRE);
	struct cached_track *slot = &cat->cache[0];

	if (cat->cache_generation != generation) {
		cache_clear(cat);
		cat->cache_generation = generation;
	}
	for (int i = 0; i < TRACK_CACHE_SIZE; i++) {
		struct cached_track *c = &cat->cache[i];
		if (c->track.name && c->track.resource_id == id && c->track.n == n) {
			c->used = ++cat->cache_clock;
			*out = c->track;
			out->borrowed = 1;
			return 0;
		}
		if (c->used < slot->used)
			slot = c;
	}
	if (load_track_from_db(cat, id, n, out, err) < 0)
		return -1;
	if (out->sampler.value_bytes + (size_t)out->sampler.key_count * 4 > TRACK_CACHE_MAX_BYTES)
		return 0; /* too big to keep: the caller owns it */
	if (slot->track.name)
		catalog_track_cleanup(&slot->track);
	slot->track = *out;
	slot->used = ++cat->cache_clock;
	out->borrowed = 1;
	return 0;
}

void catalog_track_cleanup(struct catalog_track *track)
{
	if (track->borrowed) {
		memset(track, 0, sizeof(*track));
		return;
	}
	free(track->name);
	free(track->sampler.times);
	free(track->sampler.values);
	memset(track, 0, sizeof(*track));
}

json_t *catalog_handle(struct catalog *cat, uint32_t crc32, struct error *err)
{
	sqlite3_stmt *s;
	json_t *out, *resources, *refs, *names;
	char handle[11];
	int rc;

	s = catalog_stmt(cat, ST_HANDLE_RESOURCES, err);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, crc32);
	resources = collect_summaries(cat, s, err);
	if (!resources)
		return NULL;
	refs = json_array();
	names = json_array();
	s = catalog_stmt(cat, ST_HANDLE_REFS, err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, crc32);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(refs,
		                      json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "resource_id",
		                                (json_int_t)sqlite3_column_int64(s, 0), "kind",
		                                column_text_or_null(s, 1), "track",
		                                sqlite3_column_type(s, 2) == SQLITE_NULL
		                                    ? json_null()
		                                    : json_integer(sqlite3_column_int(s, 2)),
		                                "key",
		                                sqlite3_column_type(s, 3) == SQLITE_NULL
		                                    ? json_null()
		                                    : json_integer(sqlite3_column_int(s, 3)),
		                                "class", column_text_or_null(s, 4), "name",
		                                column_text_or_null(s, 5)));
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		catalog_fail(cat, err, "reading references");
		goto fail;
	}
	s = catalog_stmt(cat, ST_HANDLE_NAMES, err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, crc32);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *hashes = json_array();
		if (sqlite3_column_int(s, 1))
			json_array_append_new(hashes, json_string("asobo32"));
		if (sqlite3_column_int(s, 2))
			json_array_append_new(hashes, json_string("crc32"));
		json_array_append_new(
		    names,
		    json_pack("{s:o, s:o}", "name", column_text_or_null(s, 0), "hashes", hashes));
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		catalog_fail(cat, err, "reading names");
		goto fail;
	}
	render_handle(crc32, handle);
	out = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "crc32", handle, "crc32_decimal",
	                (json_int_t)crc32, "crc32_signed", (json_int_t)(int32_t)crc32, "resources",
	                resources, "references", refs, "names", names);
	return out;
fail:
	json_decref(resources);
	json_decref(refs);
	json_decref(names);
	return NULL;
}

json_t *catalog_classes(struct catalog *cat, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_CLASSES, err);
	json_t *list;
	int rc;

	if (!s)
		return NULL;
	list = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(list, json_pack("{s:o, s:o, s:I}", "class",
		                                      column_text_or_null(s, 0), "family",
		                                      column_text_or_null(s, 1), "count",
		                                      (json_int_t)sqlite3_column_int64(s, 2)));
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		catalog_fail(cat, err, "counting classes");
		return NULL;
	}
	return list;
}

json_t *catalog_stats(struct catalog *cat, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_STATS, err);
	json_t *out;

	if (!s)
		return NULL;
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_reset(s);
		catalog_fail(cat, err, "counting entries");
		return NULL;
	}
	out = json_pack(
	    "{s:I, s:I, s:I, s:I, s:i}", "resources", (json_int_t)sqlite3_column_int64(s, 0),
	    "tracks", (json_int_t)sqlite3_column_int64(s, 1), "blobs",
	    (json_int_t)sqlite3_column_int64(s, 2), "bytes", (json_int_t)sqlite3_column_int64(s, 3),
	    "schema_version", catalog_schema_version(cat));
	sqlite3_reset(s);
	return out;
}

int catalog_count(struct catalog *cat, const char *table, int64_t *out, struct error *err)
{
	static const char *const tables[] = {"blobs", "resources", "tracks", "refs", "names"};
	char sql[64];
	sqlite3_stmt *s;
	int known = 0;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		known |= strcmp(table, tables[i]) == 0;
	if (!known) {
		error_set(err, ERROR_BAD_PARAMETER, "table", -1, "no table named %s", table);
		return -1;
	}
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	if (sqlite3_prepare_v2(cat->db, sql, -1, &s, NULL) != SQLITE_OK)
		return catalog_fail(cat, err, "counting rows");
	*out = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	return 0;
}

#define NAME_MAX_LENGTH 1024
#define NAMES_LISTED    1000

json_t *catalog_add_names(struct catalog *cat, const char *text, size_t length, struct error *err)
{
	json_int_t added = 0, known = 0;
	json_t *listed = json_array();
	size_t line = 0;

	if (catalog_exec(cat, ST_BEGIN, err) < 0) {
		json_decref(listed);
		return NULL;
	}
	for (size_t pos = 0; pos < length;) {
		const char *start = text + pos, *nl = memchr(start, '\n', length - pos);
		size_t len = nl ? (size_t)(nl - start) : length - pos;
		sqlite3_stmt *s;
		char handle[2][11];

		pos += len + (nl != NULL);
		line++;
		while (len > 0 &&
		       (start[len - 1] == '\r' || start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		while (len > 0 && (*start == ' ' || *start == '\t'))
			start++, len--;
		if (len == 0 || *start == '#')
			continue;
		if (len > NAME_MAX_LENGTH || memchr(start, '\0', len) || !utf8_valid(start, len)) {
			error_set(err, ERROR_BAD_PARAMETER, "names", (long long)(start - text),
			          "names: line %zu is %s; a name is UTF-8 text of at most %d bytes",
			          line, len > NAME_MAX_LENGTH ? "too long" : "not UTF-8 text",
			          NAME_MAX_LENGTH);
			goto fail;
		}
		s = catalog_stmt(cat, ST_ADD_NAME, err);
		if (!s)
			goto fail;
		uint32_t a = hash_asobo32(start, len), c = hash_crc32_lower(start, len);
		sqlite3_bind_text(s, 1, start, (int)len, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, a);
		sqlite3_bind_int64(s, 3, c);
		if (sqlite3_step(s) != SQLITE_DONE) {
			sqlite3_reset(s);
			catalog_fail(cat, err, "storing a name");
			goto fail;
		}
		sqlite3_reset(s);
		if (sqlite3_changes(cat->db) > 0)
			added++;
		else
			known++;
		if (json_array_size(listed) < NAMES_LISTED) {
			render_handle(a, handle[0]);
			render_handle(c, handle[1]);
			json_array_append_new(listed,
			                      json_pack("{s:s%, s:s, s:s}", "name", start, len,
			                                "asobo32", handle[0], "crc32", handle[1]));
		}
	}
	if (catalog_exec(cat, ST_COMMIT, err) < 0)
		goto fail;
	return json_pack("{s:I, s:I, s:o}", "added", added, "known", known, "names", listed);
fail:
	json_decref(listed);
	catalog_exec(cat, ST_ROLLBACK, NULL);
	return NULL;
}

int catalog_handle_name(struct catalog *cat, uint32_t handle, int asobo32, char *out, size_t size)
{
	sqlite3_stmt *s = catalog_stmt(cat, asobo32 ? ST_NAME_BY_ASOBO32 : ST_NAME_BY_CRC32, NULL);
	int found = -1;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, handle);
	if (sqlite3_step(s) == SQLITE_ROW) {
		snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
		found = 0;
	}
	sqlite3_reset(s);
	return found;
}

int catalog_token_add(struct catalog *cat, const char *name, const char *token_sha256,
                      struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_TOKEN_ADD, err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, token_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, now_ms());
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if ((rc & 0xFF) == SQLITE_CONSTRAINT) {
		error_set(
		    err, ERROR_CONFLICT, "name", -1,
		    "name: a token named '%s' already exists (revoked tokens keep their name)",
		    name);
		return -1;
	}
	return rc == SQLITE_DONE ? 0 : catalog_fail(cat, err, "storing a token");
}

int catalog_token_revoke(struct catalog *cat, const char *name, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_TOKEN_REVOKE, err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, now_ms());
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return catalog_fail(cat, err, "revoking a token");
	if (sqlite3_changes(cat->db) == 0) {
		error_set(err, ERROR_NOT_FOUND, "name", -1, "name: no valid token is named '%s'",
		          name);
		return -1;
	}
	return 0;
}

json_t *catalog_token_list(struct catalog *cat, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_TOKEN_LIST, err);
	json_t *list;
	char when[32];

	if (!s)
		return NULL;
	list = json_array();
	while (sqlite3_step(s) == SQLITE_ROW) {
		json_t *row = json_object();
		json_object_set_new(row, "name", column_text_or_null(s, 0));
		render_time_ms(sqlite3_column_int64(s, 1), when);
		json_object_set_new(row, "created_at", json_string(when));
		if (sqlite3_column_type(s, 2) != SQLITE_NULL) {
			render_time_ms(sqlite3_column_int64(s, 2), when);
			json_object_set_new(row, "revoked_at", json_string(when));
		} else {
			json_object_set_new(row, "revoked_at", json_null());
		}
		json_array_append_new(list, row);
	}
	sqlite3_reset(s);
	return list;
}

int catalog_token_count(struct catalog *cat)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_TOKEN_ALL, NULL);
	int n = 0;

	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW)
		n += !sqlite3_column_int(s, 2);
	sqlite3_reset(s);
	return n;
}

enum token_check catalog_token_check(struct catalog *cat, const char *token, char *name,
                                     size_t name_size)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_TOKEN_ALL, NULL);
	enum token_check result = TOKEN_NONE_EXIST;
	char given[SHA256_HEX_SIZE];

	if (!s)
		return TOKEN_WRONG; /* fail closed */
	if (token)
		sha256_hex(token, strlen(token), given);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *hash = (const char *)sqlite3_column_text(s, 1);
		unsigned char diff = 0;
		if (result == TOKEN_NONE_EXIST)
			result = token ? TOKEN_WRONG : TOKEN_MISSING;
		if (!token || !hash || strlen(hash) != SHA256_HEX_SIZE - 1)
			continue;
		/* constant time: every byte is compared, whatever differs */
		for (size_t i = 0; i < SHA256_HEX_SIZE - 1; i++)
			diff |= (unsigned char)(hash[i] ^ given[i]);
		if (diff == 0) {
			result = sqlite3_column_int(s, 2) ? TOKEN_REVOKED : TOKEN_VALID;
			snprintf(name, name_size, "%s", (const char *)sqlite3_column_text(s, 0));
		}
	}
	sqlite3_reset(s);
	return result;
}

/* Decoder versions and redecoding. */

int64_t catalog_outdated(struct catalog *cat, struct error *err)
{
	size_t count;
	const struct format *const *formats = format_table(&count);
	int64_t total = 0;

	for (size_t i = 0; i < count; i++) {
		sqlite3_stmt *s = catalog_stmt(cat, ST_OUTDATED, err);
		if (!s)
			return -1;
		sqlite3_bind_text(s, 1, formats[i]->family, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 2, (int)formats[i]->version);
		if (sqlite3_step(s) != SQLITE_ROW) {
			sqlite3_reset(s);
			return catalog_fail(cat, err, "counting outdated entries");
		}
		total += sqlite3_column_int64(s, 0);
		sqlite3_reset(s);
	}
	return total;
}

int catalog_select_ids(struct catalog *cat, const char *family, const char *class_name, int64_t id,
                       int64_t **ids, size_t *count, struct error *err)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*count = 0;
	if (sqlite3_prepare_v2(cat->db,
	                       "SELECT id FROM resources WHERE (?1 IS NULL OR family = ?1) AND "
	                       "(?2 IS NULL OR class = ?2) AND (?3 = 0 OR id = ?3) ORDER BY id",
	                       -1, &s, NULL) != SQLITE_OK)
		return catalog_fail(cat, err, "selecting entries");
	bind_text_or_null(s, 1, family);
	bind_text_or_null(s, 2, class_name);
	sqlite3_bind_int64(s, 3, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*count == cap) {
			int64_t *grown = realloc(*ids, (cap = cap ? 2 * cap : 256) * sizeof(**ids));
			if (!grown) {
				rc = SQLITE_NOMEM;
				break;
			}
			*ids = grown;
		}
		(*ids)[(*count)++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*count = 0;
		if (rc == SQLITE_NOMEM) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		return catalog_fail(cat, err, "selecting entries");
	}
	return 0;
}

int catalog_get_stored(struct catalog *cat, int64_t id, struct catalog_stored *out,
                       struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, ST_GET_STORED, err);
	const unsigned char *filename;

	memset(out, 0, sizeof(*out));
	if (!s || step_resource(cat, s, id, "reading an entry's bytes", err) < 0)
		return -1;
	out->id = id;
	out->part = (unsigned)sqlite3_column_int(s, 0);
	snprintf(out->family, sizeof(out->family), "%s", sqlite3_column_text(s, 1));
	snprintf(out->class_name, sizeof(out->class_name), "%s", sqlite3_column_text(s, 2));
	out->decoder_version = (unsigned)sqlite3_column_int(s, 3);
	snprintf(out->crc32_source, sizeof(out->crc32_source), "%s", sqlite3_column_text(s, 4));
	out->structure = json_loads((const char *)sqlite3_column_text(s, 5), 0, NULL);
	filename = sqlite3_column_text(s, 6);
	out->filename = filename ? strdup((const char *)filename) : NULL;
	out->length = (size_t)sqlite3_column_bytes(s, 7);
	out->bytes = malloc(out->length ? out->length : 1);
	if (out->bytes && out->length)
		memcpy(out->bytes, sqlite3_column_blob(s, 7), out->length);
	sqlite3_reset(s);
	if (!out->bytes || (filename && !out->filename)) {
		catalog_stored_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

void catalog_stored_cleanup(struct catalog_stored *stored)
{
	free(stored->bytes);
	free(stored->filename);
	json_decref(stored->structure);
	memset(stored, 0, sizeof(*stored));
}

/* One SHA-256 per row of a statement bound to a resource id: every column, typed, so two
 * rows digest alike exactly when they hold the same values. */
static int row_digests(struct catalog *cat, enum statement st, int64_t id,
                       uint8_t (**digests)[SHA256_DIGEST_SIZE], size_t *count, struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, st, err);
	size_t cap = 0;
	int rc;

	*digests = NULL;
	*count = 0;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sha256 h;
		if (*count == cap) {
			void *grown =
			    realloc(*digests, (cap = cap ? 2 * cap : 16) * sizeof(**digests));
			if (!grown) {
				rc = SQLITE_NOMEM;
				break;
			}
			*digests = grown;
		}
		sha256_init(&h);
		for (int c = 0; c < sqlite3_column_count(s); c++) {
			uint8_t type = (uint8_t)sqlite3_column_type(s, c);
			uint64_t len;
			const void *p = type == SQLITE_BLOB
			                    ? sqlite3_column_blob(s, c)
			                    : (const void *)sqlite3_column_text(s, c);
			len = (uint64_t)sqlite3_column_bytes(s, c);
			sha256_update(&h, &type, 1);
			sha256_update(&h, &len, sizeof(len));
			if (p && len)
				sha256_update(&h, p, (size_t)len);
		}
		sha256_final(&h, (*digests)[(*count)++]);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		free(*digests);
		*digests = NULL;
		if (rc == SQLITE_NOMEM) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		return catalog_fail(cat, err, "reading tracks");
	}
	return 0;
}

static int exec_for_id(struct catalog *cat, enum statement st, int64_t id, const char *what,
                       struct error *err)
{
	sqlite3_stmt *s = catalog_stmt(cat, st, err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : catalog_fail(cat, err, what);
}

int catalog_replace_decoded(struct catalog *cat, int64_t id, const struct resource *res,
                            struct catalog_changes *changes, struct error *err)
{
	uint8_t(*before)[SHA256_DIGEST_SIZE] = NULL, (*after)[SHA256_DIGEST_SIZE] = NULL;
	uint8_t(*refs_before)[SHA256_DIGEST_SIZE] = NULL, (*refs_after)[SHA256_DIGEST_SIZE] = NULL;
	size_t nb = 0, na = 0, rb = 0, ra = 0;
	struct catalog_stored old = {0};
	char *structure_text = NULL, *assumed_text = NULL, *old_assumed = NULL;
	sqlite3_int64 old_handle = 0;
	json_t *structure = NULL;
	sqlite3_stmt *s;
	int rc = -1;

	memset(changes, 0, sizeof(*changes));
	if (catalog_exec(cat, ST_BEGIN, err) < 0)
		return -1;
	if (catalog_get_stored(cat, id, &old, err) < 0 ||
	    row_digests(cat, ST_TRACK_DIGESTS, id, &before, &nb, err) < 0 ||
	    row_digests(cat, ST_REF_DIGESTS, id, &refs_before, &rb, err) < 0)
		goto done;
	s = catalog_stmt(cat, ST_GET_RESOURCE, err);
	if (!s || step_resource(cat, s, id, "reading an entry", err) < 0)
		goto done;
	old_assumed = strdup((const char *)sqlite3_column_text(s, 17));
	old_handle = sqlite3_column_int64(s, 4);
	sqlite3_reset(s);
	structure = render_structure(res);
	structure_text = structure ? json_dumps(structure, JSON_COMPACT) : NULL;
	assumed_text = json_dumps(res->assumed, JSON_COMPACT);
	if (!old_assumed || !structure_text || !assumed_text) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	if (exec_for_id(cat, ST_DELETE_TRACKS, id, "removing the old tracks", err) < 0 ||
	    exec_for_id(cat, ST_DELETE_REFS, id, "removing the old references", err) < 0 ||
	    insert_refs(cat, id, res, err) < 0)
		goto done;
	for (size_t n = 0; n < res->clip.channel_count; n++)
		if (insert_track(cat, id, res, (unsigned)n, err) < 0)
			goto done;
	s = catalog_stmt(cat, ST_UPDATE_DECODED, err);
	if (!s)
		goto done;
	sqlite3_bind_int64(s, 1, id);
	if (res->clip.sampler_count || res->clip.duration > 0)
		sqlite3_bind_double(s, 2, res->clip.duration);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)res->clip.channel_count);
	sqlite3_bind_text(s, 4, structure_text, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, assumed_text, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 6, (int)res->decoder_version);
	/* the handle stays, unless the entry never had one of its own (an older decoder left
	 * crc32_source empty) */
	if (old.crc32_source[0]) {
		sqlite3_bind_int64(s, 7, old_handle);
		sqlite3_bind_text(s, 8, old.crc32_source, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_int64(s, 7, res->crc32);
		sqlite3_bind_text(s, 8, res->crc32_source, -1, SQLITE_STATIC);
		changes->handle = 1;
	}
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		rc = catalog_fail(cat, err, "updating the entry");
		goto done;
	}
	rc = -1;
	if (row_digests(cat, ST_TRACK_DIGESTS, id, &after, &na, err) < 0 ||
	    row_digests(cat, ST_REF_DIGESTS, id, &refs_after, &ra, err) < 0)
		goto done;
	for (size_t n = 0; n < na || n < nb; n++) {
		if (n >= nb)
			changes->tracks_added++;
		else if (n >= na)
			changes->tracks_removed++;
		else if (memcmp(before[n], after[n], SHA256_DIGEST_SIZE) != 0)
			changes->tracks_changed++;
	}
	{
		char *old_structure =
		    old.structure ? json_dumps(old.structure, JSON_COMPACT) : NULL;
		changes->structure = !old_structure || strcmp(old_structure, structure_text) != 0 ||
		                     strcmp(old_assumed, assumed_text) != 0;
		free(old_structure);
	}
	changes->references =
	    ra != rb || (ra && memcmp(refs_before, refs_after, ra * SHA256_DIGEST_SIZE) != 0);
	changes->changed = changes->tracks_added || changes->tracks_removed ||
	                   changes->tracks_changed || changes->structure || changes->references ||
	                   changes->handle;
	if (catalog_exec(cat, ST_COMMIT, err) < 0)
		goto done;
	__atomic_add_fetch(&catalog_generation, 1, __ATOMIC_ACQ_REL); /* no stale cached track */
	rc = 0;
done:
	if (rc < 0)
		catalog_rollback(cat);
	free(before);
	free(after);
	free(refs_before);
	free(refs_after);
	free(structure_text);
	free(assumed_text);
	free(old_assumed);
	json_decref(structure);
	catalog_stored_cleanup(&old);
	return rc;
}
