/* export.c: catalogued entries as one glTF 2.0 asset (export.h).
 *
 * The asset is built as a jansson document plus one binary buffer: every key array becomes a
 * buffer view and a float accessor (times with their min and max, as glTF requires). A .glb
 * is the 12-byte header, the JSON chunk (padded with spaces) and the BIN chunk (padded with
 * zeros); a .gltf carries the buffer as a base64 data URI.
 *
 * The mapping (README, "Getting animations out"):
 *   node schema, translation / rotation / scale  -> a channel on the target's node
 *   morph-weights schema, weights[N]             -> a weights channel; the node gets a mesh of
 *                                                   one triangle with N morph targets
 *   Zouna KeyframerBezierRot_Z (Euler angles)    -> a LINEAR rotation channel, baked: the
 *                                                   angles (radians, applied X, then Y, then
 *                                                   Z) sampled at every key and bake_rate
 *                                                   times a second, as unit quaternions
 *   everything else (integer, boolean, handle and event tracks, Burnout state vectors,
 *   Zouna material, mesh, morph and bare keyframer values, tracks whose times glTF cannot
 *   take) -> the animation's extras, with its keys and the reason
 * Keys keep their interpolation and values; glTF's CUBICSPLINE tangents are per second, as
 * animdex's are. Quaternion keys that are not unit length are normalised (and the asset says
 * so). A Zouna track whose first key comes after 0 holds its last key's value until then
 * (doc/formats.md 1.3); glTF holds the first, so two keys are added: the last value at 0 and at the
 * float just before the first key, which samples the same at every float32 time from 0 on.
 */
#include "export.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "buf.h"
#include "curve.h"
#include "handoff.h"
#include "model.h"
#include "render.h"

#define GLTF_FLOAT         5126
#define GLB_CHUNK_JSON     0x4E4F534Au
#define GLB_CHUNK_BIN      0x004E4942u
#define NODE_UNSET_WEIGHTS 0

enum channel_path { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE, PATH_WEIGHTS, PATH_NONE };
static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

struct export_node {
	uint64_t object;  /* the target's object: node index, bone handle... */
	char *name;       /* unique in the asset */
	unsigned weights; /* morph targets of its mesh; 0 while no weights channel needs one */
	int index;        /* in the asset's nodes */
};

/* Where an accessor's bytes come from, to make them again as the asset is sent. */
enum recipe_part { PART_TIMES, PART_VALUES, PART_TRIANGLE, PART_STILL };
struct export_recipe {
	int64_t entry;
	unsigned track;
	uint8_t part; /* enum recipe_part */
	uint8_t path; /* enum channel_path */
	uint8_t euler;
	uint64_t offset; /* in buffer 0 */
	size_t bytes;
};

struct exporter {
	struct export_options opt;
	json_t *doc;                   /* the asset being built */
	json_t *summary_extras;        /* [{"entry", "track", "name", "reason"}] */
	json_t *notes;                 /* what the asset says was assumed or changed */
	json_t *entry_list;            /* [{"entry", "class", "handle", "filename", "name"}] */
	json_t *node_names;            /* a set: the node names taken */
	json_t *node_of;               /* object (decimal text) -> index into nodes */
	json_t *animation_names;       /* a set: the animation names taken */
	struct buf bin;                /* buffer 0, while it is held (holding) */
	uint64_t bin_length;           /* buffer 0's length so far, held or not */
	int holding;                   /* bin holds every byte of buffer 0 so far */
	struct export_recipe *recipes; /* how to make each accessor's bytes again, in order */
	size_t recipe_count, recipe_cap;
	struct export_recipe source; /* the next accessor's, set before add_accessor */
	struct render_splices kept;  /* the tracks kept in extras with their keys, as text */
	struct export_node *nodes;   /* node_count of them */
	size_t node_count;
	size_t entries, animations, channels;
	int normalised; /* some rotation keys were normalised */
	int baked;      /* some Euler rotations were baked */
	int shifted;    /* some Zouna tracks got keys before their first */
};

struct exporter *exporter_create(const struct export_options *opt)
{
	struct exporter *ex = calloc(1, sizeof(*ex));

	if (!ex)
		return NULL;
	ex->opt = *opt;
	if (!(ex->opt.bake_rate > 0))
		ex->opt.bake_rate = EXPORT_DEFAULT_BAKE_RATE;
	if (!ex->opt.max_bytes)
		ex->opt.max_bytes = EXPORT_DEFAULT_MAX_BYTES;
	if (!ex->opt.max_entries)
		ex->opt.max_entries = EXPORT_DEFAULT_MAX_ENTRIES;
	ex->doc = json_pack("{s:{s:s, s:s}, s:i, s:[{s:[]}], s:[], s:[], s:[], s:[], s:[]}",
	                    "asset", "version", "2.0", "generator", "animdex " PACKAGE_VERSION,
	                    "scene", 0, "scenes", "nodes", "nodes", "animations", "accessors",
	                    "bufferViews", "meshes");
	ex->summary_extras = json_array();
	ex->notes = json_array();
	ex->entry_list = json_array();
	ex->node_names = json_object();
	ex->node_of = json_object();
	ex->animation_names = json_object();
	if (!ex->opt.hold_bytes)
		ex->opt.hold_bytes = EXPORT_DEFAULT_HOLD_BYTES;
	buf_init(&ex->bin, ex->opt.hold_bytes);
	ex->holding = !ex->opt.plan_only;
	if (!ex->doc || !ex->summary_extras || !ex->notes || !ex->entry_list || !ex->node_names ||
	    !ex->node_of || !ex->animation_names) {
		exporter_free(ex);
		return NULL;
	}
	return ex;
}

void exporter_free(struct exporter *ex)
{
	if (!ex)
		return;
	json_decref(ex->doc);
	json_decref(ex->summary_extras);
	json_decref(ex->notes);
	json_decref(ex->entry_list);
	json_decref(ex->node_names);
	json_decref(ex->node_of);
	json_decref(ex->animation_names);
	buf_cleanup(&ex->bin);
	free(ex->recipes);
	for (size_t i = 0; i < ex->kept.count; i++)
		free((char *)ex->kept.items[i].text);
	free(ex->kept.items);
	for (size_t i = 0; i < ex->node_count; i++)
		free(ex->nodes[i].name);
	free(ex->nodes);
	free(ex);
}

size_t exporter_count(const struct exporter *ex)
{
	return ex->entries;
}

static int too_large(struct exporter *ex, struct error *err)
{
	error_set(err, ERROR_TOO_LARGE, NULL, -1,
	          "the export would hold more than %zu bytes of keys, the most one asset may; "
	          "export fewer entries",
	          ex->opt.max_bytes);
	return -1;
}

/* Buffer 0's next bytes: zeros up to a multiple of 4 (pad), then `data`. They are kept while
 * the buffer fits hold_bytes (past that, nothing more is kept: the buffer is made again from
 * the recipes as it is sent), or only counted (plan_only). -1 past max_bytes. */
static int put_bin(struct exporter *ex, const void *data, size_t bytes, int pad)
{
	static const char zeros[4];
	size_t padding = pad ? (size_t)((4 - ex->bin_length % 4) % 4) : 0;

	if (ex->bin_length + padding + bytes > ex->opt.max_bytes)
		return -1;
	ex->bin_length += padding + bytes;
	if (ex->holding && ((padding && buf_append(&ex->bin, zeros, padding) < 0) ||
	                    (bytes && buf_append(&ex->bin, data, bytes) < 0))) {
		ex->holding = 0; /* past hold_bytes: made again when sent */
		buf_cleanup(&ex->bin);
	}
	return 0;
}

