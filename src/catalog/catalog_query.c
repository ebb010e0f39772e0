/* catalog_query.c: what is read back as JSON answers: the list and its search, one entry with
 * its tracks, rig and versions, an entry's raw bytes, a handle's users and names, the classes,
 * the counts. (The typed records of an entry: catalog_entry.c.) */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "catalog_internal.h"
#include "core/pose.h"
#include "render/render.h"

/* Rows to JSON. */

/* A summary from the SUMMARY_COLUMNS of the current row. */
json_t *catalog_row_summary(struct db_stmt *s)
{
	int64_t id = db_column_int64(s, 0);
	uint32_t crc = (uint32_t)db_column_int64(s, 4);
	char handle[11], when[32];
	json_t *o = json_object();

	render_handle(crc, handle);
	render_time_ms(db_column_int64(s, 9), when);
	json_object_set_new(o, "id", json_integer(id));
	json_object_set_new(o, "class", catalog_json_text(s, 1));
	json_object_set_new(o, "family", catalog_json_text(s, 2));
	json_object_set_new(o, "name", catalog_json_text(s, 3));
	json_object_set_new(o, "crc32", json_string(handle));
	json_object_set_new(o, "crc32_decimal", json_integer(crc));
	json_object_set_new(o, "crc32_name", catalog_json_text(s, 15));
	json_object_set_new(o, "crc32_source", catalog_json_text(s, 5));
	json_object_set_new(o, "filename", catalog_json_text(s, 6));
	json_object_set_new(o, "note", catalog_json_text(s, 7));
	json_object_set_new(o, "uploaded_by", catalog_json_text(s, 8));
	json_object_set_new(o, "uploaded_at", json_string(when));
	json_object_set_new(o, "duration",
	                    db_column_is_null(s, 10) ? json_null()
	                                             : json_real(db_column_double(s, 10)));
	json_object_set_new(o, "track_count", json_integer((int)db_column_int64(s, 11)));
	json_object_set_new(o, "sha256", catalog_json_text(s, 12));
	json_object_set_new(o, "size", json_integer(db_column_int64(s, 13)));
	json_object_set_new(o, "part", json_integer((int)db_column_int64(s, 14)));
	return o;
}

json_t *catalog_find_by_sha256(struct catalog *cat, const char *sha256, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_FIND_BY_SHA256, err);

	if (!s)
		return NULL;
	db_bind_text(s, 1, sha256);
	return catalog_collect_json(s, catalog_row_summary, "reading entries", err);
}

/* List with filters and keyset paging. */

/* A search in another order than id sorts this many of the search index's candidates at most;
 * past it, the matches are so many that walking the order finds a page sooner. */
#define CATALOG_SEARCH_SORTED 2000

/* A class or family of more entries than this is checked along another order's index, not
 * looked up by its own and sorted: about the square root of a page of 50 times a million
 * entries, where the two cost the same. */
#define CATALOG_WALK_FROM 7000

/* "%q%" with LIKE's wildcards escaped. */
static char *like_pattern(const char *q)
{
	size_t n = strlen(q);
	char *p = malloc(2 * n + 3), *o = p;

	if (!p)
		return NULL;
	*o++ = '%';
	for (; *q; q++) {
		if (*q == '%' || *q == '_' || *q == '\\')
			*o++ = '\\';
		*o++ = *q;
	}
	*o++ = '%';
	*o = '\0';
	return p;
}

/* A page's cursor: the last row's id, and its order's key. */
struct list_cursor {
	int64_t id;
	int64_t number;   /* SORT_INT */
	double real;      /* SORT_REAL */
	const char *text; /* SORT_TEXT: points into the cursor's text */
};

static int bad_cursor(const struct catalog_query *q, struct error *err)
{
	error_set(err, ERROR_BAD_PARAMETER, "cursor", -1,
	          "cursor: '%.80s' is not a next_cursor of this list in this order (sort=%s, "
	          "order=%s)",
	          q->cursor, catalog_sort_names[q->sort], q->ascending ? "asc" : "desc");
	return -1;
}

