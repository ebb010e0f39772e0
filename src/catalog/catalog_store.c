/* catalog_store.c: storing an upload (its bytes once, its entries, tracks and references,
 * deduplicated by SHA-256) and deleting an entry. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "catalog_internal.h"
#include "base/hash.h"
#include "render/render.h"

/* info_text: the track's info as JSON made ahead, or NULL to make it here */
int catalog_insert_track(struct catalog *cat, int64_t id, const struct resource *res, unsigned n,
                         const char *info_text, struct error *err)
{
	const struct channel *ch = &res->clip.channels[n];
	const struct target *tg = &res->clip.targets[ch->target];
	const struct sampler *sp = &res->clip.samplers[ch->sampler];
	const struct track_extra *extra = res->extras ? &res->extras[n] : NULL;
	struct db_stmt *s = db_prepare(cat->db, ST_INSERT_TRACK, err);
	char object[24], property[24], *info = NULL;
	int rc;

	if (!s)
		return -1;
	snprintf(object, sizeof(object), "%" PRIu64, tg->object);
	snprintf(property, sizeof(property), "%" PRIu64, ch->property);
	db_bind_int64(s, 1, id);
	db_bind_int64(s, 2, n);
	db_bind_text(s, 3, res->track_names ? res->track_names[n] : "");
	db_bind_text(s, 4, tg->schema);
	db_bind_text(s, 5, object);
	db_bind_text(s, 6, tg->name);
	db_bind_text(s, 7, property);
	db_bind_int64(s, 8, ch->first_element);
	db_bind_text(s, 9, value_type_name(sp->type));
	db_bind_int64(s, 10, sp->array_size);
	db_bind_text(s, 11, interpolation_name(sp->interp));
	db_bind_text(s, 12, semantic_name(sp->semantic));
	db_bind_int64(s, 13, sp->key_count);
	db_bind_double(s, 14, sp->times[0]);
	db_bind_double(s, 15, sp->times[sp->key_count - 1]);
	db_bind_blob(s, 16, sp->times, (size_t)sp->key_count * sizeof(float));
	db_bind_blob(s, 17, sp->values, sp->value_bytes);
	db_bind_text(s, 18, extra && extra->events ? "events" : "curve");
	if (info_text)
		db_bind_text(s, 19, info_text);
	else if (extra && extra->info)
		db_bind_text(s, 19, info = render_json_stored(extra->info));
	if (extra && extra->has_handle)
		db_bind_int64(s, 20, extra->handle);
	db_bind_int64(s, 21, (int64_t)sp->rules);
	rc = db_step(s, "storing a track", err);
	db_reset(s);
	free(info);
	return rc < 0 ? -1 : 0;
}

/* A resource's structure and assumptions as JSON text, as they are stored; -1 when out of
 * memory. */
int catalog_stored_texts(const struct resource *res, char **structure_text, char **assumed_text)
{
	*structure_text = render_structure_stored(res);
	*assumed_text = render_json_stored(res->assumed);
	if (*structure_text && *assumed_text)
		return 0;
	free(*structure_text);
	free(*assumed_text);
	*structure_text = *assumed_text = NULL;
	return -1;
}

int catalog_render_texts(struct decode_result *decoded)
{
	struct stored_texts *texts = calloc(decoded->count + 1, sizeof(*texts));

	if (!texts)
		return -1;
	for (size_t p = 0; p < decoded->count; p++) {
		const struct resource *res = decoded->resources[p];
		struct stored_texts *t = &texts[p];
		int failed = catalog_stored_texts(res, &t->structure, &t->assumed) < 0;
		t->track_count = res->clip.channel_count;
		t->track_infos = calloc(t->track_count + 1, sizeof(*t->track_infos));
		failed |= !t->track_infos;
		for (size_t n = 0; !failed && res->extras && n < t->track_count; n++)
			if (res->extras[n].info &&
			    !(t->track_infos[n] = render_json_stored(res->extras[n].info)))
				failed = 1;
		if (failed) {
			for (size_t i = 0; i <= p; i++)
				stored_texts_cleanup(&texts[i]);
			free(texts);
			return -1;
		}
	}
	decoded->texts = texts;
	return 0;
}