/* A buffer view and a float accessor over `count` elements of `type`; -1 past max_bytes. */
static int add_accessor(struct exporter *ex, const float *data, size_t count, const char *type,
                        size_t components, int bounds, int target)
{
	size_t bytes = count * components * sizeof(float);
	uint64_t offset;
	json_t *views = json_object_get(ex->doc, "bufferViews");
	json_t *accessors = json_object_get(ex->doc, "accessors"), *view, *acc;

	if (put_bin(ex, NULL, 0, 1) < 0)
		return -1;
	offset = ex->bin_length;
	if (put_bin(ex, data, bytes, 0) < 0)
		return -1;
	if (ex->recipe_count == ex->recipe_cap) {
		size_t cap = ex->recipe_cap ? 2 * ex->recipe_cap : 64;
		struct export_recipe *grown = realloc(ex->recipes, cap * sizeof(*grown));
		if (!grown)
			return -1;
		ex->recipes = grown;
		ex->recipe_cap = cap;
	}
	ex->source.offset = offset;
	ex->source.bytes = bytes;
	ex->recipes[ex->recipe_count++] = ex->source;
	view = json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)offset,
	                 "byteLength", (json_int_t)bytes);
	if (target)
		json_object_set_new(view, "target", json_integer(target));
	json_array_append_new(views, view);
	acc =
	    json_pack("{s:I, s:i, s:I, s:s}", "bufferView", (json_int_t)json_array_size(views) - 1,
	              "componentType", GLTF_FLOAT, "count", (json_int_t)count, "type", type);
	if (bounds) {
		json_t *min = json_array(), *max = json_array();
		for (size_t c = 0; c < components; c++) {
			float lo = data[c], hi = data[c];
			for (size_t i = 1; i < count; i++) {
				float v = data[i * components + c];
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			json_array_append_new(min, json_real(lo));
			json_array_append_new(max, json_real(hi));
		}
		json_object_set_new(acc, "min", min);
		json_object_set_new(acc, "max", max);
	}
	json_array_append_new(accessors, acc);
	return (int)json_array_size(accessors) - 1;
}

/* The node of an object, made on first use, with a name unique in the asset. */
static struct export_node *node_for(struct exporter *ex, uint64_t object, const char *name)
{
	struct export_node *grown, *n;
	char unique[256], key[24];
	json_t *known;

