/* gltf_kept.c: the tracks animdex's export kept in extras, read back (doc/reference.md, the
 * export's "What glTF cannot animate"): an animation's extras.animdex.not_animated (a Zouna
 * file's messages, material, mesh and morph tracks), and the node an entry glTF animates
 * nothing of became (a bare keyframer, a Vehicle Animation), made an entry again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "gltf.h"

/* The tracks animdex's export kept in an animation's extras (what glTF cannot animate: a Zouna
 * file's messages, material, mesh and morph tracks), when the asset is animdex's: each item's
 * target, property, shape and two accessors (doc/formats.md 4). */
const json_t *gltf_kept_tracks(const struct gltf *g, const json_t *anim)
{
	if (!json_object_get(json_object_get(json_object_get(g->doc, "asset"), "extras"),
	                     "animdex"))
		return NULL;
	return json_object_get(json_object_get(json_object_get(anim, "extras"), "animdex"),
	                       "not_animated");
}

const json_t *gltf_entry_node_tracks(const struct gltf *g, const json_t *node)
{
	const json_t *kept = gltf_kept_tracks(g, node);

	return json_is_array(kept) ? kept : NULL;
}

static uint64_t u64_of(const json_t *j)
{
	return json_is_string(j) ? strtoull(json_string_value(j), NULL, 10)
	                         : (uint64_t)json_integer_value(j);
}

/* The component type a kept track's values are written in (the export's choice). */
static json_int_t kept_component(enum value_type type)
{
	switch (value_type_scalar(type)) {
	case SCALAR_FLOAT: return COMPONENT_FLOAT;
	case SCALAR_BOOL: return COMPONENT_UBYTE;
	default: return COMPONENT_UINT;
	}
}

/* Kept track k of the list at `where` (an animation's or an entry node's extras.animdex) into
 * res: its target (one per schema and object), sampler and channel, its values as stored. 0, 1
 * when the item is not one animdex reads (said on the entry), or -1 with the error set. Its
 * times are held to the model's rule, not glTF's: finite and in order, two keys at one time
 * allowed (two messages at one time), times before 0 too (the export kept the track in extras
 * for breaking glTF's rules). */
int gltf_read_kept(struct gltf *g, const json_t *item, const char *where, size_t k,
                   struct resource *res)
{
	const json_t *tj = json_object_get(item, "target");
	const char *schema = json_string_value(json_object_get(tj, "schema"));
	const char *tname = json_string_value(json_object_get(tj, "name"));
	const char *name = json_string_value(json_object_get(item, "name"));
	enum value_type type =
	    value_type_from_name(json_string_value(json_object_get(item, "type")));
	json_int_t array_size = gltf_int(item, "array_size", 1), in = gltf_int(item, "input", -1);
	json_int_t outi = gltf_int(item, "output", -1);
	uint64_t object = u64_of(json_object_get(tj, "object"));
	uint64_t property = u64_of(json_object_get(item, "property"));
	struct accessor ia, oa;
	enum interpolation interp;
	struct sampler *s;
	struct channel *c;
	char ptr[96], note[200];
	size_t t, value_bytes;
	float *times;
	uint8_t *values;

