/* retarget_quality.c: what a retarget is worth with no ground truth (retarget.h): the motion
 * taken back onto its own rig (cycle), the hands, feet and head against the source's, and how
 * far a planted foot slides, source and target posed side by side at the source's key times. */
#include "core/retarget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pose.h"

#define QUALITY_SAMPLES 256 /* times compared, at most (evenly taken from the key times) */

static int pose_inputs(struct pose *p, const struct rig *rig, const struct retarget_input *in,
                       size_t count)
{
	if (pose_init(p, rig) < 0)
		return -1;
	for (size_t i = 0; i < count; i++)
		if (pose_add_track(p, in[i].node, in[i].property, in[i].euler, in[i].sampler) < 0)
			return -1;
	return 0;
}

/* The answer's tracks as the target is posed at times[0..n) (pose p of them): each a LINEAR
 * track of n keys, for the way back to be worked out at those times alone. samplers[] (owned)
 * and the inputs (NULL when out of memory) are the caller's. */
static struct retarget_input *resampled(const struct retarget_result *r, struct pose *p,
                                        const float *times, size_t n, struct sampler *samplers)
{
	struct retarget_input *in = calloc(r->track_count + 1, sizeof(*in));

	for (size_t i = 0; in && i < r->track_count; i++) {
		struct sampler *s = &samplers[i];
		int rotation = r->tracks[i].property == NODE_ROTATION;
		s->type = rotation ? VALUE_FLOAT4 : VALUE_FLOAT3;
		s->array_size = 1;
		s->interp = INTERP_LINEAR;
		s->semantic = rotation ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
		s->key_count = (uint32_t)n;
		s->times = malloc(n * sizeof(float));
		s->value_bytes = n * (rotation ? 4 : 3) * sizeof(float);
		s->values = malloc(s->value_bytes);
		if (!s->times || !s->values) {
			free(in);
			return NULL;
		}
		memcpy(s->times, times, n * sizeof(float));
		in[i] = (struct retarget_input){r->tracks[i].node, r->tracks[i].property, 0, s};
	}
	for (size_t k = 0; in && k < n; k++) {
		pose_at(p, times[k]);
		for (size_t i = 0; i < r->track_count; i++) {
			const float *trs = p->trs + (size_t)r->tracks[i].node * POSE_TRS;
			int rotation = r->tracks[i].property == NODE_ROTATION;
			memcpy((float *)samplers[i].values + k * (rotation ? 4 : 3),
			       trs + (rotation ? 3 : 0), (rotation ? 4 : 3) * sizeof(float));
		}
	}
	return in;
}

/* The answer's tracks as inputs on the target rig. */
static struct retarget_input *result_inputs(const struct retarget_result *r)
{
	struct retarget_input *in = calloc(r->track_count + 1, sizeof(*in));

	for (size_t i = 0; in && i < r->track_count; i++) {
		in[i].node = r->tracks[i].node;
		in[i].property = r->tracks[i].property;
		in[i].euler = r->tracks[i].euler;
		in[i].sampler = &r->tracks[i].sampler;
	}
	return in;
}

static double distance(const double *a, const double *b)
{
	double dx = a[12] - b[12], dy = a[13] - b[13], dz = a[14] - b[14];
	return sqrt(dx * dx + dy * dy + dz * dz);
}

/* What a bone is, by its folded name: 1 hand, 2 foot, 3 head, 0 none of them. */
static int effector_kind(const struct rig_node *node)
{
	char label[300], folded[BONEMAP_FOLDED_SIZE];

	rig_node_label(node, label, sizeof(label));
	bonemap_fold(label, folded, sizeof(folded));
	if (strncmp(folded, "endsite", 7) == 0)
		return 0;
	return strstr(folded, "hand")   ? 1
	       : strstr(folded, "foot") ? 2
	       : strstr(folded, "head") ? 3
	                                : 0;
}

/* A foot's slide: while the same foot of `feet` stays the lowest, its travel along the ground. */
struct skate {
	int32_t last; /* the lowest foot at the last time, or -1 */
	double last_x, last_z, travel;
};

static void skate_step(struct skate *sk, const double *world, const int32_t *feet, size_t n)
{
	int32_t low = -1;

	for (size_t i = 0; i < n; i++)
		if (low < 0 || world[(size_t)feet[i] * 16 + 13] < world[(size_t)low * 16 + 13])
			low = feet[i];
	if (low < 0)
		return;
	if (low == sk->last)
		sk->travel += hypot(world[(size_t)low * 16 + 12] - sk->last_x,
		                    world[(size_t)low * 16 + 14] - sk->last_z);
	sk->last = low;
	sk->last_x = world[(size_t)low * 16 + 12];
	sk->last_z = world[(size_t)low * 16 + 14];
}