	snprintf(key, sizeof(key), "%" PRIu64, object);
	known = json_object_get(ex->node_of, key);
	if (known)
		return &ex->nodes[json_integer_value(known)];
	snprintf(unique, sizeof(unique), "%s", name && *name ? name : "node");
	for (int k = 2; json_object_get(ex->node_names, unique); k++)
		snprintf(unique, sizeof(unique), "%.200s #%d", name && *name ? name : "node", k);
	grown = realloc(ex->nodes, (ex->node_count + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	ex->nodes = grown;
	n = &ex->nodes[ex->node_count];
	n->object = object;
	n->name = strdup(unique);
	n->weights = NODE_UNSET_WEIGHTS;
	n->index = (int)json_array_size(json_object_get(ex->doc, "nodes"));
	if (!n->name)
		return NULL;
	json_object_set_new(ex->node_names, unique, json_true());
	json_object_set_new(ex->node_of, key, json_integer((json_int_t)ex->node_count));
	json_array_append_new(json_object_get(ex->doc, "nodes"),
	                      json_pack("{s:s}", "name", unique));
	json_array_append_new(
	    json_object_get(json_array_get(json_object_get(ex->doc, "scenes"), 0), "nodes"),
	    json_integer(n->index));
	ex->node_count++;
	return n;
}

/* A mesh of one triangle with `targets` morph targets that move nothing, for weights. */
static int give_morph_mesh(struct exporter *ex, struct export_node *n, unsigned targets)
{
	static const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	static const float still[9] = {0};
	json_t *meshes = json_object_get(ex->doc, "meshes"), *list = json_array(), *weights;
	int position;

	ex->source = (struct export_recipe){.part = PART_TRIANGLE};
	position = add_accessor(ex, triangle, 3, "VEC3", 3, 1, 34962);
	ex->source.part = PART_STILL;

	if (position < 0) {
		json_decref(list);
		return -1;
	}
	for (unsigned t = 0; t < targets; t++) {
		int moved = add_accessor(ex, still, 3, "VEC3", 3, 1, 34962);
		if (moved < 0) {
			json_decref(list);
			return -1;
		}
		json_array_append_new(list, json_pack("{s:i}", "POSITION", moved));
	}
	weights = json_array();
	for (unsigned t = 0; t < targets; t++)
		json_array_append_new(weights, json_real(0));
	json_array_append_new(meshes, json_pack("{s:s, s:[{s:{s:i}, s:o}], s:o}", "name", n->name,
	                                        "primitives", "attributes", "POSITION", position,
	                                        "targets", list, "weights", weights));
	json_object_set_new(json_array_get(json_object_get(ex->doc, "nodes"), (size_t)n->index),
	                    "mesh", json_integer((json_int_t)json_array_size(meshes) - 1));
	n->weights = targets;
	return 0;
}

/* A track's keys as they would be answered by /keys: times, values (per key), for extras. */
static json_t *keys_json(const struct catalog_track *t)
{
	const struct sampler *s = &t->sampler;
	size_t m = sampler_components(s), per = s->interp == INTERP_CUBIC_SPLINE ? 3 : 1;
	enum scalar_kind kind = value_type_scalar(s->type);
	json_t *times = json_array(), *values = json_array();

	for (uint32_t k = 0; k < s->key_count; k++) {
		json_t *key = json_array();
		json_array_append_new(times, json_real(s->times[k]));
		for (size_t c = 0; c < m * per; c++) {
			size_t at = (size_t)k * m * per + c;
			switch (kind) {
			case SCALAR_FLOAT:
				json_array_append_new(key,
				                      json_real(((const float *)s->values)[at]));
				break;
			case SCALAR_INT:
				json_array_append_new(
				    key, json_integer(((const int32_t *)s->values)[at]));
				break;
			case SCALAR_UINT:
				json_array_append_new(
				    key, json_integer(((const uint32_t *)s->values)[at]));
				break;
			case SCALAR_BOOL:
				json_array_append_new(
				    key, json_boolean(((const uint8_t *)s->values)[at]));
				break;
			default: json_array_append_new(key, json_null());
			}
		}
		json_array_append_new(values, key);
	}
	{
		json_t *keys = json_object();
		json_object_set_new_nocheck(keys, "type", json_string(value_type_name(s->type)));
		json_object_set_new_nocheck(keys, "array_size", json_integer(s->array_size));
		json_object_set_new_nocheck(keys, "interpolation",
		                            json_string(interpolation_name(s->interp)));
		json_object_set_new_nocheck(keys, "times", times);
		json_object_set_new_nocheck(keys, "values", values);
		return keys;
	}
}

/* An event track's events, as the sample route lists them. */
static json_t *events_json(const struct catalog_track *t)
{
	const struct sampler *s = &t->sampler;
	const uint32_t *w = s->values;
	json_t *list = json_array();
	char handle[2][11];

	for (uint32_t k = 0; k < s->key_count; k++, w += EVENT_WORDS) {
		float parameter;
		memcpy(&parameter, &w[EVENT_PARAMETER], sizeof(parameter));
		render_handle(w[EVENT_RECEIVER], handle[0]);
		render_handle(w[EVENT_MESSAGE_ID], handle[1]);
		json_array_append_new(
		    list, json_pack("{s:f, s:I, s:s, s:I, s:o, s:s}", "time", (double)s->times[k],
		                    "message_class", (json_int_t)w[EVENT_MESSAGE_CLASS], "receiver",
		                    handle[0], "c", (json_int_t)w[EVENT_C], "parameter",
		                    isfinite(parameter) ? json_real(parameter) : json_null(),
		                    "message_id", handle[1]));
	}
	return json_pack("{s:o}", "events", list);
}

static int grow_splices(struct render_splices *sp)
{
	size_t cap = sp->cap ? 2 * sp->cap : 256;
	struct render_splice *grown = realloc(sp->items, cap * sizeof(*grown));

	if (!grown)
		return -1;
	sp->items = grown;
	sp->cap = cap;
	return 0;
}

/* A track's keys (or events) as kept in extras. */
static json_t *kept_keys_json(const struct catalog_track *t)
{
	return t->events ? events_json(t) : keys_json(t);
}

/* The JSON text of a track kept in extras, as keep_in_extras would make it: its keys (or
 * events), number, name and the reason given. */
struct kept_text {
	char *text;
	size_t length;
	const char *reason;
};

static int kept_text_make(const json_t *track, const struct catalog_track *t, const char *reason,
                          struct kept_text *out)
{
	json_t *keys = kept_keys_json(t);
	const char *name = json_string_value(json_object_get(track, "name"));
	struct buf b;

	buf_init(&b, (size_t)1 << 31);
	if (!keys || render_json_append(&b, keys, 0) < 0 || b.len < 2) {
		json_decref(keys);
		buf_cleanup(&b);
		return -1;
	}
	json_decref(keys);
	b.len--; /* its closing brace: the track's number, name and reason follow */
	buf_printf(&b, ",\"track\":%" JSON_INTEGER_FORMAT ",\"name\":",
	           json_integer_value(json_object_get(track, "n")));
	render_string_append(&b, name ? name : "");
	buf_puts(&b, ",\"reason\":");
	render_string_append(&b, reason);
	buf_putc(&b, '}');
	if (b.overflow) {
		buf_cleanup(&b);
		return -1;
	}
	out->text = buf_steal(&b, &out->length);
	out->reason = reason;
	return 0;
}

/* A track kept in extras: its keys (or events) and why glTF does not animate it. Made ahead
 * (`made`, for this reason: taken over), it goes into the asset as text, a placeholder in the
 * document spliced in when it is written: no jansson value a number to build and free. */
static void keep_in_extras(struct exporter *ex, json_t *kept, int64_t id, const json_t *track,
                           const struct catalog_track *t, struct kept_text *made,
                           const char *reason)
{
	json_int_t n = json_integer_value(json_object_get(track, "n"));
	const char *name = json_string_value(json_object_get(track, "name"));
	struct render_splices *sp = &ex->kept;
	json_t *placeholder, *listed;

	listed = json_object();
	if (made && made->text && made->reason == reason &&
	    (sp->count < sp->cap || grow_splices(sp) == 0) && (placeholder = json_string(""))) {
		sp->items[sp->count].value = placeholder;
		sp->items[sp->count].text = made->text;
		sp->items[sp->count].length = made->length;
		sp->count++;
		made->text = NULL;
		json_array_append_new(kept, placeholder);
	} else {
		json_t *item = t ? kept_keys_json(t) : json_object();
		json_object_set_new_nocheck(item, "track", json_integer(n));
		json_object_set_new_nocheck(item, "name", json_string(name ? name : ""));
		json_object_set_new_nocheck(item, "reason", json_string(reason));
		json_array_append_new(kept, item);
	}
	json_object_set_new_nocheck(listed, "entry", json_integer(id));
	json_object_set_new_nocheck(listed, "track", json_integer(n));
	json_object_set_new_nocheck(listed, "name", json_string(name ? name : ""));
	json_object_set_new_nocheck(listed, "reason", json_string(reason));
	json_array_append_new(ex->summary_extras, listed);
}

/* glTF's timeline: times from 0, strictly increasing. NULL when they fit, else why not. */
static const char *times_unfit(const struct sampler *s)
{
	if (s->times[0] < 0)
		return "its first key is before 0 s, and glTF animations start at 0";
	for (uint32_t k = 1; k < s->key_count; k++)
		if (!(s->times[k] > s->times[k - 1]))
			return "two of its keys share a time, and glTF times must increase";
	return NULL;
}

/* An Euler rotation (radians, applied X, then Y, then Z: q = qz qy qx) as a quaternion. */
static void euler_to_quaternion(const float e[3], float q[4])
{
	double cx = cos(e[0] / 2.0), sx = sin(e[0] / 2.0), cy = cos(e[1] / 2.0),
	       sy = sin(e[1] / 2.0), cz = cos(e[2] / 2.0), sz = sin(e[2] / 2.0);

	q[0] = (float)(sx * cy * cz - cx * sy * sz);
	q[1] = (float)(cx * sy * cz + sx * cy * sz);
	q[2] = (float)(cx * cy * sz - sx * sy * cz);
	q[3] = (float)(cx * cy * cz + sx * sy * sz);
}

static int float_order(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

/* The Euler track sampled at every key and bake_rate times a second, from 0 when the track
 * holds a value before its first key, as LINEAR unit quaternions. A track so long that the
 * rate would make more than EXPORT_MAX_BAKED_KEYS samples is sampled as often as that many
 * allow, and the asset says so (an 84-byte file with keys at 0 and 100,000 s would otherwise
 * ask for three million). */
static int bake_euler(struct exporter *ex, const struct sampler *s, int64_t id, unsigned track,
                      float **times_out, float **values_out, size_t *count_out)
{
	float t0 = s->times[0] < 0 ? 0 : s->times[0], t1 = s->times[s->key_count - 1];
	double rate = ex->opt.bake_rate, wanted;
	size_t steps, n = 0;
	float *times, *values;
	struct curve c;
	struct curve_cursor cursor;

	if ((s->rules & RULE_LAST_BEFORE_FIRST) && t0 > 0)
		t0 = 0;
	wanted = t1 > t0 ? ceil((double)(t1 - t0) * rate) : 0;
	if (wanted > EXPORT_MAX_BAKED_KEYS) {
		rate = EXPORT_MAX_BAKED_KEYS / ((double)t1 - (double)t0);
		json_array_append_new(
		    ex->notes,
		    json_sprintf("entry %" PRId64 " track %u: baked at %.6g samples a "
		                 "second, not %g: its %.9g s would need %.0f samples, "
		                 "past the limit of %d a track",
		                 id, track, rate, ex->opt.bake_rate, (double)t1 - (double)t0,
		                 wanted, EXPORT_MAX_BAKED_KEYS));
		wanted = EXPORT_MAX_BAKED_KEYS;
	}
	steps = (size_t)wanted;
	times = malloc((steps + s->key_count + 4) * sizeof(float));
	if (!times)
		return -1;
	for (size_t i = 0; i <= steps; i++) {
		double t = t0 + (double)i / rate;
		times[n++] = (float)(t < t1 ? t : t1);
	}
	for (uint32_t k = 0; k < s->key_count; k++)
		if (s->times[k] >= t0) {
			times[n++] = s->times[k];
			/* a Zouna track jumps at its first key: keep the float just before it */
			if (k == 0 && (s->rules & RULE_LAST_BEFORE_FIRST) && s->times[0] > t0)
				times[n++] = nextafterf(s->times[0], -INFINITY);
		}
	qsort(times, n, sizeof(float), float_order);
	{
		size_t u = 0;
		for (size_t i = 0; i < n; i++)
			if (u == 0 || times[i] > times[u - 1])
				times[u++] = times[i];
		n = u;
	}
	values = malloc(n * 4 * sizeof(float));
	if (!values) {
		free(times);
		return -1;
	}
	curve_from_sampler(&c, s);
	curve_cursor_init(&cursor);
	for (size_t i = 0; i < n; i++) {
		float e[3];
		curve_sample_f32(&c, &cursor, times[i], e);
		euler_to_quaternion(e, values + i * 4);
		if (i > 0) { /* the short way from the previous sample */
			float *p = values + (i - 1) * 4, *q = values + i * 4;
			if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0)
				for (int j = 0; j < 4; j++)
					q[j] = -q[j];
		}
	}
	*times_out = times;
	*values_out = values;
	*count_out = n;
	ex->baked = 1;
	return 0;
}

/* The keys as glTF takes them: a one-key CUBICSPLINE becomes LINEAR (glTF wants two keys
 * there); rotation values are made unit length; a Zouna track whose first key comes after 0
 * gets its last value at 0 and at the float before its first key. Returns the interpolation
 * to write, or -1. */
static int gltf_keys(struct exporter *ex, const struct sampler *s, enum channel_path path,
                     float **times_out, float **values_out, size_t *count_out)
{
	size_t m = sampler_components(s), per = s->interp == INTERP_CUBIC_SPLINE ? 3 : 1;
	int interp = s->interp;
	int lead = (s->rules & RULE_LAST_BEFORE_FIRST) && s->times[0] > 0 && s->key_count > 1;
	size_t n = s->key_count + (lead ? 2 : 0), at = 0;
	const float *v = s->values;
	float *times, *values;

	if (interp == INTERP_CUBIC_SPLINE && s->key_count == 1) {
		interp = INTERP_LINEAR;
		per = 1;
		v = (const float *)s->values + m; /* the central value */
	}
	times = malloc(n * sizeof(float));
	values = malloc(n * m * per * sizeof(float));
	if (!times || !values) {
		free(times);
		free(values);
		return -1;
	}
	if (lead) {
		/* the last key's value (and zero tangents) at 0 and just before the first key */
		const float *last = (const float *)s->values + (size_t)(s->key_count - 1) * m * per;
		for (int i = 0; i < 2; i++) {
			times[at] = i ? nextafterf(s->times[0], -INFINITY) : 0.0f;
			for (size_t c = 0; c < m * per; c++)
				values[at * m * per + c] =
				    per == 3 && (c < m || c >= 2 * m) ? 0.0f : last[c];
			at++;
		}
		if (times[1] <= 0) { /* the first key is the float after 0: one key is enough */
			at = 1;
			n--;
		}
		ex->shifted = 1;
	}
	memcpy(times + at, s->times, s->key_count * sizeof(float));
	memcpy(values + at * m * per, interp == (int)s->interp ? s->values : v,
	       s->key_count * m * per * sizeof(float));
	if (interp != (int)s->interp) /* one key, its central value */
		memcpy(values + at * m, v, m * sizeof(float));
	if (path == PATH_ROTATION) {
		for (size_t k = 0; k < n; k++) {
			float *q = values + (k * per + (per == 3 ? 1 : 0)) * 4;
			double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
			                  (double)q[2] * q[2] + (double)q[3] * q[3]);
			if (len > 0 && fabs(len - 1.0) > 1e-6) {
				for (int j = 0; j < 4; j++)
					q[j] = (float)(q[j] / len);
				ex->normalised = 1;
			}
		}
	}
	*times_out = times;
	*values_out = values;
	*count_out = n;
	return interp;
}

/* An animation name no other animation of the asset has (Blender names actions by them). */
static void unique_animation_name(struct exporter *ex, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s", name);
	for (int k = 2; json_object_get(ex->animation_names, out); k++)
		snprintf(out, size, "%.200s #%d", name, k);
	json_object_set_new(ex->animation_names, out, json_true());
}

/* Which glTF path a track animates, or PATH_NONE with the reason it cannot. */
static enum channel_path path_of(const json_t *track, const char **why)
{
	const json_t *target = json_object_get(track, "target");
	const char *schema = json_string_value(json_object_get(target, "schema"));
	json_int_t property = json_integer_value(json_object_get(track, "property"));
	const char *kind = json_string_value(json_object_get(track, "kind"));