/* q's cursor, as list_cursor_text wrote it: "ID" in id order, "ID:KEY" in another. */
static int parse_cursor(const struct catalog_query *q, struct list_cursor *c, struct error *err)
{
	const char *colon = strchr(q->cursor, ':');
	char *end;

	memset(c, 0, sizeof(*c));
	if ((colon != NULL) != (q->sort != CATALOG_SORT_ID) ||
	    !isdigit((unsigned char)q->cursor[0]))
		return bad_cursor(q, err);
	errno = 0;
	c->id = strtoll(q->cursor, &end, 10);
	if (errno || c->id < 1 || end != (colon ? colon : q->cursor + strlen(q->cursor)))
		return bad_cursor(q, err);
	if (!colon)
		return 0;
	switch (catalog_sort_sql[q->sort].type) {
	case SORT_INT:
		errno = 0;
		c->number = strtoll(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end)
			return bad_cursor(q, err);
		break;
	case SORT_REAL:
		errno = 0;
		c->real = strtod(colon + 1, &end);
		if (errno || end == colon + 1 || *end || !isfinite(c->real))
			return bad_cursor(q, err);
		break;
	case SORT_TEXT: c->text = colon + 1; break;
	}
	return 0;
}

/* The cursor after row s (of a list statement in q's order), malloc'd; NULL when out of
 * memory. */
static char *list_cursor_text(const struct catalog_query *q, struct db_stmt *s)
{
	struct buf b;
	const char *text;

	buf_init(&b, SIZE_MAX);
	buf_printf(&b, "%" PRId64, db_column_int64(s, 0));
	if (q->sort != CATALOG_SORT_ID) {
		switch (catalog_sort_sql[q->sort].type) {
		case SORT_INT: buf_printf(&b, ":%" PRId64, db_column_int64(s, 16)); break;
		case SORT_REAL: buf_printf(&b, ":%.17g", db_column_double(s, 16)); break;
		case SORT_TEXT:
			text = db_column_text(s, 16);
			buf_printf(&b, ":%s", text ? text : "");
			break;
		}
	}
	return buf_steal(&b, NULL);
}

/* A search q of CATALOG_SEARCH_MIN characters or more: the search index finds it. */
static int searchable(const char *q)
{
	size_t chars = 0;

	for (; q && *q; q++)
		chars += ((unsigned char)*q & 0xC0) != 0x80;
	return chars >= CATALOG_SEARCH_MIN;
}

/* What a list or count statement is bound with besides its filters: the LIKE pattern and the
 * search index's key of q (either NULL), the caller's to free after the statement has run. */
struct list_terms {
	char *pattern, *key;
};

static void list_terms_free(struct list_terms *t)
{
	free(t->pattern);
	free(t->key);
	t->pattern = t->key = NULL;
}

