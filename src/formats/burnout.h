/* burnout.h: what burnout.c (the resources) and burnout_bundle.c (BND2 bundles) share. */
#ifndef ANIMDEX_FORMATS_BURNOUT_H
#define ANIMDEX_FORMATS_BURNOUT_H

#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"
#include "formats/reader.h"

#define TYPE_VEHICLE_ANIMATION 0x10023u
#define TYPE_BODY_PART_REMAP   0x10024u
#define DEFAULT_MAX_INFLATE    (64u * 1024 * 1024)

/* A Vehicle Animation resource (layout: "32", "64" or NULL to tell from the bytes), or a Body
 * Part Remap Data resource; NULL with err set. */
struct resource *burnout_vehicle_animation(const uint8_t *data, size_t length, const char *layout,
                                           struct error *err);
/* The rig of a decoded Vehicle Animation (burnout_rig.c), from its metadata: -1 with err set
 * when out of memory. */
int burnout_vehicle_rig(struct resource *res, struct error *err);
struct resource *burnout_body_part_remap(const uint8_t *data, size_t length, struct error *err);

/* The resource of a bundle's entry of resource ID `id` (the low 32 bits): its bytes before its
 * imports, inflated, malloc'd. 0, or -1 with err set (422 naming "bundle" when no entry has
 * that ID). */
int burnout_bundle_resource(const struct upload *bundle, uint32_t id, uint8_t **bytes,
                            size_t *length, struct error *err);

/* A bundle rebuilt with one resource replaced (doc/formats.md 2.3): the entry's new block is the
 * new bytes then its old imports (deflated anew when the bundle is compressed); every other
 * block keeps its bytes; whatever lay after the old block moves by a multiple of the largest
 * alignment any entry asks (at least 128 bytes), and the offsets pointing there move with it;
 * the entry's sizes and importsOffset are its new ones. */
struct burnout_bundle_rebuilt {
	uint8_t *bytes; /* malloc'd */
	size_t length;
	unsigned entry; /* the entry replaced */
	int compressed;
	int64_t moved; /* how far the bytes after it moved */
};
int burnout_bundle_replace(const struct upload *bundle, uint32_t id, const uint8_t *bytes,
                           size_t length, struct burnout_bundle_rebuilt *out, struct error *err);

/* Where a Vehicle Animation's fields and arrays are, read as its decoder reads them (for
 * burnout_native.c): the byte order, the layout, and each array's count and start (parts,
 * animations, states). */
struct burnout_vehicle_shape {
	enum byte_order order;
	int is64;
	size_t header;                        /* 0x130 or 0x140 */
	size_t wheel_indices, wheel_matrices; /* field offsets */
	uint64_t count[3], start[3];
	uint64_t offset[3]; /* as stored: 0 when an array follows the header in order */
	uint32_t resource_size;
};
#define BURNOUT_PART_SIZE      3
#define BURNOUT_ANIMATION_SIZE 0x40
#define BURNOUT_STATE_SIZE     0x30
/* 0, or -1 with err set as burnout_vehicle_animation() sets it. */
int burnout_vehicle_shape(const uint8_t *data, size_t length, const char *layout,
                          struct burnout_vehicle_shape *out, struct error *err);
/* Every resource of a bundle animdex reads, into out; -1 with err set. */
int burnout_bundle_decode(const struct upload *up, struct decode_result *out, struct error *err);

#endif
