/* retarget.c: a rig's motion put on another rig through a bone map (retarget.h): each key
 * rewritten by the change of basis between the matched rest poses (retarget_plan.c), or, where
 * the parents do not correspond, each source key time baked, and the hips' travel scaled. */
#include "retarget_plan.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pose.h"
#include "core/quat.h"

#define IDENTITY_TOLERANCE 1e-12 /* a change of basis this close to none changes no key */

/* Whether a source bone's frame stays at rest: it is no bone (-1), or neither it nor any of
 * its ancestors is moved. */
static int frame_still(const struct plan *pl, int32_t s)
{
	return s < 0 || pl->still[s];
}

/* Whether b's local rotation is a fixed change of basis of its source's keys. */
static int rewritable(const struct plan *pl, uint32_t b)
{
	int32_t s = pl->map->of_target[b], ps;

	if (s < 0)
		return 0;
	ps = pl->from->nodes[s].parent;
	return pl->anc_src[b] == ps || (frame_still(pl, pl->anc_src[b]) && frame_still(pl, ps));
}

/* b's local rotation is L q M, q its source bone's local rotation. */
static void basis_of(const struct plan *pl, uint32_t b, double l[4], double m[4])
{
	int32_t s = pl->map->of_target[b], p = pl->to->nodes[b].parent;
	int32_t ps = pl->from->nodes[s].parent;
	double back[4];

	quat_conjugate(p >= 0 ? pl->aligned + (size_t)p * 4 : retarget_no_turn, back);
	quat_multiply(back, retarget_rest_q(&pl->rs, ps), l);
	quat_conjugate(retarget_rest_q(&pl->rs, s), back);
	quat_multiply(back, pl->aligned + (size_t)b * 4, m);
}

static int near_identity(const double q[4])
{
	return fabs(q[0]) < IDENTITY_TOLERANCE && fabs(q[1]) < IDENTITY_TOLERANCE &&
	       fabs(q[2]) < IDENTITY_TOLERANCE && fabs(fabs(q[3]) - 1) < IDENTITY_TOLERANCE;
}

static int to_float(double v, float *out)
{
	if (!isfinite(v) || fabs(v) > FLT_MAX)
		return -1;
	*out = (float)v;
	return 0;
}

static struct retarget_track *add_track(struct retarget_result *r, size_t *cap)
{
	if (r->track_count == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct retarget_track *t = realloc(r->tracks, n * sizeof(*t));
		if (!t)
			return NULL;
		r->tracks = t;
		*cap = n;
	}
	memset(&r->tracks[r->track_count], 0, sizeof(r->tracks[0]));
	return &r->tracks[r->track_count++];
}

/* A sampler of `keys` keys of `type` at `times` (copied), values to be written. */
static int sampler_make(struct sampler *s, enum value_type type, enum interpolation interp,
                        const float *times, size_t keys)
{
	size_t per = (size_t)value_type_components(type) * (interp == INTERP_CUBIC_SPLINE ? 3 : 1);

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->array_size = 1;
	s->interp = interp;
	s->semantic =
	    type == VALUE_FLOAT4 ? SEMANTIC_NORMALIZED_QUATERNION : SEMANTIC_COMPONENT_WISE;
	s->key_count = (uint32_t)keys;
	s->times = malloc((keys + 1) * sizeof(float));
	s->value_bytes = keys * per * sizeof(float);
	s->values = malloc(s->value_bytes + 1);
	if (!s->times || !s->values)
		return -1;
	memcpy(s->times, times, keys * sizeof(float));
	return 0;
}

/* Target bone b's rotation keys: its source's, each rewritten as L q M. */
static int rewrite_rotation(const struct plan *pl, uint32_t b, const struct retarget_input *in,
                            struct retarget_track *t, int *copied)
{
	const struct sampler *s = in->sampler;
	size_t values = (size_t)s->key_count * (s->interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	const float *from = s->values;
	double l[4], m[4];
	float *out;

	basis_of(pl, b, l, m);
	t->node = b;
	t->property = NODE_ROTATION;
	if (near_identity(l) && near_identity(m)) { /* the same keys, bit for bit */
		*copied = 1;
		t->euler = in->euler;
		return sampler_copy(&t->sampler, s);
	}
	if (sampler_make(&t->sampler, VALUE_FLOAT4, s->interp, s->times, s->key_count) < 0)
		return -1;
	t->sampler.rules = s->rules & ~(unsigned)RULE_W_ONE_BETWEEN_KEYS;
	out = t->sampler.values;
	for (size_t k = 0; k < values; k++) {
		double q[4];
		float f[4];
		if (in->euler) {
			pose_euler_quaternion(in->euler, from + k * 3, f);
		} else {
			memcpy(f, from + k * 4, sizeof(f));
		}
		for (int c = 0; c < 4; c++)
			q[c] = f[c];
		quat_multiply(l, q, q);
		quat_multiply(q, m, q);
		for (int c = 0; c < 4; c++)
			out[k * 4 + c] =
			    (float)q[c]; /* a unit quaternion's, or its tangent's: finite */
	}
	return 0;
}

/* Solves the linear part of an affine matrix: out = M^-1 v; -1 when it is singular. */
static int solve3(const double m[16], const double v[3], double out[3])
{
	double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
	       i = m[10];
	double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);

