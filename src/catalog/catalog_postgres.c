/* catalog_postgres.c: the catalogue in a PostgreSQL database shared by several daemons: its
 * statements (its dialect's SQL; the rest is catalog_sql.c's) and connections; failures,
 * timeouts, migrations and connection strings are catalog_postgres_session.c's. catalog.c
 * holds what does not depend on the database.
 *
 * Every statement is prepared once per connection and answers in binary, so that keys and
 * uploads travel as raw bytes (bytea) and numbers without text conversions. Text columns are
 * COLLATE "C", so that order and case-insensitive comparisons (ASCII letters only) are those
 * of the SQLite catalogue. Uploads of the same bytes are serialised across daemons by a
 * transaction-level advisory lock on their SHA-256; migrations by a lock of their own.
 *
 * Inside a transaction, writes whose answer is not needed (inserts without RETURNING, the
 * upload lock) are queued in libpq's pipeline and sent with the next statement that needs an
 * answer: an upload of one small entry takes three round trips instead of six. An error in a
 * queued write is reported by that next statement (naming the write), and the transaction is
 * then rolled back as for any error.
 *
 * No answer is waited for longer than the answer timeout (the daemon's --timeout): a server that
 * stops answering gives ERROR_UNAVAILABLE, and the connection is made again by the next call.
 *
 * When the server goes away, the failing call answers ERROR_UNAVAILABLE (503); the next call
 * that finds the connection broken makes it again, and a statement that cannot have changed
 * anything (a read, or BEGIN) outside a transaction is retried once on the new connection.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "catalog_backend.h"
#include "catalog/schema.h"
#include "catalog_postgres.h"

#define LIKE_Q "lower($4::text COLLATE \"C\") ESCAPE '\\'"

/* PostgreSQL's own text for what catalog_sql.c's shared statements cannot say the same way
 * (written with ?N too: pg_prepare_sql rewrites every placeholder as $N). */
static const char *const postgres_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN",
    /* one snapshot for the reads of an answer, as SQLite's read transaction gives */
    [ST_BEGIN_READ] = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    /* several daemons: the same bytes are stored by one of them at a time */
    [ST_LOCK_UPLOAD] = "SELECT pg_advisory_xact_lock(hashtextextended(?1::text, 0))",
    /* one lock for every writer of events, taken just before the commit (the two-key form:
     * apart from the uploads' one-key locks) */
    [ST_LOCK_EVENTS] = "SELECT pg_advisory_xact_lock(1634625892, 1)",
    /* a bulk transaction's ids, taken from the sequence 256 at a time */
    [ST_RESERVE_IDS] = "SELECT nextval(pg_get_serial_sequence('resources', 'id')) FROM "
                       "generate_series(1, 256)",
    /* refs keep the order they were stored in by a seq column here, by rowid in SQLite */
    [ST_REF_DIGESTS] = "SELECT crc32, kind, track, key FROM refs WHERE resource_id = ?1 "
                       "ORDER BY seq",
    [ST_COPY_REFS_GET] = "SELECT resource_id, crc32, kind, track, key FROM refs WHERE "
                         "resource_id = ?1 ORDER BY seq",
    /* ids copied in with their values: the sequence continues after the largest */
    [ST_COPY_FINISH] = "SELECT setval(pg_get_serial_sequence('resources', 'id'), "
                       "(SELECT coalesce(max(id), 0) + 1 FROM resources), false)",
};

/* Type oids of the columns read (pg_type.h is a server header). */
enum {
	OID_BOOL = 16,
	OID_BYTEA = 17,
	OID_INT8 = 20,
	OID_INT2 = 21,
	OID_INT4 = 23,
	OID_FLOAT4 = 700,
	OID_FLOAT8 = 701,
};

static const struct db_ops pg_ops;

static void pg_clear(struct pg_stmt *s)
{
	PQclear(s->result);
	s->result = NULL;
	s->row = s->rows = 0;
	for (int i = 0; i < MAX_PARAMS; i++) {
		s->values[i] = NULL;
		s->lengths[i] = 0;
		s->formats[i] = 0;
	}
}

static int count_params(const char *sql)
{
	int most = 0;

	for (const char *p = strchr(sql, '$'); p; p = strchr(p + 1, '$')) {
		int n = atoi(p + 1);
		if (n > most)
			most = n;
	}
	return most;
}

