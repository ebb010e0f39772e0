/* routes_rig.c: the routes of rigs: an entry's pose at given times (on its own rig or on a
 * skeleton's), and the skeletons that can carry an animation, ranked by how many of its
 * targets they have. The pose is made by pose_answer.c; here, the request's parameters. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "answers/entry_json.h"
#include "answers/pose_answer.h"
#include "answers/retarget_answer.h"
#include "http/http.h"
#include "render/render.h"

#define BUFFERED_MAX     (256u * 1024) /* answers up to about this are made at once */
#define DEFAULT_LIMIT    20
#define MAX_LIMIT        100
#define MAX_TARGET_NODES 100000 /* distinct nodes one animation's tracks may name */

int route_entry_arg(struct request *req, const char *name, int64_t *id, struct error *err)
{
	const char *text = request_arg(req, name);
	uint64_t v;

	*id = 0;
	if (!text)
		return 0;
	if (route_decimal(text, INT64_MAX, &v) < 0 || v == 0) {
		error_set(err, ERROR_BAD_PARAMETER, name, -1,
		          "%s: '%.40s' is not an entry id (1, 2, 3...)", name, text);
		return -1;
	}
	*id = (int64_t)v;
	return 0;
}

int route_skeleton_arg(struct request *req, int64_t *skeleton, struct error *err)
{
	return route_entry_arg(req, "skeleton", skeleton, err);
}

/* retarget=1: the entry posed as retargeted onto skeleton= (the retarget's map=, mode=, root=,
 * ground=; from= is a time here: the clip's own rig is the source). NULL with err unset when
 * not asked for. */
static struct pose_answer *retargeted(struct request *req, struct catalog *cat, int64_t id,
                                      int64_t skeleton, enum sample_format format,
                                      struct error *err)
{
	struct retarget_request rq;
	struct retarget_answer *a;

	if (route_retarget_wanted(req, "posed as retargeted onto skeleton=ID", err) <= 0 ||
	    route_retarget_request(req, id, "skeleton", NULL, &rq, err) < 0)
		return NULL;
	rq.unmeasured = 1; /* a pose is asked for again and again as a clip plays */
	if (!(a = retarget_answer_make(cat, &rq, err)))
		return NULL;
	return pose_answer_create_retargeted(a, id, skeleton, format, err);
}