	if (!(fabs(det) > 0) || !isfinite(det))
		return -1;
	out[0] = ((e * i - f * h) * v[0] + (c * h - b * i) * v[1] + (b * f - c * e) * v[2]) / det;
	out[1] = ((f * g - d * i) * v[0] + (a * i - c * g) * v[1] + (c * d - a * f) * v[2]) / det;
	out[2] = ((d * h - e * g) * v[0] + (b * g - a * h) * v[1] + (a * e - b * d) * v[2]) / det;
	return 0;
}

/* Root motion of top bone b, in its parent's space: T' = lin T + off, T its source's local
 * translation (whose frame stays at rest): lin = Mt^-1 k Ms, the parents' rest matrices.
 * -1 when the target parent's cannot be undone. */
static int root_map(const struct plan *pl, uint32_t b, double lin[9])
{
	int32_t s = pl->map->of_target[b];
	const double *mps = retarget_rest_m(&pl->rs, pl->from->nodes[s].parent);
	const double *mpt = retarget_rest_m(&pl->rt, pl->to->nodes[b].parent);

	for (int c = 0; c < 3; c++) { /* column c: what source axis c becomes */
		double w[3], col[3];
		for (int r = 0; r < 3; r++)
			w[r] = pl->k * pl->mask[r] * mps[c * 4 + r];
		if (solve3(mpt, w, col) < 0)
			return -1;
		for (int r = 0; r < 3; r++)
			lin[r * 3 + c] = col[r];
	}
	return 0;
}

/* Another bone's: its source's travel from rest, turned into the target parent's frame (L)
 * and scaled. */
static void bone_map(const struct plan *pl, uint32_t b, double lin[9])
{
	double l[4], m[4];

	basis_of(pl, b, l, m);
	for (int c = 0; c < 3; c++) {
		double axis[3] = {c == 0, c == 1, c == 2}, col[3];
		quat_rotate(l, axis, col);
		for (int r = 0; r < 3; r++)
			lin[r * 3 + c] = pl->k * col[r];
	}
}

/* The refusal of a hips' translation the root's scale took past float32, at time t: -1. */
static int hips_beyond_float32(const struct plan *pl, float t, struct error *err)
{
	error_set(err, ERROR_VALUE_OUT_OF_RANGE, "root", -1,
	          "the hips' translation at %g s, scaled by %g, is beyond float32", (double)t,
	          pl->k);
	return -1;
}

/* Target bone b's translation keys: its source's, each T' = lin T + off, off such that the
 * source's rest gives the target's. */
static int rewrite_translation(const struct plan *pl, uint32_t b, const struct retarget_input *in,
                               const double lin[9], struct retarget_track *t, int *copied,
                               struct error *err)
{
	const struct sampler *s = in->sampler;
	size_t values = (size_t)s->key_count * (s->interp == INTERP_CUBIC_SPLINE ? 3 : 1);
	const float *from = s->values;
	const float *ts = pl->from->nodes[in->node].translation, *tt = pl->to->nodes[b].translation;
	double off[3];
	int same = 1;
	float *out;

