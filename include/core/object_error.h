/* object_error.h: how far a changed animation moves a rig's skin from where the original put it,
 * measured in object space as ACL (the Animation Compression Library) measures compressed
 * animation. Pure: no I/O, no globals.
 *
 * Every node of the rig carries three virtual vertices, one at a distance `vv` along each of
 * its own axes. At every sampled time both animations pose the rig (pose.h), the vertices go
 * through each node's world matrix, and a node's error at that time is the largest distance
 * between where the original and the changed animation put one of its vertices. An error at
 * the root so moves every vertex under it, while the same error at a finger moves three.
 *
 * Sampled times: every key time of the original's tracks (within the clip), and the middle of
 * every two neighbouring ones, where interpolation strays most.
 *
 * Lengths are in the rig's own units. The rig's height is the largest side of the box around
 * its nodes in the rest pose (a T-pose's arm span is about its height), or, where the rest
 * pose puts every node in one place, in the first pose sampled; a length asked in centimetres
 * is scaled as if the rig were a person of OBJECT_ERROR_HUMAN_CM.
 */
#ifndef ANIMDEX_OBJECT_ERROR_H
#define ANIMDEX_OBJECT_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "core/pose.h"
#include "core/rig.h"

#define OBJECT_ERROR_HUMAN_CM   180.0 /* the height a length in cm is scaled against */
#define OBJECT_ERROR_DEFAULT_VV 3.0   /* cm: ACL's virtual vertex distance */

/* A track as it moves a rig node (pose_match and pose_target_euler have said which). */
struct object_track {
	uint32_t node;               /* rig index */
	enum node_property property; /* NODE_TRANSLATION, NODE_ROTATION or NODE_SCALE */
	int euler;                   /* enum pose_euler: Euler angles turned into the rotation */
	const struct sampler *keys;  /* passes pose_sampler_fits */
};

/* The object track of keys `s` whose target is t, on rig (own_rig as pose_match takes it): 0,
 * or -1 with *why set to why it moves no node of the rig. */
int object_track_match(const struct rig *rig, struct pose_target t, int own_rig,
                       const struct sampler *s, struct object_track *out, const char **why);

/* Where the rig's height came from. */
enum object_height_source { HEIGHT_REST_POSE, HEIGHT_FIRST_POSE, HEIGHT_UNIT };

struct object_scale {
	double height;                    /* rig units */
	enum object_height_source source; /* how it was found */
	double units_per_cm;              /* height / OBJECT_ERROR_HUMAN_CM */
};

struct object_error_report {
	double vv;        /* the virtual vertices' distance, rig units */
	double threshold; /* rig units: the share under it is counted */
	size_t times;     /* sampled times */
	size_t samples;   /* nodes x times */
	double largest;   /* rig units */
	uint32_t largest_node;
	float largest_time;
	double p99;         /* the 99th percentile of the samples' errors */
	double share_under; /* of samples whose error is under threshold, 0 to 1 */
};

/* The rig's height and the units a centimetre is, posed by `tracks` (count of them) where the
 * rest pose gives none. 0, or -1 when out of memory. */
int object_error_scale(const struct rig *rig, const struct object_track *tracks, size_t count,
                       struct object_scale *out);

/* The sampled times of `tracks` (their key times within [0, duration] and the middles), sorted,
 * into *times (malloc'd, *count of them; at least one: 0). 0, or -1 when out of memory. */
int object_error_times(const struct object_track *tracks, size_t count, double duration,
                       float **times, size_t *times_count);

/* The error of the animation `changed` (count samplers, changed[i] standing for tracks[i].keys;
 * a NULL one is the original's) against `tracks`, over `times`, with vertices at vv and the
 * share under threshold (both rig units) into *out. 0, or -1 when out of memory. */
int object_error_measure(const struct rig *rig, const struct object_track *tracks,
                         const struct sampler *const *changed, size_t count, const float *times,
                         size_t times_count, double vv, double threshold,
                         struct object_error_report *out);

/* The same for two animations of the rig each with tracks of its own: `other` (other_count
 * tracks) against `tracks`. */
int object_error_compare(const struct rig *rig, const struct object_track *tracks, size_t count,
                         const struct object_track *other, size_t other_count, const float *times,
                         size_t times_count, double vv, double threshold,
                         struct object_error_report *out);

/* The original's virtual vertices at every sampled time, kept (up to OBJECT_ERROR_CACHE_BYTES;
 * past it, posed again each time) so that many changed animations are measured against it
 * quickly, as a reduction's search does. */
#define OBJECT_ERROR_CACHE_BYTES ((size_t)64 << 20)
struct object_error_reference;

/* NULL when out of memory. The arguments must outlive the reference. */
struct object_error_reference *object_error_reference_make(const struct rig *rig,
                                                           const struct object_track *tracks,
                                                           size_t count, const float *times,
                                                           size_t times_count, double vv);
void object_error_reference_free(struct object_error_reference *ref);
/* 1 when no sample of `changed` (as object_error_measure takes it) is farther than threshold
 * from the original, 0 when one is (it stops there), -1 when out of memory. */
int object_error_within(struct object_error_reference *ref, const struct sampler *const *changed,
                        double threshold);

#endif
