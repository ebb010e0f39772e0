/* native.h: an entry written back as the game's own bytes (doc/formats.md 1.8).
 *
 * A native file is made from two things: the entry (its tracks, the source of every value)
 * and a template, a file of the game's own bytes that animdex decodes (often an earlier
 * version of the same handle, or the entry itself). The template gives everything the entry
 * lacks: the layout, the byte order, the headers, each keyframer's class and flags, the
 * records, and the bytes of every slice of keys whose values did not change. A slice is
 * unchanged when the entry's track equals, value for value, what animdex's decoder reads from
 * the template's slice, or what animdex's glTF export of it writes; its bytes are copied
 * (byte-swapped when another byte order is asked for). Changed slices are written in the template's
 * classes, quantised to the nearest step.
 */
#ifndef ANIMDEX_NATIVE_H
#define ANIMDEX_NATIVE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "core/model.h"
#include "formats/format.h"

/* The largest tolerance reduce= takes. */
#define NATIVE_MAX_TOLERANCE 1e6
/* Said beside a reduction whose largest error is above its tolerance (Zouna and Radient). */
#define NATIVE_TOLERANCE_BELOW_FLOAT32                                                            \
	"the tolerance is finer than float32 holds these values apart: the keys kept are within " \
	"float32's rounding of the dense ones, not within the tolerance"
/* The largest native file an encoder writes. */
#define NATIVE_MAX_BYTES ((size_t)1 << 31)

struct native_options {
	int byte_order;   /* -1: the template's; else enum byte_order */
	int bff;          /* -1: as the template has it; 0: none; 16: a 16-byte BFF0 header */
	const char *name; /* the name whose Asobo32 CRC goes into the object header, or NULL */
	int promote;      /* a value a compressed class cannot hold: its uncompressed class
	                   * (bare keyframers; an Animation_Z's classes are fixed) */
	int layout;       /* Burnout: 32 or 64; 0: the template's */
	double reduce;    /* > 0: each changed track reduced to the fewest keys within this
	                   * tolerance of its keys (core/reduce.h); 0: every key written */
	/* What animdex's glTF export writes for a template's track (answers/export.h), so that
	 * a track that came back from an export unchanged counts as unchanged (a rotation made
	 * unit length, an Euler rotation baked into quaternions); NULL: the decoder's reading
	 * alone. 0 with *out filled (its arrays malloc'd), or -1. */
	int (*exported)(void *ctx, const struct sampler *track, int rotation, int euler,
	                struct sampler *out);
	void *exported_ctx;
};

struct native_file {
	uint8_t *bytes; /* malloc'd */
	size_t length;
	const char *extension; /* "Animation_Z", "KeyframerRot_Z" ...: the file name's */
	/* {"container", "byte_order", "tracks": [{"track", "class", "keys", "kept" | "written",
	 * "quantisation"}], "kept_from_template": [...], "defaults": [...]}; owned */
	json_t *report;
};

void native_file_cleanup(struct native_file *f);

/* The first option of a game's binary file that is given (bff, name, promote, layout,
 * byte_order), or NULL: for the encoders of files that take none. */
static inline const char *native_binary_option(const struct native_options *opt)
{
	return opt->bff >= 0          ? "bff"
	       : opt->name            ? "name"
	       : opt->promote         ? "promote"
	       : opt->layout          ? "layout"
	       : opt->byte_order >= 0 ? "byte_order"
	                              : NULL;
}

/* The entry `source` as a Zouna file shaped like `template` (an Animation_Z or a bare
 * keyframer, read as its upload was: template->class_name and ->endian as recorded). 0, or
 * -1 with err set: ERROR_BAD_PARAMETER for a bad option, ERROR_INVALID (422) for a value or
 * a track the template's classes cannot hold, naming the track, the key and the class. */
int native_zouna(const struct upload *template, const struct resource *source,
                 const struct native_options *opt, struct native_file *out, struct error *err);

/* The entry `source` as a Burnout resource shaped like `template` (a Vehicle Animation or a
 * Body Part Remap Data resource, class_name set; the raw resource's bytes). A Vehicle
 * Animation's state animations come from the entry's state tracks (by state index), every
 * other field from the template; opt->layout and opt->byte_order re-lay it (32-bit little or
 * big endian, 64-bit little endian). 0, or -1 with err set as native_zouna() sets it. */
int native_burnout(const struct upload *template, const struct resource *source,
                   const struct native_options *opt, struct native_file *out, struct error *err);

/* An Animation_Z with no records and no keys, for as=Animation_Z (a template made new): the
 * name's CRC as its whole link header, smoothRatio 0, every flag 0, no BFF0 header, in
 * byte_order (an enum byte_order: formats/reader.h). *bytes
 * malloc'd. 0, or -1 with err set. */
int native_zouna_blank_animation(int byte_order, uint32_t name_crc, uint8_t **bytes, size_t *length,
                                 struct error *err);

/* A Zouna template (an Animation_Z) with its link header in another game's form (bff's link
 * headers): "fuel" (FUEL, Toy Story 3) the object's name alone; "rat" or "walle" (Ratatouille,
 * WALL-E) the name, a count and that many link names. Everything else is the template's; what
 * is dropped or added is said in `notes`. *bytes malloc'd. 0, or -1 with err set. */
int native_zouna_relink(const struct upload *template, const char *layout, uint8_t **bytes,
                        size_t *length, json_t *notes, struct error *err);

/* The entry's rig (`source`'s rest pose) as a Zouna Skel_Z on `template` (a Skel_Z as the game
 * stored it): each bone takes the rest translation, rotation and scale of the entry's node that
 * is the same bone; unchanged bones keep their bytes, the rest model matrices under a changed
 * one are made again; bones are not added. 0, or -1 with err set (400 naming an option a Skel_Z
 * does not take; 422 naming template for an entry without a rig or a rotation that is not a
 * unit quaternion). */
int native_zouna_skeleton(const struct upload *template, const struct resource *source,
                          const struct native_options *opt, struct native_file *out,
                          struct error *err);

/* The entry `source` as a Radient clip document shaped like `template` (a clip document as
 * uploaded): each channel of the template takes the entry's track of its target, property and
 * first element; unchanged tracks keep their samplers as written, and the template's bytes
 * come back when nothing changed; the entry's tracks the template lacks are added. 0, or -1
 * with err set (400 naming bff, name, promote, layout or byte_order, which a JSON document
 * has not; 422 naming template for a track of another value type). */
int native_radient(const struct upload *template, const struct resource *source,
                   const struct native_options *opt, struct native_file *out, struct error *err);

/* The bytes of the resource of ID `id` (its low 32 bits) in the BND2 bundle `bundle`, as
 * extraction tools give it (inflated, without its imports): a template for native_burnout().
 * *bytes malloc'd. 0, or -1 with err set (422 naming "bundle" when no entry has that ID). */
int native_burnout_bundle_resource(const struct upload *bundle, uint32_t id, uint8_t **bytes,
                                   size_t *length, struct error *err);

/* The BND2 bundle `bundle` rebuilt with `file` (a native_burnout() answer) in place of its
 * resource of ID `id` (burnout_bundle_replace: every other block keeps its bytes), decoded again
 * and checked; file's bytes become the bundle's and its report gains "bundle". 0, or -1 with
 * err set. */
int native_burnout_bundle(const struct upload *bundle, uint32_t id, struct native_file *file,
                          struct error *err);

#endif