	snprintf(ptr, sizeof(ptr), "%s/not_animated/%zu", where, k);
	if (!schema || strlen(schema) != SCHEMA_TEXT_SIZE - 1 || type == VALUE_UNKNOWN ||
	    interpolation_from_name(json_string_value(json_object_get(item, "interpolation")),
	                            &interp) < 0 ||
	    property == 0 || array_size < 1 || array_size > 64 || object == UINT64_MAX) {
		snprintf(note, sizeof(note), "%s: not a track animdex's export kept; left out",
		         ptr);
		return resource_assume(res, note) < 0 ? -1 : 1;
	}
	if (gltf_accessor_info(g, in, ptr, &ia) < 0 || gltf_accessor_info(g, outi, ptr, &oa) < 0)
		return -1;
	if (ia.count > ((size_t)1 << 26) || oa.count > ((size_t)1 << 28))
		return gltf_fail(g, "ACCESSOR_TOO_LONG", ptr,
		                 "more keys than animdex reads in a track");
	value_bytes = (size_t)ia.count * value_type_component_size(type) *
	              value_type_components(type) * (size_t)array_size *
	              (interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	if (ia.count == 0 || ia.component_type != COMPONENT_FLOAT || ia.components != 1 ||
	    oa.component_type != kept_component(type) ||
	    oa.count * oa.components * value_type_component_size(type) != value_bytes)
		return gltf_fail(g, "INVALID_VALUE", ptr,
		                 "its accessors do not hold %zu keys of %s[%lld]", ia.count,
		                 value_type_name(type), (long long)array_size);
	times = gltf_accessor_read(g, in, ptr, &ia);
	if (!times)
		return -1;
	for (size_t i = 0; i < ia.count; i++)
		if (!isfinite(times[i]) || (i > 0 && times[i] < times[i - 1])) {
			free(times);
			return gltf_fail(
			    g, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", ptr,
			    "time %zu (%g) is not finite or is before the one before it", i,
			    (double)times[i]);
		}
	values = gltf_accessor_raw(g, outi, ptr, &oa);
	if (!values) {
		free(times);
		return -1;
	}
	for (t = 0; t < res->clip.target_count; t++)
		if (res->clip.targets[t].object == object &&
		    strcmp(res->clip.targets[t].schema, schema) == 0)
			break;
	if (t == res->clip.target_count) {
		struct target *tg = &res->clip.targets[res->clip.target_count++];
		snprintf(tg->schema, sizeof(tg->schema), "%s", schema);
		tg->object = object;
		tg->name = tname ? strdup(tname) : NULL;
	}
	s = &res->clip.samplers[res->clip.sampler_count];
	*s = (struct sampler){type,
	                      (uint32_t)array_size,
	                      interp,
	                      SEMANTIC_COMPONENT_WISE,
	                      (uint32_t)ia.count,
	                      times,
	                      values,
	                      value_bytes,
	                      0};
	c = &res->clip.channels[res->clip.channel_count];
	*c = (struct channel){(uint32_t)t, property, 0, (uint32_t)res->clip.sampler_count++};
	res->track_names[res->clip.channel_count] = name ? strdup(name) : NULL;
	if (res->extras) {
		struct track_extra *x = &res->extras[res->clip.channel_count];
		/* events are a Zouna message track's keys: UINT[5] STEP, nothing else */
		x->events = json_object_get(item, "event_words") != NULL && type == VALUE_UINT &&
		            array_size == EVENT_WORDS && interp == INTERP_STEP;
		x->has_handle = strcmp(schema, SCHEMA_ZOUNA) == 0 && object <= UINT32_MAX;
		x->handle = (uint32_t)object;
	}
	res->clip.channel_count++;
	return 0;
}

/* The entry animdex's export made a node of (node ni, kept its tracks): an entry again, of the
 * node's name, with the document's other nodes as its rig when there are any (a Vehicle
 * Animation's parts). An item animdex would not write is left out and said, as in an
 * animation; a node whose every item is left out is skipped with the reason. */
static int decode_entry_node(struct gltf *g, const json_t *node, size_t ni, size_t rig_nodes,
                             struct decode_result *out)
{
	const json_t *kept = gltf_entry_node_tracks(g, node), *x;
	const char *node_name = json_string_value(json_object_get(node, "name"));
	struct resource *res = gltf_animation_resource(g, json_array_size(kept));
	char where[64], name[160];
	size_t i;
	int rc = -1;

	if (!res)
		return -1;
	res->extras = calloc(json_array_size(kept) + 1, sizeof(*res->extras));
	if (!res->extras) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	snprintf(where, sizeof(where), "/nodes/%zu/extras/animdex", ni);
	json_array_foreach(kept, i, x)
	{
		if (gltf_read_kept(g, x, where, i, res) < 0)
			goto done;
	}
	if (res->clip.channel_count == 0) {
		snprintf(name, sizeof(name), "nodes[%zu]", ni);
		gltf_skip(out, name, "node", "none of the tracks kept in its extras could be read");
		rc = 0;
		goto done;
	}
	if (node_name && *node_name) {
		res->name = strdup(node_name);
	} else {
		snprintf(name, sizeof(name), "node_%zu", ni);
		res->name = strdup(name);
	}
	res->clip.name = res->name ? strdup(res->name) : NULL;
	if (!res->name || !res->clip.name) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	if (rig_nodes > 0 && gltf_rig(g, res, 1) < 0)
		goto done;
	res->metadata =
	    json_pack("{s:s, s:I, s:O?}", "container", g->glb ? "glb" : "gltf", "node_index",
	              (json_int_t)ni, "asset", json_object_get(g->doc, "asset"));
	rc = decode_result_add(out, res);
	res = NULL;
done:
	resource_free(res);
	return rc;
}

size_t gltf_count_entry_nodes(const struct gltf *g)
{
	const json_t *node;
	size_t ni, entries = 0;

	json_array_foreach(json_object_get(g->doc, "nodes"), ni, node) entries +=
	    gltf_entry_node_tracks(g, node) != NULL;
	return entries;
}

/* The entries animdex's export made nodes of, each an entry again; 0 or -1. */
int gltf_decode_entry_nodes(struct gltf *g, struct decode_result *out)
{
	const json_t *nodes = json_object_get(g->doc, "nodes"), *node;
	size_t ni, entries = gltf_count_entry_nodes(g);

	json_array_foreach(nodes, ni, node)
	{
		if (!gltf_entry_node_tracks(g, node))
			continue;
		if (format_room_for_entry(g->up, out, g->err) < 0 ||
		    decode_entry_node(g, node, ni, json_array_size(nodes) - entries, out) < 0)
			return -1;
	}
	return 0;
}