void route_pose(struct request *req, struct response *resp)
{
	const char *format_text = request_arg(req, "format");
	enum sample_format format = FORMAT_JSON;
	struct catalog *cat = route_catalog(req, resp);
	struct pose_answer *pa;
	struct error err;
	int64_t id, skeleton;
	double from, to;
	char count[24], nodes[24];

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (route_skeleton_arg(req, &skeleton, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	if (format_text && strcasecmp(format_text, "f32") == 0) {
		format = FORMAT_F32;
	} else if (format_text && strcasecmp(format_text, "json") != 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "format", -1,
		          "format: '%.40s' is not json or f32", format_text);
		response_error(resp, &err);
		return;
	}
	pa = retargeted(req, cat, id, skeleton, format, &err);
	if (!pa && !error_is_set(&err))
		pa = pose_answer_create(cat, id, skeleton, format, &err);
	if (!pa) {
		response_error(resp, &err);
		return;
	}
	pose_answer_range(pa, &from, &to);
	if (route_sample_times(req, from, to, pa->rig.count, &pa->times, &err) < 0) {
		pose_answer_free(pa);
		response_error(resp, &err);
		return;
	}
	snprintf(count, sizeof(count), "%zu", pa->times.count);
	snprintf(nodes, sizeof(nodes), "%zu", pa->rig.count);
	if (pose_answer_estimate(pa) <= BUFFERED_MAX) {
		struct buf b;
		size_t len;
		char *body;
		buf_init(&b, BUFFERED_MAX * 8);
		while (pose_answer_produce(pa, &b) && !b.overflow)
			;
		if (b.overflow) {
			if (error_is_set(&pa->failure))
				err = pa->failure;
			else
				error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
			pose_answer_free(pa);
			buf_cleanup(&b);
			response_error(resp, &err);
			return;
		}
		pose_answer_free(pa);
		body = buf_steal(&b, &len);
		response_take(resp, 200,
		              format == FORMAT_F32 ? "application/octet-stream"
		                                   : "application/json",
		              body ? body : strdup(""), body ? len : 0);
	} else {
		struct response_stream stream = {
		    pose_answer_fill,
		    pose_answer_free,
		    pa,
		    pose_answer_memory(pa),
		    format == FORMAT_F32
		        ? (uint64_t)pa->times.count *
		              (1 + (uint64_t)pa->rig.count * POSE_F32_NODE_FLOATS) * sizeof(float)
		        : RESPONSE_LENGTH_UNKNOWN,
		    0};
		response_stream(resp, 200,
		                format == FORMAT_F32 ? "application/octet-stream"
		                                     : "application/json",
		                &stream);
	}
	response_header(resp, "X-Animdex-Count", count);
	response_header(resp, "X-Animdex-Nodes", nodes);
}

/* A node an animation moves, as the skeletons are searched by it. */
struct wanted {
	struct catalog_rig_key key;
	char label[80]; /* as the answer lists it when missing */
};

/* The distinct nodes the entry's tracks move (translation, rotation, scale of a node). */
static size_t wanted_nodes(const struct catalog_entry *entry, struct wanted *out)
{
	size_t count = 0;

	for (size_t i = 0; i < entry->track_count; i++) {
		const struct pose_target *target = &entry->tracks[i].target;
		const char *name = target->name;
		uint64_t property = target->property;
		struct wanted w;
		int seen = 0;
		if (strcmp(target->schema, SCHEMA_NODE) != 0 ||
		    (property != NODE_TRANSLATION && property != NODE_ROTATION &&
		     property != NODE_SCALE))
			continue;
		memset(&w, 0, sizeof(w));
		if (target->has_handle) {
			w.key.kind = RIG_KEY_HANDLE;
			w.key.handle = target->handle;
			render_handle(target->handle, w.label);
		} else if (name) {
			w.key.kind = RIG_KEY_NAME;
			w.key.name = name;
			snprintf(w.label, sizeof(w.label), "%s", name);
		} else {
			w.key.kind = RIG_KEY_SOURCE;
			w.key.source = (uint32_t)target->object;
			snprintf(w.label, sizeof(w.label), "node %u", (unsigned)w.key.source);
		}
		for (size_t k = 0; k < count && !seen; k++)
			seen = out[k].key.kind == w.key.kind && out[k].key.handle == w.key.handle &&
			       out[k].key.source == w.key.source &&
			       (w.key.kind != RIG_KEY_NAME || strcmp(out[k].key.name, name) == 0);
		if (!seen && count < MAX_TARGET_NODES)
			out[count++] = w;
	}
	return count;
}

/* A candidate: an entry with a rig holding some of the wanted nodes. */
struct candidate {
	int64_t id;
	size_t matched;
	unsigned char *hit; /* per wanted node */
	size_t nodes;       /* its rig's size (read for the best only) */
};

struct candidates {
	struct candidate *list;
	size_t count, cap;
	size_t *slots; /* open addressing by id: index + 1, 0 free */
	size_t slot_count;
	size_t wanted;
};

static struct candidate *candidate_of(struct candidates *c, int64_t id)
{
	size_t h;

	if (c->count * 2 >= c->slot_count) {
		size_t n = c->slot_count ? c->slot_count * 2 : 1024;
		size_t *slots = calloc(n, sizeof(*slots));
		if (!slots)
			return NULL;
		for (size_t i = 0; i < c->count; i++) {
			h = (size_t)((uint64_t)c->list[i].id * 0x9E3779B97F4A7C15ull) & (n - 1);
			while (slots[h])
				h = (h + 1) & (n - 1);
			slots[h] = i + 1;
		}
		free(c->slots);
		c->slots = slots;
		c->slot_count = n;
	}
	h = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull) & (c->slot_count - 1);
	while (c->slots[h]) {
		if (c->list[c->slots[h] - 1].id == id)
			return &c->list[c->slots[h] - 1];
		h = (h + 1) & (c->slot_count - 1);
	}
	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct candidate *grown = realloc(c->list, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		c->list = grown;
		c->cap = cap;
	}
	c->list[c->count] = (struct candidate){id, 0, calloc(c->wanted + 1, 1), 0};
	if (!c->list[c->count].hit)
		return NULL;
	c->slots[h] = ++c->count;
	return &c->list[c->count - 1];
}

static void candidates_cleanup(struct candidates *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->list[i].hit);
	free(c->list);
	free(c->slots);
}

static int by_matched(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->matched != y->matched)
		return x->matched > y->matched ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}

