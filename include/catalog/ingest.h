/* ingest.h: one upload's way into the catalogue, the same for the HTTP route and for
 * `animdexd import`: prepare it (hash, look for the same bytes, decode, hash the form that is
 * stored, render the stored texts), then store it and count what that did.
 *
 * Preparing needs no lock and may run on any thread beside the writer; storing runs inside
 * the writer's transaction (catalog_put opens one of its own when there is none).
 */
#ifndef ANIMDEX_INGEST_H
#define ANIMDEX_INGEST_H

#include <jansson.h>
#include <stddef.h>

#include "catalog/catalog.h"
#include "base/error.h"
#include "formats/format.h"
#include "base/hash.h"

struct ingest {
	struct upload up; /* the caller's: bytes, file name, the uploader's hints and bounds */
	char sha256[SHA256_HEX_SIZE]; /* of the bytes stored (a decoder's self-contained form) */
	json_t *existing;             /* the entries these bytes have already, or NULL */
	struct decode_result decoded; /* empty when existing holds them all */
};

/* What storing did. */
struct ingest_counts {
	size_t created;   /* entries made */
	size_t existing;  /* entries that were there already for the same bytes */
	size_t recreated; /* of the created: entries of stored bytes deleted since, made again */
};

void ingest_init(struct ingest *in);
void ingest_cleanup(struct ingest *in);

/* Prepares in->up for storing. With a catalogue, first looks for the same bytes: when every
 * entry they gave is stored, answers INGEST_STORED with in->existing set and decodes nothing.
 * Without one (a walker beside the writer), decodes at once. INGEST_READY when decoded;
 * INGEST_REFUSED with err set when the decoder refuses the bytes (ERROR_UNSUPPORTED_FORMAT
 * when no decoder reads them); INGEST_FAILED with err set when the catalogue cannot say. */
enum ingest_state { INGEST_READY, INGEST_STORED, INGEST_REFUSED, INGEST_FAILED };
enum ingest_state ingest_prepare(struct ingest *in, struct catalog *cat, struct error *err);

/* Stores a prepared upload under its file name (in->up.filename) with the note and uploader
 * given (either NULL), adds what it did to *counts, and returns the summaries of the bytes'
 * entries, each with "status" ("created" or "existing"); NULL with err set and nothing stored
 * (inside a bulk transaction, the caller must then roll it back). */
json_t *ingest_store(struct catalog *cat, const struct ingest *in, const char *note,
                     const char *user, struct ingest_counts *counts, struct error *err);

#endif