/* A copy of the SQL with SQLite's placeholders (?N, as catalog_sql.c writes them) as
 * PostgreSQL's ($N); no statement has a '?' of its own before a digit. NULL when out of
 * memory. */
static char *pg_placeholders(const char *sql)
{
	char *copy = strdup(sql);

	for (char *p = copy; p && *p; p++)
		if (p[0] == '?' && p[1] >= '0' && p[1] <= '9')
			p[0] = '$';
	return copy;
}

static struct db_stmt *pg_prepare_sql(struct pg_db *db, struct pg_stmt *s, const char *name,
                                      const char *sql, struct error *err)
{
	if (!s->sql) {
		s->base.ops = &pg_ops;
		s->db = db;
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->sql = pg_placeholders(sql);
		if (!s->sql) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return NULL;
		}
		sql = s->sql;
		s->nparams = count_params(sql);
		s->read_only = strncmp(sql, "SELECT", 6) == 0;
		s->deferrable =
		    (strncmp(sql, "INSERT", 6) == 0 || strncmp(sql, "UPDATE", 6) == 0 ||
		     strncmp(sql, "DELETE", 6) == 0 || strncmp(sql, "SAVEPOINT", 9) == 0 ||
		     strncmp(sql, "RELEASE", 7) == 0 ||
		     strncmp(sql, "SELECT pg_advisory_xact_lock", 28) == 0) &&
		    !strstr(sql, "RETURNING");
		if (s->nparams > MAX_PARAMS) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: too many parameters");
			return NULL;
		}
	}
	pg_clear(s);
	return &s->base;
}

static struct db_stmt *pg_prepare(struct db *base, enum statement st, struct error *err)
{
	struct pg_db *db = (struct pg_db *)base;
	char name[8];

	if (!catalog_sql(postgres_sql, st)) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: statement %d has no SQL",
		          (int)st);
		return NULL;
	}
	snprintf(name, sizeof(name), "s%d", (int)st);
	return pg_prepare_sql(db, &db->stmt[st], name, catalog_sql(postgres_sql, st), err);
}

/* The list's filters (not its cursor) as SQL conditions, each after " AND "; every one of $1
 * to $5 and $9 to $11 appears, so that each statement takes them all. */
static void pg_list_filters(struct buf *sql, unsigned bits)
{
	buf_puts(sql, bits & FILTER_CLASS ? " AND r.class = $1::text" : " AND $1::text IS NULL");
	buf_puts(sql, bits & FILTER_FAMILY ? " AND r.family = $2::text" : " AND $2::text IS NULL");
	/* lower() under COLLATE "C" folds ASCII letters only, as SQLite's NOCASE and LIKE do */
	buf_puts(sql, bits & FILTER_NAME ? " AND lower(r.name) = lower($3::text COLLATE \"C\")"
	                                 : " AND $3::text IS NULL");
	buf_puts(sql, bits & FILTER_Q
	                  ? " AND (lower(r.name) LIKE " LIKE_Q " OR lower(r.class) LIKE " LIKE_Q
	                    " OR lower(r.filename) LIKE " LIKE_Q " OR lower(r.note) LIKE " LIKE_Q
	                    ")"
	                  : " AND $4::text IS NULL");
	buf_puts(sql,
	         bits & FILTER_CRC32 ? " AND r.crc32 = $5::bigint" : " AND $5::bigint IS NULL");
	/* the search index's expression (schema/postgresql/005_large_catalogues.sql) */
	buf_puts(sql, bits & FILTER_TEXT_INDEX
	                  ? " AND animdex_search_text(r.name, r.class, r.filename, r.note) LIKE "
	                    "lower($9::text COLLATE \"C\")"
	                  : " AND $9::text IS NULL");
	buf_puts(sql,
	         bits & FILTER_FILENAME ? " AND r.filename = $10::text" : " AND $10::text IS NULL");
	buf_puts(sql, bits & FILTER_UPLOADER ? " AND r.uploaded_by = $11::text"
	                                     : " AND $11::text IS NULL");
}

/* A list or count statement named `name`, prepared once into *slot (allocated on first use). */
static struct db_stmt *pg_prepare_variant(struct pg_db *db, struct pg_stmt **slot, const char *name,
                                          struct buf *sql, struct error *err)
{
	struct db_stmt *s;

