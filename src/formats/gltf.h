/* gltf.h: what gltf.c (the animations) and gltf_data.c (the bytes they read) share. */
#ifndef ANIMDEX_FORMATS_GLTF_H
#define ANIMDEX_FORMATS_GLTF_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"

#define GLB_MAGIC            0x46546C67u /* "glTF" */
#define GLB_CHUNK_JSON       0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN        0x004E4942u /* "BIN\0" */
#define QUATERNION_TOLERANCE 0.00769f
#define MAX_ZERO_ELEMENTS    (1u << 24) /* components of an accessor without a buffer view */

enum {
	COMPONENT_BYTE = 5120,
	COMPONENT_UBYTE,
	COMPONENT_SHORT,
	COMPONENT_USHORT,
	COMPONENT_UINT = 5125,
	COMPONENT_FLOAT
};

enum path { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE, PATH_WEIGHTS, PATH_OTHER };

struct gltf_buffer {
	const uint8_t *data; /* NULL until loaded */
	size_t length;
	uint8_t *owned; /* decoded data URI */
	int sibling;    /* index of the request file it came from, or -1 */
};

struct gltf {
	const struct upload *up;
	json_t *doc;
	const uint8_t *bin; /* a .glb's BIN chunk */
	size_t bin_length;
	int glb;
	struct gltf_buffer *buffers;
	size_t buffer_count;
	struct error *err;
	int32_t *parent; /* every node's parent (-1 a root), read once for all the animations */
};

struct accessor {
	json_int_t component_type;
	unsigned components;
	size_t count;
	int normalized;
	int has_bounds;
	int has_stride;    /* its buffer view sets a byteStride other than the element's size */
	int packed_stride; /* ... or one equal to it: the same bytes as none (doc/formats.md 4) */
};

/* The file of the upload that a relative URI names (by its path, else by its file name),
 * marked used (stored inside the glTF, not decoded alone): its index in up->siblings; -1 when
 * none was uploaded, -2 when the URI is not valid. `name` holds the URI decoded. */
int gltf_sibling(struct gltf *g, const char *uri, char *name, size_t size);

/* The upload's file name without its directory and extension ("CesiumMan"): 1, or 0 when
 * there is none. */
int gltf_file_stem(const struct upload *up, char *out, size_t size);

/* Refuses the file: err set to the validator's code at the JSON pointer, with the message;
 * -1. */
int gltf_fail(struct gltf *g, const char *code, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* doc[key][index], or NULL. */
const json_t *gltf_item(const json_t *doc, const char *key, json_int_t index);
/* o[key] when it is an integer, else fallback. */
json_int_t gltf_int(const json_t *o, const char *key, json_int_t fallback);

/* The container: g->doc and, for a .glb, its BIN chunk; -1 with the error set. */
int gltf_parse_container(struct gltf *g);
/* Buffer `index` loaded (the BIN chunk, a data URI, or a file uploaded beside); -1. */
int gltf_load_buffer(struct gltf *g, json_int_t index, const char *pointer);
/* Accessor `index`'s description, checked; -1 with the error set. */
int gltf_accessor_info(struct gltf *g, json_int_t index, const char *pointer, struct accessor *a);
/* Accessor `index`'s elements as floats (normalised integers converted), malloc'd; NULL. */
float *gltf_accessor_read(struct gltf *g, json_int_t index, const char *pointer,
                          const struct accessor *a);
/* Has accessor `index` data (a buffer view or sparse values), or is it all zeros? */
int gltf_has_data(struct gltf *g, json_int_t index);
/* Accessor `index`'s bytes as stored (a tightly packed buffer view, no sparse values), for a
 * track animdex's export kept in extras: malloc'd, or NULL with the error set. */
uint8_t *gltf_accessor_raw(struct gltf *g, json_int_t index, const char *pointer,
                           const struct accessor *a);

/* The rig of the animation decoded into res (its targets are node indices): the nodes it
 * animates, their ancestors, the joints of skins it moves (gltf_rig.c); -1 with the error
 * set. */
int gltf_rig(struct gltf *g, struct resource *res, int whole);
/* The tracks animdex's export kept in a node of its own (an entry glTF animates nothing of: a
 * bare keyframer, a Vehicle Animation): the node's extras.animdex.not_animated, when the asset
 * is animdex's; else NULL. */
const json_t *gltf_entry_node_tracks(const struct gltf *g, const json_t *node);

/* gltf_kept.c. An animation's kept tracks (extras.animdex.not_animated) when the asset is
 * animdex's, else NULL. */
const json_t *gltf_kept_tracks(const struct gltf *g, const json_t *anim);
/* Kept item k of the list at `where` into res: 0, 1 when it is not one animdex reads (said on
 * the entry), or -1 with the error set. */
int gltf_read_kept(struct gltf *g, const json_t *item, const char *where, size_t k,
                   struct resource *res);
/* The nodes animdex's export made of entries, and each made an entry again (0 or -1). */
size_t gltf_count_entry_nodes(const struct gltf *g);
int gltf_decode_entry_nodes(struct gltf *g, struct decode_result *out);

/* gltf.c, shared with gltf_kept.c: a skipped item said in the answer; a clip's resource with
 * room for nch tracks (NULL, error set, when out of memory). */
void gltf_skip(struct decode_result *out, const char *name, const char *type, const char *reason);
struct resource *gltf_animation_resource(struct gltf *g, size_t nch);
/* A file with nodes and no animation: one entry of class Skeleton, every node in its rig
 * (whole, for gltf_rig). */
int gltf_skeleton(struct gltf *g, struct decode_result *out);

#endif