static int list_terms_make(struct catalog *cat, const struct catalog_query *q, struct list_terms *t,
                           struct error *err)
{
	t->pattern = t->key = NULL;
	if (!q->q)
		return 0;
	t->pattern = like_pattern(q->q);
	if (t->pattern && searchable(q->q))
		t->key = cat->db->ops->search_key(q->q, t->pattern);
	if (!t->pattern || (searchable(q->q) && !t->key)) {
		list_terms_free(t);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* Binds q's filters to a list or count statement. */
static void bind_filters(struct db_stmt *s, const struct catalog_query *q,
                         const struct list_terms *t)
{
	if (q->class_name)
		db_bind_text(s, 1, q->class_name);
	if (q->family)
		db_bind_text(s, 2, q->family);
	if (q->name)
		db_bind_text(s, 3, q->name);
	if (t->pattern)
		db_bind_text(s, 4, t->pattern);
	if (q->has_crc32)
		db_bind_int64(s, 5, q->crc32);
	if (t->key)
		db_bind_text(s, 9, t->key);
	if (q->filename)
		db_bind_text(s, 10, q->filename);
	if (q->uploaded_by)
		db_bind_text(s, 11, q->uploaded_by);
}

static unsigned filter_bits(const struct catalog_query *q)
{
	return (q->class_name ? FILTER_CLASS : 0) | (q->family ? FILTER_FAMILY : 0) |
	       (q->name ? FILTER_NAME : 0) | (q->q ? FILTER_Q : 0) |
	       (q->has_crc32 ? FILTER_CRC32 : 0) | (q->filename ? FILTER_FILENAME : 0) |
	       (q->uploaded_by ? FILTER_UPLOADER : 0);
}

/* The list statement for q after cursor c (NULL: the first page), its filters `bits` (with
 * FILTER_TEXT_INDEX or not), bound. */
static struct db_stmt *list_statement(struct catalog *cat, const struct catalog_query *q,
                                      unsigned bits, const struct list_cursor *c,
                                      const struct list_terms *t, struct error *err)
{
	struct db_stmt *s = cat->db->ops->prepare_list(cat->db, bits | (c ? FILTER_CURSOR : 0),
	                                               q->sort, q->ascending, err);

	if (!s)
		return NULL;
	bind_filters(s, q, t);
	db_bind_null(s, 8);
	if (c) {
		db_bind_int64(s, 6, c->id);
		if (q->sort != CATALOG_SORT_ID) {
			switch (catalog_sort_sql[q->sort].type) {
			case SORT_INT: db_bind_int64(s, 8, c->number); break;
			case SORT_REAL: db_bind_double(s, 8, c->real); break;
			case SORT_TEXT: db_bind_text(s, 8, c->text); break;
			}
		}
	}
	db_bind_int64(s, 7, (int64_t)q->limit + 1);
	return s;
}

/* A count of the entries `bits` select, `most` rows at most: into *read the rows (or the
 * search index's candidates) read, into *matching those the filters select. */
static int count_some(struct catalog *cat, const struct catalog_query *q, unsigned bits,
                      const struct list_terms *t, int64_t most, int64_t *read, int64_t *matching,
                      struct error *err)
{
	struct db_stmt *s = cat->db->ops->prepare_count(cat->db, bits, err);
	int rc;

	if (!s)
		return -1;
	bind_filters(s, q, t);
	db_bind_int64(s, 12, most);
	rc = db_step(s, "counting entries", err);
	*read = rc == 1 ? db_column_int64(s, 0) : 0;
	*matching = rc == 1 ? db_column_int64(s, 1) : 0;
	db_reset(s);
	return rc == 1 ? 0 : -1;
}

/* The entries of q's class and family (either may be absent), from the counts the catalogue
 * keeps. */
static int count_kept(struct catalog *cat, const struct catalog_query *q, int64_t *n,
                      struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_COUNT_KEPT, err);
	int rc;

	if (!s)
		return -1;
	if (q->class_name)
		db_bind_text(s, 1, q->class_name);
	if (q->family)
		db_bind_text(s, 2, q->family);
	rc = db_step(s, "counting entries", err);
	*n = rc == 1 ? db_column_int64(s, 0) : 0;
	db_reset(s);
	return rc == 1 ? 0 : -1;
}

/* How a list is read and counted: its filters' bits (with FILTER_TEXT_INDEX where the search
 * index finds its rows, FILTER_WALK_ORDER where the order's index is walked past the class's),
 * and its total. */
struct list_plan {
	unsigned bits;
	int64_t total;
	int exact;
};

/* The total from the counts the catalogue keeps, or counted on an index as far as it is
 * cheap; whether the search index finds the rows (in id order always: its own order; in
 * another, when its candidates are few enough to sort, else the order is walked); and
 * whether a class or family with many entries is checked along the order's index rather than
 * its entries sorted. */
static int list_plan_make(struct catalog *cat, const struct catalog_query *q,
                          const struct list_terms *t, struct list_plan *plan, struct error *err)
{
	const unsigned kept = FILTER_CLASS | FILTER_FAMILY;
	const unsigned selective = FILTER_NAME | FILTER_CRC32 | FILTER_FILENAME | FILTER_UPLOADER;
	unsigned bits = filter_bits(q);
	int64_t read, matching, entries;

	plan->bits = bits;
	plan->exact = 1;
	if ((bits & ~kept) == 0) {
		if (count_kept(cat, q, &plan->total, err) < 0)
			return -1;
	} else if (!t->key) {
		int64_t most = q->q ? CATALOG_SEARCH_EXACT : CATALOG_TOTAL_EXACT;
		if (count_some(cat, q, bits, t, most + 1, &read, &matching, err) < 0)
			return -1;
		plan->exact = matching <= most;
		plan->total = plan->exact ? matching : most;
	} else {
		if (count_some(cat, q, bits | FILTER_TEXT_INDEX, t, CATALOG_SEARCH_EXACT + 1, &read,
		               &matching, err) < 0)
			return -1;
		plan->exact = read <= CATALOG_SEARCH_EXACT;
		plan->total = matching;
		if (plan->exact ||
		    (q->sort == CATALOG_SORT_ID && cat->db->ops->search_in_id_order)) {
			plan->bits |= FILTER_TEXT_INDEX;
			return 0;
		}
		/* many: sorted if they are not too many (the candidates alone, none read from the
		 * entries), else the order walked */
		if (count_some(cat, q, FILTER_TEXT_INDEX, t, CATALOG_SEARCH_SORTED + 1, &read,
		               &matching, err) < 0)
			return -1;
		if (read <= CATALOG_SEARCH_SORTED) {
			plan->bits |= FILTER_TEXT_INDEX;
			return 0;
		}
	}
	if (q->sort == CATALOG_SORT_ID || !(bits & kept) || (bits & selective))
		return 0;
	if ((bits & ~kept) == 0)
		entries = plan->total;
	else if (count_kept(cat, q, &entries, err) < 0)
		return -1;
	if (entries > CATALOG_WALK_FROM)
		plan->bits |= FILTER_WALK_ORDER;
	return 0;
}

json_t *catalog_list(struct catalog *cat, const struct catalog_query *q, struct error *err)
{
	struct list_cursor cursor;
	struct list_terms terms;
	struct list_plan plan;
	struct db_stmt *s;
	char *next = NULL;
	json_t *list, *out;
	unsigned rows = 0;
	int rc;

	if (q->cursor && parse_cursor(q, &cursor, err) < 0)
		return NULL;
	if (list_terms_make(cat, q, &terms, err) < 0)
		return NULL;
	if (list_plan_make(cat, q, &terms, &plan, err) < 0 ||
	    !(s = list_statement(cat, q, plan.bits, q->cursor ? &cursor : NULL, &terms, err))) {
		list_terms_free(&terms);
		return NULL;
	}
	list = json_array();
	while ((rc = db_step(s, "reading entries", err)) == 1) {
		/* a row past the page: there is a next one, after the page's last */
		if (rows == q->limit)
			break;
		json_array_append_new(list, catalog_row_summary(s));
		if (++rows == q->limit && !(next = list_cursor_text(q, s)))
			break;
	}
	if (rc == 0) { /* the page was the last */
		free(next);
		next = NULL;
	}
	db_reset(s);
	list_terms_free(&terms);
	if (rc < 0 || (rc == 1 && !next)) {
		if (rc == 1)
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		free(next);
		json_decref(list);
		return NULL;
	}
	out = json_pack("{s:o, s:I, s:b}", "resources", list, "total", (json_int_t)plan.total,
	                "total_exact", plan.exact);
	if (next)
		json_object_set_new(out, "next_cursor", json_string(next));
	free(next);
	return out;
}

int catalog_select_matching(struct catalog *cat, const struct catalog_query *given, size_t max,
                            int64_t **ids, size_t *count, struct error *err)
{
	struct catalog_query q = *given;
	struct list_cursor after = {0};
	struct list_terms terms;
	unsigned bits = filter_bits(given);
	size_t cap = 0;

	*ids = NULL;
	*count = 0;
	q.sort = CATALOG_SORT_ID;
	q.ascending = 0;
	q.limit = 500;
	if (list_terms_make(cat, &q, &terms, err) < 0)
		return -1;
	if (terms.key) /* every match: the search index's candidates */
		bits |= FILTER_TEXT_INDEX;
	for (;;) { /* a page at a time, newest first, reading only the ids */
		struct db_stmt *s =
		    list_statement(cat, &q, bits, after.id ? &after : NULL, &terms, err);
		size_t rows = 0;
		int rc;
		if (!s)
			goto fail;
		while ((rc = db_step(s, "listing entries", err)) == 1 && rows < q.limit) {
			if (*count == max) {
				error_set(
				    err, ERROR_TOO_LARGE, NULL, -1,
				    "the filters select more than %zu entries, the most one export "
				    "may hold; narrow them",
				    max);
				rc = -1;
				break;
			}
			if (*count == cap) {
				int64_t *grown =
				    realloc(*ids, (cap = cap ? 2 * cap : 64) * sizeof(**ids));
				if (!grown) {
					error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
					rc = -1;
					break;
				}
				*ids = grown;
			}
			(*ids)[(*count)++] = db_column_int64(s, 0);
			rows++;
		}
		db_reset(s);
		if (rc < 0)
			goto fail;
		if (rc == 0 || rows < q.limit) { /* the last page */
			list_terms_free(&terms);
			return 0;
		}
		after.id = (*ids)[*count - 1];
	}
fail:
	list_terms_free(&terms);
	free(*ids);
	*ids = NULL;
	*count = 0;
	return -1;
}

/* A row of ST_GET_TRACKS as the entry's answer lists it; on the entry's own rig (when it has
 * one), with the rig node it moves ("rig_node", by source index). */
static json_t *track_row(struct db_stmt *s, const struct rig *rig)
{
	const char *schema = db_column_text(s, 2);
	uint64_t property = strtoull(db_column_text(s, 5), NULL, 10);
	uint64_t object = strtoull(db_column_text(s, 3), NULL, 10);
	const char *prop_name = schema_property_name(schema, property);
	const char *info = db_column_text(s, 15);
	json_t *o = json_object(), *target = json_object();
	char handle[11];

	json_object_set_new(target, "schema", json_string(schema));
	json_object_set_new(target, "object", render_u64(object));
	json_object_set_new(target, "name", catalog_json_text(s, 4));
	if (!db_column_is_null(s, 16)) {
		render_handle((uint32_t)db_column_int64(s, 16), handle);
		json_object_set_new(target, "handle", json_string(handle));
		json_object_set_new(target, "handle_name", catalog_json_text(s, 17));
	}
	json_object_set_new(o, "n", json_integer((int)db_column_int64(s, 0)));
	json_object_set_new(o, "name", catalog_json_text(s, 1));
	json_object_set_new(o, "kind", catalog_json_text(s, 14));
	json_object_set_new(o, "target", target);
	json_object_set_new(o, "property", render_u64(property));
	json_object_set_new(o, "property_name", prop_name ? json_string(prop_name) : json_null());
	json_object_set_new(o, "first_array_element", json_integer(db_column_int64(s, 6)));
	json_object_set_new(o, "type", catalog_json_text(s, 7));
	json_object_set_new(o, "array_size", json_integer(db_column_int64(s, 8)));
	json_object_set_new(o, "interpolation", catalog_json_text(s, 9));
	json_object_set_new(o, "semantic", catalog_json_text(s, 10));
	json_object_set_new(o, "key_count", json_integer(db_column_int64(s, 11)));
	json_object_set_new(o, "time_range",
	                    json_pack("[f, f]", db_column_double(s, 12), db_column_double(s, 13)));
	if (strcmp(db_column_text(s, 14), "events") != 0) {
		unsigned rules = (unsigned)(int)db_column_int64(s, 18);
		json_object_set_new(o, "before_first_key",
		                    json_string(rules & RULE_LAST_BEFORE_FIRST
		                                    ? "last key's value"
		                                    : "first key's value"));
		if (rules & RULE_W_ONE_BETWEEN_KEYS)
			json_object_set_new(o, "w_between_keys", json_integer(1));
	}
	if (info)
		json_object_set_new(o, "info", json_loads(info, 0, NULL));
	if (rig->count) {
		struct pose_target t = {.schema = schema,
		                        .object = object,
		                        .name = db_column_text(s, 4),
		                        .has_handle = !db_column_is_null(s, 16),
		                        .handle = (uint32_t)db_column_int64(s, 16),
		                        .property = property};
		const char *why;
		int32_t node;
		pose_target_euler(&t);
		node = pose_match(rig, &t, 1, &why);
		if (node >= 0)
			json_object_set_new(o, "rig_node", json_integer(rig->nodes[node].source));
	}
	return o;
}

/* entry with its "tracks" (matched to rig, when it has nodes) and its "rig" (null when it
 * has none); entry is taken over (NULL on failure). */
static json_t *with_tracks_and_rig(struct catalog *cat, int64_t id, json_t *entry,
                                   struct error *err)
{
	struct db_stmt *s;
	struct rig rig;
	json_t *tracks;
	int rc;

