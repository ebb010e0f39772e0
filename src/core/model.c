/* model.c: value type facts, built-in schemas, and the lifecycle of clips and resources. */
#include "core/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	unsigned components;
	enum scalar_kind scalar;
} value_types[VALUE_TYPE_COUNT] = {
    [VALUE_UNKNOWN] = {"UNKNOWN", 0, SCALAR_NONE},
    [VALUE_BOOL] = {"BOOL", 1, SCALAR_BOOL},
    [VALUE_INT] = {"INT", 1, SCALAR_INT},
    [VALUE_INT2] = {"INT2", 2, SCALAR_INT},
    [VALUE_INT3] = {"INT3", 3, SCALAR_INT},
    [VALUE_INT4] = {"INT4", 4, SCALAR_INT},
    [VALUE_UINT] = {"UINT", 1, SCALAR_UINT},
    [VALUE_UINT2] = {"UINT2", 2, SCALAR_UINT},
    [VALUE_UINT3] = {"UINT3", 3, SCALAR_UINT},
    [VALUE_UINT4] = {"UINT4", 4, SCALAR_UINT},
    [VALUE_FLOAT] = {"FLOAT", 1, SCALAR_FLOAT},
    [VALUE_FLOAT2] = {"FLOAT2", 2, SCALAR_FLOAT},
    [VALUE_FLOAT3] = {"FLOAT3", 3, SCALAR_FLOAT},
    [VALUE_FLOAT4] = {"FLOAT4", 4, SCALAR_FLOAT},
    [VALUE_FLOAT2X2] = {"FLOAT2X2", 4, SCALAR_FLOAT},
    [VALUE_FLOAT3X3] = {"FLOAT3X3", 9, SCALAR_FLOAT},
    [VALUE_FLOAT4X4] = {"FLOAT4X4", 16, SCALAR_FLOAT},
};

const char *value_type_name(enum value_type type)
{
	return (unsigned)type < VALUE_TYPE_COUNT ? value_types[type].name : "UNKNOWN";
}

enum value_type value_type_from_name(const char *name)
{
	for (int t = VALUE_BOOL; t < VALUE_TYPE_COUNT; t++)
		if (strcasecmp(name, value_types[t].name) == 0)
			return (enum value_type)t;
	return VALUE_UNKNOWN;
}

unsigned value_type_components(enum value_type type)
{
	return (unsigned)type < VALUE_TYPE_COUNT ? value_types[type].components : 0;
}

enum scalar_kind value_type_scalar(enum value_type type)
{
	return (unsigned)type < VALUE_TYPE_COUNT ? value_types[type].scalar : SCALAR_NONE;
}

size_t value_type_component_size(enum value_type type)
{
	return type == VALUE_BOOL ? 1 : 4;
}

static const char *const interpolation_names[] = {"STEP", "LINEAR", "CUBIC_SPLINE"};
static const char *const semantic_names[] = {"COMPONENT_WISE", "NORMALIZED_QUATERNION"};

const char *interpolation_name(enum interpolation interp)
{
	return (unsigned)interp <= INTERP_CUBIC_SPLINE ? interpolation_names[interp] : "?";
}

int interpolation_from_name(const char *name, enum interpolation *out)
{
	for (int i = 0; i <= INTERP_CUBIC_SPLINE; i++)
		if (strcasecmp(name, interpolation_names[i]) == 0) {
			*out = (enum interpolation)i;
			return 0;
		}
	return -1;
}

const char *semantic_name(enum semantic semantic)
{
	return (unsigned)semantic <= SEMANTIC_NORMALIZED_QUATERNION ? semantic_names[semantic]
	                                                            : "?";
}

int semantic_from_name(const char *name, enum semantic *out)
{
	for (int i = 0; i <= SEMANTIC_NORMALIZED_QUATERNION; i++)
		if (strcasecmp(name, semantic_names[i]) == 0) {
			*out = (enum semantic)i;
			return 0;
		}
	return -1;
}

