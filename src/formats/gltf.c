/* gltf.c: glTF 2.0 animations (doc/formats.md 4), each one a Radient-shaped clip.
 *
 * A .glb is a 12-byte header ("glTF", u32 version 2, u32 length) and chunks (u32 length,
 * u32 type, data padded to 4): JSON first, then an optional BIN chunk that is buffer 0. A
 * .gltf is the JSON alone; its buffers are data URIs, or files uploaded in the same request
 * and matched by their URI. Only the buffers that animations read are loaded: images and
 * mesh-only buffers are not needed.
 *
 * Animation samplers read two accessors: input (SCALAR float times, with min and max) and
 * output (values; CUBICSPLINE stores in-tangent, value, out-tangent per key, as Radient does).
 * Rotations may be normalised integers; weights hold one value per morph target per key.
 * Every rule the official validator checks for animations is checked here, and its code starts
 * the error message ("ANIMATION_DUPLICATE_TARGETS at /animations/0/channels/1/target: ...").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base64.h"
#include "formats/format.h"
#include "formats/reader.h"
#include "gltf.h"

static enum path path_of(const char *path)
{
	if (!path)
		return PATH_OTHER;
	if (strcmp(path, "translation") == 0)
		return PATH_TRANSLATION;
	if (strcmp(path, "rotation") == 0)
		return PATH_ROTATION;
	if (strcmp(path, "scale") == 0)
		return PATH_SCALE;
	if (strcmp(path, "weights") == 0)
		return PATH_WEIGHTS;
	return PATH_OTHER;
}

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

/* Morph targets of the node's mesh, or 0. */
static size_t morph_targets(struct gltf *g, const json_t *node)
{
	const json_t *mesh = gltf_item(g->doc, "meshes", gltf_int(node, "mesh", -1));
	const json_t *prims = json_object_get(mesh, "primitives");
	return json_array_size(json_object_get(json_array_get(prims, 0), "targets"));
}

static int output_format_ok(enum path p, const struct accessor *a)
{
	int norm_int =
	    a->normalized &&
	    (a->component_type == COMPONENT_BYTE || a->component_type == COMPONENT_UBYTE ||
	     a->component_type == COMPONENT_SHORT || a->component_type == COMPONENT_USHORT);
	int f = a->component_type == COMPONENT_FLOAT;

	switch (p) {
	case PATH_TRANSLATION:
	case PATH_SCALE: return f && a->components == 3;
	case PATH_ROTATION: return (f || norm_int) && a->components == 4;
	case PATH_WEIGHTS: return (f || norm_int) && a->components == 1;
	default: return 0;
	}
}

void gltf_skip(struct decode_result *out, const char *name, const char *type, const char *reason)
{
	json_array_append_new(out->skipped, json_pack("{s:s, s:s, s:s}", "name", name, "type", type,
	                                              "reason", reason));
}

/* The structure of every animation, before any data is read (the validator's order). */
static int check_structure(struct gltf *g, const json_t *anims)
{
	char ptr[128];
	size_t ai;
	const json_t *anim;

	if (json_array_size(anims) == 0)
		return gltf_fail(g, "EMPTY_ENTITY", "/animations", "the animations array is empty");
	json_array_foreach(anims, ai, anim)
	{
		const json_t *channels = json_object_get(anim, "channels");
		const json_t *samplers = json_object_get(anim, "samplers");
		size_t i;
		const json_t *x;
		snprintf(ptr, sizeof(ptr), "/animations/%zu", ai);
		if (!json_is_array(channels))
			return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
			                 "an animation needs channels");
		if (!json_is_array(samplers))
			return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
			                 "an animation needs samplers");
		if (json_array_size(channels) == 0) {
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels", ai);
			return gltf_fail(g, "EMPTY_ENTITY", ptr, "channels is empty");
		}
		if (json_array_size(samplers) == 0) {
			snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers", ai);
			return gltf_fail(g, "EMPTY_ENTITY", ptr, "samplers is empty");
		}
		json_array_foreach(channels, i, x)
		{
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu", ai, i);
			if (!json_object_get(x, "sampler"))
				return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
				                 "a channel needs a sampler");
			if (!json_object_get(x, "target"))
				return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
				                 "a channel needs a target");
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/target", ai, i);
			if (!json_object_get(json_object_get(x, "target"), "path"))
				return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
				                 "a target needs a path");
		}
		json_array_foreach(samplers, i, x)
		{
			snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu", ai, i);
			if (!json_object_get(x, "input"))
				return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
				                 "a sampler needs an input");
			if (!json_object_get(x, "output"))
				return gltf_fail(g, "UNDEFINED_PROPERTY", ptr,
				                 "a sampler needs an output");
		}
	}
	return 0;
}

