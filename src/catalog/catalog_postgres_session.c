/* catalog_postgres_session.c: the PostgreSQL backend's dealings with the server beyond one
 * statement: failures and what they mean (a server away is 503, and is said on stderr at most
 * once every 10 s), the answer timeout, reconnecting, the migrations under their lock, and
 * connection strings read and redacted (no secret is ever shown). catalog_postgres.c prepares
 * and runs the statements. */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "catalog_postgres.h"
#include "catalog/schema.h"

/* Is a failure one of the server going away, or of contention worth retrying later? */
static int transient_state(const char *state)
{
	return state && (strncmp(state, "08", 2) == 0 ||   /* connection exception */
	                 strcmp(state, "40001") == 0 ||    /* serialization failure */
	                 strcmp(state, "40P01") == 0 ||    /* deadlock */
	                 strcmp(state, "55P03") == 0 ||    /* lock not available */
	                 strncmp(state, "57P0", 4) == 0 || /* shutdown, cannot connect now */
	                 strcmp(state, "53300") == 0);     /* too many connections */
}

/* The server's message, on one line. */
void pg_one_line(const char *message, char *out, size_t size)
{
	size_t n = 0;

	for (; message && *message && n + 1 < size; message++)
		out[n++] = *message == '\n' || *message == '\r' ? ' ' : *message;
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* At most one line every 10 s on stderr: a daemon whose server is down meets it at every
 * request. */
int pg_log_due(void)
{
	static int64_t last_ms;
	int64_t now = pg_clock_ms(), last = __atomic_load_n(&last_ms, __ATOMIC_RELAXED);

	if (last && now - last < 10000)
		return 0;
	__atomic_store_n(&last_ms, now, __ATOMIC_RELAXED);
	return 1;
}

static void log_unavailable(const char *what, const char *message)
{
	if (pg_log_due())
		fprintf(stderr, "animdexd: %s: the PostgreSQL server is unavailable: %s\n", what,
		        message);
}

int pg_fail(struct pg_db *db, const PGresult *res, struct error *err, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	char message[300];
	enum error_code code = ERROR_INTERNAL;

	pg_one_line(res && PQresultErrorMessage(res)[0] ? PQresultErrorMessage(res)
	                                                : PQerrorMessage(db->conn),
	            message, sizeof(message));
	if (PQstatus(db->conn) != CONNECTION_OK || transient_state(state))
		code = ERROR_UNAVAILABLE;
	else if (state && strcmp(state, "23505") == 0)
		code = ERROR_CONFLICT;
	if (state && strcmp(state, "53100") == 0) { /* disk_full */
		error_set(err, ERROR_STORAGE_FULL, NULL, -1,
		          "catalogue: %s: the PostgreSQL server's disk is full; reads go on, and "
		          "writes work again once there is room on it",
		          what);
	} else if (code == ERROR_UNAVAILABLE) {
		/* libpq's words may name the server's host and port: the log has them */
		log_unavailable(what, message[0] ? message : "no answer");
		error_set(err, code, NULL, -1,
		          "catalogue: %s: the PostgreSQL server is unavailable; try again "
		          "(animdexd's log says why)",
		          what);
	} else {
		error_set(err, code, NULL, -1, "catalogue: %s: %s (PostgreSQL %s)", what, message,
		          state ? state : "error");
	}
	return -1;
}

int pg_answer_timeout_ms = 30000;

void db_postgres_set_timeout(unsigned seconds)
{
	pg_answer_timeout_ms = seconds > 0 && seconds < 86400 ? (int)seconds * 1000 : 30000;
}

int64_t pg_clock_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waits until an answer can be read without blocking, at most until `deadline`; -1 (and the
 * connection marked stuck) when none came in time or the connection broke. */
int pg_wait(struct pg_db *db, int64_t deadline)
{
	while (PQisBusy(db->conn)) {
		struct pollfd p = {PQsocket(db->conn), POLLIN, 0};
		int64_t left = deadline - pg_clock_ms();
		int r;
		if (left <= 0) {
			db->stuck = 1;
			return -1;
		}
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			db->stuck = 1;
			return -1;
		}
		if (!PQconsumeInput(db->conn))
			return -1;
	}
	return 0;
}

/* The last result of what was sent, read within the answer timeout; NULL when none came. */
PGresult *pg_answer(struct pg_db *db)
{
	int64_t deadline = pg_clock_ms() + pg_answer_timeout_ms;
	PGresult *last = NULL, *res;

	for (;;) {
		if (pg_wait(db, deadline) < 0) {
			PQclear(last);
			return NULL;
		}
		res = PQgetResult(db->conn);
		if (!res)
			return last;
		PQclear(last);
		last = res;
	}
}

int pg_timed_out(struct error *err, const char *what)
{
	error_set(err, ERROR_UNAVAILABLE, NULL, -1,
	          "catalogue: %s: the PostgreSQL server did not answer within %d s; try again",
	          what, pg_answer_timeout_ms / 1000);
	return -1;
}

/* Makes the connection again when it is broken or stuck; 0 when it is usable. */
int pg_ensure_connected(struct pg_db *db, struct error *err)
{
	if (PQstatus(db->conn) == CONNECTION_OK && !db->stuck)
		return 0;
	db->stuck = 0;
	PQreset(db->conn);
	db->epoch++;
	db->pipeline = 0;
	db->queued = 0;
	if (PQstatus(db->conn) == CONNECTION_OK)
		return 0;
	return pg_fail(db, NULL, err, "connecting");
}

int pg_command(struct pg_db *db, const char *sql, const char *what, struct error *err)
{
	PGresult *res = PQexec(db->conn, sql);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		pg_fail(db, res, err, what);
	PQclear(res);
	return ok ? 0 : -1;
}