static int by_fit(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	size_t ux = x->nodes - x->matched, uy = y->nodes - y->matched;

	if (x->matched != y->matched)
		return x->matched > y->matched ? -1 : 1;
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}

/* The best `limit` candidates, as the answer lists them. */
static json_t *ranked(struct catalog *cat, struct candidates *c, const struct wanted *wanted,
                      size_t limit, struct error *err)
{
	size_t shown = c->count < limit ? c->count : limit;
	json_t *list = json_array();

	if (c->count == 0)
		return list; /* (qsort is not for a NULL list, even an empty one) */
	qsort(c->list, c->count, sizeof(*c->list), by_matched);
	for (size_t i = 0; i < shown; i++) {
		int64_t nodes = catalog_rig_size(cat, c->list[i].id, err);
		if (nodes < 0) {
			json_decref(list);
			return NULL;
		}
		c->list[i].nodes = (size_t)nodes;
	}
	qsort(c->list, shown, sizeof(*c->list), by_fit);
	for (size_t i = 0; i < shown; i++) {
		const struct candidate *k = &c->list[i];
		struct catalog_entry read;
		json_t *entry, *missing;
		if (catalog_entry_read(cat, k->id, CATALOG_ENTRY_SUMMARY, &read, err) < 0) {
			catalog_entry_cleanup(&read);
			json_decref(list);
			return NULL;
		}
		entry = entry_json_summary(&read);
		catalog_entry_cleanup(&read);
		missing = json_array();
		for (size_t w = 0; w < c->wanted; w++)
			if (!k->hit[w])
				json_array_append_new(missing, json_string(wanted[w].label));
		json_object_set_new(entry, "url",
		                    json_sprintf("/api/resources/%lld", (long long)k->id));
		json_object_set_new(entry, "nodes", json_integer((json_int_t)k->nodes));
		json_object_set_new(entry, "matched", json_integer((json_int_t)k->matched));
		json_object_set_new(entry, "missing", missing);
		json_object_set_new(entry, "untracked_nodes",
		                    json_integer((json_int_t)(k->nodes - k->matched)));
		json_array_append_new(list, entry);
	}
	return list;
}

static int parse_limit(struct request *req, size_t *limit, struct error *err)
{
	const char *text = request_arg(req, "limit");
	unsigned v;

	*limit = DEFAULT_LIMIT;
	if (!text)
		return 0;
	if (route_index(text, "limit", "a number of skeletons from 1 to 100", MAX_LIMIT, &v, err) <
	    0)
		return -1;
	if (v < 1) {
		error_set(err, ERROR_BAD_PARAMETER, "limit", -1,
		          "limit: '%s' is not a number of skeletons from 1 to 100", text);
		return -1;
	}
	*limit = v;
	return 0;
}

void route_skeletons(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct candidates c = {0};
	struct wanted *wanted = NULL;
	struct catalog_entry entry = {0};
	json_t *list, *answer;
	struct error err;
	size_t limit;
	int64_t id;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (parse_limit(req, &limit, &err) < 0)
		goto fail;
	if (catalog_entry_read(cat, id, CATALOG_ENTRY_TRACKS, &entry, &err) < 0)
		goto fail;
	wanted = calloc(entry.track_count + 1, sizeof(*wanted));
	if (!wanted) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	c.wanted = wanted_nodes(&entry, wanted);
	for (size_t w = 0; w < c.wanted; w++) {
		int64_t *ids;
		size_t count;
		if (catalog_rigs_with(cat, &wanted[w].key, &ids, &count, &err) < 0)
			goto fail;
		for (size_t i = 0; i < count; i++) {
			struct candidate *k = ids[i] == id ? NULL : candidate_of(&c, ids[i]);
			if (ids[i] == id)
				continue;
			if (!k) {
				free(ids);
				error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
				goto fail;
			}
			if (!k->hit[w]) {
				k->hit[w] = 1;
				k->matched++;
			}
		}
		free(ids);
	}
	list = ranked(cat, &c, wanted, limit, &err);
	if (!list)
		goto fail;
	answer = json_pack("{s:I, s:I, s:I, s:o}", "id", (json_int_t)id, "targets",
	                   (json_int_t)c.wanted, "count", (json_int_t)c.count, "skeletons", list);
	catalog_entry_cleanup(&entry);
	free(wanted);
	candidates_cleanup(&c);
	response_json(resp, 200, answer);
	return;
fail:
	catalog_entry_cleanup(&entry);
	free(wanted);
	candidates_cleanup(&c);
	response_error(resp, &err);
}
