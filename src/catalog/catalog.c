/* catalog.c: the catalogue (doc/design.md, "Storage"), whatever database holds it: opening,
 * closing and describing it, transactions, and the small helpers its other files share
 * (catalog_internal.h lists them). A --db that is a PostgreSQL connection string opens
 * PostgreSQL; anything else is a SQLite file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog_internal.h"

struct db *catalog_db(struct catalog *cat)
{
	return cat->db;
}

/* Runs a statement that returns no rows (or whose rows do not matter). A transaction's
 * events are written before its COMMIT, and follow its savepoints. */
int catalog_exec(struct catalog *cat, enum statement st, const char *what, struct error *err)
{
	struct db_stmt *s;
	int rc;

	if (st == ST_COMMIT && catalog_events_flush(cat, err) < 0)
		return -1;
	if (!(s = db_prepare(cat->db, st, err)))
		return -1;
	rc = db_step(s, what, err);
	db_reset(s);
	if (rc < 0)
		return -1;
	catalog_events_follow(cat, st);
	return 0;
}

int db_is_postgres(const char *target)
{
	size_t word = strspn(target, "abcdefghijklmnopqrstuvwxyz_");

	/* a URI, or libpq's "keyword=value ..." form; a path with a '=' in its first word is
	 * written "./a=b" */
	return strncmp(target, "postgresql://", 13) == 0 ||
	       strncmp(target, "postgres://", 11) == 0 || (word > 0 && target[word] == '=');
}

void catalog_set_timeout(unsigned seconds)
{
	db_postgres_set_timeout(seconds);
}

void catalog_display_name(const char *target, char *out, size_t size)
{
	if (db_is_postgres(target))
		db_postgres_redact(target, out, size);
	else
		snprintf(out, size, "%s", target);
}

struct catalog *catalog_open_as(const char *target, int read_only, struct error *err)
{
	struct catalog *cat = calloc(1, sizeof(*cat));

	if (!cat) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	cat->db = db_is_postgres(target) ? db_postgres_open(target, read_only, err)
	                                 : db_sqlite_open(target, read_only, err);
	if (!cat->db) {
		free(cat);
		return NULL;
	}
	return cat;
}

struct catalog *catalog_open(const char *target, struct error *err)
{
	return catalog_open_as(target, 0, err);
}

struct catalog *catalog_open_read_only(const char *target, struct error *err)
{
	return catalog_open_as(target, 1, err);
}

void catalog_close(struct catalog *cat)
{
	if (!cat)
		return;
	catalog_cache_clear(cat);
	catalog_events_forget(cat);
	cat->db->ops->close(cat->db);
	free(cat);
}

int catalog_writable(struct catalog *cat, struct error *err)
{
	return cat->db->ops->writable(cat->db, err);
}

int catalog_schema_version(struct catalog *cat)
{
	return cat->db->ops->schema_version(cat->db);
}

json_t *catalog_describe(struct catalog *cat)
{
	return cat->db->ops->describe(cat->db);
}

int64_t catalog_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int catalog_begin(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BEGIN, "starting a transaction", err);
}

int catalog_begin_read(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BEGIN_READ, "starting a read transaction", err);
}

int catalog_begin_bulk(struct catalog *cat, struct error *err)
{
	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0)
		return -1;
	cat->bulk = 1;
	cat->db->ops->bulk(cat->db, 1);
	return 0;
}

int catalog_commit(struct catalog *cat, struct error *err)
{
	cat->bulk = 0;
	cat->db->ops->bulk(cat->db, 0);
	if (catalog_exec(cat, ST_COMMIT, "committing", err) < 0) {
		catalog_rollback(cat);
		return -1;
	}
	return 0;
}

int catalog_refresh_statistics(struct catalog *cat, struct error *err)
{
	if (!cat->db->ops->refresh_statistics)
		return 0;
	return cat->db->ops->refresh_statistics(cat->db, err) < 0 ? -1 : 1;
}

void catalog_rollback(struct catalog *cat)
{
	catalog_events_forget(cat);
	cat->bulk = 0;
	cat->db->ops->bulk(cat->db, 0);
	if (cat->db->ops->in_transaction(cat->db))
		catalog_exec(cat, ST_ROLLBACK, "rolling back", NULL);
}

