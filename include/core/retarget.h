/* retarget.h: one rig's motion put on another rig's bones (issue 45), through a bone map
 * (bonemap.h). Pure: no I/O, no globals.
 *
 * mode=rest (RETARGET_REST): the target's rest pose is first matched to the source's, bone by
 * bone in the target's order: each mapped target bone is turned (under its parent, already
 * turned) so that it points where its source bone points at rest: at its one mapped child, or,
 * with several, at its largest child exactly and about that line at the next. Call A(b) that
 * turned world rotation. Then what each source bone s does relative to its rest, D(s, t) =
 * W(s, t) R(s)^-1 (world rotation at t, and at rest), the target bone does relative to A:
 * W'(b, t) = D(s, t) A(b). A target bone that is not mapped keeps its rest under its parent.
 *
 * mode=world (RETARGET_WORLD): A(b) is the source bone's own rest world rotation, so that
 * W'(b, t) = W(s, t): the source's world rotation copied (three.js's SkeletonUtils.retarget),
 * for rigs whose rest orientations are unrelated.
 *
 * Where the nearest mapped ancestor of b is the source parent of s (or neither has one), b's
 * local rotation is L q(t) M with L and M fixed by the rest poses: the source's keys are
 * rewritten one by one, their times kept (a cubic spline's tangents too: the map is linear),
 * and a rig onto itself gives its keys back bit for bit. Elsewhere the rotation is baked at
 * every key time of the source.
 *
 * Root motion: the topmost mapped bones (the hips) move as their source bones do in the world,
 * from their own rest place: P'(t) = P'(rest) + k (P(t) - P(rest)), k the ratio of the two
 * hips' heights above their rig's lowest joint at rest (root=scale), 1 (keep), or with the
 * travel along the ground (x and z; y is up, as in glTF and BVH) taken out (in_place). Other
 * bones keep their own rest translations (the target's bone lengths), moved only where their
 * source's translation keys move from its rest: T' = T'(rest) + k L (T - T(rest)), where the
 * parents correspond. Scale is not moved. ground=1 then raises or lowers the hips at each source
 * key time so that the target's lowest mapped joint is k times as high as the source's.
 *
 * A chain mapped onto one of another length (the map pairing its ends, the bones between left
 * unpaired on both sides: a 3-bone spine onto a 5-bone one) bends along it: each target bone
 * between turns as the source chain does where its bone's middle falls along the chain, by
 * length (a slerp between the two source bones about it), baked at the source's key times.
 */
#ifndef ANIMDEX_RETARGET_H
#define ANIMDEX_RETARGET_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "core/bonemap.h"
#include "core/model.h"
#include "core/rig.h"

#define RETARGET_MAX_SAMPLES 100000 /* times a baked track is sampled at, at most */

enum retarget_mode { RETARGET_REST, RETARGET_WORLD };
enum retarget_root { RETARGET_ROOT_SCALE, RETARGET_ROOT_KEEP, RETARGET_ROOT_IN_PLACE };

struct retarget_options {
	enum retarget_mode mode;
	enum retarget_root root;
	int ground; /* the hips raised or lowered at each key time of the source so that the
	             * target's lowest mapped joint is k times as high as the source's: a foot on
	             * the ground where the source's is (the hips' travel baked) */
};

/* A source track: what moves a node of the source rig (pose_match found it). */
struct retarget_input {
	uint32_t node;               /* source rig index */
	enum node_property property; /* NODE_TRANSLATION or NODE_ROTATION (others are left) */
	int euler;                   /* enum pose_euler: Euler angles, turned into a rotation */
	const struct sampler *sampler;
};

/* A track of the answer, on the target rig. */
struct retarget_track {
	uint32_t node; /* target rig index */
	enum node_property property;
	int baked;              /* sampled at the source's key times, not rewritten key by key */
	int euler;              /* enum pose_euler: the source's Euler angles, kept as they are */
	struct sampler sampler; /* owned: FLOAT3 translations, FLOAT4 unit quaternions */
};

struct retarget_result {
	struct retarget_track *tracks;
	size_t track_count;
	int32_t hip_from, hip_to;      /* the topmost mapped pair (the root motion's), or -1 */
	double height_from, height_to; /* each rig's joints' extent up (y) at rest */
	double root_scale;             /* k */
	double hip_ratio; /* the two hips' heights above their lowest joint, target / source */
	size_t keys_rewritten, keys_baked;
	int identity;       /* every key came back bit for bit (a rig onto an equal one) */
	int euler_linear;   /* Euler keys became quaternion keys at the same times (the curve
	                     * between them is a slerp, no longer a line in angles) */
	int samples_capped; /* a baked track had more key times than RETARGET_MAX_SAMPLES */
	size_t ignored;     /* source tracks of scale, or of bones not mapped */
};

/* The motion of inputs[0..count) (on `from`) put on `to` through map. Both rigs must pass
 * rig_check; the samplers must fit their property (pose_sampler_fits). 0, or -1 with err set
 * (out of memory, or a value beyond float32). */
int retarget_run(const struct rig *from, const struct retarget_input *inputs, size_t count,
                 const struct rig *to, const struct bonemap *map,
                 const struct retarget_options *opt, struct retarget_result *out,
                 struct error *err);
void retarget_result_cleanup(struct retarget_result *r);

/* Every key time of the inputs, each once, in increasing order (time 0 alone when they have
 * none), at most `most` of them, evenly taken (*capped then set, when given); malloc'd, *n of
 * them; NULL when out of memory. */
float *retarget_key_times(const struct retarget_input *inputs, size_t count, size_t most, size_t *n,
                          int *capped);

/* Every joint's extent up (max y - min y of the world positions at rest), or, for a flat rig,
 * its largest extent along any axis; 0 for one joint. */
double retarget_rig_height(const struct rig *rig);

/* What a retarget is worth, without ground truth (retarget_quality.c). Lengths are fractions
 * of a rig's height (retarget_rig_height). */
struct retarget_quality {
	size_t samples;   /* times compared */
	double cycle;     /* from onto to onto from: the largest world-position error, of from */
	double effectors; /* hands, feet and head about the hips, against the source's times k, of
	                   * to; -1 when no such bone is mapped */
	size_t effector_count;
	double skate_from, skate_to; /* a foot's travel along the ground while it is the lowest
	                              * mapped foot, summed, of from's height; the target's scaled
	                              * back by hip_ratio first; -1 without feet */
};

/* The figures of result (made by retarget_run from the same arguments). 0, or -1 with err. */
int retarget_measure(const struct rig *from, const struct retarget_input *inputs, size_t count,
                     const struct rig *to, const struct bonemap *map,
                     const struct retarget_options *opt, const struct retarget_result *result,
                     struct retarget_quality *q, struct error *err);

#endif
