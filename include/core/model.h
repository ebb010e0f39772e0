/* model.h: the one in-memory model every decoder produces (doc/formats.md says how each format maps
 * onto it).
 *
 * A clip is shaped like a Radient clip (doc/formats.md 3): targets, samplers and channels. A
 * "track" is one channel with its sampler: what the API lists, samples and charts. A
 * resource is one catalogue entry as a decoder produced it: the clip, its tracks, the family's
 * metadata as JSON, the notes on what was assumed, and the handles its data refers to.
 *
 * Sampler values are packed in Radient's native layout, little-endian: one Value array per key
 * for STEP and LINEAR; in-tangent, value, out-tangent arrays per key for CUBIC_SPLINE. Float
 * types are f32, INT* are i32, UINT* are u32, BOOL is one byte. The model owns every byte it
 * points to: nothing refers into an upload buffer once a decoder returns.
 */
#ifndef ANIMDEX_MODEL_H
#define ANIMDEX_MODEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rig.h"

enum value_type {
	VALUE_UNKNOWN = 0,
	VALUE_BOOL,
	VALUE_INT,
	VALUE_INT2,
	VALUE_INT3,
	VALUE_INT4,
	VALUE_UINT,
	VALUE_UINT2,
	VALUE_UINT3,
	VALUE_UINT4,
	VALUE_FLOAT,
	VALUE_FLOAT2,
	VALUE_FLOAT3,
	VALUE_FLOAT4,
	VALUE_FLOAT2X2,
	VALUE_FLOAT3X3,
	VALUE_FLOAT4X4,
	VALUE_TYPE_COUNT
};

enum scalar_kind { SCALAR_NONE, SCALAR_BOOL, SCALAR_INT, SCALAR_UINT, SCALAR_FLOAT };

enum interpolation { INTERP_STEP = 0, INTERP_LINEAR = 1, INTERP_CUBIC_SPLINE = 2 };

enum semantic { SEMANTIC_COMPONENT_WISE = 0, SEMANTIC_NORMALIZED_QUATERNION = 1 };

#define SCHEMA_NODE  "E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3"
#define SCHEMA_MORPH "8E3A3B5B-2267-4E06-B94A-316746AB9F61"
/* animdex's own schema for engine values no built-in schema names (Zouna keyframers). */
#define SCHEMA_ZOUNA "5A0E7D1C-4F2B-4B8E-9C3A-A5B0C0DE0001"
/* animdex's own schema for Burnout Paradise vehicle state animations. */
#define SCHEMA_BURNOUT "B0A2D7E1-5C3F-4E9A-8D21-7A6B5C4D3E01"
/* animdex's own schema for motion capture as its file stores it (BVH: doc/formats.md 5). */
#define SCHEMA_MOCAP     "3C9B5E2A-71D4-4F06-A8E3-BD0C0DE00003"
#define SCHEMA_TEXT_SIZE 37 /* 36 characters and a NUL */

enum node_property {
	NODE_TRANSLATION = 1,
	NODE_ROTATION = 2,
	NODE_SCALE = 3,
	NODE_VISIBILITY = 4,
};
enum morph_property { MORPH_WEIGHTS = 1 };
enum zouna_property {
	ZOUNA_VALUE = 1,          /* a bare keyframer's value */
	ZOUNA_EULER_ROTATION = 2, /* KeyframerBezierRot_Z: Euler angles, axis order unknown */
	ZOUNA_MESSAGES = 3,       /* an event track */
	ZOUNA_MATERIAL_TRANS_U = 4,
	ZOUNA_MATERIAL_TRANS_V = 5,
	ZOUNA_MATERIAL_DIFFUSE = 6,
	ZOUNA_MATERIAL_EMISSIVE = 7,
	ZOUNA_MATERIAL_ROTATION = 8,
	ZOUNA_MESH = 9,
	ZOUNA_MORPH = 10,
};

/* A joint's position (FLOAT3, the file's units, in place of its rest offset), and its
 * rotation as Euler angles (FLOAT3, degrees, one a letter of the order): ZXY is
 * R = Rz(e[0]) Rx(e[1]) Ry(e[2]), column vectors, so the last letter turns first. */
enum mocap_property {
	MOCAP_POSITION = 1,
	MOCAP_ROTATION_XYZ = 2,
	MOCAP_ROTATION_XZY = 3,
	MOCAP_ROTATION_YXZ = 4,
	MOCAP_ROTATION_YZX = 5,
	MOCAP_ROTATION_ZXY = 6,
	MOCAP_ROTATION_ZYX = 7,
};

enum burnout_property { BURNOUT_STATE_VECTORS = 1 }; /* FLOAT4 over the trigger input */

/* An event track's keys: one per event, UINT[5] STEP, in this order. */
enum event_word {
	EVENT_MESSAGE_CLASS,
	EVENT_RECEIVER,
	EVENT_C,
	EVENT_PARAMETER, /* f32 bits */
	EVENT_MESSAGE_ID,
	EVENT_WORDS
};