/* One glTF animation -> one resource (or none, when every channel is skipped). */
/* One animation's samplers once checked: their accessors and interpolation. */
struct anim_samplers {
	size_t count;
	struct accessor *inputs, *outputs;
	int *interp; /* enum interpolation */
};

/* The samplers' references, interpolation, input format and bounds, strides. */
static int check_samplers(struct gltf *g, const json_t *samplers, size_t ai,
                          struct anim_samplers *as)
{
	char ptr[160];
	size_t i;
	const json_t *x;

	json_array_foreach(samplers, i, x)
	{
		const char *ip = json_string_value(json_object_get(x, "interpolation"));
		struct accessor *in = &as->inputs[i], *out = &as->outputs[i];
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/input", ai, i);
		if (gltf_accessor_info(g, gltf_int(x, "input", -1), ptr, in) < 0)
			return -1;
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/output", ai, i);
		if (gltf_accessor_info(g, gltf_int(x, "output", -1), ptr, out) < 0)
			return -1;
		as->interp[i] = !ip || strcmp(ip, "LINEAR") == 0 ? INTERP_LINEAR
		                : strcmp(ip, "STEP") == 0        ? INTERP_STEP
		                : strcmp(ip, "CUBICSPLINE") == 0 ? INTERP_CUBIC_SPLINE
		                                                 : -1;
		if (as->interp[i] < 0) {
			snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/interpolation", ai,
			         i);
			return gltf_fail(g, "VALUE_NOT_IN_LIST", ptr,
			                 "interpolation must be LINEAR, STEP or CUBICSPLINE");
		}
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/input", ai, i);
		if (in->component_type != COMPONENT_FLOAT || in->components != 1)
			return gltf_fail(g, "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", ptr,
			                 "input must be a SCALAR FLOAT accessor");
		if (!in->has_bounds)
			return gltf_fail(g, "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS", ptr,
			                 "the input accessor must have min and max");
		if (in->has_stride)
			return gltf_fail(
			    g, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", ptr,
			    "a sampler's accessors must not use a buffer view with byteStride");
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/output", ai, i);
		if (out->has_stride)
			return gltf_fail(
			    g, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", ptr,
			    "a sampler's accessors must not use a buffer view with byteStride");
		snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%zu/input", ai, i);
		if (as->interp[i] == INTERP_CUBIC_SPLINE && in->count < 2)
			return gltf_fail(g, "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
			                 ptr, "CUBICSPLINE needs at least 2 keys, not %zu",
			                 in->count);
	}
	return 0;
}

/* A channel's target as one number (node x 4 + path), and its place, to sort by. */
struct channel_key {
	size_t key, channel;
};

static int channel_key_order(const void *a, const void *b)
{
	const struct channel_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->channel < y->channel ? -1 : x->channel > y->channel;
}

/* For each channel, the first earlier channel with its node and path (SIZE_MAX when none), from
 * the channels sorted by target: O(n log n) in the channels, whatever the file's nodes.
 * NULL when out of memory. */