/* Steps a statement whose ?1 is a resource id: 0 with a row ready, -1 (reset, err set to
 * not_found or the database's failure) otherwise. */
int catalog_step_resource(struct db_stmt *s, int64_t id, const char *what, struct error *err)
{
	int rc;

	db_bind_int64(s, 1, id);
	rc = db_step(s, what, err);
	if (rc == 1)
		return 0;
	db_reset(s);
	if (rc == 0)
		error_set(err, ERROR_NOT_FOUND, "id", -1, "no resource has id %" PRId64, id);
	return -1;
}

json_t *catalog_json_text(struct db_stmt *s, int col)
{
	const char *t = db_column_text(s, col);
	return t ? json_string(t) : json_null();
}

json_t *catalog_json_int(struct db_stmt *s, int c)
{
	return db_column_is_null(s, c) ? json_null() : json_integer(db_column_int64(s, c));
}

int catalog_put_chunks(struct db *db, const char *sha256, const void *bytes, size_t length,
                       struct error *err)
{
	for (size_t at = 0; at < length; at += CATALOG_BLOB_CHUNK) {
		struct db_stmt *s = db_prepare(db, ST_INSERT_BLOB_CHUNK, err);
		size_t n = length - at < CATALOG_BLOB_CHUNK ? length - at : CATALOG_BLOB_CHUNK;
		int rc;
		if (!s)
			return -1;
		db_bind_text(s, 1, sha256);
		db_bind_int64(s, 2, (int64_t)(at / CATALOG_BLOB_CHUNK));
		db_bind_blob(s, 3, (const uint8_t *)bytes + at, n);
		rc = db_step(s, "storing the uploaded bytes", err);
		db_reset(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

uint8_t *catalog_read_chunks(struct db *db, const char *sha256, int64_t size, struct error *err)
{
	struct db_stmt *s = db_prepare(db, ST_GET_BLOB_CHUNKS, err);
	uint8_t *bytes;
	size_t at = 0;
	int rc;

	if (!s)
		return NULL;
	if (size < 0 || (uint64_t)size > SIZE_MAX - 1 || !(bytes = malloc((size_t)size + 1))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	db_bind_text(s, 1, sha256);
	while ((rc = db_step(s, "reading the uploaded bytes", err)) == 1) {
		size_t n = 0;
		const void *chunk = db_column_blob(s, 0, &n);
		if (n > (size_t)size - at) {
			rc = 2;
			break;
		}
		if (n)
			memcpy(bytes + at, chunk, n);
		at += n;
	}
	db_reset(s);
	if (rc == 0 && at != (size_t)size)
		rc = 2;
	if (rc == 2)
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the stored chunks of %s do not add up to its %lld bytes",
		          sha256, (long long)size);
	if (rc != 0) {
		free(bytes);
		return NULL;
	}
	return bytes;
}

/* A malloc'd copy of a blob column (never NULL when it succeeds, even when empty). */
void *catalog_blob_copy(struct db_stmt *s, int c, size_t *length)
{
	const void *data = db_column_blob(s, c, length);
	void *copy = malloc(*length ? *length : 1);

	if (copy && *length)
		memcpy(copy, data, *length);
	return copy;
}

char *catalog_text_copy(struct db_stmt *s, int c, int *failed)
{
	const char *t = db_column_text(s, c);
	char *copy = t ? strdup(t) : NULL;

	if (t && !copy)
		*failed = 1;
	return copy;
}

json_t *catalog_collect_json(struct db_stmt *s, json_t *(*row)(struct db_stmt *s), const char *what,
                             struct error *err)
{
	json_t *list = json_array();
	int rc;

	while ((rc = db_step(s, what, err)) == 1)
		json_array_append_new(list, row(s));
	db_reset(s);
	if (rc < 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

int catalog_collect_ids(struct db_stmt *s, const char *what, int64_t **ids, size_t *count,
                        struct error *err)
{
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*count = 0;
	while ((rc = db_step(s, what, err)) == 1) {
		if (*count == cap) {
			int64_t *grown = realloc(*ids, (cap = cap ? 2 * cap : 256) * sizeof(**ids));
			if (!grown) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				rc = -1;
				break;
			}
			*ids = grown;
		}
		(*ids)[(*count)++] = db_column_int64(s, 0);
	}
	db_reset(s);
	if (rc < 0) {
		free(*ids);
		*ids = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}