	if (catalog_read_rig(cat, id, &rig, err) < 0) {
		json_decref(entry);
		return NULL;
	}
	if (!(s = db_prepare(cat->db, ST_GET_TRACKS, err))) {
		rig_cleanup(&rig);
		json_decref(entry);
		return NULL;
	}
	db_bind_int64(s, 1, id);
	tracks = json_array();
	while ((rc = db_step(s, "reading tracks", err)) == 1)
		json_array_append_new(tracks, track_row(s, &rig));
	db_reset(s);
	json_object_set_new(entry, "tracks", tracks);
	json_object_set_new(entry, "rig", rig.count ? rig_json(&rig) : json_null());
	rig_cleanup(&rig);
	if (rc < 0) {
		json_decref(entry);
		return NULL;
	}
	return entry;
}

/* A row of ST_VERSIONS. */
static json_t *version_row(struct db_stmt *s)
{
	char when[32];

	render_time_ms(db_column_int64(s, 3), when);
	return json_pack("{s:I, s:o, s:o, s:s, s:o, s:I, s:I, s:I, s:o}", "id",
	                 (json_int_t)db_column_int64(s, 0), "name", catalog_json_text(s, 1),
	                 "uploaded_by", catalog_json_text(s, 2), "uploaded_at", when, "filename",
	                 catalog_json_text(s, 4), "decoder_version",
	                 (json_int_t)db_column_int64(s, 5), "size",
	                 (json_int_t)db_column_int64(s, 6), "track_count",
	                 (json_int_t)db_column_int64(s, 7), "note", catalog_json_text(s, 8));
}

/* entry with its "versions": the other entries of its handle and class (the same resource
 * uploaded again), newest first; entry is taken over (NULL on failure). */
static json_t *with_versions(struct catalog *cat, int64_t id, uint32_t crc32,
                             const char *class_name, json_t *entry, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_VERSIONS, err);
	json_t *versions = NULL;