static size_t *earlier_targets(const json_t *channels)
{
	size_t count = json_array_size(channels), used = 0, i;
	struct channel_key *keys = malloc((count + 1) * sizeof(*keys));
	size_t *earlier = malloc((count + 1) * sizeof(*earlier));
	const json_t *x;

	if (!keys || !earlier) {
		free(keys);
		free(earlier);
		return NULL;
	}
	json_array_foreach(channels, i, x)
	{
		const json_t *target = json_object_get(x, "target");
		json_int_t n = gltf_int(target, "node", -1);
		enum path p = path_of(json_string_value(json_object_get(target, "path")));
		earlier[i] = SIZE_MAX;
		if (n >= 0 && p != PATH_OTHER)
			keys[used++] = (struct channel_key){(size_t)n * PATH_OTHER + p, i};
	}
	qsort(keys, used, sizeof(*keys), channel_key_order);
	for (size_t k = 1; k < used; k++)
		if (keys[k].key == keys[k - 1].key)
			earlier[keys[k].channel] = earlier[keys[k - 1].channel] != SIZE_MAX
			                               ? earlier[keys[k - 1].channel]
			                               : keys[k - 1].channel;
	free(keys);
	return earlier;
}

/* The channels' sampler and node references, formats, counts, duplicate targets. */
static int check_channels(struct gltf *g, const json_t *channels, size_t ai,
                          const struct anim_samplers *as)
{
	size_t *earlier = earlier_targets(channels);
	char ptr[160];
	size_t i;
	const json_t *x;
	int rc = -1;

	if (!earlier) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	json_array_foreach(channels, i, x)
	{
		const json_t *target = json_object_get(x, "target"), *node;
		json_int_t s = gltf_int(x, "sampler", -1), n = gltf_int(target, "node", -1);
		enum path p = path_of(json_string_value(json_object_get(target, "path")));
		size_t want;
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/sampler", ai, i);
		if (s < 0 || (size_t)s >= as->count) {
			gltf_fail(g, "UNRESOLVED_REFERENCE", ptr, "sampler %lld does not exist",
			          (long long)s);
			goto done;
		}
		if (p == PATH_OTHER || !json_object_get(target, "node"))
			continue; /* skipped when read, with the reason */
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/target/node", ai, i);
		node = gltf_item(g->doc, "nodes", n);
		if (!node) {
			gltf_fail(g, "UNRESOLVED_REFERENCE", ptr, "node %lld does not exist",
			          (long long)n);
			goto done;
		}
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/target", ai, i);
		if (json_object_get(node, "matrix")) {
			gltf_fail(g, "ANIMATION_CHANNEL_TARGET_NODE_MATRIX", ptr,
			          "node %lld has a matrix and cannot be animated", (long long)n);
			goto done;
		}
		if (p == PATH_WEIGHTS && morph_targets(g, node) == 0) {
			gltf_fail(g, "ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS", ptr,
			          "node %lld has no morph targets to weigh", (long long)n);
			goto done;
		}
		if (earlier[i] != SIZE_MAX) {
			gltf_fail(g, "ANIMATION_DUPLICATE_TARGETS", ptr,
			          "channel %zu already animates node %lld's %s", earlier[i],
			          (long long)n, path_names[p]);
			goto done;
		}
		snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/sampler", ai, i);
		if (!output_format_ok(p, &as->outputs[s])) {
			gltf_fail(g, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", ptr,
			          "the output accessor's format does not fit %s", path_names[p]);
			goto done;
		}
		want = as->inputs[s].count * (as->interp[s] == INTERP_CUBIC_SPLINE ? 3 : 1) *
		       (p == PATH_WEIGHTS ? morph_targets(g, node) : 1);
		if (as->outputs[s].count != want) {
			gltf_fail(g, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", ptr,
			          "the output has %zu elements; %s needs %zu", as->outputs[s].count,
			          path_names[p], want);
			goto done;
		}
	}
	rc = 0;
done:
	free(earlier);
	return rc;
}

/* Sampler s's key times, checked (finite, not negative, increasing), or NULL with the error
 * set. An input without data is all zeros, as glTF allows: noted in res's assumptions. */