/* texts: the resource's stored texts made ahead, or NULL to make them here */
static int insert_resource(struct catalog *cat, const struct catalog_upload *up,
                           const struct resource *res, const struct stored_texts *texts,
                           unsigned part, int64_t when, int64_t *id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_INSERT_RESOURCE, err);
	char *structure_text = NULL, *assumed_text = NULL;
	int rc;

	if (!s)
		return -1;
	if (texts) {
		structure_text = texts->structure;
		assumed_text = texts->assumed;
	} else if (catalog_stored_texts(res, &structure_text, &assumed_text) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	db_bind_text(s, 1, up->sha256);
	db_bind_int64(s, 2, part);
	db_bind_text(s, 3, res->family);
	db_bind_text(s, 4, res->class_name);
	db_bind_text(s, 5, res->name);
	db_bind_int64(s, 6, res->crc32);
	db_bind_text(s, 7, res->crc32_source);
	db_bind_text(s, 8, up->filename);
	db_bind_text(s, 9, up->note);
	db_bind_text(s, 10, up->uploaded_by);
	db_bind_int64(s, 11, when);
	if (res->clip.sampler_count || res->clip.duration > 0)
		db_bind_double(s, 12, res->clip.duration);
	db_bind_int64(s, 13, (int64_t)res->clip.channel_count);
	db_bind_text(s, 14, structure_text);
	db_bind_text(s, 15, assumed_text);
	db_bind_int64(s, 16, (int64_t)res->decoder_version);
	rc = db_step(s, "storing an entry", err);
	if (rc == 1)
		*id = db_column_int64(s, 0);
	db_reset(s);
	if (!texts) {
		free(structure_text);
		free(assumed_text);
	}
	if (rc == 0)
		error_set(err, ERROR_INTERNAL, NULL, -1, "catalogue: storing an entry gave no id");
	return rc == 1 ? 0 : -1;
}

