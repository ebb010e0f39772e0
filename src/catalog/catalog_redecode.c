/* catalog_redecode.c: what animdexd redecode reads and writes: entries a newer decoder would
 * read differently, their stored bytes, and their decoded rows replaced in place. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "catalog_internal.h"
#include "base/hash.h"
#include "render/render.h"

/* Decoder versions and redecoding. */

int64_t catalog_outdated(struct catalog *cat, struct error *err)
{
	size_t count;
	const struct format *const *formats = format_table(&count);
	int64_t total = 0;

	for (size_t i = 0; i < count; i++) {
		struct db_stmt *s = db_prepare(cat->db, ST_OUTDATED, err);
		if (!s)
			return -1;
		db_bind_text(s, 1, formats[i]->family);
		db_bind_int64(s, 2, (int64_t)formats[i]->version);
		if (db_step(s, "counting outdated entries", err) != 1) {
			db_reset(s);
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "catalogue: counting gave nothing");
			return -1;
		}
		total += db_column_int64(s, 0);
		db_reset(s);
	}
	return total;
}

/* Appends the first column of every row to a malloc'd array. */
int catalog_select_ids(struct catalog *cat, const char *family, const char *class_name, int64_t id,
                       int64_t **ids, size_t *count, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_SELECT_IDS, err);

	*ids = NULL;
	*count = 0;
	if (!s)
		return -1;
	db_bind_text(s, 1, family);
	db_bind_text(s, 2, class_name);
	db_bind_int64(s, 3, id);
	return catalog_collect_ids(s, "selecting entries", ids, count, err);
}

/* What the stored structure's metadata says of how the upload was read (catalog_stored). */
static void read_hints(struct catalog_stored *out)
{
	const json_t *meta = json_object_get(out->structure, "metadata");
	const char *order = json_string_value(json_object_get(meta, "byte_order"));
	const char *how = json_string_value(json_object_get(meta, "layout_detection"));
	const json_t *layout = json_object_get(meta, "layout");

	if (!order) /* a keyframer read out of a container */
		order = json_string_value(
		    json_object_get(json_object_get(meta, "container"), "byte_order"));
	snprintf(out->byte_order, sizeof(out->byte_order), "%s", order ? order : "");
	out->layout_given = how && strcmp(how, "given by layout=") == 0 && json_is_integer(layout);
	out->layout = out->layout_given ? (int)json_integer_value(layout) : 0;
	out->from_bundle = json_object_get(meta, "bundle") != NULL;
}

int catalog_get_stored(struct catalog *cat, int64_t id, struct catalog_stored *out,
                       struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_STORED, err);
	char sha256[65];
	int64_t size;
	int failed = 0;

	memset(out, 0, sizeof(*out));
	if (!s || catalog_step_resource(s, id, "reading an entry's bytes", err) < 0)
		return -1;
	out->id = id;
	out->part = (unsigned)db_column_int64(s, 0);
	snprintf(out->family, sizeof(out->family), "%s", db_column_text(s, 1));
	snprintf(out->class_name, sizeof(out->class_name), "%s", db_column_text(s, 2));
	out->decoder_version = (unsigned)db_column_int64(s, 3);
	snprintf(out->crc32_source, sizeof(out->crc32_source), "%s", db_column_text(s, 4));
	out->structure = json_loads(db_column_text(s, 5), 0, NULL);
	read_hints(out);
	out->filename = catalog_text_copy(s, 6, &failed);
	snprintf(sha256, sizeof(sha256), "%s", db_column_text(s, 7) ? db_column_text(s, 7) : "");
	size = db_column_int64(s, 8);
	db_reset(s);
	if (failed) {
		catalog_stored_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	out->bytes = catalog_read_chunks(cat->db, sha256, size, err);
	if (!out->bytes) {
		catalog_stored_cleanup(out);
		return -1;
	}
	out->length = (size_t)size;
	return 0;
}

void catalog_stored_cleanup(struct catalog_stored *stored)
{
	free(stored->bytes);
	free(stored->filename);
	json_decref(stored->structure);
	memset(stored, 0, sizeof(*stored));
}

/* One SHA-256 per row of a statement bound to a resource id: every column, typed, so two
 * rows digest alike exactly when they hold the same values. */
