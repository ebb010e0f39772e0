/* compare.h: how two tracks differ (GET /api/compare). Pure: no I/O. Two tracks whose keys are
 * the same bit for bit are identical without sampling; otherwise both are sampled by the one
 * sampling engine (curve.h) at `count` evenly spaced times over the union of their key ranges,
 * and each component's largest absolute difference, the time it occurs at and the RMS
 * difference are measured. Quaternion tracks are compared as the angle between the two
 * rotations (radians, 2 acos |q1 . q2|), not by components.
 */
#ifndef ANIMDEX_COMPARE_H
#define ANIMDEX_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

#define COMPARE_MAX_COMPONENTS 64 /* the most components a value may have to be compared */

struct compare_result {
	int identical;    /* same keys bit for bit (times, values, interpolation, rules) */
	int times_equal;  /* the key times are the same */
	int values_equal; /* and so are the values */
	int as_angle;     /* one "component": the rotation's angle, radians */
	size_t components;
	double largest[COMPARE_MAX_COMPONENTS]; /* the largest absolute difference */
	double at[COMPARE_MAX_COMPONENTS];      /* the time of the first largest */
	double rms[COMPARE_MAX_COMPONENTS];
	double from, to; /* the times sampled */
	size_t count;    /* how many (0 when identical) */
};

/* Why two samplers cannot be compared (another value type or array size, or values that are
 * not floats), or NULL. */
const char *compare_unfit(const struct sampler *a, const struct sampler *b);

/* Compares a and b (compare_unfit must have said NULL) at count >= 2 times. 0, or -1 when out of
 * memory. */
int compare_samplers(const struct sampler *a, const struct sampler *b, size_t count,
                     struct compare_result *out);

#endif