static float *read_times(struct gltf *g, const json_t *sm, size_t ai, json_int_t s,
                         const struct accessor *in, struct resource *res)
{
	char ptr[160], note[256];
	float *times;

	snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%lld/input", ai, (long long)s);
	times = gltf_accessor_read(g, gltf_int(sm, "input", -1), ptr, in);
	if (!times)
		return NULL;
	if (!gltf_has_data(g, gltf_int(sm, "input", -1))) {
		/* the validator does not check such data, and neither does animdex */
		snprintf(
		    note, sizeof(note),
		    "animations[%zu].samplers[%lld].input has no data: glTF reads it as zeros, "
		    "so its keys all sit at time 0",
		    ai, (long long)s);
		resource_assume(res, note);
		return times;
	}
	for (size_t k = 0; k < in->count; k++) {
		if (!isfinite(times[k]))
			gltf_fail(g, "ACCESSOR_INVALID_FLOAT", ptr, "time %zu is not finite", k);
		else if (times[k] < 0)
			gltf_fail(g, "ACCESSOR_ANIMATION_INPUT_NEGATIVE", ptr, "time %zu is %g", k,
			          (double)times[k]);
		else if (k > 0 && !(times[k] > times[k - 1]))
			gltf_fail(g, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", ptr,
			          "time %zu (%.9g) is not greater than time %zu (%.9g)", k,
			          (double)times[k], k - 1, (double)times[k - 1]);
		else
			continue;
		free(times);
		return NULL;
	}
	return times;
}

/* Sampler s's values (comps floats each), checked (finite; rotations unit quaternions), or
 * NULL with the error set. Channel i is named when a quaternion is refused. */
static float *read_values(struct gltf *g, const json_t *sm, size_t ai, size_t i, json_int_t s,
                          enum path p, size_t comps, const struct anim_samplers *as)
{
	char ptr[160];
	float *values;

	snprintf(ptr, sizeof(ptr), "/animations/%zu/samplers/%lld/output", ai, (long long)s);
	values = gltf_accessor_read(g, gltf_int(sm, "output", -1), ptr, &as->outputs[s]);
	if (!values)
		return NULL;
	for (size_t k = 0; k < as->outputs[s].count * comps; k++)
		if (!isfinite(values[k])) {
			free(values);
			gltf_fail(g, "ACCESSOR_INVALID_FLOAT", ptr, "component %zu is not finite",
			          k);
			return NULL;
		}
	if (p != PATH_ROTATION || !gltf_has_data(g, gltf_int(sm, "output", -1)))
		return values;
	for (size_t k = 0; k < as->inputs[s].count; k++) {
		const float *q =
		    values + (as->interp[s] == INTERP_CUBIC_SPLINE ? k * 3 + 1 : k) * 4;
		float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		if (fabsf(len - 1.0f) > QUATERNION_TOLERANCE) {
			free(values);
			snprintf(ptr, sizeof(ptr), "/animations/%zu/channels/%zu/sampler", ai, i);
			gltf_fail(g, "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
			          ptr, "key %zu's quaternion has length %.6g (tolerance %g)", k,
			          (double)len, (double)QUATERNION_TOLERANCE);
			return NULL;
		}
	}
	return values;
}

/* The index of node n's target of this schema in the clip, made when it is new. */
static uint32_t node_target(struct clip *clip, json_int_t n, const char *schema,
                            const char *node_name)
{
	size_t t;
	struct target *tg;

	for (t = 0; t < clip->target_count; t++)
		if (clip->targets[t].object == (uint64_t)n &&
		    strcmp(clip->targets[t].schema, schema) == 0)
			return (uint32_t)t;
	tg = &clip->targets[clip->target_count++];
	snprintf(tg->schema, sizeof(tg->schema), "%s", schema);
	tg->object = (uint64_t)n;
	tg->name = node_name ? strdup(node_name) : NULL;
	return (uint32_t)t;
}

/* Channel i of the animation into res: its target, sampler and track name. 0 (added, or
 * skipped with the reason in out), or -1 with the error set. */