	if (!sql->data || (!*slot && !(*slot = calloc(1, sizeof(**slot))))) {
		buf_cleanup(sql);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	s = pg_prepare_sql(db, *slot, name, sql->data, err);
	buf_cleanup(sql);
	return s;
}

static struct db_stmt *pg_prepare_list(struct db *base, unsigned bits, enum catalog_sort sort,
                                       int ascending, struct error *err)
{
	struct pg_db *db = (struct pg_db *)base;
	unsigned variant = LIST_VARIANT(bits, sort, ascending);
	struct pg_stmt **slot = &db->list_stmt[variant];
	const struct sort_sql *key = &catalog_sort_sql[sort];
	const char *dir = ascending ? "ASC" : "DESC";
	struct buf sql;
	char name[8];

	snprintf(name, sizeof(name), "l%u", variant);
	if (*slot && (*slot)->sql)
		return pg_prepare_sql(db, *slot, name, NULL, err);
	/* $6 to $8 appear in every statement too: the cursor's id, the limit, the cursor's key */
	buf_init(&sql, 4096);
	/* the page of entries first, then their uploads: a join around the ordered scan lets a
	 * poor estimate of the cursor's rows (ties of one class: "none past it") choose a hash
	 * join of every row after the cursor, then a sort */
	buf_printf(&sql,
	           "SELECT " SUMMARY_COLUMNS ", %s FROM (SELECT * FROM resources r WHERE true",
	           key->postgres);
	pg_list_filters(&sql, bits);
	if ((bits & FILTER_CURSOR) && sort == CATALOG_SORT_ID)
		buf_printf(&sql, " AND r.id %s $6::bigint AND $8::text IS NULL",
		           ascending ? ">" : "<");
	else if (bits & FILTER_CURSOR)
		buf_printf(&sql, " AND (%s, r.id) %s ($8::%s, $6::bigint)", key->postgres,
		           ascending ? ">" : "<", key->postgres_type);
	else
		buf_puts(&sql, " AND $6::bigint IS NULL AND $8::text IS NULL");
	for (int outer = 0; outer < 2; outer++) {
		if (sort == CATALOG_SORT_ID)
			buf_printf(&sql, " ORDER BY r.id %s", dir);
		else
			buf_printf(&sql, " ORDER BY %s %s, r.id %s", key->postgres, dir, dir);
		if (!outer)
			buf_puts(&sql,
			         " LIMIT $7::bigint) r JOIN blobs b ON b.sha256 = r.blob_sha256");
	}
	return pg_prepare_variant(db, slot, name, &sql, err);
}

static struct db_stmt *pg_prepare_count(struct db *base, unsigned bits, struct error *err)
{
	struct pg_db *db = (struct pg_db *)base;
	unsigned filters = bits & (FILTER_COMBINATIONS - 1) & ~(unsigned)FILTER_CURSOR;
	struct pg_stmt **slot = &db->count_stmt[filters];
	struct buf sql;
	char name[8];

