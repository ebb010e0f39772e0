/* reduce_object.c: the fewest keys across a rig's hierarchy whose largest object-space error
 * stays under a threshold (include/core/reduce.h, reduce_object).
 *
 * An error in a node's local rotation moves every vertex under it by up to the angle times
 * the vertex's distance from the node; an error in its translation moves them by the error
 * itself, through the parent's scale. So each node has a reach: the farthest any virtual
 * vertex under it is from it, at any sampled time of the original (bounded node by node up
 * the tree, by the triangle inequality). A track's local tolerance is the threshold divided
 * by its lever (its node's reach for a rotation or a scale, its parent's scale for a
 * translation), times one factor k for the whole rig. Errors along a chain may add up or
 * cancel, so k is found by measuring: doubled or halved until the largest error crosses the
 * threshold, then bisected; the reduction kept is the one with the fewest keys whose measured
 * largest error (object_error.h, every sampled time) is under the threshold.
 */
#include "core/reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pose.h"

#define SEARCH_ROUNDS 5  /* bisections of k, each halving the gap in log2(k) */
#define SEARCH_LIMIT  12 /* doublings or halvings of k before the search gives up */
#define DEGREES       (180.0 / 3.14159265358979323846)
#define SQRT3         1.7320508075688772

/* The largest column length of a world matrix's 3x3: the most it stretches a length. */
static double stretch(const double *m)
{
	double worst = 0;

	for (int c = 0; c < 3; c++) {
		double l = sqrt(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] +
		                m[c * 4 + 2] * m[c * 4 + 2]);
		worst = l > worst ? l : worst;
	}
	return worst;
}