static int read_channel(struct gltf *g, const json_t *x, const json_t *samplers, size_t ai,
                        size_t i, const struct anim_samplers *as, struct resource *res,
                        struct decode_result *out)
{
	const json_t *target = json_object_get(x, "target");
	json_int_t s = gltf_int(x, "sampler", -1), n = gltf_int(target, "node", -1);
	const char *path = json_string_value(json_object_get(target, "path"));
	enum path p = path_of(path);
	const json_t *node = gltf_item(g->doc, "nodes", n),
	             *sm = json_array_get(samplers, (size_t)s);
	const char *node_name = json_string_value(json_object_get(node, "name"));
	struct clip *clip = &res->clip;
	struct sampler *out_s;
	struct channel *ch;
	size_t m = p == PATH_WEIGHTS ? morph_targets(g, node) : 1;
	size_t comps = p == PATH_ROTATION ? 4 : p == PATH_WEIGHTS ? 1 : 3;
	float *times, *values;
	char label[512];

	if (p == PATH_OTHER || !json_object_get(target, "node")) {
		snprintf(label, sizeof(label), "animations[%zu].channels[%zu]", ai, i);
		if (p == PATH_OTHER)
			gltf_skip(out, label, path ? path : "(no path)",
			          path && strcmp(path, "pointer") == 0
			              ? "KHR_animation_pointer channels are not imported (yet)"
			              : "not a glTF 2.0 target path (translation, rotation, scale, "
			                "weights)");
		else
			gltf_skip(
			    out, label, path,
			    "the channel has no target node: glTF allows that (an extension may "
			    "name the target), and there is nothing it animates here");
		return 0;
	}
	if (as->inputs[s].packed_stride || as->outputs[s].packed_stride) {
		snprintf(
		    label, sizeof(label),
		    "animations[%zu].samplers[%lld]: a buffer view declares a byteStride equal to "
		    "its element's size, which glTF forbids for animation data "
		    "(ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE); read as tightly packed, as "
		    "three.js and Blender read it",
		    ai, (long long)s);
		resource_assume(res, label);
	}
	times = read_times(g, sm, ai, s, &as->inputs[s], res);
	if (!times)
		return -1;
	values = read_values(g, sm, ai, i, s, p, comps, as);
	if (!values) {
		free(times);
		return -1;
	}
	out_s = &clip->samplers[clip->sampler_count];
	out_s->type = p == PATH_ROTATION  ? VALUE_FLOAT4
	              : p == PATH_WEIGHTS ? VALUE_FLOAT
	                                  : VALUE_FLOAT3;
	out_s->array_size = (uint32_t)m;
	out_s->interp = (enum interpolation)as->interp[s];
	out_s->semantic =
	    p == PATH_ROTATION ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
	out_s->key_count = (uint32_t)as->inputs[s].count;
	out_s->times = times;
	out_s->values = values;
	out_s->value_bytes = as->outputs[s].count * comps * sizeof(float);
	if (clip->duration < times[as->inputs[s].count - 1])
		clip->duration = times[as->inputs[s].count - 1];
	ch = &clip->channels[clip->channel_count];
	ch->target =
	    node_target(clip, n, p == PATH_WEIGHTS ? SCHEMA_MORPH : SCHEMA_NODE, node_name);
	ch->property = p == PATH_WEIGHTS    ? MORPH_WEIGHTS
	               : p == PATH_ROTATION ? NODE_ROTATION
	               : p == PATH_SCALE    ? NODE_SCALE
	                                    : NODE_TRANSLATION;
	ch->sampler = (uint32_t)clip->sampler_count++;
	if (node_name)
		snprintf(label, sizeof(label), "node %lld \"%.80s\" %s", (long long)n, node_name,
		         path_names[p]);
	else
		snprintf(label, sizeof(label), "node %lld %s", (long long)n, path_names[p]);
	res->track_names[clip->channel_count++] = strdup(label);
	return 0;
}

/* A resource for an animation of nch channels, with room for them; NULL (error set) when out
 * of memory. */
struct resource *gltf_animation_resource(struct gltf *g, size_t nch)
{
	struct resource *res = resource_create("gltf", "RadientAnimationClip");

