/* export.c: catalogued entries as one glTF 2.0 asset (export.h).
 *
 * The asset is built as a jansson document plus one binary buffer: every key array becomes a
 * buffer view and a float accessor (times with their min and max, as glTF requires). A .glb
 * is the 12-byte header, the JSON chunk (padded with spaces) and the BIN chunk (padded with
 * zeros); a .gltf carries the buffer as a base64 data URI.
 *
 * The mapping (doc/reference.md, "Getting animations out"):
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
 *
 * Here: the exporter, entries into animations, channels, nodes and accessors; the rest is in
 * the files export_internal.h lists.
 */
#include "answers/export.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/entry_json.h"
#include "base/buf.h"
#include "base/utf8.h"
#include "core/model.h"
#include "render/render.h"
#include "export_internal.h"

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
	ex->doc = json_pack("{s:{s:s, s:s}, s:i, s:[{s:[]}], s:[], s:[], s:[], s:[]}", "asset",
	                    "version", "2.0", "generator", "animdex " PACKAGE_VERSION, "scene", 0,
	                    "scenes", "nodes", "nodes", "animations", "meshes", "skins");
	buf_init(&ex->accessors, (size_t)1 << 31);
	buf_init(&ex->views, (size_t)1 << 31);
	buf_putc(&ex->accessors, '[');
	buf_putc(&ex->views, '[');
	ex->summary_extras = json_array();
	ex->notes = json_array();
	ex->entry_list = json_array();
	ex->node_names = json_object();
	ex->node_of = json_object();
	ex->animation_names = json_object();
	ex->unrigged = json_array();
	if (!ex->opt.hold_bytes)
		ex->opt.hold_bytes = EXPORT_DEFAULT_HOLD_BYTES;
	buf_init(&ex->bin, ex->opt.hold_bytes);
	ex->holding = !ex->opt.plan_only;
	if (!ex->doc || !ex->summary_extras || !ex->notes || !ex->entry_list || !ex->node_names ||
	    !ex->node_of || !ex->animation_names || !ex->unrigged) {
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
	json_decref(ex->unrigged);
	if (ex->entry_source.free)
		ex->entry_source.free(ex->entry_source.ctx);
	export_rigs_free(ex);
	buf_cleanup(&ex->bin);
	buf_cleanup(&ex->accessors);
	buf_cleanup(&ex->views);
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

int export_too_large(struct exporter *ex, struct error *err)
{
	error_set(err, ERROR_TOO_LARGE, NULL, -1,
	          "the export would hold more than %zu bytes of keys, the most one asset may; "
	          "export fewer entries",
	          ex->opt.max_bytes);
	return -1;
}

/* Buffer 0's next bytes: zeros up to a multiple of 4 (pad), then `data`. They are kept while
 * the buffer fits hold_bytes (past that, nothing more is kept: the buffer is made again from
 * the recipes as it is sent), or only counted (plan_only). An accessor of more than a
 * quarter of hold_bytes stops the keeping at once: such an asset is made again as it is sent,
 * and a copy of its keys beside the keys themselves would double what the export holds.
 * -1 past max_bytes. */
int export_put_bin(struct exporter *ex, const void *data, size_t bytes, int pad)
{
	static const char zeros[4];
	size_t padding = pad ? (size_t)((4 - ex->bin_length % 4) % 4) : 0;

	if (ex->bin_length + padding + bytes > ex->opt.max_bytes)
		return -1;
	ex->bin_length += padding + bytes;
	if (ex->holding && (bytes > ex->opt.hold_bytes / 4 ||
	                    (padding && buf_append(&ex->bin, zeros, padding) < 0) ||
	                    (bytes && buf_append(&ex->bin, data, bytes) < 0))) {
		ex->holding = 0; /* past hold_bytes: made again when sent */
		buf_cleanup(&ex->bin);
	}
	return 0;
}

/* One item of the accessors' or views' text (item freed); its index, or -1. */
static int append_item(struct buf *list, size_t *count, json_t *item)
{
	int failed =
	    !item || (*count && buf_putc(list, ',') < 0) || render_json_append(list, item, 0) < 0;

	json_decref(item);
	return failed ? -1 : (int)(*count)++;
}

/* `bytes` of data (NULL: planned) as buffer 0's next bytes (on a multiple of 4) and a buffer
 * view over them, with ex->source's recipe to make them again; the view's index, or -1 past
 * max_bytes. */
static int add_view(struct exporter *ex, const void *data, size_t bytes, int target)
{
	json_t *view;
	uint64_t offset;

	if (export_put_bin(ex, NULL, 0, 1) < 0)
		return -1;
	offset = ex->bin_length;
	if (export_put_bin(ex, data, bytes, 0) < 0)
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
	if (target && view)
		json_object_set_new(view, "target", json_integer(target));
	return append_item(&ex->views, &ex->view_count, view);
}

int export_add_raw_accessor(struct exporter *ex, const void *data, size_t bytes, size_t count,
                            int component_type)
{
	int view = add_view(ex, data, bytes, 0);

	if (view < 0)
		return -1;
	return append_item(&ex->accessors, &ex->accessor_count,
	                   json_pack("{s:i, s:i, s:I, s:s}", "bufferView", view, "componentType",
	                             component_type, "count", (json_int_t)count, "type", "SCALAR"));
}

/* A buffer view and a float accessor over `count` elements of `type`; -1 past max_bytes. */
int export_add_accessor(struct exporter *ex, const float *data, size_t count, const char *type,
                        size_t components, int bounds, int target)
{
	size_t bytes = count * components * sizeof(float);
	json_t *acc;
	int view = add_view(ex, data, bytes, target);

	if (view < 0)
		return -1;
	acc = json_pack("{s:i, s:i, s:I, s:s}", "bufferView", view, "componentType", GLTF_FLOAT,
	                "count", (json_int_t)count, "type", type);
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
	return append_item(&ex->accessors, &ex->accessor_count, acc);
}

struct export_node *export_node_add(struct exporter *ex, const char *key, const char *name,
                                    int index)
{
	struct export_node *n;
	char base[256], unique[256];
	json_t *taken;
	json_int_t k;

	/* a name taken already goes on from the suffix its last copy took: 100,000 nodes of one
	 * name cost 100,000 lookups, not 5 billion */
	snprintf(base, sizeof(base), "%s", name);
	snprintf(unique, sizeof(unique), "%s", base);
	if ((taken = json_object_get(ex->node_names, base)) != NULL) {
		k = json_integer_value(taken);
		do
			snprintf(unique, sizeof(unique), "%.200s #%lld", name, (long long)k++);
		while (json_object_get(ex->node_names, unique));
		json_object_set_new(ex->node_names, base, json_integer(k));
	}
	if (ex->node_count == ex->node_cap) {
		size_t cap = ex->node_cap ? 2 * ex->node_cap : 64;
		struct export_node *grown = realloc(ex->nodes, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		ex->nodes = grown;
		ex->node_cap = cap;
	}
	n = &ex->nodes[ex->node_count];
	n->object = 0;
	n->name = strdup(unique);
	n->weights = NODE_UNSET_WEIGHTS;
	n->index = index;
	if (!n->name)
		return NULL;
	json_object_set_new(ex->node_names, unique, json_integer(2));
	json_object_set_new(ex->node_of, key, json_integer((json_int_t)ex->node_count));
	ex->node_count++;
	return n;
}

/* The node of an object of an entry without a rig, made on first use at the scene's root,
 * named after its handle's known name (POST /api/names), else its target (or, unnamed, after
 * its object: "node 2"), unique in the asset; a handle is kept in the node's extras. */
static struct export_node *node_for(struct exporter *ex, const struct catalog_target *track)
{
	const uint64_t object = track->target.object;
	const char *name = track->handle_name;
	struct export_node *n;
	char key[24], fallback[32], handle[11];
	json_t *known, *node;

	snprintf(key, sizeof(key), "%" PRIu64, object);
	known = json_object_get(ex->node_of, key);
	if (known)
		return &ex->nodes[json_integer_value(known)];
	if (!name || !*name)
		name = track->target.name;
	snprintf(fallback, sizeof(fallback), "node %" PRIu64, object);
	n = export_node_add(ex, key, name && *name ? name : fallback,
	                    (int)json_array_size(json_object_get(ex->doc, "nodes")));
	if (!n)
		return NULL;
	n->object = object;
	node = json_pack("{s:s}", "name", n->name);
	if (track->target.has_handle) {
		render_handle(track->target.handle, handle);
		json_object_set_new(node, "extras",
		                    json_pack("{s:{s:s}}", "animdex", "handle", handle));
	}
	json_array_append_new(json_object_get(ex->doc, "nodes"), node);
	json_array_append_new(
	    json_object_get(json_array_get(json_object_get(ex->doc, "scenes"), 0), "nodes"),
	    json_integer(n->index));
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
	position = export_add_accessor(ex, triangle, 3, "VEC3", 3, 1, 34962);
	ex->source.part = PART_STILL;

	if (position < 0) {
		json_decref(list);
		return -1;
	}
	for (unsigned t = 0; t < targets; t++) {
		int moved = export_add_accessor(ex, still, 3, "VEC3", 3, 1, 34962);
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

/* An animation name no other animation of the asset has (Blender names actions by them). */
static void unique_animation_name(struct exporter *ex, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s", name);
	for (int k = 2; json_object_get(ex->animation_names, out); k++)
		snprintf(out, size, "%.200s #%d", name, k);
	json_object_set_new(ex->animation_names, out, json_true());
}

/* Which glTF path a track animates, or PATH_NONE with the reason it cannot. */
static enum channel_path path_of(const struct catalog_target *track, const char **why)
{
	const char *schema = track->target.schema;
	uint64_t property = track->target.property;

	if (track->events) {
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
	if (schema && strcmp(schema, SCHEMA_MOCAP) == 0) {
		if (property == MOCAP_POSITION)
			return PATH_TRANSLATION;
		if (property >= MOCAP_ROTATION_XYZ && property <= MOCAP_ROTATION_ZYX)
			return PATH_ROTATION; /* baked */
		*why = "a motion-capture property animdex does not know";
		return PATH_NONE;
	}
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

void export_entry_cleanup(struct export_entry *e)
{
	for (size_t i = 0; i < e->track_count; i++)
		catalog_track_cleanup(&e->tracks[i]);
	free(e->tracks);
	catalog_entry_cleanup(&e->entry);
	rig_cleanup(&e->rig);
	if (e->owner_free)
		e->owner_free(e->owner);
	memset(e, 0, sizeof(*e));
}

int export_entry_read_for(const struct export_source *source, struct catalog *cat, int64_t id,
                          int lazy, struct export_entry *out, struct error *err)
{
	if (!source->read)
		return export_entry_read(cat, id, lazy, out, err);
	memset(out, 0, sizeof(*out));
	if (source->read(source->ctx, cat, id, out, err) == 0)
		return 0;
	export_entry_cleanup(out);
	return -1;
}

void exporter_set_source(struct exporter *ex, const struct export_source *source)
{
	if (ex->entry_source.free)
		ex->entry_source.free(ex->entry_source.ctx);
	ex->entry_source = *source;
}

/* Reads entry id from cat: nothing of the exporter, so any thread with its own catalogue.
 * lazy: only its summary; its tracks are read one at a time as they are added (an export's
 * memory is then one track's keys, not the entry's). */
int export_entry_read(struct catalog *cat, int64_t id, int lazy, struct export_entry *out,
                      struct error *err)
{
	size_t n;

	memset(out, 0, sizeof(*out));
	out->id = id;
	rig_init(&out->rig);
	if (catalog_entry_read(cat, id, CATALOG_ENTRY_TRACKS, &out->entry, err) < 0 ||
	    catalog_read_rig(cat, id, &out->rig, err) < 0) {
		export_entry_cleanup(out);
		return -1;
	}
	n = out->entry.track_count;
	out->tracks = calloc(n + 1, sizeof(*out->tracks));
	if (!out->tracks) {
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
	return 0;
}

/* A lazy entry's track i read, the one before let go. */
static int read_lazily(struct export_entry *e, size_t i, struct error *err)
{
	if (i > 0)
		catalog_track_cleanup(&e->tracks[i - 1]);
	return catalog_read_track(e->lazy, e->id, (unsigned)i, &e->tracks[i], err);
}

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
	if (export_entry_read_for(&ex->entry_source, cat, id, 1, &e, err) <
	    0) /* lazy: a track at a time */
		return -1;
	rc = exporter_add_entry(ex, &e, err);
	export_entry_cleanup(&e);
	return rc;
}

/* The entry as the asset names it: {"entry", "class", "family", "handle", "filename"} in an
 * animation's or a node's extras, {"entry", "class", "handle", "filename", "name"} in the
 * asset's list of entries. */
static json_t *entry_about(const struct catalog_entry *e, int listed)
{
	json_t *o = json_object();
	char handle[11];

	render_handle(e->crc32, handle);
	json_object_set_new_nocheck(o, "entry", json_integer(e->id));
	json_object_set_new_nocheck(o, "class", entry_json_text(e->class_name));
	if (!listed)
		json_object_set_new_nocheck(o, "family", entry_json_text(e->family));
	json_object_set_new_nocheck(o, "handle", json_string(handle));
	json_object_set_new_nocheck(o, "filename", entry_json_text(e->filename));
	if (listed)
		json_object_set_new_nocheck(o, "name", entry_json_text(e->name));
	return o;
}

/* entry_about(e, 0)'s members written as render_json_append writes them, with the separator
 * before each (a text that is not UTF-8 left out, as jansson leaves it out of the object). */
static void append_about(struct buf *b, const struct catalog_entry *e, char *sep)
{
	const char *const names[4] = {"class", "family", "handle", "filename"};
	char handle[11];
	const char *values[4] = {e->class_name, e->family, handle, e->filename};

	render_handle(e->crc32, handle);
	buf_printf(b, "%c\"entry\":%" PRId64, *sep, e->id);
	*sep = ',';
	for (int i = 0; i < 4; i++) {
		if (values[i] && !utf8_valid(values[i], strlen(values[i])))
			continue;
		buf_printf(b, ",\"%s\":", names[i]);
		render_string_append(b, values[i]);
	}
}

/* The node of an entry glTF animates nothing of: its name, and in its extras the entry's
 * fields, its kept tracks (the splices from first_kept on, in kept's order, or values) and a
 * note; written as text at once (nothing changes it later) and spliced into the nodes. The
 * kept tracks' own splices are folded into it. */
static int add_entry_node(struct exporter *ex, const struct catalog_entry *entry, const char *name,
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
	append_about(&b, entry, &sep);
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
	if (b.overflow || (sp->count == sp->cap && export_grow_splices(sp) < 0) ||
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

	interp =
	    euler
	        ? (export_bake_euler(ex, &t->sampler, euler, id, t->n, &times, &values, &count) < 0
	               ? -1
	               : INTERP_LINEAR)
	        : export_gltf_keys(ex, &t->sampler, path, &times, &values, &count);
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
	in = export_add_accessor(ex, times, count, "SCALAR", 1, 1, 0);
	ex->source.part = PART_VALUES;
	out = in < 0 ? -1
	             : export_add_accessor(ex, values,
	                                   count * (interp == INTERP_CUBIC_SPLINE ? 3 : 1) *
	                                       (path == PATH_WEIGHTS ? m : 1),
	                                   path == PATH_WEIGHTS ? "SCALAR"
	                                   : m == 4             ? "VEC4"
	                                                        : "VEC3",
	                                   path == PATH_WEIGHTS ? 1 : m, 0, 0);
	free(times);
	free(values);
	if (out < 0)
		return export_too_large(ex, err);
	add_channel(ea, in, out, interp, node, path);
	*node_paths(ea, node->index) |= (uint8_t)(1u << path);
	ex->channels++;
	return 0;
}

/* Track t kept in the entry's extras with the reason (export_keep_in_extras); t let go. -1
 * with err set. */
static int keep(struct exporter *ex, struct entry_animation *ea, int64_t id,
                const struct catalog_target *track, struct catalog_track *t, const char *reason,
                struct error *err)
{
	int rc = export_keep_in_extras(ex, ea->kept, id, track, &t->sampler, reason);

	catalog_track_cleanup(t);
	return rc < 0 ? export_too_large(ex, err) : 0;
}

/* Track i of the entry: a channel on its node, or kept in extras with the reason glTF cannot
 * animate it. -1 with err set. */
static int export_track(struct exporter *ex, struct export_entry *read, size_t i,
                        const struct catalog_target *track, struct entry_animation *ea,
                        const struct export_rig *er, struct error *err)
{
	const int64_t id = read->id;
	const char *why = NULL;
	enum channel_path path = path_of(track, &why);
	struct catalog_track t;
	struct export_node *node = NULL;
	uint8_t *paths;

	if (i >= read->track_count) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "catalogue: entry %" PRId64 " lists more tracks than it has", id);
		return -1;
	}
	if (path == PATH_NONE && read->lazy && ex->opt.plan_only) {
		/* planned from the track's row: its keys are not read */
		if (i > 0)
			catalog_track_cleanup(&read->tracks[i - 1]);
		return export_keep_in_extras(ex, ea->kept, id, track, NULL, why) < 0
		           ? export_too_large(ex, err)
		           : 0;
	}
	if (read->lazy && read_lazily(read, i, err) < 0)
		return -1;
	t = read->tracks[i];
	t.borrowed = 1; /* read's: cleaning t up leaves it */
	if (path == PATH_NONE || (why = export_times_unfit(&t.sampler)) != NULL)
		return keep(ex, ea, id, track, &t, why, err);
	if (er) {
		/* on a rig: its node, or, on another entry's (skeleton=), none, said in extras */
		int32_t k = export_rig_match(er, id, track, &why);
		if (k < 0 && ex->skeleton_id) {
			char reason[200];
			snprintf(reason, sizeof(reason),
			         "skeleton %" PRId64 " has no node for it: %s", ex->skeleton_id,
			         why);
			return keep(ex, ea, id, track, &t, reason, err);
		}
		node = k >= 0 ? &ex->nodes[er->slot[k]] : NULL;
	}
	if (!er || !node)
		node = node_for(ex, track);
	paths = node ? node_paths(ea, node->index) : NULL;
	if (!paths) {
		catalog_track_cleanup(&t);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (*paths & (1u << path))
		return keep(ex, ea, id, track, &t,
		            "its node's property is already animated by another track of this "
		            "entry, and glTF allows one channel per node and property",
		            err);
	if (path == PATH_WEIGHTS) {
		unsigned targets = t.sampler.array_size;
		if (node->weights == NODE_UNSET_WEIGHTS && give_morph_mesh(ex, node, targets) < 0) {
			catalog_track_cleanup(&t);
			return export_too_large(ex, err);
		}
		if (node->weights != targets)
			return keep(ex, ea, id, track, &t,
			            "its node already has a mesh with another number of morph "
			            "targets",
			            err);
	}
	{
		struct pose_target as_node = track->target;
		return add_track_channel(ex, ea, id, i, &t, node, path, pose_target_euler(&as_node),
		                         err);
	}
}

/* The animation anim (taken) into the asset as its text, a placeholder in the animations
 * (its kept tracks, the splices from first_kept on, written into it): a bulk export's
 * thousands of channels and samplers are text, not jansson values, from here on. */
static int animation_as_text(struct exporter *ex, json_t *anim, size_t first_kept)
{
	struct render_splices own = {ex->kept.items + first_kept, ex->kept.count - first_kept,
	                             ex->kept.count - first_kept};
	struct render_splices *sp = &ex->kept;
	json_t *placeholder = NULL;
	size_t length;
	char *text = anim ? render_json_spliced(anim, &own, &length) : NULL;

	json_decref(anim);
	for (size_t k = first_kept; k < sp->count; k++) /* in the animation's text now */
		free((char *)sp->items[k].text);
	sp->count = first_kept;
	if (text && length && text[length - 1] == '\n') /* the text's end, not the value's */
		text[--length] = '\0';
	if (!text || (sp->count == sp->cap && export_grow_splices(sp) < 0) ||
	    !(placeholder = json_string(""))) {
		free(text);
		json_decref(placeholder);
		return -1;
	}
	sp->items[sp->count].value = placeholder;
	sp->items[sp->count].text = text;
	sp->items[sp->count].length = length;
	sp->count++;
	return json_array_append_new(json_object_get(ex->doc, "animations"), placeholder);
}

/* The entry's animation in the asset, or, when glTF animates nothing of it, a node that
 * carries the entry and its tracks. -1 with err set. */
static int finish_entry(struct exporter *ex, const struct catalog_entry *entry,
                        struct entry_animation *ea, size_t first_kept, struct error *err)
{
	const int64_t id = entry->id;
	const char *name = entry->name;
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
	about = entry_about(entry, 0);
	if (json_array_size(ea->kept))
		json_object_set(about, "not_animated", ea->kept);
	unique_animation_name(ex, name ? name : fallback, unique, sizeof(unique));
	anim = json_pack("{s:s, s:O, s:O, s:{s:o}}", "name", unique, "channels", ea->channels,
	                 "samplers", ea->samplers, "extras", "animdex", about);
	if (animation_as_text(ex, anim, first_kept) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	ex->animations++;
	return 0;
}

/* Adds a read entry (which stays the caller's). */
int exporter_add_entry(struct exporter *ex, struct export_entry *read, struct error *err)
{
	struct entry_animation ea = {json_array(), json_array(), json_array(), NULL, 0};
	const struct export_rig *er = NULL;
	const size_t first_kept = ex->kept.count; /* this entry's kept tracks: the splices after */
	int rc = -1;

	if (ex->entries >= ex->opt.max_entries) {
		rc = too_many_entries(ex, err);
		goto done;
	}
	if (ex->skeleton_id) {
		er = &ex->rigs[ex->skeleton_rig];
	} else if (read->rig.count) {
		er = export_rig_add(ex, read->id, &read->rig, err);
		if (!er)
			goto done;
	} else {
		json_array_append_new(ex->unrigged, json_integer(read->id));
	}
	for (size_t i = 0; i < read->entry.track_count; i++)
		if (export_track(ex, read, i, &read->entry.tracks[i], &ea, er, err) < 0)
			goto done;
	if (finish_entry(ex, &read->entry, &ea, first_kept, err) < 0)
		goto done;
	ex->entries++;
	json_array_append_new(ex->entry_list, entry_about(&read->entry, 1));
	rc = 0;
done:
	free(ea.used);
	json_decref(ea.channels);
	json_decref(ea.samplers);
	json_decref(ea.kept);
	return rc;
}

void export_drop_if_empty(json_t *doc, const char *key)
{
	if (json_array_size(json_object_get(doc, key)) == 0)
		json_object_del(doc, key);
}

/* The asset's notes and the description of its entries, in the asset's extras. */
void export_describe_asset(struct exporter *ex)
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
	if (json_array_size(ex->unrigged))
		json_array_append_new(
		    ex->notes,
		    json_pack("s",
		              json_array_size(ex->unrigged) == 1
		                  ? "an entry has no rig of its own and no skeleton= was given: "
		                    "the nodes it animates are at the scene's root, without "
		                    "parents (the entries are listed in unrigged_entries)"
		                  : "some entries have no rig of their own and no skeleton= "
		                    "was given: the nodes they animate are at the scene's "
		                    "root, without parents (listed in unrigged_entries)"));
	about = ex->entries == 1 ? json_deep_copy(json_array_get(ex->entry_list, 0))
	                         : json_pack("{s:O}", "entries", ex->entry_list);
	json_object_set_new(about, "exported_by", json_string("animdex " PACKAGE_VERSION));
	if (ex->baked) /* so that native= knows the baking of a .glb brought back */
		json_object_set_new(about, "bake_rate", json_real(ex->opt.bake_rate));
	if (json_array_size(ex->unrigged))
		json_object_set(about, "unrigged_entries", ex->unrigged);
	if (ex->skeleton_id)
		json_object_set_new(about, "skeleton", json_integer(ex->skeleton_id));
	if (json_array_size(ex->notes))
		json_object_set(about, "assumed", ex->notes);
	json_object_set_new(json_object_get(ex->doc, "asset"), "extras",
	                    json_pack("{s:o}", "animdex", about));
}