int catalog_insert_refs(struct catalog *cat, int64_t id, const struct resource *res,
                        struct error *err)
{
	for (size_t i = 0; i < res->ref_count; i++) {
		const struct reference *ref = &res->refs[i];
		struct db_stmt *s = db_prepare(cat->db, ST_INSERT_REF, err);
		int rc;
		if (!s)
			return -1;
		db_bind_int64(s, 1, id);
		db_bind_int64(s, 2, ref->crc32);
		db_bind_text(s, 3, ref->kind);
		if (ref->track >= 0)
			db_bind_int64(s, 4, ref->track);
		if (ref->key >= 0)
			db_bind_int64(s, 5, ref->key);
		rc = db_step(s, "storing a reference", err);
		db_reset(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int64_t catalog_blob_entry_count(struct catalog *cat, const char *sha256, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_BLOB_ENTRY_COUNT, err);
	int64_t n = -1;
	int rc;

	if (!s)
		return -2;
	db_bind_text(s, 1, sha256);
	rc = db_step(s, "reading the stored bytes' entry count", err);
	if (rc == 1 && !db_column_is_null(s, 0))
		n = db_column_int64(s, 0);
	db_reset(s);
	return rc < 0 ? -2 : n;
}

/* Is a part of these bytes already among the stored entries? */
/* Which of the decoded parts the stored entries already are: one flag a part (a file of many
 * clips is looked through once, not once a part); NULL when out of memory. */
static char *parts_stored(const json_t *entries, size_t part_count)
{
	char *had = calloc(part_count + 1, 1);
	size_t i;
	json_t *e;

	if (!had)
		return NULL;
	json_array_foreach(entries, i, e)
	{
		json_int_t part = json_integer_value(json_object_get(e, "part"));
		if (part >= 0 && (size_t)part < part_count)
			had[part] = 1;
	}
	return had;
}

/* Marks each entry of an answer "created" or "existing", by its part. */
static void mark_status(json_t *entries, const char *had, size_t part_count)
{
	size_t i;
	json_t *e;

	json_array_foreach(entries, i, e)
	{
		json_int_t part = json_integer_value(json_object_get(e, "part"));
		int existing = part < 0 || (size_t)part >= part_count || had[part];
		json_object_set_new(e, "status", json_string(existing ? "existing" : "created"));
	}
}

/* Stores the bytes, or records how many entries they give when they are already stored. */
static int put_blob(struct catalog *cat, const struct catalog_upload *up, size_t entries,
                    int64_t when, int stored, struct error *err)
{
	struct db_stmt *s =
	    db_prepare(cat->db, stored ? ST_SET_BLOB_ENTRY_COUNT : ST_INSERT_BLOB, err);
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, up->sha256);
	if (stored) {
		db_bind_int64(s, 2, (int64_t)entries);
	} else {
		db_bind_int64(s, 2, (int64_t)up->length);
		db_bind_text(s, 3, up->filename);
		db_bind_int64(s, 4, when);
		db_bind_int64(s, 5, (int64_t)entries);
	}
	rc = db_step(
	    s, stored ? "counting the stored bytes' entries" : "storing the uploaded bytes", err);
	db_reset(s);
	if (rc >= 0 && !stored)
		rc = catalog_put_chunks(cat->db, up->sha256, up->bytes, up->length, err);
	return rc < 0 ? -1 : 0;
}

json_t *catalog_put(struct catalog *cat, const struct catalog_upload *up,
                    const struct decode_result *decoded, struct catalog_put_counts *counts,
                    struct error *err)
{
	int64_t when = catalog_now_ms(), *created_ids = NULL;
	size_t created_count = 0;
	struct db_stmt *s;
	json_t *stored = NULL;
	char *had = NULL; /* which parts were stored before this upload */
	int own = !cat->db->ops->in_transaction(cat->db);
	int isolated = !own && !cat->bulk;
	int rc;