/* A step of a migration (catalog_migrate.c). */
struct pg_step {
	struct pg_db *db;
	const char *what;
	struct error *err;
};

static int pg_run_step(void *ctx, const char *sql)
{
	struct pg_step *step = ctx;

	return pg_command(step->db, sql, step->what, step->err);
}

/* Applies the migrations of schema/postgresql/ not yet applied, in one transaction under the
 * migration lock: daemons starting together on an empty database migrate it once. */
int pg_migrate(struct pg_db *db, struct error *err)
{
	unsigned latest = postgres_migrations[postgres_migration_count - 1].version;
	int version;

	if (pg_command(db, "BEGIN", "starting the migration", err) < 0 ||
	    pg_command(db, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")",
	               "waiting for another daemon's migration", err) < 0 ||
	    pg_command(db,
	               "CREATE TABLE IF NOT EXISTS animdex_schema (version integer PRIMARY KEY, "
	               "file text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
	               "recording migrations", err) < 0)
		goto fail;
	version = pg_read_version(db->conn);
	if (version < 0) {
		pg_fail(db, NULL, err, "reading the schema version");
		goto fail;
	}
	if ((unsigned)version > latest) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the database's schema version %d is newer than this "
		          "animdexd knows (%u); use a newer animdexd",
		          version, latest);
		goto fail;
	}
	for (unsigned i = 0; i < postgres_migration_count; i++) {
		const struct schema_migration *m = &postgres_migrations[i];
		char record[160], what[96];
		if (m->version <= (unsigned)version)
			continue;
		snprintf(what, sizeof(what), "migration %s", m->file);
		snprintf(record, sizeof(record),
		         "INSERT INTO animdex_schema (version, file) VALUES (%u, '%s')", m->version,
		         m->file);
		struct pg_step step = {db, what, err};
		if (catalog_migrate_steps(m, version > 0, pg_run_step, &step) < 0 ||
		    pg_command(db, record, what, err) < 0)
			goto fail;
	}
	return pg_command(db, "COMMIT", "committing the migration", err);
fail:
	PQclear(PQexec(db->conn, "ROLLBACK"));
	return -1;
}

/* For reading only: nothing is created or migrated, and the server refuses writes. */
int pg_check_version(struct pg_db *db, struct error *err)
{
	unsigned latest = postgres_migrations[postgres_migration_count - 1].version;
	int version;

	if (pg_command(db, "SET default_transaction_read_only = on", "configuring the connection",
	               err) < 0)
		return -1;
	version = pg_read_version(db->conn);
	if (version < 0 || (unsigned)version != latest) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: the PostgreSQL database has schema version %d, and this "
		          "animdexd reads only version %u without changing it; run animdexd on it "
		          "once (serving it brings it up to date), then try again",
		          version < 0 ? 0 : version, latest);
		return -1;
	}
	return 0;
}

void db_postgres_redact(const char *conninfo, char *out, size_t size)
{
	char *why = NULL;
	PQconninfoOption *options = PQconninfoParse(conninfo, &why);
	struct buf text;

	PQfreemem(why); /* libpq's reason quotes the text, password and all */
	if (!options) {
		snprintf(out, size, "(a PostgreSQL connection string that cannot be read)");
		return;
	}
	buf_init(&text, size > 0 ? size - 1 : 0);
	for (PQconninfoOption *o = options; o->keyword; o++) {
		/* every option libpq marks secret ('*': password, sslpassword...) is left out */
		if (!o->val || !o->val[0] || (o->dispchar && o->dispchar[0] == '*'))
			continue;
		if (text.len)
			buf_putc(&text, ' ');
		buf_printf(&text, "%s=", o->keyword);
		if (strpbrk(o->val, " '\\") || !o->val[0]) {
			buf_putc(&text, '\'');
			for (const char *v = o->val; *v; v++) {
				if (*v == '\'' || *v == '\\')
					buf_putc(&text, '\\');
				buf_putc(&text, *v);
			}
			buf_putc(&text, '\'');
		} else {
			buf_puts(&text, o->val);
		}
	}
	snprintf(out, size, "%s", text.data ? text.data : "");
	buf_cleanup(&text);
	PQconninfoFree(options);
}

/* The server's notices ("relation already exists, skipping") are not for the user. */
void pg_ignore_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Says on stderr why a connection failed, with the connection string redacted, at most once
 * every 10 s (a daemon whose server is down tries again at every request). The answer to a
 * client says none of it: user, host and database are not for anyone who can ask. */
void pg_log_connect_failure(const char *conninfo, PGconn *conn)
{
	char shown[512], message[300];

	if (!pg_log_due())
		return;
	db_postgres_redact(conninfo, shown, sizeof(shown));
	pg_one_line(conn ? PQerrorMessage(conn) : "out of memory", message, sizeof(message));
	fprintf(stderr, "animdexd: cannot connect to PostgreSQL (%s): %s\n", shown, message);
}

/* Libpq's keywords of the string, or NULL after saying it cannot be read. Libpq's own reason
 * is not repeated: it quotes the string, password included. */
int pg_conninfo_readable(const char *conninfo, struct error *err)
{
	char *why = NULL;
	PQconninfoOption *options = PQconninfoParse(conninfo, &why);

	PQfreemem(why);
	if (options) {
		PQconninfoFree(options);
		return 1;
	}
	error_set(err, ERROR_BAD_PARAMETER, "db", -1,
	          "catalogue: the PostgreSQL connection string cannot be read (a %% not followed "
	          "by two hex digits, an unclosed [ or quote, an unknown keyword...); it is not "
	          "shown here, since it may hold a password");
	return 0;
}