	if (s) {
		db_bind_int64(s, 1, crc32);
		db_bind_text(s, 2, class_name);
		db_bind_int64(s, 3, id);
		versions = catalog_collect_json(s, version_row, "reading an entry's versions", err);
	}
	if (!versions) {
		json_decref(entry);
		return NULL;
	}
	json_object_set_new(entry, "versions", versions);
	return entry;
}

json_t *catalog_get(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_RESOURCE, err);
	char class_name[128];
	uint32_t crc32;
	json_t *entry;

	if (!s)
		return NULL;
	if (catalog_step_resource(s, id, "reading an entry", err) < 0)
		return NULL;
	entry = catalog_row_summary(s);
	crc32 = (uint32_t)db_column_int64(s, 4);
	snprintf(class_name, sizeof(class_name), "%s",
	         db_column_text(s, 1) ? db_column_text(s, 1) : "");
	json_object_set_new(entry, "structure", json_loads(db_column_text(s, 16), 0, NULL));
	json_object_set_new(entry, "assumed", json_loads(db_column_text(s, 17), 0, NULL));
	db_reset(s);
	entry = with_tracks_and_rig(cat, id, entry, err);
	return entry ? with_versions(cat, id, crc32, class_name, entry, err) : NULL;
}

int catalog_raw_open(struct catalog *cat, int64_t id, struct catalog_raw *out, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_RAW, err);
	const char *sha256;
	int failed = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	if (catalog_step_resource(s, id, "finding the uploaded bytes", err) < 0)
		return -1;
	sha256 = db_column_text(s, 0);
	snprintf(out->sha256, sizeof(out->sha256), "%s", sha256 ? sha256 : "");
	out->size = db_column_int64(s, 1);
	out->filename = catalog_text_copy(s, 2, &failed);
	db_reset(s);
	if (failed) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

