/* catalog_events.c: the catalogue's events (schema/008_events.sql): what a transaction
 * created, deleted or decoded again, written with it, and read back in order for
 * GET /api/events.
 *
 * A writer notes its events as it goes (catalog_event_note) and they are written just before
 * its COMMIT (catalog_events_flush, from catalog_exec), after the events' lock: on PostgreSQL
 * that lock is held to the commit, so event ids are handed out in the order transactions
 * commit, and a reader that sees id N sees every committed event before it. Notes follow the
 * transaction's savepoints: an upload rolled back to its savepoint takes its notes with it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "render/render.h"

struct event_note {
	const char *kind; /* a static string */
	int64_t resource_id;
	char *class_name, *family;
	uint32_t crc32;
	unsigned decoder_version;
};

void catalog_events_forget(struct catalog *cat)
{
	for (size_t i = 0; i < cat->note_count; i++) {
		free(cat->notes[i].class_name);
		free(cat->notes[i].family);
	}
	free(cat->notes);
	cat->notes = NULL;
	cat->note_count = cat->note_capacity = 0;
	cat->mark_count = 0;
}

/* Drops the notes made after the first `keep`. */
static void forget_after(struct catalog *cat, size_t keep)
{
	while (cat->note_count > keep) {
		struct event_note *n = &cat->notes[--cat->note_count];
		free(n->class_name);
		free(n->family);
	}
}

int catalog_event_note(struct catalog *cat, const char *kind, int64_t id, const char *class_name,
                       const char *family, uint32_t crc32, unsigned decoder_version,
                       struct error *err)
{
	struct event_note *n;

	if (cat->note_count == cat->note_capacity) {
		size_t capacity = cat->note_capacity ? 2 * cat->note_capacity : 8;
		struct event_note *grown = realloc(cat->notes, capacity * sizeof(*grown));
		if (!grown)
			goto oom;
		cat->notes = grown;
		cat->note_capacity = capacity;
	}
	n = &cat->notes[cat->note_count];
	*n = (struct event_note){kind,
	                         id,
	                         strdup(class_name ? class_name : ""),
	                         strdup(family ? family : ""),
	                         crc32,
	                         decoder_version};
	if (!n->class_name || !n->family) {
		free(n->class_name);
		free(n->family);
		goto oom;
	}
	cat->note_count++;
	return 0;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

void catalog_events_follow(struct catalog *cat, enum statement st)
{
	switch (st) {
	case ST_BEGIN:
	case ST_ROLLBACK: catalog_events_forget(cat); break;
	case ST_SAVEPOINT:
		if (cat->mark_count < sizeof(cat->marks) / sizeof(cat->marks[0]))
			cat->marks[cat->mark_count] = cat->note_count;
		cat->mark_count++;
		break;
	case ST_ROLLBACK_TO:
		if (cat->mark_count &&
		    cat->mark_count <= sizeof(cat->marks) / sizeof(cat->marks[0]))
			forget_after(cat, cat->marks[cat->mark_count - 1]);
		break;
	case ST_RELEASE:
		if (cat->mark_count)
			cat->mark_count--;
		break;
	default: break;
	}
}

int catalog_events_flush(struct catalog *cat, struct error *err)
{
	struct db_stmt *s;

	if (cat->note_count == 0)
		return 0;
	if (catalog_exec(cat, ST_LOCK_EVENTS, "waiting for the events' lock", err) < 0)
		return -1;
	for (size_t i = 0; i < cat->note_count; i++) {
		const struct event_note *n = &cat->notes[i];
		int rc;
		if (!(s = db_prepare(cat->db, ST_INSERT_EVENT, err)))
			return -1;
		db_bind_int64(s, 1, catalog_now_ms());
		db_bind_text(s, 2, n->kind);
		db_bind_int64(s, 3, n->resource_id);
		db_bind_text(s, 4, n->class_name);
		db_bind_text(s, 5, n->family);
		db_bind_int64(s, 6, n->crc32);
		db_bind_int64(s, 7, n->decoder_version);
		rc = db_step(s, "recording an event", err);
		db_reset(s);
		if (rc < 0)
			return -1;
	}
	if (!(s = db_prepare(cat->db, ST_TRIM_EVENTS, err)))
		return -1;
	db_bind_int64(s, 1, CATALOG_EVENTS_KEPT);
	db_bind_int64(s, 2, catalog_now_ms() - CATALOG_EVENTS_GRACE_MS);
	if (db_step(s, "forgetting old events", err) < 0) {
		db_reset(s);
		return -1;
	}
	db_reset(s);
	catalog_events_forget(cat);
	return 0;
}

/* An event row as JSON: the summary's columns come first, the event's after them. */
static json_t *event_row(struct db_stmt *s)
{
	const int e = 16; /* the first of the event's columns */
	char handle[11], when[32];
	json_t *o = json_object();

	render_handle((uint32_t)db_column_int64(s, e + 6), handle);
	render_time_ms(db_column_int64(s, e + 1), when);
	json_object_set_new(o, "event", json_integer(db_column_int64(s, e)));
	json_object_set_new(o, "kind", catalog_json_text(s, e + 2));
	json_object_set_new(o, "at", json_string(when));
	json_object_set_new(o, "id", json_integer(db_column_int64(s, e + 3)));
	json_object_set_new(o, "class", catalog_json_text(s, e + 4));
	json_object_set_new(o, "family", catalog_json_text(s, e + 5));
	json_object_set_new(o, "crc32", json_string(handle));
	json_object_set_new(o, "decoder_version", json_integer(db_column_int64(s, e + 7)));
	json_object_set_new(o, "entry",
	                    db_column_is_null(s, 0) ? json_null() : catalog_row_summary(s));
	return o;
}

int catalog_events_after(struct catalog *cat, int64_t after, unsigned limit,
                         struct catalog_event **events, size_t *count, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_EVENTS_AFTER, err);
	const int e = 16; /* the first of the event's columns */
	size_t cap = 0;
	int rc, failed = 0;

