/* retarget_plan.h: what the retarget's files share (core/retarget.h): both rigs at rest, the
 * target's rest matched to the source's, and what moves where.
 *
 *   retarget_plan.c  the rests, the matching (A), the chains, the hips' scale, the key times
 *   retarget.c       the keys rewritten or baked, the answer's tracks
 */
#ifndef ANIMDEX_RETARGET_PLAN_H
#define ANIMDEX_RETARGET_PLAN_H

#include "core/retarget.h"

#define ALIGN_TOLERANCE 1e-9 /* shorter directions (relative) point nowhere */
#define ANCESTOR_WALK   64   /* how far up (or down a chain) a bone is looked for */

extern const double retarget_no_turn[4];

/* A rig at rest: world rotations (scale left out), world positions, local rotations. */
struct rest {
	const struct rig *rig;
	uint32_t *order;
	double *world_q; /* count x 4 */
	double *world_p; /* count x 3 */
	double *world_m; /* count x 16 */
	double *local_q; /* count x 4 */
};

/* What the retarget works from. */
struct plan {
	const struct rig *from, *to;
	const struct bonemap *map;
	struct retarget_options opt;
	struct rest rs, rt;
	double *aligned; /* to->count x 4: A(b), the target's rest world rotations matched */
	int32_t *first_child, *next_sibling; /* to->count each: the target's children, or -1 */
	int32_t *anc_src;     /* to->count: the source of b's nearest mapped ancestor, or -1 */
	unsigned char *still; /* from->count: no track moves the bone nor any ancestor */
	const struct retarget_input **rot_of, **pos_of; /* from->count */
	float *times; /* the source's key times, for what is baked */
	size_t time_count;
	double k;       /* root motion's scale */
	double mask[3]; /* which world axes of root travel are kept */
	/* to->count: an unmapped target bone between two mapped ones whose sources have bones
	 * between them (a chain of another length): it turns as the source chain does at its
	 * place along the chain, slerp(D(lo), D(hi), weight); lo -1 for any other bone */
	int32_t *spread_lo, *spread_hi;
	double *spread_weight;
};

/* Both rests, the matching, the chains and the hips' scale (r->root_scale, hips, heights,
 * ignored). 0, or -1 when out of memory; plan_cleanup either way. */
int retarget_plan_make(struct plan *pl, const struct rig *from, const struct retarget_input *inputs,
                       size_t count, const struct rig *to, const struct bonemap *map,
                       const struct retarget_options *opt, struct retarget_result *r);
void retarget_plan_cleanup(struct plan *pl);

/* A bone's rest world rotation and matrix, the identity's for -1 (no bone). */
const double *retarget_rest_q(const struct rest *r, int32_t i);
const double *retarget_rest_m(const struct rest *r, int32_t i);

#endif
