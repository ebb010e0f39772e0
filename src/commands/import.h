/* import.h: bulk import of files and folders into the catalogue (`animdexd import`). */
#ifndef ANIMDEX_IMPORT_H
#define ANIMDEX_IMPORT_H

#include <stddef.h>

struct import_options {
	const char *db_path;    /* the catalogue */
	const char *class_name; /* class= for every file, or NULL */
	const char *family;     /* family= for every file, or NULL */
	size_t max_inflate;     /* limit for compressed containers */
	size_t max_entries;     /* entries one file may give (0: any) */
	int quiet;              /* only the final line and errors */
};

/* A whole regular file, malloc'd; NULL with errno set when it cannot be read. */
char *import_read_file(const char *path, size_t *length);

/* Imports every path (files, and folders recursively). Returns 0, or 1 when any file failed. */
int import_paths(const struct import_options *opt, char *const *paths, int count);

#endif
