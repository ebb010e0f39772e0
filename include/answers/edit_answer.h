/* edit_answer.h: an entry's keys edited (core/key_edits.h) and made into the file its new
 * version is stored from (POST /api/resources/{id}/edits): the game's own file for the
 * families animdex writes back, a .glb for a glTF entry. */
#ifndef ANIMDEX_EDIT_ANSWER_H
#define ANIMDEX_EDIT_ANSWER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "catalog/catalog.h"

struct edit_file {
	uint8_t *bytes; /* malloc'd */
	size_t length;
	char *file_name; /* malloc'd: the game's name for it, or the entry's with .glb */
	char crc32[16];  /* the handle its upload is to keep ("0x..."), or "" for the decoder's */
	json_t *edits;   /* per track edited: changed, deleted, inserted, keys_before, keys_after */
	json_t *report;  /* the writer's: the native report, or the export's summary */
};

void edit_file_cleanup(struct edit_file *f);

/* Edits entry id with `edits` and makes its file: 0, or -1 with err set (404 for a missing
 * entry; 422 naming the edit, the track and the key, or naming id for an entry whose edits
 * are not saved: a skeleton, a Burnout resource). */
int edit_answer_make(struct catalog *cat, int64_t id, const json_t *edits, struct edit_file *out,
                     struct error *err);

#endif