int retarget_measure(const struct rig *from, const struct retarget_input *inputs, size_t count,
                     const struct rig *to, const struct bonemap *map,
                     const struct retarget_options *opt, const struct retarget_result *result,
                     struct retarget_quality *q, struct error *err)
{
	struct bonemap back = {NULL, 0, map->of_source, map->of_target};
	struct retarget_result cycled;
	struct retarget_input *there = result_inputs(result), *again = NULL, *at_times = NULL;
	struct sampler *samplers = calloc(result->track_count + 1, sizeof(*samplers));
	struct pose ps, pt, pc;
	int32_t *feet_s = malloc((to->count + 1) * sizeof(int32_t));
	int32_t *feet_t = malloc((to->count + 1) * sizeof(int32_t));
	unsigned char *kind = malloc(to->count + 1);
	size_t n = 0, feet = 0;
	float *times = retarget_key_times(inputs, count, QUALITY_SAMPLES, &n, NULL);
	double ratio = result->height_from > 0 ? result->height_to / result->height_from : 1;
	struct skate sk_s = {-1, 0, 0, 0}, sk_t = {-1, 0, 0, 0};
	int rc = -1;

	memset(q, 0, sizeof(*q));
	memset(&cycled, 0, sizeof(cycled));
	memset(&ps, 0, sizeof(ps));
	memset(&pt, 0, sizeof(pt));
	memset(&pc, 0, sizeof(pc));
	/* the way back worked out at the times compared alone: the answer resampled there */
	if (!there || !feet_s || !feet_t || !kind || !times || !samplers ||
	    pose_inputs(&pt, to, there, result->track_count) < 0 ||
	    !(at_times = resampled(result, &pt, times, n, samplers)) ||
	    retarget_run(to, at_times, result->track_count, from, &back, opt, &cycled, err) < 0 ||
	    !(again = result_inputs(&cycled)) || pose_inputs(&ps, from, inputs, count) < 0 ||
	    pose_inputs(&pc, from, again, cycled.track_count) < 0)
		goto done;
	for (size_t b = 0; b < to->count; b++)
		kind[b] = map->of_target[b] >= 0 ? (unsigned char)effector_kind(&to->nodes[b]) : 0;
	for (size_t b = 0; b < to->count; b++)
		if (kind[b] == 2) {
			feet_t[feet] = (int32_t)b;
			feet_s[feet++] = map->of_target[b];
		}
	q->samples = n;
	q->effectors = -1;
	for (size_t i = 0; i < n; i++) {
		pose_at(&ps, times[i]);
		pose_at(&pt, times[i]);
		pose_at(&pc, times[i]);
		for (size_t s = 0; s < from->count; s++)
			if (map->of_source[s] >= 0 && result->height_from > 0)
				q->cycle =
				    fmax(q->cycle, distance(ps.world + s * 16, pc.world + s * 16) /
				                       result->height_from);
		for (size_t b = 0; b < to->count && result->hip_to >= 0; b++) {
			int32_t s = map->of_target[b];
			const double *wt = pt.world + b * 16, *ht = pt.world + result->hip_to * 16;
			const double *ws = ps.world + (size_t)s * 16,
			             *hs = ps.world + result->hip_from * 16;
			double e = 0;
			if (!kind[b] || !(result->height_to > 0))
				continue;
			for (int c = 12; c < 15; c++)
				e += pow((wt[c] - ht[c]) - ratio * (ws[c] - hs[c]), 2);
			q->effectors = fmax(q->effectors, sqrt(e) / result->height_to);
			q->effector_count += i == 0;
		}
		skate_step(&sk_s, ps.world, feet_s, feet);
		skate_step(&sk_t, pt.world, feet_t, feet);
	}
	q->skate_from = feet && result->height_from > 0 ? sk_s.travel / result->height_from : -1;
	q->skate_to = feet && result->height_from > 0 && result->hip_ratio > 0
	                  ? sk_t.travel / result->hip_ratio / result->height_from
	                  : -1;
	rc = 0;
done:
	if (rc < 0 && !error_is_set(err))
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	pose_cleanup(&pc);
	retarget_result_cleanup(&cycled);
	for (size_t i = 0; samplers && i < result->track_count; i++) {
		free(samplers[i].times);
		free(samplers[i].values);
	}
	free(samplers);
	free(at_times);
	free(there);
	free(again);
	free(times);
	free(feet_s);
	free(feet_t);
	free(kind);
	return rc;
}