	*counts = (struct catalog_put_counts){0, 0};
	/* alone, a transaction; inside a longer one, a savepoint, so that a failed upload leaves
	 * nothing of itself there either; in a bulk one, nothing (its writer replays the whole
	 * transaction carefully when one upload fails) */
	if ((own || isolated) &&
	    catalog_exec(cat, own ? ST_BEGIN : ST_SAVEPOINT, "starting a transaction", err) < 0)
		return NULL;
	/* Inside the write lock (and, for a shared database, the lock on these bytes): a
	 * concurrent upload of the same bytes, from any daemon, is seen here. */
	if (cat->bulk && cat->db->ops->remote) {
		/* optimistic: new bytes, stored without a round trip; bytes or entries already
		 * there break a unique constraint, and the bulk writer replays carefully */
		stored = json_array();
	} else {
		s = db_prepare(cat->db, ST_LOCK_UPLOAD, err);
		if (!s)
			goto fail;
		db_bind_text(s, 1, up->sha256);
		rc = db_step(s, "waiting for another upload of the same bytes", err);
		db_reset(s);
		if (rc < 0)
			goto fail;
		stored = catalog_find_by_sha256(cat, up->sha256, err);
	}
	if (!stored ||
	    put_blob(cat, up, decoded->count, when, json_array_size(stored) > 0, err) < 0)
		goto fail;
	created_ids = calloc(decoded->count + 1, sizeof(*created_ids));
	had = parts_stored(stored, decoded->count);
	if (!created_ids || !had) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (size_t p = 0; p < decoded->count; p++) {
		const struct resource *res = decoded->resources[p];
		int64_t id = 0;
		if (had[p])
			continue;
		const struct stored_texts *texts = decoded->texts ? &decoded->texts[p] : NULL;
		if (insert_resource(cat, up, res, texts, (unsigned)p, when, &id, err) < 0 ||
		    catalog_insert_refs(cat, id, res, err) < 0 ||
		    catalog_insert_rig(cat, id, &res->rig, err) < 0 ||
		    catalog_event_note(cat, "created", id, res->class_name, res->family, res->crc32,
		                       res->decoder_version, err) < 0)
			goto fail;
		for (size_t n = 0; n < res->clip.channel_count; n++)
			if (catalog_insert_track(cat, id, res, (unsigned)n,
			                         texts ? texts->track_infos[n] : NULL, err) < 0)
				goto fail;
		created_ids[created_count++] = id;
	}
	counts->created = created_count;
	counts->existing = json_array_size(stored);
	if (created_count == 0) {
		if (own || isolated)
			catalog_exec(cat, own ? ST_ROLLBACK : ST_ROLLBACK_TO, "rolling back", NULL);
		if (isolated)
			catalog_exec(cat, ST_RELEASE, "rolling back", NULL);
	} else if (cat->bulk) {
		/* not read back: what a bulk writer needs is which entries were made */
		for (size_t p = 0, n = 0; p < decoded->count; p++)
			if (!had[p])
				json_array_append_new(stored,
				                      json_pack("{s:I, s:I}", "id",
				                                (json_int_t)created_ids[n++],
				                                "part", (json_int_t)p));
	} else {
		json_decref(stored);
		stored = catalog_find_by_sha256(cat, up->sha256, err);
		if (!stored || catalog_exec(cat, own ? ST_COMMIT : ST_RELEASE,
		                            "committing the upload", err) < 0)
			goto fail;
	}
	mark_status(stored, had, decoded->count);
	free(created_ids);
	free(had);
	return stored;
fail:
	free(created_ids);
	free(had);
	json_decref(stored);
	if (own) {
		catalog_rollback(cat);
	} else if (isolated && cat->db->ops->in_transaction(cat->db)) {
		catalog_exec(cat, ST_ROLLBACK_TO, "rolling back the upload", NULL);
		catalog_exec(cat, ST_RELEASE, "rolling back the upload", NULL);
	}
	return NULL;
}

/* Bumps the stored generation inside a transaction that deletes or redecodes. */
int catalog_bump_generation(struct catalog *cat, struct error *err)
{
	return catalog_exec(cat, ST_BUMP_GENERATION, "recording the change", err);
}

int catalog_delete(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s;
	char *sha = NULL;
	int rc;

	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0)
		return -1;
	s = db_prepare(cat->db, ST_GET_BLOB_OF, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "finding the entry", err);
	if (rc == 1 && !(sha = strdup(db_column_text(s, 0)))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		rc = -1;
	} else if (rc == 1 &&
	           catalog_event_note(cat, "deleted", id, db_column_text(s, 1),
	                              db_column_text(s, 2), (uint32_t)db_column_int64(s, 3),
	                              (unsigned)db_column_int64(s, 4), err) < 0) {
		rc = -1;
	}
	db_reset(s);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		error_set(err, ERROR_NOT_FOUND, "id", -1, "no resource has id %" PRId64, id);
		goto fail;
	}
	s = db_prepare(cat->db, ST_DELETE_RESOURCE, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "deleting the entry", err);
	db_reset(s);
	if (rc < 0)
		goto fail;
	for (int st = ST_DELETE_UNUSED_CHUNKS; st <= ST_DELETE_UNUSED_BLOB; st++) {
		s = db_prepare(cat->db, (enum statement)st, err);
		if (!s)
			goto fail;
		db_bind_text(s, 1, sha);
		rc = db_step(s, "deleting the uploaded bytes", err);
		db_reset(s);
		if (rc < 0)
			goto fail;
	}
	if (rc < 0 || catalog_bump_generation(cat, err) < 0 ||
	    catalog_exec(cat, ST_COMMIT, "committing the delete", err) < 0)
		goto fail;
	catalog_cache_invalidate(); /* every cache drops it */
	free(sha);
	return 0;
fail:
	free(sha);
	catalog_rollback(cat);
	return -1;
}