	if (kind && strcmp(kind, "events") == 0) {
		*why = "events: glTF animations have no events; they are listed here with their "
		       "time, class, receiver and parameter";
		return PATH_NONE;
	}
	if (schema && strcmp(schema, SCHEMA_NODE) == 0) {
		if (property == NODE_TRANSLATION)
			return PATH_TRANSLATION;
		if (property == NODE_ROTATION)
			return PATH_ROTATION;
		if (property == NODE_SCALE)
			return PATH_SCALE;
		*why = "visibility: glTF 2.0 cannot animate whether a node is shown";
		return PATH_NONE;
	}
	if (schema && strcmp(schema, SCHEMA_MORPH) == 0 && property == MORPH_WEIGHTS)
		return PATH_WEIGHTS;
	if (schema && strcmp(schema, SCHEMA_ZOUNA) == 0) {
		switch (property) {
		case ZOUNA_EULER_ROTATION: return PATH_ROTATION; /* baked */
		case ZOUNA_VALUE:
			*why = "a bare keyframer's value: it animates no node that glTF knows of";
			return PATH_NONE;
		case ZOUNA_MATERIAL_TRANS_U:
		case ZOUNA_MATERIAL_TRANS_V:
		case ZOUNA_MATERIAL_DIFFUSE:
		case ZOUNA_MATERIAL_EMISSIVE:
		case ZOUNA_MATERIAL_ROTATION:
			*why = "a material channel: glTF 2.0 animates no material properties";
			return PATH_NONE;
		default:
			*why = "a Zouna mesh or morph channel: its meaning in glTF is unknown";
			return PATH_NONE;
		}
	}
	if (schema && strcmp(schema, SCHEMA_BURNOUT) == 0) {
		*why = "Burnout state vectors over the trigger input: no glTF node property";
		return PATH_NONE;
	}
	*why = "its target is not a node (its schema is not glTF's node or morph-weights schema)";
	return PATH_NONE;
}

/* One entry as an export needs it: its summary with its tracks, and every track's keys (its
 * own). */
struct export_entry {
	int64_t id;
	json_t *entry;
	struct catalog_track *tracks;
	struct kept_text *kept; /* per track: the keys of one glTF cannot animate, made ahead */
	size_t track_count;
	size_t bytes;         /* of the tracks' keys */
	struct catalog *lazy; /* or tracks read one at a time from here, as they are added */
};

static void export_entry_cleanup(struct export_entry *e)
{
	for (size_t i = 0; i < e->track_count; i++) {
		catalog_track_cleanup(&e->tracks[i]);
		if (e->kept)
			free(e->kept[i].text);
	}
	free(e->tracks);
	free(e->kept);
	json_decref(e->entry);
	memset(e, 0, sizeof(*e));
}

/* The texts of the entry's tracks kept in extras, made ahead: on the reading thread, when
 * there is one. */
static void make_kept_text(struct export_entry *e, size_t i)
{
	const json_t *track = json_array_get(json_object_get(e->entry, "tracks"), i);
	const char *why = NULL;

	if (path_of(track, &why) != PATH_NONE)
		why = times_unfit(&e->tracks[i].sampler);
	if (why) /* else (or when out of memory) made later, if kept */
		kept_text_make(track, &e->tracks[i], why, &e->kept[i]);
}

/* Reads entry id from cat: nothing of the exporter, so any thread with its own catalogue.
 * lazy: only its summary; its tracks are read one at a time as they are added (an export's
 * memory is then one track's keys, not the entry's). */
static int export_entry_read(struct catalog *cat, int64_t id, int lazy, struct export_entry *out,
                             struct error *err)
{
	size_t n;