	if (res) {
		res->track_names = calloc(nch + 1, sizeof(char *));
		res->clip.targets = calloc(nch * 2 + 1, sizeof(struct target));
		res->clip.samplers = calloc(nch + 1, sizeof(struct sampler));
		res->clip.channels = calloc(nch + 1, sizeof(struct channel));
	}
	if (!res || !res->track_names || !res->clip.targets || !res->clip.samplers ||
	    !res->clip.channels) {
		resource_free(res);
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	return res;
}

/* Animation ai of the document: checked whole first (samplers, then channels), then read
 * channel by channel into one entry; an animation none of whose channels can be read is
 * skipped with the reason. */
int gltf_file_stem(const struct upload *up, char *out, size_t size)
{
	const char *base, *dot;

	if (!up->filename || !*up->filename)
		return 0;
	base = strrchr(up->filename, '/');
	base = base ? base + 1 : up->filename;
	dot = strrchr(base, '.');
	if ((dot ? (size_t)(dot - base) : strlen(base)) == 0)
		return 0;
	snprintf(out, size, "%.*s", (int)(dot ? (size_t)(dot - base) : strlen(base)), base);
	return 1;
}

static int decode_animation(struct gltf *g, const json_t *anim, size_t ai,
                            struct decode_result *out)
{
	const json_t *channels = json_object_get(anim, "channels");
	const json_t *samplers = json_object_get(anim, "samplers");
	size_t nch = json_array_size(channels), nsm = json_array_size(samplers);
	struct anim_samplers as = {nsm, calloc(nsm + 1, sizeof(struct accessor)),
	                           calloc(nsm + 1, sizeof(struct accessor)),
	                           calloc(nsm + 1, sizeof(int))};
	struct resource *res = NULL;
	const json_t *kept;
	const char *anim_name = json_string_value(json_object_get(anim, "name"));
	char name[160];
	int rc = -1;
	size_t i;
	const json_t *x;