	snprintf(name, sizeof(name), "c%u", filters);
	if (*slot && (*slot)->sql)
		return pg_prepare_sql(db, *slot, name, NULL, err);
	buf_init(&sql, 4096);
	if ((filters & FILTER_TEXT_INDEX) && filters != FILTER_TEXT_INDEX) {
		/* the candidates, then the filters on each */
		buf_puts(&sql, "SELECT count(*), count(*) FILTER (WHERE true");
		pg_list_filters(&sql, filters);
		buf_puts(&sql,
		         ") FROM (SELECT * FROM resources r WHERE animdex_search_text(r.name, "
		         "r.class, r.filename, r.note) LIKE lower($9::text COLLATE \"C\") "
		         "LIMIT $12::bigint) r");
	} else {
		buf_puts(&sql,
		         "SELECT count(*), count(*) FROM (SELECT 1 FROM resources r WHERE true");
		pg_list_filters(&sql, filters);
		buf_puts(&sql, " LIMIT $12::bigint) c");
	}
	buf_puts(&sql, " WHERE $6::bigint IS NULL AND $7::bigint IS NULL AND $8::text IS NULL");
	return pg_prepare_variant(db, slot, name, &sql, err);
}

/* The search index's query for q: q's LIKE pattern, which pg_trgm's index answers. */
static char *pg_search_key(const char *q, const char *pattern)
{
	(void)q;
	return strdup(pattern);
}

static void pg_bind_number(struct db_stmt *base, int i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pg_bind_number(struct db_stmt *base, int i, const char *fmt, ...)
{
	struct pg_stmt *s = (struct pg_stmt *)base;
	va_list ap;

	if (i < 1 || i > MAX_PARAMS)
		return;
	va_start(ap, fmt);
	vsnprintf(s->numbers[i - 1], sizeof(s->numbers[i - 1]), fmt, ap);
	va_end(ap);
	s->values[i - 1] = s->numbers[i - 1];
	s->formats[i - 1] = 0;
}

static void pg_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	pg_bind_number(s, i, "%lld", (long long)v);
}

static void pg_bind_double(struct db_stmt *s, int i, double v)
{
	pg_bind_number(s, i, "%.17g", v); /* reads back as the same double */
}

/* Text and bytes go in binary: as they are, with their length. */
static void pg_bind_bytes(struct db_stmt *base, int i, const void *data, size_t length)
{
	struct pg_stmt *s = (struct pg_stmt *)base;

	if (i < 1 || i > MAX_PARAMS)
		return;
	s->values[i - 1] = length ? data : "";
	s->lengths[i - 1] = (int)length;
	s->formats[i - 1] = 1;
}

static void pg_bind_text(struct db_stmt *s, int i, const char *text, size_t length)
{
	pg_bind_bytes(s, i, text, length);
}

static void pg_bind_null(struct db_stmt *base, int i)
{
	struct pg_stmt *s = (struct pg_stmt *)base;

	if (i >= 1 && i <= MAX_PARAMS)
		s->values[i - 1] = NULL;
}

static int pg_prepare_now(struct pg_stmt *s, const char *what, struct error *err)
{
	PGresult *res;

	if (s->prepared_on == s->db->epoch)
		return 0;
	if (!PQsendPrepare(s->db->conn, s->name, s->sql, s->nparams, NULL))
		return pg_fail(s->db, NULL, err, what);
	res = pg_answer(s->db);
	if (!res && s->db->stuck)
		return pg_timed_out(err, what);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		pg_fail(s->db, res, err, what);
		PQclear(res);
		return -1;
	}
	PQclear(res);
	s->prepared_on = s->db->epoch;
	return 0;
}

/* PQexecPrepared, within the answer timeout. */
static PGresult *pg_exec_prepared(struct pg_stmt *s, struct error *err, const char *what)
{
	PGresult *res;

	if (!PQsendQueryPrepared(s->db->conn, s->name, s->nparams, s->values, s->lengths,
	                         s->formats, 1)) {
		pg_fail(s->db, NULL, err, what);
		return NULL;
	}
	res = pg_answer(s->db);
	if (!res && s->db->stuck)
		pg_timed_out(err, what);
	return res;
}

static PGresult *pg_execute(struct pg_stmt *s, struct error *err, const char *what)
{
	struct pg_db *db = s->db;

	if (pg_ensure_connected(db, err) < 0)
		return NULL;
	if (pg_prepare_now(s, what, err) < 0)
		return NULL;
	return pg_exec_prepared(s, err, what);
}

/* Sends the pipeline (with `last`, when given, as its final statement) and reads every
 * answer. Returns `last`'s result (NULL when it did not run); the first error of a queued
 * write, or the connection's, is set in err. Leaves pipeline mode. */
static PGresult *pg_sync(struct pg_db *db, struct pg_stmt *last, const char *what,
                         struct error *err)
{
	PGresult *ours = NULL, *res;
	int index = 0, total = db->queued + (last != NULL);
	int64_t deadline = pg_clock_ms() + pg_answer_timeout_ms;

