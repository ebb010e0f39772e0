/* routes_edits.c: an entry's keys edited and saved as a new version of it
 * (POST /api/resources/{id}/edits).
 *
 * The body is {"edits": [...], "note": "..."} (core/key_edits.h says what an edit is). The
 * edited entry is made into a file (answers/edit_answer.h: the game's own, or a .glb for a
 * glTF entry), which is stored as an upload would be (uploaded by the caller, under the
 * file's name, keeping the entry's handle, with a note saying which entry it came from and
 * what changed), so it is an entry of the same class and handle: a version of the one edited.
 * 201 with the new entry, what the edits did per track and the writer's report; 200 when the
 * edited file is one the catalogue has already; 422 naming the edit, the track and the key
 * for a bad edit, with nothing stored; 503 when making it would hold more than --answer-memory
 * leaves. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/edit_answer.h"
#include "catalog/ingest.h"
#include "http/http.h"

#define NOTE_MAX 2000 /* characters of a note given with the edits */

/* The request's body: {"edits": [...], "note": "..."}; NULL with err set (400). */
static json_t *read_body(const struct request *req, const char **note, struct error *err)
{
	json_error_t jerr;
	json_t *body, *v;
	const char *key;

	if (req->file_count == 0 || req->files[0].data.len == 0) {
		error_set(
		    err, ERROR_BAD_PARAMETER, "edits", -1,
		    "edits: send {\"edits\": [...]} as the body (curl --data-binary @edits.json "
		    "-H 'Content-Type: application/json')");
		return NULL;
	}
	body = json_loadb(req->files[0].data.data, req->files[0].data.len, JSON_REJECT_DUPLICATES,
	                  &jerr);
	if (!body) {
		error_set(err, ERROR_MALFORMED, "edits", jerr.position,
		          "edits: the body is not JSON: %s (line %d, column %d)", jerr.text,
		          jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(body)) {
		error_set(err, ERROR_INVALID, "edits", -1,
		          "edits: the body is an object, {\"edits\": [...], \"note\": \"...\"}");
		json_decref(body);
		return NULL;
	}
	json_object_foreach(body, key, v)
	{
		if (strcmp(key, "edits") != 0 && strcmp(key, "note") != 0) {
			error_set(err, ERROR_INVALID, key, -1,
			          "%.40s: not a member of the body (edits, and a note if you like)",
			          key);
			json_decref(body);
			return NULL;
		}
	}
	v = json_object_get(body, "note");
	if (v && (!json_is_string(v) || json_string_length(v) > NOTE_MAX)) {
		error_set(err, ERROR_INVALID, "note", -1, "note: a string of at most %d characters",
		          NOTE_MAX);
		json_decref(body);
		return NULL;
	}
	*note = v ? json_string_value(v) : NULL;
	return body;
}

/* "edited from entry 12: track 3 (1 key changed, 1 deleted), track 5 (1 inserted)" and the
 * caller's note after it. */
static char *describe(int64_t id, const json_t *summary, const char *note)
{
	size_t cap = 256 + (note ? strlen(note) : 0) + 64 * json_array_size(summary), at;
	char *text = malloc(cap);
	json_t *t;
	size_t i;

	if (!text)
		return NULL;
	at = (size_t)snprintf(text, cap, "edited from entry %" PRId64 ":", id);
	json_array_foreach(summary, i, t)
	{
		size_t changed = json_array_size(json_object_get(t, "changed"));
		size_t deleted = json_array_size(json_object_get(t, "deleted"));
		size_t inserted = json_array_size(json_object_get(t, "inserted"));
		const char *sep = "";
		if (at + 96 >= cap)
			break;
		at += (size_t)snprintf(text + at, cap - at, "%s track %d (", i ? "," : "",
		                       (int)json_integer_value(json_object_get(t, "track")));
		if (changed)
			at += (size_t)snprintf(text + at, cap - at, "%zu key%s changed", changed,
			                       changed == 1 ? "" : "s"),
			    sep = ", ";
		if (deleted)
			at += (size_t)snprintf(text + at, cap - at, "%s%zu deleted", sep, deleted),
			    sep = ", ";
		if (inserted)
			at +=
			    (size_t)snprintf(text + at, cap - at, "%s%zu inserted", sep, inserted);
		at += (size_t)snprintf(text + at, cap - at, ")");
	}
	if (note && *note)
		snprintf(text + at, cap - at, "; %s", note);
	return text;
}

/* Stores the file as an upload, in a transaction of its own: its entries, or NULL. */
static json_t *store(struct request *req, struct ingest *in, const char *note,
                     struct ingest_counts *counts, struct error *err)
{
	struct catalog *writer = catalog_pool_writer(req->pool, err);
	json_t *entries = NULL;

	if (!writer)
		return NULL;
	if (catalog_begin(writer, err) == 0) {
		entries =
		    ingest_store(writer, in, note, req->user[0] ? req->user : NULL, counts, err);
		if (!entries) {
			catalog_rollback(writer);
		} else if (catalog_commit(writer, err) < 0) {
			json_decref(entries);
			entries = NULL;
		}
	}
	catalog_pool_release_writer(req->pool, writer);
	return entries;
}

/* The memory an edit holds while it is made and stored, counted against --answer-memory before
 * any of it is made: the entry decoded, edited and written as a file (as a native answer counts
 * it: 16 times its stored bytes, and its tracks), then that file decoded again to be stored (as
 * much again). 0, or -1 with err set (503, or 404 for an entry that is not there). */
static int reserve_edit(struct request *req, struct catalog *cat, int64_t id, struct error *err)
{
	struct catalog_weight w;

	if (catalog_entry_weight(cat, id, &w, err) < 0)
		return -1;
	return request_reserve(
	    req, 65536 + 2 * (16 * (size_t)w.file_bytes + catalog_weight_tree_bytes(&w)),
	    "the edited file", err);
}

void route_edits(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct edit_file file = {0};
	struct ingest in;
	struct ingest_counts counts = {0, 0, 0};
	struct error err;
	json_t *body = NULL, *entries = NULL;
	const char *note = NULL;
	char *text = NULL;
	int64_t id;

	error_init(&err);
	ingest_init(&in);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (!(body = read_body(req, &note, &err)) || reserve_edit(req, cat, id, &err) < 0 ||
	    edit_answer_make(cat, id, json_object_get(body, "edits"), &file, &err) < 0)
		goto fail;
	if (!(text = describe(id, file.edits, note))) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	in.up.data = file.bytes;
	in.up.length = file.length;
	in.up.filename = file.file_name;
	in.up.crc32 = file.crc32[0] ? file.crc32 : NULL;
	in.up.max_inflate = req->config->max_upload;
	in.up.max_entries = req->config->max_entries;
	switch (ingest_prepare(&in, cat, &err)) {
	case INGEST_READY:
		if (!(entries = store(req, &in, text, &counts, &err)))
			goto fail;
		break;
	case INGEST_STORED: entries = json_incref(in.existing); break;
	default: goto fail;
	}
	route_link_entries(entries);
	response_json(resp, counts.created > 0 ? 201 : 200,
	              json_pack("{s:O, s:I, s:O, s:s, s:O?}", "resources", entries, "from",
	                        (json_int_t)id, "edits", file.edits, "note", text, "report",
	                        file.report));
	goto done;
fail:
	response_error(resp, &err);
done:
	json_decref(entries);
	json_decref(body);
	free(text);
	edit_file_cleanup(&file);
	ingest_cleanup(&in);
}
