/* pose.h: a rig posed by tracks at a time (DESIGN's "pose"): for every node, its local
 * translation, rotation and scale (a keyed channel replaces the rest channel; a channel no
 * track moves keeps the rest value) and its world matrix, world(parent) x local, column-major
 * as glTF writes it. Pure: no I/O, no globals; each track is evaluated by the one sampling
 * engine (curve.h) with its own cursor, so a sweep of increasing times walks the keys.
 *
 * Which node a track moves (pose_match): on the entry's own rig, the node whose source index
 * is the target's object; on another entry's rig, the bone with the track's handle (Zouna),
 * else the node of the target's name, else, where neither has a name (nor a handle), the node
 * of the same source index.
 */
#ifndef ANIMDEX_POSE_H
#define ANIMDEX_POSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/curve.h"
#include "core/model.h"
#include "core/rig.h"

/* Floats of one node's local pose: translation x y z, rotation x y z w, scale x y z. */
#define POSE_TRS 10

/* What a track says of its target, for matching it to a rig node. */
struct pose_target {
	const char *schema; /* model.h SCHEMA_* */
	uint64_t object;    /* node index in the source, or engine object */
	const char *name;   /* or NULL */
	int has_handle;     /* a Zouna bone's name hash */
	uint32_t handle;
	uint64_t property; /* enum node_property for SCHEMA_NODE */
};

/* The rig index of the node a track moves, or -1 with *why set to a sentence saying why it
 * moves none. own_rig: the rig is the track's entry's own (matched by source index). */
int32_t pose_match(const struct rig *rig, const struct pose_target *target, int own_rig,
                   const char **why);

/* How a track's three angles make a rotation. */
enum pose_euler {
	POSE_EULER_NONE = 0,  /* not Euler angles */
	POSE_EULER_ZOUNA = 1, /* radians applied X, then Y, then Z (q = qz qy qx): the order
	                       * animdex assumes for Zouna (doc/formats.md 1.4) */
	/* MOCAP_ROTATION_XYZ ... MOCAP_ROTATION_ZYX (2 to 7): degrees in that order (model.h) */
};

/* A track in another schema that moves a node says so in the node's terms: a Zouna bone's
 * Euler rotation (KeyframerBezierRot_Z) and a motion-capture joint's rotation become a node
 * rotation (the answer says how its angles turn: enum pose_euler), a joint's position a node
 * translation (POSE_EULER_NONE). Any other target is left as it is (POSE_EULER_NONE). */
int pose_target_euler(struct pose_target *t);
/* Euler angles as a unit quaternion, as `euler` (enum pose_euler) says they turn; the export
 * bakes them the same way. */
void pose_euler_quaternion(int euler, const float e[3], float q[4]);

/* Whether a sampler can drive a node's property: translation and scale FLOAT3, rotation a
 * FLOAT4 quaternion (or, euler, FLOAT3 angles), one value per key. NULL, or why not. */
const char *pose_sampler_fits(enum node_property property, int euler, const struct sampler *s);

struct pose_track {
	uint32_t node; /* rig index */
	enum node_property property;
	int euler; /* Euler angles, turned into the rotation */
	struct curve curve;
	struct curve_cursor cursor;
};

struct pose {
	const struct rig *rig;
	struct pose_track *tracks;
	size_t track_count, track_cap;
	uint32_t *order; /* the rig's nodes, every parent before its children */
	float *trs;      /* rig->count x POSE_TRS: the local pose at the last time */
	double *world;   /* rig->count x 16: the world matrices at the last time */
};

/* 0, or -1 when out of memory. The rig must pass rig_check and outlive the pose. */
int pose_init(struct pose *p, const struct rig *rig);
void pose_cleanup(struct pose *p);
/* A track that moves node's property (pose_sampler_fits must have said yes); the sampler's
 * arrays must outlive the pose. 0, or -1 when out of memory. */
int pose_add_track(struct pose *p, uint32_t node, enum node_property property, int euler,
                   const struct sampler *s);
/* Poses the rig at t: trs and world. Times in increasing order go fastest. */
void pose_at(struct pose *p, float t);

#endif