	t->node = b;
	t->property = NODE_TRANSLATION;
	for (int r = 0; r < 3; r++)
		off[r] =
		    tt[r] - (lin[r * 3] * ts[0] + lin[r * 3 + 1] * ts[1] + lin[r * 3 + 2] * ts[2]);
	for (int r = 0; r < 9; r++)
		same &= fabs(lin[r] - (r % 4 == 0)) < IDENTITY_TOLERANCE;
	for (int r = 0; r < 3; r++)
		same &= fabs(off[r]) <=
		        IDENTITY_TOLERANCE * (1 + fabs(pl->to->nodes[b].translation[r]));
	if (same) {
		*copied = 1;
		return sampler_copy(&t->sampler, s);
	}
	if (sampler_make(&t->sampler, VALUE_FLOAT3, s->interp, s->times, s->key_count) < 0)
		return -1;
	out = t->sampler.values;
	for (size_t k = 0; k < values; k++) {
		/* a cubic spline's tangents (the first and third of each key) move, not shift */
		int tangent = s->interp == INTERP_CUBIC_SPLINE && k % 3 != 1;
		const float *v = from + k * 3;
		for (int r = 0; r < 3; r++) {
			double x = lin[r * 3] * v[0] + lin[r * 3 + 1] * v[1] +
			           lin[r * 3 + 2] * v[2] + (tangent ? 0 : off[r]);
			if (to_float(x, &out[k * 3 + r]) < 0) {
				return hips_beyond_float32(
				    pl, s->times[k / (s->interp == INTERP_CUBIC_SPLINE ? 3 : 1)],
				    err);
			}
		}
	}
	return 0;
}

/* The world height of the lowest joint a map pairs (of_side: the map's on that side). */
static double lowest_joint(const int32_t *of_side, const double *world, size_t count)
{
	double low = DBL_MAX;

	for (size_t i = 0; i < count; i++)
		if (of_side[i] >= 0)
			low = fmin(low, world[i * 16 + 13]);
	return low;
}

/* ground=1: the hips' baked translation (track h) raised or lowered at each time so that the
 * target's lowest mapped joint is k times as high as the source's (lowest[]). */
static int ground_hips(const struct plan *pl, struct retarget_result *r, size_t h,
                       const double *lowest, struct error *err)
{
	struct retarget_track *hips = &r->tracks[h];
	const double *mpt = retarget_rest_m(&pl->rt, pl->to->nodes[hips->node].parent);
	float *out = hips->sampler.values;
	struct pose pose;
	double up[3] = {0, 1, 0}, local_up[3];

	if (solve3(mpt, up, local_up) < 0 || pose_init(&pose, pl->to) < 0)
		return -1;
	for (size_t i = 0; i < r->track_count; i++)
		if (pose_add_track(&pose, r->tracks[i].node, r->tracks[i].property,
		                   r->tracks[i].euler, &r->tracks[i].sampler) < 0) {
			pose_cleanup(&pose);
			return -1;
		}
	for (size_t i = 0; i < pl->time_count; i++) {
		double shift;
		pose_at(&pose, pl->times[i]);
		shift =
		    pl->k * lowest[i] - lowest_joint(pl->map->of_target, pose.world, pl->to->count);
		for (int c = 0; c < 3; c++)
			if (to_float(out[i * 3 + c] + shift * local_up[c], &out[i * 3 + c]) < 0) {
				error_set(err, ERROR_VALUE_OUT_OF_RANGE, "ground", -1,
				          "the hips put on the ground at %g s are beyond float32",
				          (double)pl->times[i]);
				pose_cleanup(&pose);
				return -1;
			}
	}
	pose_cleanup(&pose);
	return 0;
}

/* The tracks of r listed in `baked`, sampled at every source key time: the source posed,
 * its world rotations put on the target's (A), the locals taken back out. */
static int bake(const struct plan *pl, const struct retarget_input *inputs, size_t count,
                struct retarget_result *r, const size_t *baked, size_t baked_count, double *lowest,
                struct error *err)
{
	const struct rig *from = pl->from, *to = pl->to;
	double *wq_s = malloc((from->count + 1) * 4 * sizeof(double));
	double *wq_t = malloc((to->count + 1) * 4 * sizeof(double));
	struct pose pose;
	int rc = -1;

