/* catalog_postgres.h: what the PostgreSQL backend's two files share: catalog_postgres.c
 * (statements: prepared, pipelined, read in binary) and catalog_postgres_session.c (failures,
 * timeouts, reconnection, migrations, connection strings). Only they include it. */
#ifndef ANIMDEX_CATALOG_POSTGRES_H
#define ANIMDEX_CATALOG_POSTGRES_H

#include <libpq-fe.h>
#include <stdint.h>

#include "catalog_backend.h"

#define MAX_PARAMS 24
#define MAX_QUEUED 256 /* writes waiting in the pipeline before they are sent anyway */

struct pg_stmt {
	struct db_stmt base;
	struct pg_db *db;
	char name[8];
	char *sql;            /* owned */
	unsigned prepared_on; /* the connection's epoch when prepared; 0: never */
	int nparams;          /* the largest $N in the SQL */
	int read_only;        /* a SELECT: safe to run again after a reconnection */
	int deferrable;       /* its answer is never read: may wait in the pipeline */
	const char *values[MAX_PARAMS];
	int lengths[MAX_PARAMS];
	int formats[MAX_PARAMS];
	char numbers[MAX_PARAMS][32]; /* integers and reals as text */
	PGresult *result;
	int row, rows;
};

struct pg_db {
	struct db base;
	PGconn *conn;
	unsigned epoch; /* bumped by every new connection: statements are prepared again */
	int bulk;       /* in a transaction of many uploads: entries take reserved ids */
	int64_t reserved[256];
	int reserved_next, reserved_count;
	int stuck;    /* an answer did not come in time: the connection is made again */
	int pipeline; /* in libpq's pipeline mode, with `queued` writes sent, unanswered */
	int queued;
	const char *queued_what[MAX_QUEUED];
	struct pg_stmt stmt[ST_COUNT];
	/* list queries by filters, order and direction (LIST_VARIANT), and counts by filters:
	 * made on first use */
	struct pg_stmt *list_stmt[LIST_VARIANTS];
	struct pg_stmt *count_stmt[FILTER_COMBINATIONS];
	int read_only; /* opened for reading only: the server refuses writes too */
};

/* the migration lock: any number, the same in every animdexd ("anim" in ASCII) */
#define MIGRATION_LOCK "1634625901"

/* How long an answer is waited for, in milliseconds (db_postgres_set_timeout). */
extern int pg_answer_timeout_ms;

/* The server's message, on one line. */
void pg_one_line(const char *message, char *out, size_t size);
/* Milliseconds of the monotonic clock. */
int64_t pg_clock_ms(void);
/* May a line about the server go to stderr now? At most one every 10 s. */
int pg_log_due(void);
int pg_fail(struct pg_db *db, const PGresult *res, struct error *err, const char *what);
int pg_wait(struct pg_db *db, int64_t deadline);
PGresult *pg_answer(struct pg_db *db);
int pg_timed_out(struct error *err, const char *what);
int pg_ensure_connected(struct pg_db *db, struct error *err);
int pg_command(struct pg_db *db, const char *sql, const char *what, struct error *err);
int pg_migrate(struct pg_db *db, struct error *err);
int pg_check_version(struct pg_db *db, struct error *err);
void pg_log_connect_failure(const char *conninfo, PGconn *conn);
int pg_conninfo_readable(const char *conninfo, struct error *err);
int pg_read_version(PGconn *conn);
/* libpq's notice processor: the server's notices ("relation already exists, skipping") are
 * not for the user. */
void pg_ignore_notice(void *arg, const char *message);

#endif