static const struct {
	const char *schema;
	uint64_t property;
	const char *name;
	enum value_type type;
} schema_properties[] = {
    {SCHEMA_NODE, NODE_TRANSLATION, "translation", VALUE_FLOAT3},
    {SCHEMA_NODE, NODE_ROTATION, "rotation", VALUE_FLOAT4},
    {SCHEMA_NODE, NODE_SCALE, "scale", VALUE_FLOAT3},
    {SCHEMA_NODE, NODE_VISIBILITY, "visibility", VALUE_BOOL},
    {SCHEMA_MORPH, MORPH_WEIGHTS, "weights", VALUE_FLOAT},
    /* VALUE_UNKNOWN: any type */
    {SCHEMA_ZOUNA, ZOUNA_VALUE, "value", VALUE_UNKNOWN},
    {SCHEMA_ZOUNA, ZOUNA_EULER_ROTATION, "euler rotation", VALUE_FLOAT3},
    {SCHEMA_ZOUNA, ZOUNA_MESSAGES, "messages", VALUE_UINT},
    {SCHEMA_ZOUNA, ZOUNA_MATERIAL_TRANS_U, "translation u", VALUE_FLOAT},
    {SCHEMA_ZOUNA, ZOUNA_MATERIAL_TRANS_V, "translation v", VALUE_FLOAT},
    {SCHEMA_ZOUNA, ZOUNA_MATERIAL_DIFFUSE, "diffuse", VALUE_FLOAT3},
    {SCHEMA_ZOUNA, ZOUNA_MATERIAL_EMISSIVE, "emissive", VALUE_FLOAT3},
    {SCHEMA_ZOUNA, ZOUNA_MATERIAL_ROTATION, "rotation", VALUE_FLOAT},
    {SCHEMA_ZOUNA, ZOUNA_MESH, "mesh value", VALUE_FLOAT},
    {SCHEMA_ZOUNA, ZOUNA_MORPH, "morph weight", VALUE_FLOAT},
    {SCHEMA_BURNOUT, BURNOUT_STATE_VECTORS, "state vectors", VALUE_FLOAT4},
    {SCHEMA_MOCAP, MOCAP_POSITION, "position", VALUE_FLOAT3},
    {SCHEMA_MOCAP, MOCAP_ROTATION_XYZ, "rotation XYZ", VALUE_FLOAT3},
    {SCHEMA_MOCAP, MOCAP_ROTATION_XZY, "rotation XZY", VALUE_FLOAT3},
    {SCHEMA_MOCAP, MOCAP_ROTATION_YXZ, "rotation YXZ", VALUE_FLOAT3},
    {SCHEMA_MOCAP, MOCAP_ROTATION_YZX, "rotation YZX", VALUE_FLOAT3},
    {SCHEMA_MOCAP, MOCAP_ROTATION_ZXY, "rotation ZXY", VALUE_FLOAT3},
    {SCHEMA_MOCAP, MOCAP_ROTATION_ZYX, "rotation ZYX", VALUE_FLOAT3},
};

int schema_property_type(const char *schema, uint64_t property, enum value_type *type)
{
	int built_in = 0;

	for (size_t i = 0; i < sizeof(schema_properties) / sizeof(schema_properties[0]); i++) {
		if (strcmp(schema, schema_properties[i].schema) != 0)
			continue;
		built_in = 1;
		if (schema_properties[i].property == property) {
			*type = schema_properties[i].type;
			return 0;
		}
	}
	*type = VALUE_UNKNOWN;
	return built_in ? -1 : 0;
}

const char *schema_property_name(const char *schema, uint64_t property)
{
	for (size_t i = 0; i < sizeof(schema_properties) / sizeof(schema_properties[0]); i++)
		if (strcmp(schema, schema_properties[i].schema) == 0 &&
		    schema_properties[i].property == property)
			return schema_properties[i].name;
	return NULL;
}

size_t sampler_components(const struct sampler *s)
{
	return (size_t)value_type_components(s->type) * s->array_size;
}

int sampler_copy(struct sampler *out, const struct sampler *in)
{
	*out = *in;
	out->times = malloc((size_t)in->key_count * sizeof(float) + 1);
	out->values = malloc(in->value_bytes + 1);
	if (!out->times || !out->values) {
		free(out->times);
		free(out->values);
		out->times = NULL;
		out->values = NULL;
		return -1;
	}
	memcpy(out->times, in->times, (size_t)in->key_count * sizeof(float));
	memcpy(out->values, in->values, in->value_bytes);
	return 0;
}