	if (last && !PQsendQueryPrepared(db->conn, last->name, last->nparams, last->values,
	                                 last->lengths, last->formats, 1))
		last = NULL;
	if (!PQpipelineSync(db->conn))
		pg_fail(db, NULL, err, what);
	/* each statement answers with results then NULL; the sync ends it all */
	for (int guard = 0; guard < 4 * (total + 2); guard++) {
		if (pg_wait(db, deadline) < 0) {
			if (db->stuck)
				pg_timed_out(err, what);
			break;
		}
		res = PQgetResult(db->conn);
		if (!res) {
			if (PQstatus(db->conn) != CONNECTION_OK)
				break;
			index++;
			continue;
		}
		if (PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
			PQclear(res);
			break;
		}
		if (index < db->queued) {
			if (PQresultStatus(res) == PGRES_FATAL_ERROR)
				pg_fail(db, res, err, db->queued_what[index]);
			PQclear(res);
		} else if (last && !ours) {
			ours = res;
		} else {
			PQclear(res);
		}
	}
	if (PQstatus(db->conn) != CONNECTION_OK)
		pg_fail(db, NULL, err, what);
	if (!db->stuck)
		PQexitPipelineMode(db->conn);
	db->pipeline = 0;
	db->queued = 0;
	if (db->stuck) {
		PQclear(ours);
		return NULL;
	}
	return ours;
}

/* Sends the queued writes and reads their answers; -1 with the first error. */
static int pg_drain(struct pg_db *db, const char *what, struct error *err)
{
	struct error failure;

	error_init(&failure);
	pg_sync(db, NULL, what, &failure);
	if (failure.code == ERROR_NONE)
		return 0;
	error_set(err, failure.code, NULL, -1, "%s", failure.message);
	return -1;
}

/* Queues a write whose answer is not needed, inside a transaction. */
static int pg_defer(struct pg_stmt *s, const char *what, struct error *err)
{
	struct pg_db *db = s->db;

	if (s->prepared_on != db->epoch) {
		if (db->pipeline && pg_drain(db, what, err) < 0)
			return -1;
		if (pg_prepare_now(s, what, err) < 0)
			return -1;
	}
	if (!db->pipeline) {
		if (!PQenterPipelineMode(db->conn))
			return pg_fail(db, NULL, err, what);
		db->pipeline = 1;
	}
	if (!PQsendQueryPrepared(db->conn, s->name, s->nparams, s->values, s->lengths, s->formats,
	                         1)) {
		pg_drain(db, what, NULL);
		return pg_fail(db, NULL, err, what);
	}
	db->queued_what[db->queued++] = what;
	/* sent now, so that the server works on it while this side goes on */
	PQflush(db->conn);
	if (db->queued == MAX_QUEUED)
		return pg_drain(db, what, err);
	return 0;
}

/* A statement that needs its answer, sent with the writes queued before it. */
static int pg_step_pipelined(struct pg_stmt *s, const char *what, struct error *err)
{
	struct pg_db *db = s->db;
	struct error failure;
	PGresult *res;
	ExecStatusType status;

	int rollback = s == &db->stmt[ST_ROLLBACK] || s == &db->stmt[ST_ROLLBACK_TO];

	error_init(&failure);
	if (s->prepared_on != db->epoch || rollback) {
		/* a rollback must not be skipped by an earlier write's error: sent alone */
		pg_sync(db, NULL, what, &failure);
		if (!rollback && failure.code != ERROR_NONE)
			goto fail;
		error_init(&failure);
		res = pg_prepare_now(s, what, &failure) < 0 ? NULL
		                                            : pg_exec_prepared(s, &failure, what);
	} else {
		res = pg_sync(db, s, what, &failure);
	}
	status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (failure.code == ERROR_NONE &&
	    (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK)) {
		s->result = res;
		s->rows = status == PGRES_TUPLES_OK ? PQntuples(res) : 0;
		s->row = 0;
		return s->rows > 0 ? 1 : 0;
	}
	if (failure.code == ERROR_NONE)
		pg_fail(db, res, &failure, what);
	PQclear(res);
fail:
	error_set(err, failure.code, NULL, -1, "%s", failure.message);
	return -1;
}

static int pg_step(struct db_stmt *base, const char *what, struct error *err);
static int64_t pg_column_int64(struct db_stmt *base, int c);
static void pg_reset(struct db_stmt *base);

/* The answer INSERT ... RETURNING id would have given. */
static PGresult *id_result(struct pg_db *db, int64_t id)
{
	PGresAttDesc column = {"id", 0, 0, 1, OID_INT8, 8, -1};
	PGresult *res = PQmakeEmptyPGresult(db->conn, PGRES_TUPLES_OK);
	char value[8];

	for (int i = 0; i < 8; i++)
		value[i] = (char)((uint64_t)id >> (56 - 8 * i));
	if (!res || !PQsetResultAttrs(res, 1, &column) || !PQsetvalue(res, 0, 0, value, 8)) {
		PQclear(res);
		return NULL;
	}
	return res;
}