/* Each node's reach and its parent's stretch, the largest over the original's sampled times. */
static int levers(const struct rig *rig, const struct object_track *tracks, size_t count,
                  const float *times, size_t times_count, double vv, double *reach,
                  double *parent_stretch)
{
	size_t n = rig->count;
	double *now = malloc((n ? n : 1) * sizeof(*now));
	struct pose p;

	if (!now || pose_init(&p, rig) < 0) {
		free(now);
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (pose_add_track(&p, tracks[i].node, tracks[i].property, tracks[i].euler,
		                   tracks[i].keys) < 0) {
			pose_cleanup(&p);
			free(now);
			return -1;
		}
	for (size_t i = 0; i < n; i++)
		reach[i] = parent_stretch[i] = 0;
	for (size_t t = 0; t < times_count; t++) {
		pose_at(&p, times[t]);
		for (size_t i = 0; i < n; i++)
			now[i] = vv * stretch(p.world + i * 16);
		for (size_t k = n; k-- > 0;) { /* children before parents */
			uint32_t i = p.order[k];
			int32_t up = rig->nodes[i].parent;
			double s = up >= 0 ? stretch(p.world + (size_t)up * 16) : 1, d = 0;
			if (now[i] > reach[i] || isnan(now[i]))
				reach[i] = now[i];
			if (s > parent_stretch[i] || isnan(s))
				parent_stretch[i] = s;
			if (up < 0)
				continue;
			for (int a = 0; a < 3; a++) {
				double e =
				    p.world[i * 16 + 12 + a] - p.world[(size_t)up * 16 + 12 + a];
				d += e * e;
			}
			d = sqrt(d) + now[i];
			if (d > now[up] || isnan(d))
				now[up] = d;
		}
	}
	pose_cleanup(&p);
	free(now);
	return 0;
}

/* The local tolerance at k = 1 of a track: what moves no vertex farther than the threshold on
 * its own. */
static double base_tolerance(const struct object_track *t, double threshold, double reach,
                             double parent_stretch)
{
	double lever = t->property == NODE_TRANSLATION ? SQRT3 * parent_stretch
	               : t->property == NODE_SCALE     ? SQRT3 * reach
	                                               : reach;

	if (t->property == NODE_ROTATION && t->euler) /* three angles, each its own error */
		lever *= 3 / (t->euler == POSE_EULER_ZOUNA ? 1 : DEGREES);
	if (!(lever > 0) || !isfinite(lever))
		return INFINITY; /* moves nothing the measure sees */
	return threshold / lever;
}

struct attempt {
	struct sampler *out; /* count of them */
	uint64_t keys;
	int within; /* every sample within the threshold */
};

static void attempt_free(struct attempt *a, size_t count)
{
	for (size_t i = 0; a->out && i < count; i++) {
		free(a->out[i].times);
		free(a->out[i].values);
	}
	free(a->out);
	a->out = NULL;
}

/* Every track reduced at k times its base tolerance, and measured. */
static int try_scale(struct object_error_reference *ref, const struct object_track *tracks,
                     size_t count, const double *base, double k,
                     const struct reduce_object_options *opt, struct attempt *a)
{
	const struct sampler **changed = calloc(count + 1, sizeof(*changed));

	a->keys = 0;
	a->out = calloc(count + 1, sizeof(*a->out));
	if (!a->out || !changed) {
		free(changed);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const struct sampler *s = tracks[i].keys;
		struct reduce_result r;
		double tolerance = k * base[i];
		int failed = reduce_applies(s) && isfinite(tolerance) && tolerance > 0
		                 ? reduce_sampler_quickly(s, tolerance, opt->fit, &a->out[i], &r)
		                 : sampler_copy(&a->out[i], s);
		if (failed) {
			free(changed);
			return -1;
		}
		changed[i] = &a->out[i];
		a->keys += a->out[i].key_count;
	}
	a->within = object_error_within(ref, changed, opt->threshold);
	free(changed);
	return a->within < 0 ? -1 : 0;
}

/* Keeps attempt a in *best when it passes with fewer keys (else frees it). */
static void keep_best(struct attempt *a, struct attempt *best, int *have, size_t count)
{
	if (a->within && (!*have || a->keys < best->keys)) {
		if (*have)
			attempt_free(best, count);
		*best = *a;
		*have = 1;
	} else {
		attempt_free(a, count);
	}
	a->out = NULL;
}

int reduce_object(const struct rig *rig, const struct object_track *tracks, size_t count,
                  const struct reduce_object_options *opt, struct sampler *out,
                  struct reduce_object_result *result)
{
	size_t n = rig->count, times_count = 0;
	float *times = NULL;
	double *reach = malloc((n + 1) * sizeof(*reach)),
	       *stretch_of = malloc((n + 1) * sizeof(double));
	double *base = malloc((count + 1) * sizeof(*base));
	double pass = 0, fail = 0, k = 1;
	struct attempt a = {0}, best = {0};
	struct object_error_reference *ref = NULL;
	const struct sampler **changed = calloc(count + 1, sizeof(*changed));
	int have = 0, rc = -1;

	memset(result, 0, sizeof(*result));
	for (size_t i = 0; i < count; i++)
		result->keys_before += tracks[i].keys->key_count;
	if (!reach || !stretch_of || !base ||
	    object_error_times(tracks, count, opt->duration, &times, &times_count) < 0 ||
	    levers(rig, tracks, count, times, times_count, opt->vv, reach, stretch_of) < 0 ||
	    !changed ||
	    !(ref = object_error_reference_make(rig, tracks, count, times, times_count, opt->vv)))
		goto done;
	for (size_t i = 0; i < count; i++)
		base[i] = base_tolerance(&tracks[i], opt->threshold, reach[tracks[i].node],
		                         stretch_of[tracks[i].node]);
	/* k doubled while it passes, halved while it fails, until the two meet */
	for (int step = 0; step < SEARCH_LIMIT && !(pass > 0 && fail > 0); step++) {
		if (try_scale(ref, tracks, count, base, k, opt, &a) < 0)
			goto done;
		result->rounds++;
		if (a.within)
			pass = k, k *= 2;
		else
			fail = k, k /= 2;
		keep_best(&a, &best, &have, count);
	}
	for (int step = 0; step < SEARCH_ROUNDS && pass > 0 && fail > 0; step++) {
		k = sqrt(pass * fail);
		if (try_scale(ref, tracks, count, base, k, opt, &a) < 0)
			goto done;
		result->rounds++;
		if (a.within)
			pass = k;
		else
			fail = k;
		keep_best(&a, &best, &have, count);
	}
	if (!have) { /* no k small enough: every key kept */
		if (try_scale(ref, tracks, count, base, 0, opt, &a) < 0)
			goto done;
		best = a;
		a.out = NULL;
		pass = 0;
	}
	for (size_t i = 0; i < count; i++)
		changed[i] = &best.out[i];
	if (object_error_measure(rig, tracks, changed, count, times, times_count, opt->vv,
	                         opt->threshold, &result->error) < 0)
		goto done;
	for (size_t i = 0; i < count; i++)
		out[i] = best.out[i];
	free(best.out);
	best.out = NULL;
	result->keys_after = best.keys;
	result->scale = pass;
	rc = 0;
done:
	object_error_reference_free(ref);
	free(changed);
	attempt_free(&a, count);
	attempt_free(&best, count);
	free(times);
	free(reach);
	free(stretch_of);
	free(base);
	return rc;
}