long catalog_raw_read(struct catalog *cat, const char *sha256, int64_t offset, void *out, size_t n,
                      struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_READ_BLOB, err);
	size_t within = (size_t)(offset % CATALOG_BLOB_CHUNK), length = 0;
	const uint8_t *chunk;
	int rc;

	if (!s)
		return -1;
	/* one chunk, found by its key: the same cost wherever it is in the upload */
	db_bind_text(s, 1, sha256);
	db_bind_int64(s, 2, offset / CATALOG_BLOB_CHUNK);
	rc = db_step(s, "reading the uploaded bytes", err);
	if (rc == 1) {
		chunk = db_column_blob(s, 0, &length);
		length = length > within ? length - within : 0;
		if (length > n)
			length = n;
		if (length)
			memcpy(out, chunk + within, length);
	}
	db_reset(s);
	if (rc == 0)
		error_set(err, ERROR_NOT_FOUND, NULL, -1,
		          "catalogue: the uploaded bytes %s are no longer stored", sha256);
	return rc == 1 ? (long)length : -1;
}

json_t *catalog_handle(struct catalog *cat, uint32_t crc32, struct error *err)
{
	struct db_stmt *s;
	json_t *out, *resources, *refs, *names;
	char handle[11];
	int rc;

	s = db_prepare(cat->db, ST_HANDLE_RESOURCES, err);
	if (!s)
		return NULL;
	db_bind_int64(s, 1, crc32);
	resources = catalog_collect_json(s, catalog_row_summary, "reading entries", err);
	if (!resources)
		return NULL;
	refs = json_array();
	names = json_array();
	s = db_prepare(cat->db, ST_HANDLE_REFS, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, crc32);
	while ((rc = db_step(s, "reading references", err)) == 1)
		json_array_append_new(
		    refs,
		    json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "resource_id",
		              (json_int_t)db_column_int64(s, 0), "kind", catalog_json_text(s, 1),
		              "track", catalog_json_int(s, 2), "key", catalog_json_int(s, 3),
		              "class", catalog_json_text(s, 4), "name", catalog_json_text(s, 5)));
	db_reset(s);
	if (rc < 0)
		goto fail;
	s = db_prepare(cat->db, ST_HANDLE_NAMES, err);
	if (!s)
		goto fail;
	db_bind_int64(s, 1, crc32);
	while ((rc = db_step(s, "reading names", err)) == 1) {
		json_t *hashes = json_array();
		if (db_column_int64(s, 1))
			json_array_append_new(hashes, json_string("asobo32"));
		if (db_column_int64(s, 2))
			json_array_append_new(hashes, json_string("crc32"));
		json_array_append_new(names, json_pack("{s:o, s:o}", "name",
		                                       catalog_json_text(s, 0), "hashes", hashes));
	}
	db_reset(s);
	if (rc < 0)
		goto fail;
	render_handle(crc32, handle);
	out = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "crc32", handle, "crc32_decimal",
	                (json_int_t)crc32, "crc32_signed", (json_int_t)(int32_t)crc32, "resources",
	                resources, "references", refs, "names", names);
	return out;