/* In a bulk transaction, an entry is inserted with an id reserved beforehand, in the
 * pipeline, instead of waiting for the id the insert would return. */
static int pg_insert_reserved(struct pg_stmt *s, const char *what, struct error *err)
{
	struct pg_db *db = s->db;
	struct pg_stmt *put;

	if (db->reserved_next == db->reserved_count) {
		struct db_stmt *r = pg_prepare(&db->base, ST_RESERVE_IDS, err);
		int rc;
		db->reserved_next = db->reserved_count = 0;
		if (!r)
			return -1;
		while ((rc = pg_step(r, "reserving ids", err)) == 1 && db->reserved_count < 256)
			db->reserved[db->reserved_count++] = pg_column_int64(r, 0);
		pg_reset(r);
		if (rc < 0 || db->reserved_count == 0)
			return rc < 0 ? -1 : pg_fail(db, NULL, err, "reserving ids");
	}
	put = (struct pg_stmt *)pg_prepare(&db->base, ST_COPY_RESOURCE_PUT, err);
	if (!put)
		return -1;
	pg_bind_int64(&put->base, 1, db->reserved[db->reserved_next]);
	for (int i = 0; i < s->nparams && i + 1 < MAX_PARAMS; i++) {
		put->values[i + 1] = s->values[i];
		put->lengths[i + 1] = s->lengths[i];
		put->formats[i + 1] = s->formats[i];
	}
	if (pg_defer(put, what, err) < 0)
		return -1;
	s->result = id_result(db, db->reserved[db->reserved_next++]);
	if (!s->result) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	s->rows = 1;
	s->row = 0;
	return 1;
}

static void pg_bulk(struct db *base, int on)
{
	((struct pg_db *)base)->bulk = on;
}

/* The tables an import writes, vacuumed and analysed (their statistics, and the visibility
 * map that lets an index-only scan skip the table); autovacuum would come to it later. */
static int pg_refresh_statistics(struct db *base, struct error *err)
{
	return pg_command(
	    (struct pg_db *)base,
	    "VACUUM (ANALYZE) resources, tracks, refs, rig_nodes, blobs, blob_chunks, "
	    "names, events, entry_counts, blob_counts",
	    "bringing the statistics up to date", err);
}

static int pg_step(struct db_stmt *base, const char *what, struct error *err)
{
	struct pg_stmt *s = (struct pg_stmt *)base;
	struct pg_db *db = s->db;
	ExecStatusType status;

	if (s->result)
		return ++s->row < s->rows ? 1 : 0;
	if (s == &db->stmt[ST_INSERT_RESOURCE] && db->bulk && PQstatus(db->conn) == CONNECTION_OK &&
	    !db->stuck && (db->pipeline || PQtransactionStatus(db->conn) == PQTRANS_INTRANS))
		return pg_insert_reserved(s, what, err);
	if (s->deferrable && PQstatus(db->conn) == CONNECTION_OK && !db->stuck &&
	    (db->pipeline || PQtransactionStatus(db->conn) == PQTRANS_INTRANS))
		return pg_defer(s, what, err);
	if (db->pipeline)
		return pg_step_pipelined(s, what, err);
	for (int attempt = 0;; attempt++) {
		int idle = PQstatus(db->conn) != CONNECTION_OK ||
		           PQtransactionStatus(db->conn) == PQTRANS_IDLE;
		struct error failure;
		PGresult *res;

		error_init(&failure);
		res = pg_execute(s, &failure, what);
		status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
		if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
			s->result = res;
			s->rows = status == PGRES_TUPLES_OK ? PQntuples(res) : 0;
			s->row = 0;
			return s->rows > 0 ? 1 : 0;
		}
		if (res && failure.code == ERROR_NONE)
			pg_fail(db, res, &failure, what);
		PQclear(res);
		/* the server restarted since this connection was last used: a statement that
		 * changes nothing, outside a transaction, is run once more on a new one */
		if (attempt == 0 && idle &&
		    (s->read_only || base == &db->stmt[ST_BEGIN].base ||
		     base == &db->stmt[ST_BEGIN_READ].base) &&
		    PQstatus(db->conn) != CONNECTION_OK)
			continue;
		error_set(err, failure.code, NULL, -1, "%s", failure.message);
		return -1;
	}
}

