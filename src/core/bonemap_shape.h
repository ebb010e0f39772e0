/* bonemap_shape.h: a humanoid rig's chains found by its shape at rest, for the bone map's
 * "shape" rule (bonemap.c), where no name, handle or structure pairs the bones (a game's
 * skeleton whose bones are hashes nobody has named, onto a motion-capture take).
 *
 * The hips are the first bone from the root with two children or more. Each of their children
 * leads a subtree: the one whose joints lie above the hips, on average, with the most joints is
 * the spine; the two below are the legs, told apart by the side (x) they lie on. The spine goes
 * up its largest child to the chest, its first bone of two children or more; of the chest's
 * children, a subtree that lies more to a side than up is an arm (one a side), the one above
 * the neck and head. A leg, the neck and an arm go on down their largest child, an arm to its
 * hand (its first bone of two children or more, or its end).
 */
#ifndef ANIMDEX_BONEMAP_SHAPE_H
#define ANIMDEX_BONEMAP_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/rig.h"

enum bonemap_chain {
	CHAIN_SPINE,
	CHAIN_NECK,
	CHAIN_ARM_PLUS,  /* the arm on the side of +x */
	CHAIN_ARM_MINUS, /* and of -x */
	CHAIN_LEG_PLUS,
	CHAIN_LEG_MINUS,
	CHAIN_COUNT
};

struct bonemap_chains {
	int32_t hips;                /* -1 when the rig has no such shape */
	int32_t *bones[CHAIN_COUNT]; /* each chain's bones from the hips out (malloc'd), or NULL */
	double *along[CHAIN_COUNT];  /* where each bone starts along its chain, 0 to 1 */
	size_t length[CHAIN_COUNT];
};

/* Every joint's rest world position, then (from count x 3 on) the average of its subtree's
 * (where it reaches: a joint at its parent's place still points somewhere), 2 x count x 3
 * malloc'd; NULL when out of memory. */
double *bonemap_shape_rest(const struct rig *rig);

/* The chains of rig. 0 (hips -1 when it has no humanoid shape), or -1 when out of memory. */
int bonemap_shape_chains(const struct rig *rig, struct bonemap_chains *out);
void bonemap_shape_cleanup(struct bonemap_chains *c);

#endif
