/* catalog_files.c: which paths are a SQLite catalogue's own files (the database and its
 * -wal, -shm and -journal), so that a command asked to write a file never writes over the
 * catalogue it reads, and a copy never has the same file at both ends. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "catalog_internal.h"

/* The path with its folder made absolute and its links resolved (the file itself need not
 * exist); 0 when the folder cannot be found. */
static int canonical(const char *path, char *out, size_t size)
{
	char folder[PATH_MAX], resolved[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	if (slash)
		snprintf(folder, sizeof(folder), "%.*s", slash == path ? 1 : (int)(slash - path),
		         path);
	else
		snprintf(folder, sizeof(folder), ".");
	if (!realpath(folder, resolved))
		return 0;
	/* a file that exists: its own links resolved too */
	if (realpath(path, out) && strlen(out) < size)
		return 1;
	return snprintf(out, size, "%s/%s", strcmp(resolved, "/") == 0 ? "" : resolved, name) <
	       (int)size;
}

/* Do the two paths name one file: the same inode, or the same place once canonical? */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[PATH_MAX + 256], cb[PATH_MAX + 256];

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return canonical(a, ca, sizeof(ca)) && canonical(b, cb, sizeof(cb)) && strcmp(ca, cb) == 0;
}

const char *catalog_files_match(const char *target, const char *path)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	static const char *const names[] = {"the catalogue", "the catalogue's write-ahead log",
	                                    "the catalogue's shared-memory file",
	                                    "the catalogue's rollback journal"};

	if (db_is_postgres(target))
		return NULL;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		char file[PATH_MAX];
		if (snprintf(file, sizeof(file), "%s%s", target, suffixes[i]) >= (int)sizeof(file))
			continue;
		if (same_file(file, path))
			return names[i];
	}
	return NULL;
}