static int pg_column_count(struct db_stmt *base)
{
	struct pg_stmt *s = (struct pg_stmt *)base;
	return s->result ? PQnfields(s->result) : 0;
}

static enum db_type pg_column_type(struct db_stmt *base, int c)
{
	struct pg_stmt *s = (struct pg_stmt *)base;

	if (!s->result || s->row >= s->rows || PQgetisnull(s->result, s->row, c))
		return DB_NULL;
	switch (PQftype(s->result, c)) {
	case OID_BOOL:
	case OID_INT2:
	case OID_INT4:
	case OID_INT8: return DB_INTEGER;
	case OID_FLOAT4:
	case OID_FLOAT8: return DB_REAL;
	case OID_BYTEA: return DB_BLOB;
	default: return DB_TEXT;
	}
}

static uint64_t big_endian(const unsigned char *p, int length)
{
	uint64_t v = 0;

	for (int i = 0; i < length; i++)
		v = v << 8 | p[i];
	return v;
}

static int64_t pg_column_int64(struct db_stmt *base, int c)
{
	struct pg_stmt *s = (struct pg_stmt *)base;
	const unsigned char *p;
	int length;

	if (pg_column_type(base, c) != DB_INTEGER)
		return 0;
	p = (const unsigned char *)PQgetvalue(s->result, s->row, c);
	length = PQgetlength(s->result, s->row, c);
	switch (length) {
	case 1: return p[0];
	case 2: return (int16_t)big_endian(p, 2);
	case 4: return (int32_t)big_endian(p, 4);
	case 8: return (int64_t)big_endian(p, 8);
	default: return 0;
	}
}

static double pg_column_double(struct db_stmt *base, int c)
{
	struct pg_stmt *s = (struct pg_stmt *)base;
	enum db_type type = pg_column_type(base, c);
	const unsigned char *p;

	if (type == DB_INTEGER)
		return (double)pg_column_int64(base, c);
	if (type != DB_REAL)
		return 0;
	p = (const unsigned char *)PQgetvalue(s->result, s->row, c);
	if (PQgetlength(s->result, s->row, c) == 4) {
		uint32_t bits = (uint32_t)big_endian(p, 4);
		float f;
		memcpy(&f, &bits, sizeof(f));
		return f;
	} else {
		uint64_t bits = big_endian(p, 8);
		double d;
		memcpy(&d, &bits, sizeof(d));
		return d;
	}
}

static const char *pg_column_text(struct db_stmt *base, int c)
{
	struct pg_stmt *s = (struct pg_stmt *)base;

	if (pg_column_type(base, c) == DB_NULL)
		return NULL;
	return PQgetvalue(s->result, s->row, c); /* libpq ends every value with a NUL */
}

static const void *pg_column_blob(struct db_stmt *base, int c, size_t *length)
{
	struct pg_stmt *s = (struct pg_stmt *)base;

	*length = 0;
	if (pg_column_type(base, c) == DB_NULL)
		return NULL;
	*length = (size_t)PQgetlength(s->result, s->row, c);
	return PQgetvalue(s->result, s->row, c);
}

static void pg_reset(struct db_stmt *base)
{
	struct pg_stmt *s = (struct pg_stmt *)base;

	PQclear(s->result);
	s->result = NULL;
	s->row = s->rows = 0;
}

static int pg_in_transaction(struct db *base)
{
	struct pg_db *db = (struct pg_db *)base;

	return PQstatus(db->conn) == CONNECTION_OK &&
	       (db->pipeline || PQtransactionStatus(db->conn) != PQTRANS_IDLE);
}

/* The last migration applied, or -1. */
int pg_read_version(PGconn *conn)
{
	PGresult *res = PQexec(conn, "SELECT coalesce(max(version), 0) FROM animdex_schema");
	int version = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		version = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return version;
}

static int pg_schema_version(struct db *base)
{
	return pg_read_version(((struct pg_db *)base)->conn);
}

static json_t *pg_describe(struct db *base)
{
	struct pg_db *db = (struct pg_db *)base;
	const char *version = PQparameterStatus(db->conn, "server_version");

	return json_pack("{s:s, s:s?, s:i}", "backend", "postgresql", "server_version", version,
	                 "libpq_version", PQlibVersion());
}

