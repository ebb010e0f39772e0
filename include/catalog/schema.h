/* schema.h: the SQL migrations of schema/ (SQLite) and schema/postgresql/, embedded at build
 * time (build-aux/embed-sql.sh). */
#ifndef ANIMDEX_SCHEMA_H
#define ANIMDEX_SCHEMA_H

struct schema_migration {
	unsigned version; /* the file's number: the schema version after it is applied */
	const char *file; /* e.g. "001_initial.sql" */
	const char *sql;  /* the whole file */
};

extern const struct schema_migration schema_migrations[];
extern const unsigned schema_migration_count;
extern const struct schema_migration postgres_migrations[];
extern const unsigned postgres_migration_count;

#endif