	memset(out, 0, sizeof(*out));
	out->id = id;
	out->entry = catalog_get_export_entry(cat, id, err);
	if (!out->entry)
		return -1;
	n = json_array_size(json_object_get(out->entry, "tracks"));
	out->tracks = calloc(n + 1, sizeof(*out->tracks));
	out->kept = calloc(n + 1, sizeof(*out->kept));
	if (!out->tracks || !out->kept) {
		export_entry_cleanup(out);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (lazy) {
		out->lazy = cat;
		out->track_count = n;
		return 0;
	}
	for (; out->track_count < n; out->track_count++) {
		const struct sampler *sp = &out->tracks[out->track_count].sampler;
		if (catalog_read_track(cat, id, (unsigned)out->track_count,
		                       &out->tracks[out->track_count], err) < 0) {
			export_entry_cleanup(out);
			return -1;
		}
		out->bytes += (size_t)sp->key_count * sizeof(float) + sp->value_bytes;
	}
	for (size_t i = 0; i < n; i++)
		make_kept_text(out, i);
	return 0;
}

/* A lazy entry's track i read, the one before let go. */
static int read_lazily(struct export_entry *e, size_t i, struct error *err)
{
	if (i > 0) {
		catalog_track_cleanup(&e->tracks[i - 1]);
		free(e->kept[i - 1].text);
		e->kept[i - 1].text = NULL;
	}
	if (catalog_read_track(e->lazy, e->id, (unsigned)i, &e->tracks[i], err) < 0)
		return -1;
	make_kept_text(e, i);
	return 0;
}

static int exporter_add_entry(struct exporter *ex, struct export_entry *read, struct error *err);

static int too_many_entries(const struct exporter *ex, struct error *err)
{
	error_set(err, ERROR_TOO_LARGE, NULL, -1,
	          "the export would hold more than %zu entries, the most one asset may; narrow "
	          "the filters",
	          ex->opt.max_entries);
	return -1;
}

int exporter_add(struct exporter *ex, struct catalog *cat, int64_t id, struct error *err)
{
	struct export_entry e;
	int rc;

	if (ex->entries >= ex->opt.max_entries) /* said before anything is read */
		return too_many_entries(ex, err);
	if (export_entry_read(cat, id, 1, &e, err) < 0) /* lazy: one track at a time */
		return -1;
	rc = exporter_add_entry(ex, &e, err);
	export_entry_cleanup(&e);
	return rc;
}

/* Fields of the entry as an export names them: pairs of (name in the asset, name in the
 * entry), ending with NULL. */
static const char *const about_fields[] = {"entry",    "id",       "class",  "class",
                                           "family",   "family",   "handle", "crc32",
                                           "filename", "filename", NULL};
static const char *const listed_fields[] = {"entry",  "id",    "class",    "class",
                                            "handle", "crc32", "filename", "filename",
                                            "name",   "name",  NULL};

static json_t *entry_fields(const json_t *entry, const char *const *fields)
{
	json_t *o = json_object();

	for (; fields[0]; fields += 2)
		json_object_set_nocheck(o, fields[0], json_object_get(entry, fields[1]));
	return o;
}

/* The node of an entry glTF animates nothing of: its name, and in its extras the entry's
 * fields, its kept tracks (the splices from first_kept on, in kept's order, or values) and a
 * note; written as text at once (nothing changes it later) and spliced into the nodes. The
 * kept tracks' own splices are folded into it. */
static int add_entry_node(struct exporter *ex, const json_t *entry, const char *name,
                          const json_t *kept, size_t first_kept)
{
	struct render_splices *sp = &ex->kept;
	size_t next = first_kept, i;
	struct buf b;
	json_t *item, *placeholder;
	char sep = '{';

	size_t room = 1024 + 6 * strlen(name); /* the node in one allocation, mostly */

	for (size_t k = first_kept; k < sp->count; k++)
		room += sp->items[k].length + 1;
	buf_init(&b, (size_t)1 << 31);
	buf_reserve(&b, room);
	buf_puts(&b, "{\"name\":");
	render_string_append(&b, name);
	buf_puts(&b, ",\"extras\":{\"animdex\":");
	for (const char *const *f = about_fields; f[0]; f += 2) {
		const json_t *value = json_object_get(entry, f[1]);
		if (!value)
			continue;
		buf_putc(&b, sep);
		sep = ',';
		render_string_append(&b, f[0]);
		buf_putc(&b, ':');
		render_json_append(&b, value, 0);
	}
	if (json_array_size(kept)) {
		buf_putc(&b, sep);
		sep = ',';
		buf_puts(&b, "\"not_animated\":[");
		json_array_foreach(kept, i, item)
		{
			if (i)
				buf_putc(&b, ',');
			if (next < sp->count && sp->items[next].value == item) {
				buf_append(&b, sp->items[next].text, sp->items[next].length);
				next++;
			} else {
				render_json_append(&b, item, 0);
			}
		}
		buf_putc(&b, ']');
	}
	buf_putc(&b, sep);
	buf_puts(&b, "\"note\":\"glTF can animate none of this entry's tracks; they are kept "
	             "here with their keys\"}}}");
	for (size_t k = first_kept; k < sp->count; k++)
		free((char *)sp->items[k].text);
	sp->count = first_kept;
	if (b.overflow || (sp->count == sp->cap && grow_splices(sp) < 0) ||
	    !(placeholder = json_string(""))) {
		buf_cleanup(&b);
		return -1;
	}
	sp->items[sp->count].value = placeholder;
	sp->items[sp->count].text = buf_steal(&b, &sp->items[sp->count].length);
	sp->count++;
	json_array_append_new(json_object_get(ex->doc, "nodes"), placeholder);
	json_array_append_new(
	    json_object_get(json_array_get(json_object_get(ex->doc, "scenes"), 0), "nodes"),
	    json_integer((json_int_t)json_array_size(json_object_get(ex->doc, "nodes")) - 1));
	return 0;
}

/* One entry's animation while it is made: its channels and samplers, the tracks it keeps in
 * extras, and per node index the paths it animates already (bits). */
struct entry_animation {
	json_t *channels, *samplers, *kept;
	uint8_t *used;
	size_t used_len;
};

/* The bits of node index `index` (grown as needed); NULL when out of memory. */
static uint8_t *node_paths(struct entry_animation *ea, int index)
{
	if ((size_t)index >= ea->used_len) {
		uint8_t *grown = realloc(ea->used, (size_t)index + 1);
		if (!grown)
			return NULL;
		memset(grown + ea->used_len, 0, (size_t)index + 1 - ea->used_len);
		ea->used = grown;
		ea->used_len = (size_t)index + 1;
	}
	return &ea->used[index];
}

/* A sampler over accessors in and out, and the channel that drives the node's path with it. */
static void add_channel(struct entry_animation *ea, int in, int out, int interp,
                        const struct export_node *node, enum channel_path path)
{
	json_t *sampler = json_object(), *channel = json_object(), *channel_target = json_object();

	json_object_set_new_nocheck(sampler, "input", json_integer(in));
	json_object_set_new_nocheck(sampler, "output", json_integer(out));
	json_object_set_new_nocheck(sampler, "interpolation",
	                            json_string(interp == INTERP_STEP     ? "STEP"
	                                        : interp == INTERP_LINEAR ? "LINEAR"
	                                                                  : "CUBICSPLINE"));
	json_array_append_new(ea->samplers, sampler);
	json_object_set_new_nocheck(channel, "sampler",
	                            json_integer((json_int_t)json_array_size(ea->samplers) - 1));
	json_object_set_new_nocheck(channel_target, "node", json_integer(node->index));
	json_object_set_new_nocheck(channel_target, "path", json_string(path_names[path]));
	json_object_set_new_nocheck(channel, "target", channel_target);
	json_array_append_new(ea->channels, channel);
}

/* The keys of track t (of a node's path) as accessors and a channel: baked when Euler, as
 * glTF takes them otherwise. -1 with err set. */
static int add_track_channel(struct exporter *ex, struct entry_animation *ea, int64_t id, size_t i,
                             struct catalog_track *t, struct export_node *node,
                             enum channel_path path, int euler, struct error *err)
{
	float *times = NULL, *values = NULL;
	size_t count = 0, m;
	int interp, in, out;

