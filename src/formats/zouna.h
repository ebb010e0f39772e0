/* zouna.h: what zouna.c (resources: object headers, Animation_Z, bare keyframers) and
 * zouna_keys.c (the keyframer classes, their keys, the tracks made of them) share. */
#ifndef ANIMDEX_ZOUNA_H
#define ANIMDEX_ZOUNA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"
#include "formats/reader.h"

#define FLOAT_COMP_FACTOR  4096.0f
#define QUAT_COMP_FACTOR   2000.0f
#define FLAG_STEP          0x8
#define MESSAGE_SIZE       20
#define OBJECT_HEADER_SIZE 24
#define ANIMATION_Z_CRC    0x46107D89u
#define SKEL_Z_CRC         0xD73B85ECu /* Asobo32("Skel_Z") */

/* An Animation_Z body's twelve keyframers, in the order they are stored (doc/formats.md 1.5). */
enum {
	KF_NODE_ROT,
	KF_NODE_BEZIER,
	KF_NODE_SCALE,
	KF_NODE_TRANS,
	KF_NODE_MSG,
	KF_MAT_TRANS_U,
	KF_MAT_TRANS_V,
	KF_MAT_DIFFUSE,
	KF_MAT_EMISSIVE,
	KF_MAT_ROT,
	KF_MESH,
	KF_MORPH,
	KF_KEYFRAMER_COUNT
};
struct zouna_body_keyframer {
	const char *field;      /* "node.rot" ... */
	const char *class_name; /* its keyframer class */
};
extern const struct zouna_body_keyframer zouna_animation_keyframers[KF_KEYFRAMER_COUNT];

enum zouna_kind { KIND_HERMITE, KIND_LINEAR, KIND_ROT, KIND_HANDLE, KIND_FLAG, KIND_MESSAGE };

struct zouna_class {
	const char *name;
	int has_flags; /* a u16 flags field before the count */
	enum zouna_kind kind;
	unsigned n;     /* components of a value */
	int compressed; /* i16 components */
	float factor;   /* i16 divisor */
	int inferred;   /* layout inferred from the class name, not from a source */
};

/* One keyframer as read: values decompressed, nothing yet converted. */
struct zouna_keys {
	const struct zouna_class *cls;
	uint16_t flags;
	uint32_t count;
	size_t offset;     /* where it starts in its input */
	int compressed;    /* i16 values (Vec4fLinearComp's reading) */
	float *times;      /* count */
	float *values;     /* count x n */
	float *tin, *tout; /* count x n, Hermite only */
	uint32_t *words;   /* count: handles or flags */
	uint32_t *first;   /* messages: count + 1 indices into events */
	uint32_t *events;  /* messages: EVENT_WORDS per message */
	uint32_t event_count;
	const char *reading; /* which reading of doc/formats.md 1.4 was used, or NULL */
	int ordered;         /* one curve: times must not decrease (in an Animation_Z only each
	                      * record's slice is one curve) */
};

struct track_target {
	const char *schema;
	uint64_t object;
	const char *name;
	uint64_t property;
	int has_handle;
	uint32_t handle;
};

/* An extracted resource's object header (doc/formats.md 1.5). */
struct zouna_object_header {
	size_t start;    /* offset of the object header in the file */
	size_t bff_size; /* size of the "BFF0" header before it, 0 without one */
	enum byte_order order;
	uint32_t data_size, link_size, decompressed_size, compressed_size, class_crc, name_crc;
};

/* Finds the object header (after a BFF0 header, or at 0) in the forced byte order or either;
 * -1 with err set when none adds up. */
int zouna_find_object_header(const struct upload *up, struct zouna_object_header *h,
                             enum byte_order forced, int has_forced, struct error *err);
/* The class a class CRC names among the resource classes animdex knows of, or NULL. */
const char *zouna_class_of_crc(uint32_t crc);
/* The byte orders to try (endian= forces one): their count, or -1 with err set. */
int zouna_byte_orders(const struct upload *up, enum byte_order orders[2], struct error *err);
/* The entry's container as its structure shows it: BFF0 header, object header, link words. */
json_t *zouna_container_json(const struct upload *up, const struct zouna_object_header *h,
                             const char *class_name, json_t *link);
/* A number as stored, as JSON: null when it is not finite (JSON has no NaN), so that one odd
 * float does not lose the structure it sits in. */
json_t *zouna_number_json(double v);
/* A name from the file name, when it is not just the CRC printed in decimal. */
void zouna_name_from_file(const struct upload *up, struct resource *res);
/* A Skel_Z resource (zouna_skel.c, doc/formats.md 1.7): one entry with a rig, no tracks. */
int zouna_decode_skeleton(const struct upload *up, const struct zouna_object_header *h,
                          struct decode_result *out, struct error *err);
/* The bytes of one Skel_Z bone (doc/formats.md 1.7). */
#define ZOUNA_BONE_SIZE 248
/* Where a Skel_Z's bones start (ZOUNA_BONE_SIZE bytes each) and how many there are, read as
 * zouna_decode_skeleton() reads the file (for zouna_skel_native.c). 0, or -1 with err set. */
int zouna_skeleton_bones_at(const struct upload *up, const struct zouna_object_header *h,
                            size_t *bones_at, uint32_t *count, struct error *err);

const struct zouna_class *zouna_class_named(const char *name);
/* Bytes of one key of a fixed-size class, padding included (0 for messages). */
size_t zouna_key_size(const struct zouna_class *c, int compressed);
/* The first of count key times a keyframer of class c could not be read back with (the
 * decoder's rules: finite and non-decreasing; and for the classes whose layout is told apart by
 * its times, KeyframerExtVec3f_Z, KeyframerHdl_Z and KeyframerFlag_Z, 0 or 1e-6 s to 1e7 s in
 * size), with the rule it breaks; -1 when every one can. */
long zouna_first_unreadable_time(const struct zouna_class *c, const float *times, uint32_t count,
                                 const char **rule);
/* Animation_Z or Skel_Z: a resource decoded whole (any case). */
int zouna_is_resource_class(const char *name);
void zouna_keys_cleanup(struct zouna_keys *k);
int zouna_oom(struct error *err);
int zouna_read_keyframer(struct reader *r, const struct zouna_class *c, const char *what,
                         int rest_is_keys, struct zouna_keys *k, struct error *err);
json_t *zouna_keyframer_info(const struct zouna_keys *k);
/* The targets of a resource being decoded, by object and schema, so that finding a record's
 * target does not search every earlier one (zouna_add_track). Zeroed to start. */
struct zouna_target_index {
	size_t *slots; /* a target's index + 1, or 0 for an empty slot; cap entries */
	size_t cap, used;
};
void zouna_target_index_cleanup(struct zouna_target_index *index);
/* Adds one track for keys [start, start + count) of k, its target found in index (or by
 * searching the clip when index is NULL: a resource of one or two targets). Returns the track
 * index, -2 when the slice holds nothing to sample (an empty message slice), or -1 with err
 * set. */
int zouna_add_track(struct resource *res, struct zouna_target_index *index,
                    const struct zouna_keys *k, uint32_t start, uint32_t count,
                    const struct track_target *tt, const char *what, struct error *err);
void zouna_assume_for_class(struct resource *res, const struct zouna_class *c);

#endif
