/* routes_edits.c: an entry's keys edited and saved as a new version of it
 * (POST /api/resources/{id}/edits).
 *
 * The body is {"edits": [...], "note": "..."} (core/key_edits.h says what an edit is). The
 * entry is decoded again from its stored upload, the edits applied to its tracks, and the
 * result written as the game's own file with the entry as its template (answers/native_answer.h):
 * unchanged slices keep their bytes, the edited keys are written in the template's classes to
 * the nearest step. That file is stored as an upload would be (uploaded by the caller, named
 * as the game names it, with a note saying which entry it came from and what changed), so it
 * is an entry of the same class and handle: a version of the one edited. 201 with the new
 * entry, what the edits did per track and the writer's report; 200 when the edited file is
 * one the catalogue has already; 422 naming the edit, the track and the key for a bad edit,
 * with nothing stored. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/native_answer.h"
#include "catalog/ingest.h"
#include "core/key_edits.h"
#include "http/http.h"

#define NOTE_MAX 2000 /* characters of a note given with the edits */

static const char *no_arguments(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

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

/* Which tracks' keys are events (not edited as keys); NULL when none. */
static unsigned char *event_tracks(const struct resource *res)
{
	unsigned char *events;

	if (!res->extras)
		return NULL;
	events = calloc(res->clip.channel_count + 1, 1);
	for (size_t n = 0; events && n < res->clip.channel_count; n++)
		events[n] = res->extras[n].events != 0;
	return events;
}

/* Whether the entry's edits can be saved as the game's file (before anything is decoded). */
static int editable(const struct catalog_stored *st, struct error *err)
{
	if ((strcmp(st->family, "zouna") != 0 && strcmp(st->family, "radient") != 0) ||
	    strcmp(st->class_name, "Skel_Z") == 0) {
		error_set(
		    err, ERROR_INVALID, "id", -1,
		    "id: entry %" PRId64 " is a %s %s; edited keys are saved as the game's own "
		    "file, for Zouna animations and keyframers and Radient clips (a %s is not "
		    "edited here yet: export it, edit it in Blender and upload it)",
		    st->id, st->family, st->class_name, st->class_name);
		return -1;
	}
	return 0;
}

/* The edited entry written as the game's file, on the entry itself as template. */
static int write_back(struct catalog *cat, const struct catalog_stored *st,
                      const struct resource *res, struct native_file *file, char **file_name,
                      struct error *err)
{
	struct native_request rq;

	if (native_request_parse(&rq, no_arguments, NULL, err) < 0)
		return -1;
	rq.id = st->id;
	rq.template_id = st->id;
	return native_answer_make_of(cat, &rq, res, file, file_name, err);
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

void route_edits(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct catalog_stored st = {0};
	struct decode_result decoded;
	struct native_file file = {0};
	struct ingest in;
	struct ingest_counts counts = {0, 0, 0};
	struct resource *res;
	struct error err;
	json_t *body = NULL, *summary = NULL, *entries = NULL;
	unsigned char *events = NULL;
	const char *note = NULL;
	char *file_name = NULL, *text = NULL;
	int64_t id;

	error_init(&err);
	ingest_init(&in);
	decode_result_init(&decoded);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (!(body = read_body(req, &note, &err)) || catalog_get_stored(cat, id, &st, &err) < 0 ||
	    editable(&st, &err) < 0 || !(res = catalog_stored_decode(&st, &decoded, &err)))
		goto fail;
	events = event_tracks(res);
	if (key_edits_apply(&res->clip, events, json_object_get(body, "edits"), &summary, &err) <
	        0 ||
	    write_back(cat, &st, res, &file, &file_name, &err) < 0)
		goto fail;
	if (!(text = describe(id, summary, note))) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	in.up.data = file.bytes;
	in.up.length = file.length;
	in.up.filename = file_name;
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
	                        (json_int_t)id, "edits", summary, "note", text, "native",
	                        file.report));
	goto done;
fail:
	response_error(resp, &err);
done:
	json_decref(entries);
	json_decref(summary);
	json_decref(body);
	free(events);
	free(text);
	free(file_name);
	native_file_cleanup(&file);
	ingest_cleanup(&in);
	decode_result_cleanup(&decoded);
	catalog_stored_cleanup(&st);
}