	interp = euler ? (bake_euler(ex, &t->sampler, id, t->n, &times, &values, &count) < 0
	                      ? -1
	                      : INTERP_LINEAR)
	               : gltf_keys(ex, &t->sampler, path, &times, &values, &count);
	m = euler ? 4 : sampler_components(&t->sampler);
	catalog_track_cleanup(t);
	if (interp < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	ex->source = (struct export_recipe){.entry = id,
	                                    .track = (unsigned)i,
	                                    .part = PART_TIMES,
	                                    .path = (uint8_t)path,
	                                    .euler = (uint8_t)euler};
	in = add_accessor(ex, times, count, "SCALAR", 1, 1, 0);
	ex->source.part = PART_VALUES;
	out = in < 0 ? -1
	             : add_accessor(ex, values,
	                            count * (interp == INTERP_CUBIC_SPLINE ? 3 : 1) *
	                                (path == PATH_WEIGHTS ? m : 1),
	                            path == PATH_WEIGHTS ? "SCALAR"
	                            : m == 4             ? "VEC4"
	                                                 : "VEC3",
	                            path == PATH_WEIGHTS ? 1 : m, 0, 0);
	free(times);
	free(values);
	if (out < 0)
		return too_large(ex, err);
	add_channel(ea, in, out, interp, node, path);
	*node_paths(ea, node->index) |= (uint8_t)(1u << path);
	ex->channels++;
	return 0;
}

/* Track i of the entry: a channel on its node, or kept in extras with the reason glTF cannot
 * animate it. -1 with err set. */
static int export_track(struct exporter *ex, struct export_entry *read, size_t i,
                        const json_t *track, struct entry_animation *ea, struct error *err)
{
	const int64_t id = read->id;
	const char *why = NULL;
	enum channel_path path = path_of(track, &why);
	const json_t *target = json_object_get(track, "target");
	const char *schema = json_string_value(json_object_get(target, "schema"));
	struct catalog_track t;
	struct export_node *node;
	uint8_t *paths;

	if (i >= read->track_count) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: entry %" PRId64 " lists more tracks than it has", id);
		return -1;
	}
	if (read->lazy && read_lazily(read, i, err) < 0)
		return -1;
	t = read->tracks[i];
	t.borrowed = 1; /* read's: cleaning t up leaves it */
	if (path == PATH_NONE || (why = times_unfit(&t.sampler)) != NULL) {
		keep_in_extras(ex, ea->kept, id, track, &t, &read->kept[i], why);
		catalog_track_cleanup(&t);
		return 0;
	}
	node = node_for(ex, (uint64_t)json_integer_value(json_object_get(target, "object")),
	                json_string_value(json_object_get(target, "name")));
	paths = node ? node_paths(ea, node->index) : NULL;
	if (!paths) {
		catalog_track_cleanup(&t);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (*paths & (1u << path)) {
		keep_in_extras(ex, ea->kept, id, track, &t, NULL,
		               "its node's property is already animated by another track of this "
		               "entry, and glTF allows one channel per node and property");
		catalog_track_cleanup(&t);
		return 0;
	}
	if (path == PATH_WEIGHTS) {
		unsigned targets = t.sampler.array_size;
		if (node->weights == NODE_UNSET_WEIGHTS && give_morph_mesh(ex, node, targets) < 0) {
			catalog_track_cleanup(&t);
			return too_large(ex, err);
		}
		if (node->weights != targets) {
			keep_in_extras(ex, ea->kept, id, track, &t, NULL,
			               "its node already has a mesh with another number of morph "
			               "targets");
			catalog_track_cleanup(&t);
			return 0;
		}
	}
	return add_track_channel(ex, ea, id, i, &t, node, path, strcmp(schema, SCHEMA_ZOUNA) == 0,
	                         err);
}

/* The entry's animation in the asset, or, when glTF animates nothing of it, a node that
 * carries the entry and its tracks. -1 with err set. */
static int finish_entry(struct exporter *ex, const json_t *entry, int64_t id,
                        struct entry_animation *ea, size_t first_kept, struct error *err)
{
	const char *name = json_string_value(json_object_get(entry, "name"));
	char fallback[48], unique[256];
	json_t *about, *anim;

	snprintf(fallback, sizeof(fallback), "entry %" PRId64, id);
	if (json_array_size(ea->channels) == 0) {
		if (add_entry_node(ex, entry, name ? name : fallback, ea->kept, first_kept) < 0) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		return 0;
	}
	about = entry_fields(entry, about_fields);
	if (json_array_size(ea->kept))
		json_object_set(about, "not_animated", ea->kept);
	unique_animation_name(ex, name ? name : fallback, unique, sizeof(unique));
	anim = json_pack("{s:s, s:O, s:O, s:{s:o}}", "name", unique, "channels", ea->channels,
	                 "samplers", ea->samplers, "extras", "animdex", about);
	json_array_append_new(json_object_get(ex->doc, "animations"), anim);
	ex->animations++;
	return 0;
}

/* Adds a read entry (which stays the caller's). */
static int exporter_add_entry(struct exporter *ex, struct export_entry *read, struct error *err)
{
	struct entry_animation ea = {json_array(), json_array(), json_array(), NULL, 0};
	const size_t first_kept = ex->kept.count; /* this entry's kept tracks: the splices after */
	json_t *tracks, *track;
	size_t i;
	int rc = -1;

	if (ex->entries >= ex->opt.max_entries) {
		rc = too_many_entries(ex, err);
		goto done;
	}
	tracks = json_object_get(read->entry, "tracks");
	json_array_foreach(tracks, i, track)
	{
		if (export_track(ex, read, i, track, &ea, err) < 0)
			goto done;
	}
	if (finish_entry(ex, read->entry, read->id, &ea, first_kept, err) < 0)
		goto done;
	ex->entries++;
	json_array_append_new(ex->entry_list, entry_fields(read->entry, listed_fields));
	rc = 0;
done:
	free(ea.used);
	json_decref(ea.channels);
	json_decref(ea.samplers);
	json_decref(ea.kept);
	return rc;
}

static void drop_if_empty(json_t *doc, const char *key)
{
	if (json_array_size(json_object_get(doc, key)) == 0)
		json_object_del(doc, key);
}

/* The asset's notes and the description of its entries, in the asset's extras. */
static void describe_asset(struct exporter *ex)
{
	json_t *about;

	if (ex->baked)
		json_array_append_new(
		    ex->notes,
		    json_sprintf("KeyframerBezierRot_Z Euler angles are read as radians "
		                 "applied X, then Y, then Z (q = qz qy qx), and baked into "
		                 "rotation keys at every key and %g times a second; the "
		                 "axis order is assumed, not documented",
		                 ex->opt.bake_rate));
	if (ex->normalised)
		json_array_append_new(
		    ex->notes, json_string("rotation keys that were not unit quaternions were "
		                           "normalised, as glTF requires"));
	if (ex->shifted)
		json_array_append_new(
		    ex->notes,
		    json_string(
		        "Zouna tracks give their last key's value before their first key; "
		        "where a first key comes after 0, that value is keyed at 0 and just "
		        "before the first key, since glTF gives the first value there"));
	about = ex->entries == 1 ? json_deep_copy(json_array_get(ex->entry_list, 0))
	                         : json_pack("{s:O}", "entries", ex->entry_list);
	json_object_set_new(about, "exported_by", json_string("animdex " PACKAGE_VERSION));
	if (json_array_size(ex->notes))
		json_object_set(about, "assumed", ex->notes);
	json_object_set_new(json_object_get(ex->doc, "asset"), "extras",
	                    json_pack("{s:o}", "animdex", about));
}

/* The data URI's place in a .gltf's text while it is made: the buffer is written there as
 * it is sent. (Entries' names come before the buffers in the text: the last one is it.) */
#define BUFFER_PLACE "animdex-buffer-0-goes-here-5f0c2a"

/* The asset as it is sent: its text before the buffer (for a .glb with the chunk headers),
 * buffer 0 (held, or made again entry by entry), and its text after the buffer (a .gltf's). */
struct export_asset {
	uint8_t glb_header[20]; /* a .glb's header and JSON chunk header, before head */
	size_t glb_header_at;
	char *text; /* the asset's JSON text: head and tail are parts of it */
	const char *head, *tail;
	size_t head_length, tail_length, head_at, tail_at;
	uint64_t length;               /* of the whole asset */
	uint64_t bin_length;           /* of buffer 0, padded to 4 */
	uint64_t bin_at;               /* buffer 0's bytes given so far */
	int base64;                    /* buffer 0 goes out as base64 (a .gltf's data URI) */
	struct buf held;               /* buffer 0 when it was held */
	int made_again;                /* ... or made again, from the catalogue, as it is sent */
	struct export_recipe *recipes; /* then: each accessor's, in buffer order */
	size_t recipe_count, next;
	struct exporter *scratch; /* for the conversions' options (its notes are not kept) */
	/* the track being sent: its keys as the asset has them */
	int64_t track_entry;
	unsigned track_n;
	float *times, *values;
	size_t key_count, values_bytes;
	const void *piece; /* the accessor being sent: its bytes, and how many are given */
	size_t piece_length, piece_at;
	char *encoded; /* base64: text made, not given yet */
	size_t encoded_length, encoded_at;
};

void export_asset_free(struct export_asset *a)
{
	if (!a)
		return;
	free(a->text);
	buf_cleanup(&a->held);
	free(a->recipes);
	exporter_free(a->scratch);
	free(a->times);
	free(a->values);
	free(a->encoded);
	free(a);
}

uint64_t export_asset_length(const struct export_asset *a)
{
	return a->length;
}

size_t export_asset_memory(const struct export_asset *a)
{
	return a->head_length + a->tail_length + 8 + a->held.cap +
	       a->recipe_count * sizeof(*a->recipes);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
	p[3] = (uint8_t)(v >> 24);
}

/* A .glb: the 12-byte header and the JSON chunk's header, then the text padded with spaces
 * and the BIN chunk's header (appended to the text), then the buffer. */
static int glb_parts(struct export_asset *a, char *text, size_t text_length)
{
	size_t json_length = (text_length + 3) & ~(size_t)3;
	char *grown;

	a->head_length = json_length + (a->bin_length ? 8 : 0);
	a->length = 20 + a->head_length + a->bin_length;
	if (a->length > UINT32_MAX || !(grown = realloc(text, json_length + 8)))
		return -1;
	a->text = grown;
	a->head = grown;
	memset(grown + text_length, ' ', json_length - text_length);
	if (a->bin_length) {
		put32((uint8_t *)grown + json_length, (uint32_t)a->bin_length);
		put32((uint8_t *)grown + json_length + 4, GLB_CHUNK_BIN);
	}
	memcpy(a->glb_header, "glTF", 4);
	put32(a->glb_header + 4, 2);
	put32(a->glb_header + 8, (uint32_t)a->length);
	put32(a->glb_header + 12, (uint32_t)json_length);
	put32(a->glb_header + 16, GLB_CHUNK_JSON);
	return 0;
}

/* A .gltf's text around its data URI: the buffer, in base64, goes between. */
static int gltf_parts(struct export_asset *a, char *text, size_t text_length)
{
	const char *place = text + text_length;

	a->text = text;
	a->glb_header_at = sizeof(a->glb_header); /* none */
	if (a->bin_length) {
		place = NULL;
		for (const char *p = text; (p = strstr(p, BUFFER_PLACE)) != NULL; p++)
			place = p;
		if (!place)
			return -1;
	}
	a->head = text;
	a->head_length = (size_t)(place - text);
	a->tail_length = text_length - a->head_length - (a->bin_length ? strlen(BUFFER_PLACE) : 0);
	a->tail = text + text_length - a->tail_length;
	a->base64 = 1;
	a->length = a->head_length + 4 * ((a->bin_length + 2) / 3) + a->tail_length;
	return 0;
}

struct export_asset *exporter_finish(struct exporter *ex, json_t **summary, struct error *err)
{
	struct export_asset *a = calloc(1, sizeof(*a));
	char *text = NULL;
	size_t text_length = 0;