/* Where a family's engine evaluates its keys otherwise than doc/formats.md 3.2 (bits). */
enum sampling_rule {
	/* before the first key, the last key's value: the Zouna engine searches forward from
	 * its first segment, finds none, and returns the last key (doc/formats.md 1.3) */
	RULE_LAST_BEFORE_FIRST = 1,
	/* FLOAT4 LINEAR: between keys x, y, z are interpolated and w is 1.0; at a key, the
	 * key's own w (KeyframerVec4fLinear_Z, doc/formats.md 1.3) */
	RULE_W_ONE_BETWEEN_KEYS = 2,
	RULES_KNOWN = 3
};

struct sampler {
	enum value_type type;      /* component type and count of one value */
	uint32_t array_size;       /* whole values per key, >= 1 */
	enum interpolation interp; /* how to go from key to key */
	enum semantic semantic;    /* quaternion semantic implies FLOAT4 */
	uint32_t key_count;        /* entries in times, >= 1 */
	float *times;              /* key_count seconds, strictly increasing */
	void *values;              /* packed native values, value_bytes long */
	size_t value_bytes;        /* = native size x array_size x key_count (x3 cubic) */
	unsigned rules;            /* enum sampling_rule bits; 0 for doc/formats.md 3.2 */
};

struct target {
	char schema[SCHEMA_TEXT_SIZE]; /* upper-case UUID text without braces */
	uint64_t object;               /* node index or engine object id; never 2^64-1 */
	char *name;                    /* may be NULL */
};

struct channel {
	uint32_t target;        /* index into clip targets */
	uint64_t property;      /* non-zero; meaning set by the target's schema */
	uint32_t first_element; /* first array element written */
	uint32_t sampler;       /* index into clip samplers */
};

struct clip {
	char *name;             /* may be NULL */
	double duration;        /* seconds, finite, >= 0 */
	struct target *targets; /* target_count entries */
	size_t target_count;
	struct sampler *samplers; /* sampler_count entries */
	size_t sampler_count;
	struct channel *channels; /* channel_count entries; track n is channel n */
	size_t channel_count;
};

/* What a track has beyond its channel and sampler. */
struct track_extra {
	int events;     /* the keys are events (enum event_word), fired in [from, to) */
	int has_handle; /* the track is about an engine object with this handle */
	uint32_t handle;
	json_t *info; /* family details (keyframer class, flags, readings); owned; or NULL */
};

/* A handle that some part of a resource refers to, indexed for GET /api/handles. */
struct reference {
	uint32_t crc32; /* the handle */
	char kind[32];  /* what refers to it: "handle_key", "message_receiver", "import"... */
	int32_t track;  /* track index, or -1 */
	int32_t key;    /* key index within the track, or -1 */
};

struct resource {
	char family[16];            /* "radient", "zouna", "burnout", "gltf" */
	char class_name[48];        /* e.g. "RadientAnimationClip" */
	char *name;                 /* may be NULL */
	uint32_t crc32;             /* the handle */
	char crc32_source[32];      /* where the handle came from: "name", "header", "crc32="... */
	unsigned decoder_version;   /* the version of the decoder that made it (struct format) */
	struct clip clip;           /* the curves */
	char **track_names;         /* clip.channel_count names */
	struct track_extra *extras; /* clip.channel_count entries, or NULL */
	json_t *metadata;           /* family-specific decoded structure; owned; may be NULL */
	json_t *assumed;            /* array of strings: values resting on an assumption; owned */
	struct reference *refs;     /* ref_count entries */
	size_t ref_count;
	struct rig rig; /* the node tree the tracks move, where the source has one (rig.h) */
};

/* Value type facts. */
const char *value_type_name(enum value_type type);
enum value_type value_type_from_name(const char *name);
unsigned value_type_components(enum value_type type);
enum scalar_kind value_type_scalar(enum value_type type);
/* Bytes of one component in native storage (1 for BOOL, else 4). */
size_t value_type_component_size(enum value_type type);

const char *interpolation_name(enum interpolation interp);
int interpolation_from_name(const char *name, enum interpolation *out);
const char *semantic_name(enum semantic semantic);
int semantic_from_name(const char *name, enum semantic *out);

/* The value type a built-in schema's property requires, or VALUE_UNKNOWN when the schema is
 * not built in; -1 when the schema is built in but the property is not one of its own. */
int schema_property_type(const char *schema, uint64_t property, enum value_type *type);
/* "translation", "rotation", ..., or NULL when unknown. */
const char *schema_property_name(const char *schema, uint64_t property);

/* Components per key value of a sampler: type components x array_size. */
size_t sampler_components(const struct sampler *s);
/* Whether two samplers hold the same keys: type, array size, interpolation, semantic, times
 * and values, bit for bit. */
int sampler_equal(const struct sampler *a, const struct sampler *b);
/* *out becomes a copy of *in with arrays of its own (malloc'd). 0, or -1 when out of memory
 * (out's arrays then freed and NULL). */
int sampler_copy(struct sampler *out, const struct sampler *in);

void clip_init(struct clip *clip);
void clip_cleanup(struct clip *clip);

struct resource *resource_create(const char *family, const char *class_name);
void resource_free(struct resource *res);
int resource_add_reference(struct resource *res, uint32_t crc32, const char *kind, int32_t track,
                           int32_t key);
/* Gives every channel a readable name: "<target name> <property name>". */
int resource_name_tracks(struct resource *res);
int resource_assume(struct resource *res, const char *note);

#endif