int sampler_equal(const struct sampler *a, const struct sampler *b)
{
	return a->type == b->type && a->array_size == b->array_size && a->interp == b->interp &&
	       a->semantic == b->semantic && a->key_count == b->key_count &&
	       a->value_bytes == b->value_bytes &&
	       memcmp(a->times, b->times, a->key_count * sizeof(float)) == 0 &&
	       memcmp(a->values, b->values, a->value_bytes) == 0;
}

void clip_init(struct clip *clip)
{
	memset(clip, 0, sizeof(*clip));
}

void clip_cleanup(struct clip *clip)
{
	for (size_t i = 0; i < clip->target_count; i++)
		free(clip->targets[i].name);
	for (size_t i = 0; i < clip->sampler_count; i++) {
		free(clip->samplers[i].times);
		free(clip->samplers[i].values);
	}
	free(clip->targets);
	free(clip->samplers);
	free(clip->channels);
	free(clip->name);
	clip_init(clip);
}

struct resource *resource_create(const char *family, const char *class_name)
{
	struct resource *res = calloc(1, sizeof(*res));

	if (!res)
		return NULL;
	snprintf(res->family, sizeof(res->family), "%s", family);
	snprintf(res->class_name, sizeof(res->class_name), "%s", class_name);
	clip_init(&res->clip);
	res->assumed = json_array();
	if (!res->assumed) {
		free(res);
		return NULL;
	}
	return res;
}

void resource_free(struct resource *res)
{
	if (!res)
		return;
	if (res->track_names)
		for (size_t i = 0; i < res->clip.channel_count; i++)
			free(res->track_names[i]);
	free(res->track_names);
	if (res->extras)
		for (size_t i = 0; i < res->clip.channel_count; i++)
			json_decref(res->extras[i].info);
	free(res->extras);
	clip_cleanup(&res->clip);
	json_decref(res->metadata);
	json_decref(res->assumed);
	free(res->refs);
	rig_cleanup(&res->rig);
	free(res->name);
	free(res);
}

int resource_add_reference(struct resource *res, uint32_t crc32, const char *kind, int32_t track,
                           int32_t key)
{
	struct reference *refs;

	if ((res->ref_count & (res->ref_count + 1)) == 0 || !res->refs) {
		size_t cap = (res->ref_count + 1) * 2;
		refs = realloc(res->refs, cap * sizeof(*refs));
		if (!refs)
			return -1;
		res->refs = refs;
	}
	refs = &res->refs[res->ref_count++];
	refs->crc32 = crc32;
	snprintf(refs->kind, sizeof(refs->kind), "%s", kind);
	refs->track = track;
	refs->key = key;
	return 0;
}

int resource_name_tracks(struct resource *res)
{
	const struct clip *clip = &res->clip;

	if (res->track_names || clip->channel_count == 0)
		return 0;
	res->track_names = calloc(clip->channel_count, sizeof(char *));
	if (!res->track_names)
		return -1;
	for (size_t i = 0; i < clip->channel_count; i++) {
		const struct channel *ch = &clip->channels[i];
		const struct target *tg = &clip->targets[ch->target];
		const char *prop = schema_property_name(tg->schema, ch->property);
		char who[96], what[48];
		int n;

		if (tg->name && *tg->name)
			snprintf(who, sizeof(who), "%s", tg->name);
		else
			snprintf(who, sizeof(who), "object %" PRIu64, tg->object);
		if (prop)
			snprintf(what, sizeof(what), "%s", prop);
		else
			snprintf(what, sizeof(what), "property %" PRIu64, ch->property);
		n = snprintf(NULL, 0, "%s %s", who, what);
		res->track_names[i] = malloc((size_t)n + 1);
		if (!res->track_names[i])
			return -1;
		snprintf(res->track_names[i], (size_t)n + 1, "%s %s", who, what);
	}
	return 0;
}

int resource_assume(struct resource *res, const char *note)
{
	return json_array_append_new(res->assumed, json_string(note));
}
