/* reduce.h: the fewest keys whose curve stays within a tolerance of a dense track. Pure: no
 * I/O, no globals.
 *
 * Blender's glTF exporter samples every frame; a game's keyframer wants a handful of keys. A
 * dense track is reduced by walking it from its first key and making each segment as long as
 * it may be (its length found by doubling, then halving): a segment may end at a dense key
 * when its curve, evaluated by the sampling engine (curve.h), stays within the tolerance of
 * the dense track at every dense key it spans and at the quarters between each two. Three fits:
 *
 * - REDUCE_LINEAR: the kept keys are dense keys, joined as the engine joins them (linear, or
 *   slerp for quaternions);
 * - REDUCE_HERMITE: the kept keys carry fitted tangents (a cubic spline: each key's in- and
 *   out-tangent the dense track's slope there, from its neighbours), so a smooth curve keeps
 *   few keys; a segment of one dense interval whose fitted curve strays takes the chord;
 * - a STEP track keeps a key where its value moves beyond the tolerance from the last kept.
 *
 * The error is the largest difference of one component, or, for a quaternion track, the angle
 * between the two rotations in radians. The first and last keys are always kept.
 */
#ifndef ANIMDEX_REDUCE_H
#define ANIMDEX_REDUCE_H

#include "core/model.h"
#include "core/object_error.h"

enum reduce_fit { REDUCE_LINEAR, REDUCE_HERMITE };

struct reduce_result {
	uint32_t keys_before, keys_after;
	double largest_error; /* measured against the dense track, as above */
};

/* Whether reduce_sampler() can reduce this track: FLOAT to FLOAT4 values, one a key. */
int reduce_applies(const struct sampler *dense);

/* Reduces `dense` (reduce_applies) within `tolerance` (> 0) into *out (its times and values
 * malloc'd, the caller's to free). A STEP track stays STEP; a LINEAR or CUBIC_SPLINE one becomes
 * LINEAR (REDUCE_LINEAR, and always for quaternions) or CUBIC_SPLINE (REDUCE_HERMITE).
 * 0, or -1 when out of memory. */
int reduce_sampler(const struct sampler *dense, double tolerance, enum reduce_fit fit,
                   struct sampler *out, struct reduce_result *result);

/* The same by a greedy walk (from each key kept, the furthest end a doubling search finds):
 * much faster, a few keys more; for searches that reduce a track again and again. */
int reduce_sampler_quickly(const struct sampler *dense, double tolerance, enum reduce_fit fit,
                           struct sampler *out, struct reduce_result *result);

/* The object-space reduction (reduce_object.c): the tracks of one rig reduced together. */
struct reduce_object_options {
	double threshold;    /* rig units (> 0): the largest object-space error allowed */
	double vv;           /* rig units (> 0): the virtual vertices' distance */
	double duration;     /* seconds: the clip's, for the sampled times */
	enum reduce_fit fit; /* as reduce_sampler takes it */
};

struct reduce_object_result {
	uint64_t keys_before, keys_after;
	struct object_error_report error; /* of the keys kept, against the original */
	double scale;                     /* the factor k found (0: every key kept) */
	unsigned rounds;                  /* reductions tried */
};

/* Reduces `tracks` (count of them, on `rig`, which must pass rig_check) together, so that the
 * largest object-space error (object_error.h) of the result stays at or under
 * opt->threshold: out[i] (count of them; arrays malloc'd, the caller's) are tracks[i].keys
 * reduced, or copied where reduce_applies says no. When no reduction stays under the
 * threshold, every key is kept (result->scale 0). 0, or -1 when out of memory. */
int reduce_object(const struct rig *rig, const struct object_track *tracks, size_t count,
                  const struct reduce_object_options *opt, struct sampler *out,
                  struct reduce_object_result *result);

#endif