static int row_digests(struct catalog *cat, enum statement st, int64_t id,
                       uint8_t (**digests)[SHA256_DIGEST_SIZE], size_t *count, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, st, err);
	size_t cap = 0;
	int rc;

	*digests = NULL;
	*count = 0;
	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	while ((rc = db_step(s, "reading tracks", err)) == 1) {
		struct sha256 h;
		int columns = s->ops->column_count(s);
		if (*count == cap) {
			void *grown =
			    realloc(*digests, (cap = cap ? 2 * cap : 16) * sizeof(**digests));
			if (!grown) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				rc = -1;
				break;
			}
			*digests = grown;
		}
		sha256_init(&h);
		for (int c = 0; c < columns; c++) {
			uint8_t type = (uint8_t)db_column_type(s, c);
			int64_t integer;
			double real;
			const void *p = NULL;
			size_t len = 0;
			switch (type) {
			case DB_INTEGER:
				integer = db_column_int64(s, c);
				p = &integer, len = sizeof(integer);
				break;
			case DB_REAL:
				real = db_column_double(s, c);
				p = &real, len = sizeof(real);
				break;
			case DB_TEXT:
				p = db_column_text(s, c);
				len = strlen(p);
				break;
			case DB_BLOB: p = db_column_blob(s, c, &len); break;
			default: break;
			}
			uint64_t len64 = len;
			sha256_update(&h, &type, 1);
			sha256_update(&h, &len64, sizeof(len64));
			if (p && len)
				sha256_update(&h, p, len);
		}
		sha256_final(&h, (*digests)[(*count)++]);
	}
	db_reset(s);
	if (rc < 0) {
		free(*digests);
		*digests = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}

static int exec_for_id(struct catalog *cat, enum statement st, int64_t id, const char *what,
                       struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, st, err);
	int rc;

	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	rc = db_step(s, what, err);
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

int catalog_replace_decoded(struct catalog *cat, int64_t id, const struct resource *res,
                            struct catalog_changes *changes, struct error *err)
{
	uint8_t(*before)[SHA256_DIGEST_SIZE] = NULL, (*after)[SHA256_DIGEST_SIZE] = NULL;
	uint8_t(*refs_before)[SHA256_DIGEST_SIZE] = NULL, (*refs_after)[SHA256_DIGEST_SIZE] = NULL;
	size_t nb = 0, na = 0, rb = 0, ra = 0;
	struct catalog_stored old = {0};
	struct rig old_rig;
	char *structure_text = NULL, *assumed_text = NULL, *old_assumed = NULL;
	int64_t old_handle = 0;
	struct db_stmt *s;
	int rc = -1, stepped;

