/* catalog_postgres_none.c: the PostgreSQL backend of a build without it (./configure
 * --without-postgresql, or libpq not found): a PostgreSQL --db is recognised (catalog.c) and
 * refused with a message that says why, instead of being taken for a file name. */
#include <stdio.h>

#include "catalog_backend.h"

void db_postgres_set_timeout(unsigned seconds)
{
	(void)seconds;
}

void db_postgres_redact(const char *conninfo, char *out, size_t size)
{
	(void)conninfo; /* without libpq it cannot be read, so none of it is shown */
	snprintf(out, size, "(a PostgreSQL connection string)");
}

struct db *db_postgres_open(const char *conninfo, int read_only, struct error *err)
{
	(void)conninfo;
	(void)read_only;
	error_set(err, ERROR_UNAVAILABLE, "--db", -1,
	          "--db: this animdexd was built without PostgreSQL (./configure "
	          "--without-postgresql, or libpq was not found), so it opens SQLite catalogues "
	          "only; build it with libpq-dev installed to use a PostgreSQL database");
	return NULL;
}