	if (!as.inputs || !as.outputs || !as.interp) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	if (check_samplers(g, samplers, ai, &as) < 0 || check_channels(g, channels, ai, &as) < 0)
		goto done;
	kept = gltf_kept_tracks(g, anim);
	res = gltf_animation_resource(g, nch + json_array_size(kept));
	if (!res)
		goto done;
	json_array_foreach(channels, i, x)
	{
		if (read_channel(g, x, samplers, ai, i, &as, res, out) < 0)
			goto done;
	}
	if (json_array_size(kept)) { /* the tracks the export kept in extras, read back */
		res->extras = calloc(nch + json_array_size(kept) + 1, sizeof(*res->extras));
		if (!res->extras) {
			error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
			goto done;
		}
		char where[64];
		snprintf(where, sizeof(where), "/animations/%zu/extras/animdex", ai);
		json_array_foreach(kept, i, x)
		{
			if (gltf_read_kept(g, x, where, i, res) < 0)
				goto done;
		}
	}
	if (res->clip.channel_count == 0) {
		snprintf(name, sizeof(name), "animations[%zu]", ai);
		gltf_skip(out, name, "animation", "none of its channels could be imported");
		rc = 0;
		goto done;
	}
	if (anim_name && *anim_name) {
		res->name = strdup(anim_name);
	} else {
		/* after the file and its index, so that unnamed clips of different files have
		 * different names and handles (doc/formats.md 4) */
		char stem[128];
		if (gltf_file_stem(g->up, stem, sizeof(stem)))
			snprintf(name, sizeof(name), "%.127s #%zu", stem, ai);
		else
			snprintf(name, sizeof(name), "animation_%zu", ai);
		res->name = strdup(name);
	}
	res->clip.name = res->name ? strdup(res->name) : NULL;
	if (gltf_rig(g, res, 0) < 0)
		goto done;
	res->metadata =
	    json_pack("{s:s, s:I, s:O?}", "container", g->glb ? "glb" : "gltf", "animation_index",
	              (json_int_t)ai, "asset", json_object_get(g->doc, "asset"));
	rc = decode_result_add(out, res);
	res = NULL;
done:
	resource_free(res);
	free(as.inputs);
	free(as.outputs);
	free(as.interp);
	return rc;
}

/* A data URI of bytes: "data:<mime>;base64,...", malloc'd, or NULL. */
static char *data_uri(const char *mime, const uint8_t *data, size_t length)
{
	size_t len;
	char *b64 = base64_encode(data, length, &len),
	     *uri = b64 ? malloc(len + strlen(mime) + 16) : NULL;

	if (uri)
		sprintf(uri, "data:%s;base64,%s", mime, b64);
	free(b64);
	return uri;
}

/* An image's media type: its mimeType, else its file name's extension's. */
static const char *image_mime(const json_t *image, const char *name)
{
	const char *given = json_string_value(json_object_get(image, "mimeType"));
	const char *dot = strrchr(name, '.');

	if (given)
		return given;
	if (dot && (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0))
		return "image/jpeg";
	if (dot && strcasecmp(dot, ".webp") == 0)
		return "image/webp";
	if (dot && strcasecmp(dot, ".ktx2") == 0)
		return "image/ktx2";
	return "image/png";
}

/* The images a .gltf names by a file's URI: each one uploaded with it put into *copy (a copy
 * of the document, made at the first) as a data URI (it is kept with the glTF, in the
 * catalogue, and the view shows the mesh with it); each one that was not, said on every entry
 * the file makes. 0, or -1. */
static int embed_images(struct gltf *g, json_t **copy, struct decode_result *out, size_t first)
{
	const json_t *images = json_object_get(g->doc, "images");

	for (size_t i = 0; i < json_array_size(images); i++) {
		const json_t *image = json_array_get(images, i);
		const char *uri = json_string_value(json_object_get(image, "uri"));
		char name[512], note[700], *data;
		int s;
		if (!uri || strncmp(uri, "data:", 5) == 0)
			continue;
		s = gltf_sibling(g, uri, name, sizeof(name));
		if (s < 0) {
			snprintf(
			    note, sizeof(note),
			    "images[%zu]: '%.300s' was not uploaded with the glTF, so the 3D view "
			    "shows the mesh without it; upload the file with the .gltf",
			    i, s == -2 ? uri : name);
			for (size_t r = first; r < out->count; r++)
				if (resource_assume(out->resources[r], note) < 0)
					return -1;
			continue;
		}
		if (!*copy && !(*copy = json_deep_copy(g->doc))) /* made once, when needed */
			return -1;
		data = data_uri(image_mime(image, name), g->up->siblings[s].data,
		                g->up->siblings[s].length);
		if (!data)
			return -1;
		json_object_set_new(json_array_get(json_object_get(*copy, "images"), i), "uri",
		                    json_string(data));
		free(data);
	}
	return 0;
}

/* A .gltf whose buffers or images came as separate files is kept with them embedded as data
 * URIs. */
static int embed_external_files(struct gltf *g, struct decode_result *out, size_t first)
{
	json_t *copy = NULL;
	char *text;
	int any = 0;

	if (g->glb)
		return 0;
	for (size_t i = 0; i < g->buffer_count; i++)
		any |= g->buffers[i].sibling >= 0 && g->buffers[i].data;
	if (embed_images(g, &copy, out, first) < 0) {
		json_decref(copy);
		return -1;
	}
	if (!any && !copy) /* nothing came as a file of its own: the upload is kept as it is */
		return 0;
	if (!copy && !(copy = json_deep_copy(g->doc)))
		return -1;
	for (size_t i = 0; i < g->buffer_count; i++) {
		const struct upload_sibling *s;
		char *uri;
		if (!g->buffers[i].data || g->buffers[i].sibling < 0)
			continue;
		s = &g->up->siblings[g->buffers[i].sibling];
		uri = data_uri("application/octet-stream", s->data, s->length);
		if (!uri) {
			json_decref(copy);
			return -1;
		}
		json_object_set_new(json_array_get(json_object_get(copy, "buffers"), i), "uri",
		                    json_string(uri));
		free(uri);
	}
	text = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(copy);
	if (!text)
		return -1;
	out->stored = (uint8_t *)text;
	out->stored_length = strlen(text);
	return 0;
}

static void gltf_cleanup(struct gltf *g)
{
	for (size_t i = 0; g->buffers && i < g->buffer_count; i++)
		free(g->buffers[i].owned);
	free(g->buffers);
	free(g->parent);
	json_decref(g->doc);
}

static int gltf_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	struct gltf g = {0};
	const json_t *anims, *anim;
	size_t ai, before = out->count;
	int rc = -1;