	memset(changes, 0, sizeof(*changes));
	rig_init(&old_rig);
	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0)
		return -1;
	if (catalog_get_stored(cat, id, &old, err) < 0 ||
	    catalog_read_rig(cat, id, &old_rig, err) < 0 ||
	    row_digests(cat, ST_TRACK_DIGESTS, id, &before, &nb, err) < 0 ||
	    row_digests(cat, ST_REF_DIGESTS, id, &refs_before, &rb, err) < 0)
		goto done;
	s = db_prepare(cat->db, ST_GET_RESOURCE, err);
	if (!s || catalog_step_resource(s, id, "reading an entry", err) < 0)
		goto done;
	old_assumed = strdup(db_column_text(s, 17));
	old_handle = db_column_int64(s, 4);
	db_reset(s);
	if (!old_assumed || catalog_stored_texts(res, &structure_text, &assumed_text) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	if (exec_for_id(cat, ST_DELETE_TRACKS, id, "removing the old tracks", err) < 0 ||
	    exec_for_id(cat, ST_DELETE_REFS, id, "removing the old references", err) < 0 ||
	    catalog_delete_rig(cat, id, err) < 0 || catalog_insert_refs(cat, id, res, err) < 0 ||
	    catalog_insert_rig(cat, id, &res->rig, err) < 0)
		goto done;
	for (size_t n = 0; n < res->clip.channel_count; n++)
		if (catalog_insert_track(cat, id, res, (unsigned)n, NULL, err) < 0)
			goto done;
	s = db_prepare(cat->db, ST_UPDATE_DECODED, err);
	if (!s)
		goto done;
	db_bind_int64(s, 1, id);
	if (res->clip.sampler_count || res->clip.duration > 0)
		db_bind_double(s, 2, res->clip.duration);
	db_bind_int64(s, 3, (int64_t)res->clip.channel_count);
	db_bind_text(s, 4, structure_text);
	db_bind_text(s, 5, assumed_text);
	db_bind_int64(s, 6, (int64_t)res->decoder_version);
	/* the handle stays, unless the entry never had one of its own (an older decoder left
	 * crc32_source empty) */
	if (old.crc32_source[0]) {
		db_bind_int64(s, 7, old_handle);
		db_bind_text(s, 8, old.crc32_source);
	} else {
		db_bind_int64(s, 7, res->crc32);
		db_bind_text(s, 8, res->crc32_source);
		changes->handle = 1;
	}
	stepped = db_step(s, "updating the entry", err);
	db_reset(s);
	if (stepped < 0 || row_digests(cat, ST_TRACK_DIGESTS, id, &after, &na, err) < 0 ||
	    row_digests(cat, ST_REF_DIGESTS, id, &refs_after, &ra, err) < 0)
		goto done;
	for (size_t n = 0; n < na || n < nb; n++) {
		if (n >= nb)
			changes->tracks_added++;
		else if (n >= na)
			changes->tracks_removed++;
		else if (memcmp(before[n], after[n], SHA256_DIGEST_SIZE) != 0)
			changes->tracks_changed++;
	}
	{
		char *old_structure = old.structure ? render_json_stored(old.structure) : NULL;
		changes->structure = !old_structure || strcmp(old_structure, structure_text) != 0 ||
		                     strcmp(old_assumed, assumed_text) != 0;
		free(old_structure);
	}
	changes->references =
	    ra != rb || (ra && memcmp(refs_before, refs_after, ra * SHA256_DIGEST_SIZE) != 0);
	changes->rig = !rig_equal(&old_rig, &res->rig);
	changes->changed = changes->tracks_added || changes->tracks_removed ||
	                   changes->tracks_changed || changes->structure || changes->references ||
	                   changes->handle || changes->rig;
	if ((changes->changed && catalog_bump_generation(cat, err) < 0) ||
	    ((changes->changed || old.decoder_version != res->decoder_version) &&
	     catalog_event_note(cat, "redecoded", id, old.class_name, old.family,
	                        (uint32_t)(old.crc32_source[0] ? old_handle : res->crc32),
	                        res->decoder_version, err) < 0) ||
	    catalog_exec(cat, ST_COMMIT, "committing the entry", err) < 0)
		goto done;
	catalog_cache_invalidate(); /* no stale cached track */
	rc = 0;
done:
	if (rc < 0)
		catalog_rollback(cat);
	free(before);
	free(after);
	free(refs_before);
	free(refs_after);
	free(structure_text);
	free(assumed_text);
	free(old_assumed);
	rig_cleanup(&old_rig);
	catalog_stored_cleanup(&old);
	return rc;
}

void catalog_stored_upload(const struct catalog_stored *st, struct upload *up, char *layout,
                           size_t layout_size)
{
	memset(up, 0, sizeof(*up));
	up->data = st->bytes;
	up->length = st->length;
	up->filename = st->filename;
	up->family = st->family;
	if (strcmp(st->family, "zouna") == 0) {
		/* the class chose the keyframer layout; the byte order was read or given */
		up->class_name = st->class_name;
		up->endian = st->byte_order[0] ? st->byte_order : NULL;
	} else if (strcmp(st->family, "burnout") == 0) {
		if (strcmp(st->class_name, "BodyPartRemapData") == 0 && !st->from_bundle)
			up->class_name = st->class_name; /* nothing else tells it apart */
		if (st->layout_given) {
			snprintf(layout, layout_size, "%d", st->layout);
			up->layout = layout;
		}
	}
}

struct resource *catalog_stored_decode(const struct catalog_stored *st,
                                       struct decode_result *result, struct error *err)
{
	struct upload up;
	char layout[8];

	catalog_stored_upload(st, &up, layout, sizeof(layout));
	if (format_decode(&up, result, err) < 0)
		return NULL;
	if (st->part >= result->count) {
		error_set(err, ERROR_INVALID, NULL, -1,
		          "today's decoder gives %zu entries for these bytes, and this entry was "
		          "entry %u of them",
		          result->count, st->part);
		return NULL;
	}
	if (strcmp(result->resources[st->part]->class_name, st->class_name) != 0) {
		error_set(err, ERROR_INVALID, NULL, -1,
		          "today's decoder reads entry %u of these bytes as a %s, not a %s",
		          st->part, result->resources[st->part]->class_name, st->class_name);
		return NULL;
	}
	return result->resources[st->part];
}