	*events = NULL;
	*count = 0;
	if (!s)
		return -1;
	db_bind_int64(s, 1, after);
	db_bind_int64(s, 2, limit);
	while ((rc = db_step(s, "reading events", err)) == 1) {
		struct catalog_event *ev;
		const char *text;
		if (*count == cap) {
			struct catalog_event *grown =
			    realloc(*events, (cap = cap ? 2 * cap : 64) * sizeof(*grown));
			if (!grown) {
				failed = 1;
				break;
			}
			*events = grown;
		}
		ev = &(*events)[(*count)++];
		memset(ev, 0, sizeof(*ev));
		ev->id = db_column_int64(s, e);
		text = db_column_text(s, e + 2);
		snprintf(ev->kind, sizeof(ev->kind), "%s", text ? text : "");
		text = db_column_text(s, e + 4);
		snprintf(ev->class_name, sizeof(ev->class_name), "%s", text ? text : "");
		text = db_column_text(s, e + 5);
		snprintf(ev->family, sizeof(ev->family), "%s", text ? text : "");
		ev->crc32 = (uint32_t)db_column_int64(s, e + 6);
		if (!(ev->document = event_row(s))) {
			failed = 1;
			break;
		}
	}
	db_reset(s);
	if (failed)
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	if (failed || rc < 0) {
		catalog_events_free(*events, *count);
		*events = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}

void catalog_events_free(struct catalog_event *events, size_t count)
{
	for (size_t i = 0; i < count; i++)
		json_decref(events[i].document);
	free(events);
}

int64_t catalog_events_newest(struct catalog *cat, int64_t *oldest, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_EVENTS_NEWEST, err);
	int64_t newest = -1;

	if (!s)
		return -1;
	if (db_step(s, "reading the newest event", err) == 1) {
		newest = db_column_int64(s, 0);
		if (oldest)
			*oldest = db_column_int64(s, 1);
	}
	db_reset(s);
	return newest;
}