fail:
	json_decref(resources);
	json_decref(refs);
	json_decref(names);
	return NULL;
}

json_t *catalog_classes(struct catalog *cat, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_CLASSES, err);
	json_t *list;
	int rc;

	if (!s)
		return NULL;
	list = json_array();
	while ((rc = db_step(s, "counting classes", err)) == 1)
		json_array_append_new(list,
		                      json_pack("{s:o, s:o, s:I}", "class", catalog_json_text(s, 0),
		                                "family", catalog_json_text(s, 1), "count",
		                                (json_int_t)db_column_int64(s, 2)));
	db_reset(s);
	if (rc < 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

json_t *catalog_stats(struct catalog *cat, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_STATS, err);
	json_t *out;

	if (!s)
		return NULL;
	if (db_step(s, "counting entries", err) != 1) {
		db_reset(s);
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: counting entries gave nothing");
		return NULL;
	}
	out = json_pack(
	    "{s:I, s:I, s:I, s:I, s:i}", "resources", (json_int_t)db_column_int64(s, 0), "tracks",
	    (json_int_t)db_column_int64(s, 1), "blobs", (json_int_t)db_column_int64(s, 2), "bytes",
	    (json_int_t)db_column_int64(s, 3), "schema_version", catalog_schema_version(cat));
	db_reset(s);
	return out;
}

int catalog_count(struct catalog *cat, const char *table, int64_t *out, struct error *err)
{
	static const char *const tables[] = {"blobs", "resources", "tracks",
	                                     "refs",  "names",     "tokens"};
	struct db_stmt *s;
	int column = -1, rc;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (strcmp(table, tables[i]) == 0)
			column = (int)i;
	if (column < 0) {
		error_set(err, ERROR_BAD_PARAMETER, "table", -1, "no table named %s", table);
		return -1;
	}
	s = db_prepare(cat->db, ST_COUNT_ROWS, err);
	if (!s)
		return -1;
	rc = db_step(s, "counting rows", err);
	*out = rc == 1 ? db_column_int64(s, column) : -1;
	db_reset(s);
	return rc == 1 ? 0 : -1;
}