static void pg_free_stmt(struct pg_stmt *s)
{
	PQclear(s->result);
	free(s->sql);
}

static void pg_close(struct db *base)
{
	struct pg_db *db = (struct pg_db *)base;

	if (!db)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		pg_free_stmt(&db->stmt[i]);
	for (int i = 0; i < LIST_VARIANTS; i++)
		if (db->list_stmt[i]) {
			pg_free_stmt(db->list_stmt[i]);
			free(db->list_stmt[i]);
		}
	for (int i = 0; i < FILTER_COMBINATIONS; i++)
		if (db->count_stmt[i]) {
			pg_free_stmt(db->count_stmt[i]);
			free(db->count_stmt[i]);
		}
	PQfinish(db->conn);
	free(db);
}

static int pg_writable(struct db *base, struct error *err)
{
	if (!((struct pg_db *)base)->read_only)
		return 0;
	error_set(err, ERROR_READ_ONLY, NULL, -1,
	          "catalogue: the PostgreSQL database is served for reading only (--read-only): "
	          "nothing can be written to it");
	return -1;
}

static const struct db_ops pg_ops = {
    .name = "postgresql",
    .remote = 1,
    .close = pg_close,
    .prepare = pg_prepare,
    .prepare_list = pg_prepare_list,
    .search_in_id_order = 0,
    .prepare_count = pg_prepare_count,
    .search_key = pg_search_key,
    .bind_int64 = pg_bind_int64,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_blob = pg_bind_bytes,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .column_count = pg_column_count,
    .column_type = pg_column_type,
    .column_int64 = pg_column_int64,
    .column_double = pg_column_double,
    .column_text = pg_column_text,
    .column_blob = pg_column_blob,
    .reset = pg_reset,
    .in_transaction = pg_in_transaction,
    .bulk = pg_bulk,
    .schema_version = pg_schema_version,
    .describe = pg_describe,
    .writable = pg_writable,
    .refresh_statistics = pg_refresh_statistics,
};

struct db *db_postgres_open(const char *conninfo, int read_only, struct error *err)
{
	/* defaults first: the connection string's own settings override them */
	static const char *const keywords[] = {
	    "connect_timeout",  "keepalives_idle",  "keepalives_interval",
	    "keepalives_count", "tcp_user_timeout", "application_name",
	    "client_encoding",  "dbname",           NULL};
	char connect_timeout[16];
	const char *values[] = {connect_timeout, "10",   "5",      "3", "15000",
	                        "animdexd",      "UTF8", conninfo, NULL};
	struct pg_db *db;

	if (!pg_conninfo_readable(conninfo, err))
		return NULL;
	db = calloc(1, sizeof(*db));
	/* a connection is not waited for longer than an answer (libpq counts 2 s at least) */
	snprintf(connect_timeout, sizeof(connect_timeout), "%d",
	         pg_answer_timeout_ms / 1000 < 5 ? pg_answer_timeout_ms / 1000 : 5);

	if (!db) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	db->base.ops = &pg_ops;
	db->epoch = 1;
	db->conn = PQconnectdbParams(keywords, values, 1);
	if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
		pg_log_connect_failure(conninfo, db->conn);
		error_set(err, ERROR_UNAVAILABLE, NULL, -1,
		          "catalogue: cannot connect to the PostgreSQL server (animdexd's log says "
		          "why)");
		goto fail;
	}
	PQsetNoticeProcessor(db->conn, pg_ignore_notice, NULL);
	if (PQserverVersion(db->conn) < 110000) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: PostgreSQL %s is too old; animdexd needs 11 or newer",
		          PQparameterStatus(db->conn, "server_version"));
		goto fail;
	}
	if (strcmp(PQparameterStatus(db->conn, "server_encoding"), "UTF8") != 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the database's encoding is %s; animdexd needs UTF8 (createdb "
		          "-E UTF8)",
		          PQparameterStatus(db->conn, "server_encoding"));
		goto fail;
	}
	if (pg_command(db, "SET lock_timeout = '10s'", "configuring the connection", err) < 0)
		goto fail;
	db->read_only = read_only;
	if (read_only ? pg_check_version(db, err) < 0 : pg_migrate(db, err) < 0)
		goto fail;
	return &db->base;
fail:
	pg_close(&db->base);
	return NULL;
}