	g.up = up;
	g.err = err;
	if (gltf_parse_container(&g) < 0)
		goto done;
	anims = json_object_get(g.doc, "animations");
	if (!anims && gltf_count_entry_nodes(&g) > 0)
		goto entry_nodes;
	if (!anims && json_array_size(json_object_get(g.doc, "nodes")) > 0) {
		/* nodes and no animation: a skeleton to pose animations on */
		if (format_room_for_entry(up, out, err) < 0 || gltf_skeleton(&g, out) < 0)
			goto done;
		goto embed;
	}
	if (!anims) {
		error_set(err, ERROR_GLTF_INVALID, "/animations", -1,
		          "the glTF has neither animations nor nodes: there is nothing for animdex "
		          "to catalogue");
		goto done;
	}
	if (check_structure(&g, anims) < 0)
		goto done;
	json_array_foreach(anims, ai, anim)
	{
		if (format_room_for_entry(up, out, err) < 0 ||
		    decode_animation(&g, anim, ai, out) < 0)
			goto done;
	}
entry_nodes:
	if (gltf_decode_entry_nodes(&g, out) < 0) /* entries glTF animates nothing of */
		goto done;
	if (out->count == before) {
		json_t *first = json_array_get(out->skipped, 0);
		error_set(err, ERROR_GLTF_INVALID, "/animations", -1,
		          "no animation has a channel animdex can import: every channel is "
		          "skipped (%s: %s)",
		          first ? json_string_value(json_object_get(first, "name")) : "none",
		          first ? json_string_value(json_object_get(first, "reason"))
		                : "no channels");
		goto done;
	}
embed:
	if (embed_external_files(&g, out, before) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	rc = 0;
done:
	gltf_cleanup(&g);
	return rc;
}

static int contains(const uint8_t *data, size_t length, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= length; i++)
		if (data[i] == (uint8_t)word[0] && memcmp(data + i, word, n) == 0)
			return 1;
	return 0;
}

static enum format_match gltf_match(const struct upload *up, char *why, size_t why_size)
{
	json_t *doc;
	int is_gltf;

	if (up->class_name) {
		snprintf(why, why_size, "class=%s: glTF files are detected by content",
		         up->class_name);
		return MATCH_NONE;
	}
	if (up->family) {
		if (strcasecmp(up->family, "gltf") == 0)
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "family=%s is not gltf", up->family);
		return MATCH_NONE;
	}
	if (up->length >= 4 && memcmp(up->data, "glTF", 4) == 0)
		return MATCH_MAGIC;
	/* a file named .gltf is read as glTF even when its JSON is broken or has no "asset": what
	 * is wrong with it is told in glTF's words, not as another JSON format's */
	if (format_has_extension(up->filename, "gltf"))
		return MATCH_CONTENT;
	/* a JSON document with an "asset" object: only parse when the word is there */
	if (contains(up->data, up->length, "\"asset\"")) {
		doc = json_loadb((const char *)up->data, up->length, 0, NULL);
		is_gltf = json_is_object(json_object_get(doc, "asset"));
		json_decref(doc);
		if (is_gltf)
			return MATCH_CONTENT;
	}
	if (format_has_extension(up->filename, "glb"))
		return MATCH_EXTENSION;
	snprintf(why, why_size, "not a .glb (\"glTF\" magic) nor JSON with an \"asset\" object");
	return MATCH_NONE;
}

const struct format format_gltf = {
    .family = "gltf",
    .version = 3, /* 3: the rig (doc/formats.md 4.1) */
    .description = "glTF 2.0 animations (.gltf with data URIs or its .bin files, .glb)",
    .match = gltf_match,
    .decode = gltf_decode,
};
