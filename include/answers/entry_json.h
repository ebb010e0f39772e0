/* entry_json.h: an entry's typed records (catalog.h, struct catalog_entry) as the JSON answers
 * show them (entry_json.c): the same fields, in the same order, as GET /api/resources/{id}
 * lists them. */
#ifndef ANIMDEX_ENTRY_JSON_H
#define ANIMDEX_ENTRY_JSON_H

#include <jansson.h>

#include "catalog/catalog.h"

/* A string, or null for NULL (NULL, so that the key is left out, for text that is not
 * UTF-8: jansson refuses it). */
json_t *entry_json_text(const char *text);
/* What a track moves: {"schema", "object", "name", and "handle" and "handle_name" where it has
 * them}. */
json_t *entry_json_target(const struct catalog_target *t);
/* The entry itself: {"id", "class", "family", "name", "crc32"}. */
json_t *entry_json_summary(const struct catalog_entry *e);

#endif