	*summary = NULL;
	if (!a) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	describe_asset(ex);
	if (put_bin(ex, NULL, 0, 1) < 0) { /* the buffer ends on a multiple of 4 */
		too_large(ex, err);
		goto fail;
	}
	a->bin_length = ex->bin_length;
	if (ex->bin_length) {
		json_t *buffer = json_pack("{s:I}", "byteLength", (json_int_t)ex->bin_length);
		if (!ex->opt.glb)
			json_object_set_new(
			    buffer, "uri",
			    json_string("data:application/octet-stream;base64," BUFFER_PLACE));
		json_object_set_new(ex->doc, "buffers", json_pack("[o]", buffer));
	}
	drop_if_empty(ex->doc, "animations");
	drop_if_empty(ex->doc, "accessors");
	drop_if_empty(ex->doc, "bufferViews");
	drop_if_empty(ex->doc, "meshes");
	drop_if_empty(ex->doc, "nodes");
	if (!json_object_get(ex->doc, "nodes")) {
		json_object_del(ex->doc, "scenes");
		json_object_del(ex->doc, "scene");
	}
	text = render_json_spliced(ex->doc, &ex->kept, &text_length);
	for (size_t i = 0; i < ex->kept.count; i++) { /* in the text now */
		free((char *)ex->kept.items[i].text);
		ex->kept.items[i].text = NULL;
	}
	if (!text || (ex->opt.glb ? glb_parts(a, text, text_length)
	                          : gltf_parts(a, text, text_length)) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	text = NULL; /* the asset's */
	if (ex->holding) {
		a->held = ex->bin; /* taken over */
		buf_init(&ex->bin, 0);
	} else if (a->bin_length && !ex->opt.plan_only) {
		a->made_again = 1;
		a->recipes = ex->recipes; /* taken over */
		a->recipe_count = ex->recipe_count;
		ex->recipes = NULL;
		ex->recipe_count = ex->recipe_cap = 0;
		a->scratch = exporter_create(&ex->opt);
		if (!a->scratch) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			goto fail;
		}
	}
	*summary = json_pack("{s:I, s:I, s:I, s:I, s:O, s:O}", "entries", (json_int_t)ex->entries,
	                     "animations", (json_int_t)ex->animations, "nodes",
	                     (json_int_t)ex->node_count, "channels", (json_int_t)ex->channels,
	                     "in_extras", ex->summary_extras, "notes", ex->notes);
	return a;
fail:
	if (text != a->text) /* not yet the asset's (a .glb's realloc failed: still ours) */
		free(text);
	export_asset_free(a);
	return NULL;
}

/* The bytes of accessor r made again: a track read again and converted as the first time
 * (kept while the next accessor is the same track's values), or a morph mesh's triangle. */
static int make_piece(struct export_asset *a, const struct export_recipe *r, struct catalog *cat,
                      struct error *err)
{
	static const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	static const float still[9] = {0};
	struct catalog_track t;
	int made;

	if (r->part == PART_TRIANGLE || r->part == PART_STILL) {
		a->piece = r->part == PART_TRIANGLE ? (const void *)triangle : (const void *)still;
	} else {
		if (!a->times || a->track_entry != r->entry || a->track_n != r->track ||
		    r->part == PART_TIMES) {
			free(a->times);
			free(a->values);
			a->times = a->values = NULL;
			if (catalog_read_track(cat, r->entry, r->track, &t, err) < 0)
				return -1;
			made = r->euler
			           ? bake_euler(a->scratch, &t.sampler, r->entry, r->track,
			                        &a->times, &a->values, &a->key_count)
			           : gltf_keys(a->scratch, &t.sampler, (enum channel_path)r->path,
			                       &a->times, &a->values, &a->key_count);
			a->values_bytes = a->key_count * sizeof(float) *
			                  (r->euler ? 4
			                            : sampler_components(&t.sampler) *
			                                  (made == INTERP_CUBIC_SPLINE ? 3 : 1));
			catalog_track_cleanup(&t);
			if (made < 0) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				return -1;
			}
			a->track_entry = r->entry;
			a->track_n = r->track;
		}
		if (r->part == PART_TIMES ? r->bytes != a->key_count * sizeof(float)
		                          : r->bytes > a->values_bytes) {
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "export: track %u of entry %" PRId64
			          " changed while the asset was "
			          "sent",
			          r->track, r->entry);
			return -1;
		}
		a->piece = r->part == PART_TIMES ? (const void *)a->times : (const void *)a->values;
	}
	a->piece_length = r->bytes;
	a->piece_at = 0;
	return 0;
}

/* Up to `room` bytes of buffer 0 from where the asset is: the count, 0 at its end. Made
 * again, each accessor's bytes follow its padding; a track that no longer gives the bytes it
 * gave (changed or deleted meanwhile) fails the read. */
static long read_buffer(struct export_asset *a, struct catalog *cat, uint8_t *out, size_t room,
                        struct error *err)
{
	size_t n = 0;

