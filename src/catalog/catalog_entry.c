/* catalog_entry.c: an entry as typed records, read straight from its rows for the code that
 * works on it (poses, exports, comparisons, the skeletons that fit it): its summary and its
 * tracks' targets and shapes (catalog.h, struct catalog_entry); and what is read of an entry
 * without reading it whole (its name, its weight). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"

/* An entry's strings, copied into chunks that are never moved (the records point into them):
 * the first small (most entries are a few names), each next twice the last, up to a most. */
#define TEXT_CHUNK_FIRST 512
#define TEXT_CHUNK_MOST  65536
struct catalog_text_chunk {
	struct catalog_text_chunk *next;
	size_t used, size;
	char text[];
};

/* A copy of text held by e, or NULL for NULL; *failed set when out of memory. */
static const char *keep_text(struct catalog_entry *e, const char *text, int *failed)
{
	struct catalog_text_chunk *c = e->texts;
	size_t length;

	if (!text)
		return NULL;
	length = strlen(text) + 1;
	if (!c || c->size - c->used < length) {
		size_t size = c ? 2 * c->size : TEXT_CHUNK_FIRST;
		if (size > TEXT_CHUNK_MOST)
			size = TEXT_CHUNK_MOST;
		if (size < length)
			size = length;
		if (!(c = malloc(sizeof(*c) + size))) {
			*failed = 1;
			return NULL;
		}
		c->next = e->texts;
		c->used = 0;
		c->size = size;
		e->texts = c;
	}
	memcpy(c->text + c->used, text, length);
	c->used += length;
	return c->text + c->used - length;
}

/* A row of ST_GET_TRACK_TARGETS into t. */
static void target_row(struct catalog_entry *e, struct db_stmt *s, struct catalog_target *t,
                       int *failed)
{
	const char *interpolation;

	t->n = (unsigned)db_column_int64(s, 0);
	t->name = keep_text(e, db_column_text(s, 1), failed);
	t->target.schema = keep_text(e, db_column_text(s, 2), failed);
	if (!t->target.schema)
		t->target.schema = "";
	t->target.object = strtoull(db_column_text(s, 3), NULL, 10);
	t->target.name = keep_text(e, db_column_text(s, 4), failed);
	t->target.property = strtoull(db_column_text(s, 5), NULL, 10);
	t->kind = keep_text(e, db_column_text(s, 6), failed);
	t->events = t->kind && strcmp(t->kind, "events") == 0;
	t->target.has_handle = !db_column_is_null(s, 7);
	t->target.handle = (uint32_t)db_column_int64(s, 7);
	t->handle_name = keep_text(e, db_column_text(s, 8), failed);
	t->key_count = (uint32_t)db_column_int64(s, 9);
	t->type = value_type_from_name(db_column_text(s, 10));
	t->array_size = (uint32_t)db_column_int64(s, 11);
	interpolation = db_column_text(s, 12);
	if (!interpolation || interpolation_from_name(interpolation, &t->interp) < 0)
		t->interp = INTERP_STEP;
}

/* The entry's tracks, in order of n. */
static int read_targets(struct catalog *cat, struct catalog_entry *e, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_TRACK_TARGETS, err);
	size_t cap = 0;
	int rc, failed = 0;

	if (!s)
		return -1;
	db_bind_int64(s, 1, e->id);
	while ((rc = db_step(s, "reading tracks", err)) == 1) {
		if (e->track_count == cap) {
			struct catalog_target *grown =
			    realloc(e->tracks, (cap = cap ? 2 * cap : 16) * sizeof(*grown));
			if (!grown) {
				failed = 1;
				break;
			}
			e->tracks = grown;
		}
		memset(&e->tracks[e->track_count], 0, sizeof(e->tracks[0]));
		target_row(e, s, &e->tracks[e->track_count++], &failed);
		if (failed)
			break;
	}
	db_reset(s);
	if (failed) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return rc < 0 ? -1 : 0;
}

int catalog_entry_read(struct catalog *cat, int64_t id, enum catalog_entry_part part,
                       struct catalog_entry *out, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_ENTRY_NAMES, err);
	int failed = 0;

	memset(out, 0, sizeof(*out));
	out->id = id;
	out->class_name = out->family = "";
	if (!s || catalog_step_resource(s, id, "reading an entry", err) < 0)
		return -1;
	out->class_name = keep_text(out, db_column_text(s, 1), &failed);
	out->family = keep_text(out, db_column_text(s, 2), &failed);
	out->name = keep_text(out, db_column_text(s, 3), &failed);
	out->crc32 = (uint32_t)db_column_int64(s, 4);
	out->filename = keep_text(out, db_column_text(s, 5), &failed);
	db_reset(s);
	if (!out->class_name)
		out->class_name = "";
	if (!out->family)
		out->family = "";
	if (failed) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return part == CATALOG_ENTRY_TRACKS ? read_targets(cat, out, err) : 0;
}

void catalog_entry_cleanup(struct catalog_entry *e)
{
	while (e->texts) {
		struct catalog_text_chunk *next = e->texts->next;
		free(e->texts);
		e->texts = next;
	}
	free(e->tracks);
	memset(e, 0, sizeof(*e));
}

int catalog_entry_name(struct catalog *cat, int64_t id, char **name, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_ENTRY_NAMES, err);
	int failed = 0;

	*name = NULL;
	if (!s || catalog_step_resource(s, id, "reading an entry", err) < 0)
		return -1;
	*name = catalog_text_copy(s, 3, &failed);
	db_reset(s);
	if (failed) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

int catalog_entry_weight(struct catalog *cat, int64_t id, struct catalog_weight *out,
                         struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_ENTRY_WEIGHT, err);

	memset(out, 0, sizeof(*out));
	if (!s || catalog_step_resource(s, id, "weighing an entry", err) < 0)
		return -1;
	out->text_bytes = db_column_int64(s, 0);
	out->tracks = db_column_int64(s, 1);
	out->rig_nodes = db_column_int64(s, 2);
	out->file_bytes = db_column_int64(s, 3);
	db_reset(s);
	return 0;
}

size_t catalog_weight_tree_bytes(const struct catalog_weight *w)
{
	/* jansson and the text made of it: about 10 bytes a byte of stored text parsed (a short
	 * number is a node of its own), 3 KiB a track's fields and 1.5 KiB a rig node's; the
	 * versions (at most 100) and the rest within 64 KiB. Measured: an entry of 20,000 tracks
	 * (6 MB of structure) took 138 MB at its peak; this says 123 MB. */
	return (size_t)(10 * w->text_bytes + 3072 * w->tracks + 1536 * w->rig_nodes) + 65536;
}