	if (!wq_s || !wq_t || pose_init(&pose, from) < 0) {
		free(wq_s);
		free(wq_t);
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (pose_add_track(&pose, inputs[i].node, inputs[i].property, inputs[i].euler,
		                   inputs[i].sampler) < 0)
			goto done;
	for (size_t i = 0; i < pl->time_count; i++) {
		pose_at(&pose, pl->times[i]);
		if (lowest)
			lowest[i] = lowest_joint(pl->map->of_source, pose.world, from->count);
		for (size_t k = 0; k < from->count; k++) {
			uint32_t n = pl->rs.order[k];
			int32_t p = from->nodes[n].parent;
			double q[4];
			for (int c = 0; c < 4; c++)
				q[c] = pose.trs[(size_t)n * POSE_TRS + 3 + c];
			quat_normalise(q);
			quat_multiply(p >= 0 ? wq_s + (size_t)p * 4 : retarget_no_turn, q,
			              wq_s + (size_t)n * 4);
		}
		for (size_t k = 0; k < to->count; k++) {
			uint32_t b = pl->rt.order[k];
			int32_t p = to->nodes[b].parent, s = pl->map->of_target[b];
			double *w = wq_t + (size_t)b * 4, back[4];
			if (s >= 0) { /* D(s) A(b) */
				quat_conjugate(retarget_rest_q(&pl->rs, s), back);
				quat_multiply(wq_s + (size_t)s * 4, back, w);
				quat_multiply(w, pl->aligned + (size_t)b * 4, w);
			} else if (pl->spread_lo[b] >=
			           0) { /* along a chain: slerp(D(lo), D(hi)) A(b) */
				double lo[4], hi[4];
				int32_t l = pl->spread_lo[b], h = pl->spread_hi[b];
				quat_conjugate(retarget_rest_q(&pl->rs, l), back);
				quat_multiply(wq_s + (size_t)l * 4, back, lo);
				quat_conjugate(retarget_rest_q(&pl->rs, h), back);
				quat_multiply(wq_s + (size_t)h * 4, back, hi);
				quat_slerp(lo, hi, pl->spread_weight[b], w);
				quat_multiply(w, pl->aligned + (size_t)b * 4, w);
			} else {
				quat_multiply(p >= 0 ? wq_t + (size_t)p * 4 : retarget_no_turn,
				              pl->rt.local_q + (size_t)b * 4, w);
			}
		}
		for (size_t j = 0; j < baked_count; j++) {
			struct retarget_track *t = &r->tracks[baked[j]];
			int32_t p = to->nodes[t->node].parent, s = pl->map->of_target[t->node];
			float *out = t->sampler.values;
			if (t->property == NODE_ROTATION) {
				double q[4], back[4], dot = 0;
				quat_conjugate(p >= 0 ? wq_t + (size_t)p * 4 : retarget_no_turn,
				               back);
				quat_multiply(back, wq_t + (size_t)t->node * 4, q);
				for (int c = 0; c < 4 && i > 0; c++)
					dot += q[c] * out[(i - 1) * 4 + c];
				for (int c = 0; c < 4; c++) /* the short way from the last */
					out[i * 4 + c] = (float)(dot < 0 ? -q[c] : q[c]);
			} else {
				const double *mpt = retarget_rest_m(&pl->rt, p);
				double at[3], local[3];
				for (int c = 0; c < 3; c++)
					at[c] = pl->rt.world_p[(size_t)t->node * 3 + c] -
					        mpt[12 + c] +
					        pl->k * pl->mask[c] *
					            (pose.world[(size_t)s * 16 + 12 + c] -
					             pl->rs.world_p[(size_t)s * 3 + c]);
				if (solve3(mpt, at, local) < 0 ||
				    to_float(local[0], out + i * 3) < 0 ||
				    to_float(local[1], out + i * 3 + 1) < 0 ||
				    to_float(local[2], out + i * 3 + 2) < 0) {
					hips_beyond_float32(pl, pl->times[i], err);
					goto done;
				}
			}
		}
	}
	rc = 0;
done:
	pose_cleanup(&pose);
	free(wq_s);
	free(wq_t);
	return rc;
}

/* A track of the answer sampled at every source key time, filled by bake(). */
static int add_baked(struct plan *pl, struct retarget_result *r, size_t *cap, size_t *baked,
                     size_t *baked_count, uint32_t b, enum node_property property)
{
	struct retarget_track *t = add_track(r, cap);

	if (!t)
		return -1;
	t->node = b;
	t->property = property;
	t->baked = 1;
	baked[(*baked_count)++] = r->track_count - 1;
	r->keys_baked += pl->time_count;
	return sampler_make(&t->sampler, property == NODE_ROTATION ? VALUE_FLOAT4 : VALUE_FLOAT3,
	                    INTERP_LINEAR, pl->times, pl->time_count);
}

/* A bone no key of its source turns, at its matched rest: one key, where that is not its
 * own rest. */
static int add_still(const struct plan *pl, struct retarget_result *r, size_t *cap, uint32_t b)
{
	int32_t s = pl->map->of_target[b];
	const float *rest = pl->to->nodes[b].rotation;
	double l[4], m[4], q[4], diff = 0;
	struct retarget_track *t;
	float zero = 0;

	basis_of(pl, b, l, m);
	quat_multiply(l, pl->rs.local_q + (size_t)s * 4, q);
	quat_multiply(q, m, q);
	for (int c = 0; c < 4; c++)
		diff = fmax(diff, fabs(q[c] - rest[c]));
	if (diff < 1e-7)
		return 0;
	if (!(t = add_track(r, cap)))
		return -1;
	t->node = b;
	t->property = NODE_ROTATION;
	if (sampler_make(&t->sampler, VALUE_FLOAT4, INTERP_LINEAR, &zero, 1) < 0)
		return -1;
	for (int c = 0; c < 4; c++)
		((float *)t->sampler.values)[c] = (float)q[c];
	return 0;
}

int retarget_run(const struct rig *from, const struct retarget_input *inputs, size_t count,
                 const struct rig *to, const struct bonemap *map,
                 const struct retarget_options *opt, struct retarget_result *out, struct error *err)
{
	struct plan pl;
	size_t cap = 0, baked_count = 0, copied = 0, used = 0, *baked, hips = SIZE_MAX;
	double *lowest = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	memset(&pl, 0, sizeof(pl));
	baked = malloc((2 * to->count + 1) * sizeof(*baked));
	if (!baked || retarget_plan_make(&pl, from, inputs, count, to, map, opt, out) < 0)
		goto oom;
	for (size_t k = 0; k < to->count; k++) {
		uint32_t b = pl.rt.order[k];
		int32_t s = map->of_target[b];
		const struct retarget_input *rot, *pos;
		struct retarget_track *t;
		int same = 0, top;
		if (s < 0) { /* a bone of a chain of another length turns with the source's */
			if (pl.spread_lo[b] >= 0 &&
			    add_baked(&pl, out, &cap, baked, &baked_count, b, NODE_ROTATION) < 0)
				goto oom;
			continue;
		}
		rot = pl.rot_of[s];
		pos = pl.pos_of[s];
		top = pl.anc_src[b] < 0;
		if (rewritable(&pl, b) && rot &&
		    !(rot->euler && rot->sampler->interp == INTERP_CUBIC_SPLINE)) {
			if (!(t = add_track(out, &cap)) ||
			    rewrite_rotation(&pl, b, rot, t, &same) < 0)
				goto oom;
			out->keys_rewritten += rot->sampler->key_count;
			out->euler_linear |= rot->euler && !same;
			copied += same;
			used++;
		} else if (rewritable(&pl, b) && !rot) {
			if (add_still(&pl, out, &cap, b) < 0)
				goto oom;
		} else {
			used += rot != NULL;
			if (add_baked(&pl, out, &cap, baked, &baked_count, b, NODE_ROTATION) < 0)
				goto oom;
		}
		if (opt->ground && (int32_t)b == out->hip_to)
			hips = out->track_count; /* baked, then put on the ground */
		if ((opt->ground && (int32_t)b == out->hip_to) ||
		    (top && !frame_still(&pl, from->nodes[s].parent))) {
			used += pos != NULL;
			if (add_baked(&pl, out, &cap, baked, &baked_count, b, NODE_TRANSLATION) < 0)
				goto oom;
		} else if (pos && (top || rewritable(&pl, b))) {
			double lin[9];
			if (top && root_map(&pl, b, lin) < 0) {
				error_set(
				    err, ERROR_CONFLICT, "onto", -1,
				    "the parent of the target rig's hips has a scale of 0: no "
				    "translation can be put under it");
				goto done;
			}
			if (!top)
				bone_map(&pl, b, lin);
			same = 0;
			if (!(t = add_track(out, &cap)) ||
			    rewrite_translation(&pl, b, pos, lin, t, &same, err) < 0)
				goto fail;
			out->keys_rewritten += pos->sampler->key_count;
			copied += same;
			used++;
		} else if (pos) {
			out->ignored++;
		}
	}
	if (opt->ground && !(lowest = malloc((pl.time_count + 1) * sizeof(double))))
		goto oom;
	if (baked_count && bake(&pl, inputs, count, out, baked, baked_count, lowest, err) < 0)
		goto fail;
	if (opt->ground && hips != SIZE_MAX && ground_hips(&pl, out, hips, lowest, err) < 0)
		goto fail;
	out->identity = copied == out->track_count && used == count && out->ignored == 0;
	rc = 0;
	goto done;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
fail:
	if (!error_is_set(err))
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
done:
	if (rc < 0)
		retarget_result_cleanup(out);
	retarget_plan_cleanup(&pl);
	free(baked);
	free(lowest);
	return rc;
}

void retarget_result_cleanup(struct retarget_result *r)
{
	for (size_t i = 0; i < r->track_count; i++) {
		free(r->tracks[i].sampler.times);
		free(r->tracks[i].sampler.values);
	}
	free(r->tracks);
	r->tracks = NULL;
	r->track_count = 0;
}