	if (!a->made_again && !a->held.data && a->bin_length) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "export: a planned asset has no bytes");
		return -1;
	}
	while (n < room && a->bin_at < a->bin_length) {
		size_t take;
		if (!a->made_again) {
			take = (size_t)(a->bin_length - a->bin_at);
			take = take < room - n ? take : room - n;
			memcpy(out + n, a->held.data + a->bin_at, take);
		} else if (a->piece && a->piece_at < a->piece_length) {
			take = a->piece_length - a->piece_at;
			take = take < room - n ? take : room - n;
			memcpy(out + n, (const uint8_t *)a->piece + a->piece_at, take);
			a->piece_at += take;
		} else {
			/* zeros up to the next accessor, or to the buffer's end */
			uint64_t upto =
			    a->next < a->recipe_count ? a->recipes[a->next].offset : a->bin_length;
			if (a->bin_at < upto) {
				take = (size_t)(upto - a->bin_at);
				take = take < room - n ? take : room - n;
				memset(out + n, 0, take);
			} else if (a->next < a->recipe_count) {
				if (make_piece(a, &a->recipes[a->next++], cat, err) < 0)
					return -1;
				continue;
			} else {
				break;
			}
		}
		n += take;
		a->bin_at += take;
	}
	return (long)n;
}

/* The next base64 text of buffer 0, in runs of whole groups of three bytes. */
static int encode_next(struct export_asset *a, struct catalog *cat, struct error *err)
{
	uint8_t raw[48 * 1024];
	long got = read_buffer(a, cat, raw, sizeof(raw), err);

	free(a->encoded);
	a->encoded = NULL;
	a->encoded_length = a->encoded_at = 0;
	if (got < 0)
		return -1;
	if (got > 0 && !(a->encoded = base64_encode(raw, (size_t)got, &a->encoded_length))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* The next bytes of one of the asset's parts (from[*at...length)) into out; how many. */
static size_t give(const void *from, size_t length, size_t *at, char *out, size_t room)
{
	size_t take = length - *at < room ? length - *at : room;

	memcpy(out, (const char *)from + *at, take);
	*at += take;
	return take;
}

long export_asset_read(struct export_asset *a, struct catalog *cat, char *out, size_t room,
                       struct error *err)
{
	size_t n = 0;

	while (n < room) {
		size_t take;
		if (a->glb_header_at < sizeof(a->glb_header)) {
			take = give(a->glb_header, sizeof(a->glb_header), &a->glb_header_at,
			            out + n, room - n);
		} else if (a->head_at < a->head_length) {
			take = give(a->head, a->head_length, &a->head_at, out + n, room - n);
		} else if (a->bin_at < a->bin_length && !a->base64) {
			long got = read_buffer(a, cat, (uint8_t *)out + n, room - n, err);
			if (got < 0)
				return -1;
			take = (size_t)got;
		} else if (a->base64 &&
		           (a->encoded_at < a->encoded_length || a->bin_at < a->bin_length)) {
			if (a->encoded_at == a->encoded_length) {
				if (encode_next(a, cat, err) < 0)
					return -1;
				continue;
			}
			take =
			    give(a->encoded, a->encoded_length, &a->encoded_at, out + n, room - n);
		} else if (a->tail_at < a->tail_length) {
			take = give(a->tail, a->tail_length, &a->tail_at, out + n, room - n);
		} else {
			break;
		}
		n += take;
	}
	return (long)n;
}

int export_parse_bake_rate(const char *text, double *rate)
{
	size_t whole = strspn(text, "0123456789"), fraction = 0;
	double v;

	/* digits, and a decimal point with digits after it: no sign, space, hex or exponent */
	if (whole == 0)
		return -1;
	if (text[whole] == '.') {
		fraction = strspn(text + whole + 1, "0123456789");
		if (fraction == 0)
			return -1;
		fraction++;
	}
	if (text[whole + fraction] != '\0' || whole + fraction > 32)
		return -1;
	v = strtod(text, NULL);
	if (!(v > 0) || v > 1000)
		return -1;
	*rate = v;
	return 0;
}

void export_file_name(const char *name, int glb, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = name ? name : ""; *p && n + 6 < size && n < 120; p++) {
		unsigned char c = (unsigned char)*p;
		out[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                   (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
		               ? (char)c
		               : '_';
	}
	if (n == 0)
		n = (size_t)snprintf(out, size, "animdex-export");
	snprintf(out + n, size - n, "%s", glb ? ".glb" : ".gltf");
}

/* Entries read ahead by a second thread, handed over in order (handoff.h). */
#define READ_AHEAD       64
#define READ_AHEAD_BYTES (64u * 1024 * 1024) /* keys read ahead, at most (but always one) */
#define READ_RUN         1000                /* entries read in one read transaction */
#define GIVE_BACK_MAX    (256u * 1024)       /* entries larger are freed where they are */
struct read_ahead {
	const char *db;
	const int64_t *ids;
	size_t count;
	struct handoff queue;
	struct error err; /* why the reader stopped early, once the queue is closed */
};

static void export_entry_free(void *e)
{
	if (e)
		export_entry_cleanup(e);
	free(e);
}

static void *read_ahead_main(void *arg)
{
	struct read_ahead *ra = arg;
	struct catalog *cat = catalog_open_read_only(ra->db, &ra->err);

	for (size_t i = 0; cat && i < ra->count; i++) {
		void *done[HANDOFF_SLOTS];
		size_t n = handoff_take_back(&ra->queue, done);
		struct export_entry *e;
		for (size_t k = 0; k < n; k++)
			export_entry_free(done[k]);
		/* READ_RUN entries a read transaction: one start instead of three */
		if (i % READ_RUN == 0) {
			catalog_rollback(cat);
			if (catalog_begin_read(cat, &ra->err) < 0)
				break;
		}
		e = malloc(sizeof(*e));
		if (!e) {
			error_set(&ra->err, ERROR_INTERNAL, NULL, -1, "out of memory");
			break;
		}
		if (export_entry_read(cat, ra->ids[i], 0, e, &ra->err) < 0) {
			free(e);
			break;
		}
		if (handoff_put(&ra->queue, e, e->bytes) < 0) { /* the writer gave up */
			export_entry_free(e);
			break;
		}
	}
	if (cat)
		catalog_rollback(cat); /* it only read */
	catalog_close(cat);
	handoff_close(&ra->queue);
	return NULL;
}

int exporter_add_all(struct exporter *ex, const char *db, struct catalog *cat, const int64_t *ids,
                     size_t count, void (*progress)(size_t done, size_t count), struct error *err)
{
	struct read_ahead ra = {.db = db, .ids = ids, .count = count};
	struct export_entry *e;
	void *done[HANDOFF_SLOTS];
	pthread_t reader;
	size_t added = 0, n;
	int rc = 0;

	error_init(&ra.err);
	handoff_init(&ra.queue, READ_AHEAD, READ_AHEAD_BYTES);
	if (count < 2 || pthread_create(&reader, NULL, read_ahead_main, &ra) != 0) {
		handoff_destroy(&ra.queue);
		for (size_t i = 0; i < count; i++) {
			if (exporter_add(ex, cat, ids[i], err) < 0)
				return -1;
			if (progress)
				progress(i + 1, count);
		}
		return 0;
	}
	while (rc == 0 && added < count) {
		if (!(e = handoff_take(&ra.queue))) { /* the reader could go no further */
			*err = ra.err;
			rc = -1;
			break;
		}
		rc = exporter_add_entry(ex, e, err);
		/* back to the reader to be freed; a large one is freed here */
		if (e->bytes > GIVE_BACK_MAX || handoff_give_back(&ra.queue, e) < 0)
			export_entry_free(e);
		added++;
		if (rc == 0 && progress)
			progress(added, count);
	}
	handoff_cancel(&ra.queue);
	pthread_join(reader, NULL);
	while ((e = handoff_take(&ra.queue)))
		export_entry_free(e);
	n = handoff_take_back(&ra.queue, done);
	for (size_t k = 0; k < n; k++)
		export_entry_free(done[k]);
	handoff_destroy(&ra.queue);
	return rc;
}
