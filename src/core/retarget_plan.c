/* retarget_plan.c: what a retarget works from (retarget_plan.h): both rigs at rest, the
 * target's rest matched to the source's bone by bone, the chains of other lengths, the hips'
 * scale and the source's key times. */
#include "retarget_plan.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"

const double retarget_no_turn[4] = {0, 0, 0, 1};

static const double identity_m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

const double *retarget_rest_m(const struct rest *r, int32_t i)
{
	return i >= 0 ? r->world_m + (size_t)i * 16 : identity_m;
}

static void rest_cleanup(struct rest *r)
{
	free(r->order);
	free(r->world_q);
	free(r->world_p);
	free(r->world_m);
	free(r->local_q);
}

static int rest_make(const struct rig *rig, struct rest *r)
{
	size_t n = rig->count, looped;
	double *local = NULL;

	memset(r, 0, sizeof(*r));
	r->rig = rig;
	r->order = malloc((n + 1) * sizeof(*r->order));
	r->world_q = malloc((n + 1) * 4 * sizeof(double));
	r->world_p = malloc((n + 1) * 3 * sizeof(double));
	r->world_m = malloc((n + 1) * 16 * sizeof(double));
	r->local_q = malloc((n + 1) * 4 * sizeof(double));
	local = malloc((n + 1) * 16 * sizeof(double));
	if (!r->order || !r->world_q || !r->world_p || !r->world_m || !r->local_q || !local ||
	    rig_order(rig, r->order, &looped) != 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const struct rig_node *node = &rig->nodes[i];
		rig_compose(node->translation, node->rotation, node->scale, local + i * 16);
		for (int c = 0; c < 4; c++)
			r->local_q[i * 4 + c] = node->rotation[c];
		quat_normalise(r->local_q + i * 4);
	}
	if (rig_world(rig, local, r->world_m) < 0)
		goto fail;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = r->order[k];
		int32_t parent = rig->nodes[i].parent;
		quat_multiply(parent >= 0 ? r->world_q + (size_t)parent * 4 : retarget_no_turn,
		              r->local_q + (size_t)i * 4, r->world_q + (size_t)i * 4);
		memcpy(r->world_p + (size_t)i * 3, r->world_m + (size_t)i * 16 + 12,
		       3 * sizeof(double));
	}
	free(local);
	return 0;
fail:
	free(local);
	rest_cleanup(r);
	return -1;
}

double retarget_rig_height(const struct rig *rig)
{
	struct rest r;
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX},
	       most = 0;

	if (rig->count < 2 || rest_make(rig, &r) < 0)
		return 0;
	for (size_t i = 0; i < rig->count; i++)
		for (int c = 0; c < 3; c++) {
			lo[c] = fmin(lo[c], r.world_p[i * 3 + c]);
			hi[c] = fmax(hi[c], r.world_p[i * 3 + c]);
		}
	rest_cleanup(&r);
	for (int c = 0; c < 3; c++)
		most = fmax(most, hi[c] - lo[c]);
	return hi[1] - lo[1] > ALIGN_TOLERANCE * most ? hi[1] - lo[1] : most;
}

const double *retarget_rest_q(const struct rest *r, int32_t i)
{
	return i >= 0 ? r->world_q + (size_t)i * 4 : retarget_no_turn;
}

/* Whether source bone `anc` is an ancestor of s, looked for a few bones up. */
static int is_ancestor(const struct rig *rig, int32_t anc, int32_t s)
{
	int32_t p = rig->nodes[s].parent;

	for (int steps = 0; p >= 0 && steps < ANCESTOR_WALK; steps++, p = rig->nodes[p].parent)
		if (p == anc)
			return 1;
	return 0;
}

/* A half turn's axis when a and b point opposite ways about n: n itself. */
static void twist_between(const double n[3], const double a[3], const double b[3], double q[4])
{
	double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);

	if (!(la > ALIGN_TOLERANCE) || !(lb > ALIGN_TOLERANCE)) {
		memcpy(q, retarget_no_turn, sizeof(retarget_no_turn));
		return;
	}
	if ((a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb) < -1 + 1e-12) {
		q[0] = n[0], q[1] = n[1], q[2] = n[2], q[3] = 0;
		quat_normalise(q);
		return;
	}
	quat_between(a, b, q);
}

static void remove_along(const double n[3], const double v[3], double out[3])
{
	double d = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];

	for (int c = 0; c < 3; c++)
		out[c] = v[c] - d * n[c];
}

/* Target bone b's direction to child c at rest, turned as if b's world rotation were `now`. */
static void target_direction(const struct plan *pl, uint32_t b, uint32_t c, const double now[4],
                             double out[3])
{
	double v[3], back[4];

	for (int k = 0; k < 3; k++)
		v[k] = pl->rt.world_p[c * 3 + k] - pl->rt.world_p[b * 3 + k];
	quat_conjugate(pl->rt.world_q + b * 4, back);
	quat_rotate(back, v, v);
	quat_rotate(now, v, out);
}

static void source_direction(const struct plan *pl, uint32_t s, uint32_t sc, double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = pl->rs.world_p[sc * 3 + k] - pl->rs.world_p[s * 3 + k];
}

/* mode=rest: b (mapped to s, at `now` under its turned parent) turned to point where s points:
 * at its largest mapped child exactly, and about that line at the child most across it. */
/* The mapped target bone a chain from c down reaches: c itself when it is mapped, else down
 * through unmapped bones of one child each; -1 when none is. */
static int32_t mapped_down(const struct plan *pl, int32_t c)
{
	for (int steps = 0; c >= 0 && steps < ANCESTOR_WALK; steps++) {
		if (pl->map->of_target[c] >= 0)
			return c;
		if (pl->first_child[c] < 0 || pl->next_sibling[pl->first_child[c]] >= 0)
			return -1;
		c = pl->first_child[c];
	}
	return -1;
}

static void align_bone(const struct plan *pl, const uint32_t *subtree, uint32_t b, int32_t s,
                       double now[4])
{
	int32_t first = -1, first_end = -1, second = -1;
	double best_sine = 1e-3, v1[3], s1[3], turn[4];

	/* each child's mapped bone, through a chain the source has no bone for */
	for (int32_t c = pl->first_child[b]; c >= 0; c = pl->next_sibling[c]) {
		int32_t end = mapped_down(pl, c);
		if (end < 0 || !is_ancestor(pl->from, s, pl->map->of_target[end]))
			continue;
		if (first < 0 || subtree[c] > subtree[first]) {
			first = c;
			first_end = end;
		}
	}
	if (first < 0)
		return;
	first = first_end;
	target_direction(pl, b, (uint32_t)first, now, v1);
	source_direction(pl, (uint32_t)s, (uint32_t)pl->map->of_target[first], s1);
	quat_between(v1, s1, turn);
	quat_multiply(turn, now, now);
	{
		double len = sqrt(s1[0] * s1[0] + s1[1] * s1[1] + s1[2] * s1[2]);
		if (!(len > ALIGN_TOLERANCE))
			return;
		for (int k = 0; k < 3; k++)
			s1[k] /= len;
	}
	for (int32_t child = pl->first_child[b]; child >= 0; child = pl->next_sibling[child]) {
		int32_t c = mapped_down(pl, child), sc = c >= 0 ? pl->map->of_target[c] : -1;
		double d[3], cr[3], len, sine;
		if (c < 0 || c == first || !is_ancestor(pl->from, s, sc))
			continue;
		source_direction(pl, (uint32_t)s, (uint32_t)sc, d);
		len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		cr[0] = s1[1] * d[2] - s1[2] * d[1];
		cr[1] = s1[2] * d[0] - s1[0] * d[2];
		cr[2] = s1[0] * d[1] - s1[1] * d[0];
		sine = len > 0 ? sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / len : 0;
		if (sine > best_sine) {
			best_sine = sine;
			second = c;
		}
	}
	if (second >= 0) {
		double v2[3], s2[3];
		target_direction(pl, b, (uint32_t)second, now, v2);
		source_direction(pl, (uint32_t)s, (uint32_t)pl->map->of_target[second], s2);
		remove_along(s1, v2, v2);
		remove_along(s1, s2, s2);
		twist_between(s1, v2, s2, turn);
		quat_multiply(turn, now, now);
	}
}

/* A(b) for every target bone, parents first. */
static int align_all(struct plan *pl)
{
	const struct rig *to = pl->to;
	uint32_t *subtree = calloc(to->count + 1, sizeof(*subtree));

	if (!subtree)
		return -1;
	for (size_t i = 0; i < to->count; i++)
		pl->first_child[i] = pl->next_sibling[i] = -1;
	for (size_t k = to->count; k-- > 0;) {
		uint32_t i = pl->rt.order[k];
		int32_t p = to->nodes[i].parent;
		subtree[i] += 1;
		if (p >= 0) {
			subtree[p] += subtree[i];
			pl->next_sibling[i] = pl->first_child[p];
			pl->first_child[p] = (int32_t)i;
		}
	}
	for (size_t k = 0; k < to->count; k++) {
		uint32_t b = pl->rt.order[k];
		int32_t p = to->nodes[b].parent, s = pl->map->of_target[b];
		double *a = pl->aligned + (size_t)b * 4;
		quat_multiply(p >= 0 ? pl->aligned + (size_t)p * 4 : retarget_no_turn,
		              pl->rt.local_q + b * 4, a);
		pl->anc_src[b] = p < 0                        ? -1
		                 : pl->map->of_target[p] >= 0 ? pl->map->of_target[p]
		                                              : pl->anc_src[p];
		if (s < 0)
			continue;
		if (pl->opt.mode == RETARGET_WORLD)
			memcpy(a, retarget_rest_q(&pl->rs, s), 4 * sizeof(double));
		else
			align_bone(pl, subtree, b, s, a);
	}
	free(subtree);
	return 0;
}

static double rest_distance(const struct rest *r, int32_t a, int32_t b)
{
	const double *x = r->world_p + (size_t)a * 3, *y = r->world_p + (size_t)b * 3;
	return sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
	            (x[2] - y[2]) * (x[2] - y[2]));
}

/* How far along its chain a bone starts, from `top` (an ancestor), at rest. */
static double along(const struct rest *r, const struct rig *rig, int32_t top, int32_t b)
{
	double d = 0;

	for (int steps = 0; b != top && b >= 0 && steps <= ANCESTOR_WALK; steps++) {
		d += rest_distance(r, rig->nodes[b].parent, b);
		b = rig->nodes[b].parent;
	}
	return d;
}

/* Unmapped bone u of a target chain between mapped a and c whose sources have bones between
 * them (a 3-bone spine onto a 5-bone one): the middle of u's bone along its chain, between the
 * middles of which two source bones it falls and how far (each bone's turn held by its middle,
 * as a curve's direction is by its segments'). */
static void chain_place(struct plan *pl, uint32_t u, int32_t a, int32_t c)
{
	const struct rig *from = pl->from;
	int32_t sa = pl->map->of_target[a], sc = pl->map->of_target[c];
	int32_t chain[ANCESTOR_WALK + 3];
	double total_t = along(&pl->rt, pl->to, a, c), total_s = along(&pl->rs, from, sa, sc), f;
	double mid[ANCESTOR_WALK + 3];
	int n = 0;

	if (!is_ancestor(from, sa, sc) || from->nodes[sc].parent == sa || !(total_t > 0) ||
	    !(total_s > 0))
		return; /* no source bone between: the target's chain stays as it is at rest */
	chain[n++] = sc;
	for (int32_t x = from->nodes[sc].parent; x != sa && n <= ANCESTOR_WALK;
	     x = from->nodes[x].parent)
		chain[n++] = x;
	chain[n++] = sa; /* chain[n - 1] is sa, chain[0] sc: read from the top down */
	for (int j = n - 1; j > 0; j--) /* the middle of the bone from chain[j] to chain[j - 1] */
		mid[j] =
		    (along(&pl->rs, from, sa, chain[j]) + along(&pl->rs, from, sa, chain[j - 1])) /
		    (2 * total_s);
	f = (along(&pl->rt, pl->to, a, (int32_t)u) +
	     along(&pl->rt, pl->to, a, pl->first_child[u])) /
	    (2 * total_t);
	for (int j = n - 1; j > 0; j--) {
		if (f <= mid[j] || j == 1) { /* before the first middle, or past the last: held */
			pl->spread_lo[u] = pl->spread_hi[u] = chain[j];
			pl->spread_weight[u] = 0;
			return;
		}
		if (f < mid[j - 1]) {
			pl->spread_lo[u] = chain[j];
			pl->spread_hi[u] = chain[j - 1];
			pl->spread_weight[u] = (f - mid[j]) / (mid[j - 1] - mid[j]);
			return;
		}
	}
}

/* The unmapped target bones of chains of another length (chain_place). */
static int plan_chains(struct plan *pl)
{
	const struct rig *to = pl->to;

	pl->spread_lo = malloc((to->count + 1) * sizeof(int32_t));
	pl->spread_hi = malloc((to->count + 1) * sizeof(int32_t));
	pl->spread_weight = calloc(to->count + 1, sizeof(double));
	if (!pl->spread_lo || !pl->spread_hi || !pl->spread_weight)
		return -1;
	for (size_t u = 0; u < to->count; u++) {
		int32_t a = to->nodes[u].parent, c;
		pl->spread_lo[u] = pl->spread_hi[u] = -1;
		if (pl->map->of_target[u] >= 0)
			continue;
		for (int steps = 0; a >= 0 && pl->map->of_target[a] < 0 && steps < ANCESTOR_WALK;
		     steps++)
			a = to->nodes[a].parent;
		if (a >= 0 && pl->map->of_target[a] >= 0 && (c = mapped_down(pl, (int32_t)u)) >= 0)
			chain_place(pl, (uint32_t)u, a, c);
	}
	return 0;
}

/* The union of two increasing lists, each time once, into out (room for n + m). */
static size_t merge_times(const float *a, size_t n, const float *b, size_t m, float *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < n || j < m) {
		float t = j == m || (i < n && a[i] <= b[j]) ? a[i] : b[j];
		if (k == 0 || out[k - 1] != t)
			out[k++] = t;
		i += i < n && a[i] == t;
		j += j < m && b[j] == t;
	}
	return k;
}

float *retarget_key_times(const struct retarget_input *inputs, size_t count, size_t most, size_t *n,
                          int *capped)
{
	size_t total = 1, have = 0;
	float *all, *next;

	for (size_t i = 0; i < count; i++)
		total += inputs[i].sampler->key_count;
	all = malloc(total * sizeof(float));
	next = malloc(total * sizeof(float));
	if (!all || !next) {
		free(all);
		free(next);
		return NULL;
	}
	/* each track's times increase: merged one track at a time, linear where they are the
	 * same times (a motion-capture take's every joint) */
	for (size_t i = 0; i < count; i++) {
		const struct sampler *s = inputs[i].sampler;
		float *swap;
		if (have == s->key_count && memcmp(all, s->times, have * sizeof(float)) == 0)
			continue;
		have = merge_times(all, have, s->times, s->key_count, next);
		swap = all, all = next, next = swap;
	}
	free(next);
	if (have == 0)
		all[have++] = 0;
	if (have > most && most > 1) {
		double step = (double)(have - 1) / (double)(most - 1);
		for (size_t i = 0; i < most; i++)
			all[i] = all[(size_t)llround((double)i * step)];
		have = most;
		if (capped)
			*capped = 1;
	}
	*n = have;
	return all;
}

/* Every key time of the source, at most RETARGET_MAX_SAMPLES of them. */
static int source_times(struct plan *pl, const struct retarget_input *inputs, size_t count,
                        struct retarget_result *r)
{
	pl->times = retarget_key_times(inputs, count, RETARGET_MAX_SAMPLES, &pl->time_count,
	                               &r->samples_capped);
	return pl->times ? 0 : -1;
}

/* The hips (of the topmost mapped target bones, the one of most children) and k. */
static void root_scale(struct plan *pl, struct retarget_result *r)
{
	const struct rig *to = pl->to;
	size_t best = 0;
	double lo_s = DBL_MAX, lo_t = DBL_MAX, h_s, h_t;

	r->hip_from = r->hip_to = -1;
	for (size_t b = 0; b < to->count; b++) {
		size_t under = 0;
		if (pl->map->of_target[b] < 0 || pl->anc_src[b] >= 0)
			continue;
		for (int32_t c = pl->first_child[b]; c >= 0; c = pl->next_sibling[c])
			under++;
		if (r->hip_to < 0 || under > best) {
			best = under;
			r->hip_to = (int32_t)b;
		}
	}
	r->height_from = retarget_rig_height(pl->from);
	r->height_to = retarget_rig_height(pl->to);
	pl->k = 1;
	if (r->hip_to >= 0) {
		r->hip_from = pl->map->of_target[r->hip_to];
		for (size_t i = 0; i < pl->from->count; i++)
			lo_s = fmin(lo_s, pl->rs.world_p[i * 3 + 1]);
		for (size_t i = 0; i < to->count; i++)
			lo_t = fmin(lo_t, pl->rt.world_p[i * 3 + 1]);
		h_s = pl->rs.world_p[(size_t)r->hip_from * 3 + 1] - lo_s;
		h_t = pl->rt.world_p[(size_t)r->hip_to * 3 + 1] - lo_t;
		if (h_s > ALIGN_TOLERANCE * r->height_from && h_t > ALIGN_TOLERANCE * r->height_to)
			pl->k = h_t / h_s;
		else if (r->height_from > 0 && r->height_to > 0) /* hips on the ground */
			pl->k = r->height_to / r->height_from;
	}
	r->hip_ratio = pl->k;
	if (pl->opt.root != RETARGET_ROOT_SCALE)
		pl->k = 1;
	for (int c = 0; c < 3; c++)
		pl->mask[c] = pl->opt.root == RETARGET_ROOT_IN_PLACE && c != 1 ? 0 : 1;
	r->root_scale = pl->k;
}

void retarget_plan_cleanup(struct plan *pl)
{
	rest_cleanup(&pl->rs);
	rest_cleanup(&pl->rt);
	free(pl->aligned);
	free(pl->first_child);
	free(pl->next_sibling);
	free(pl->anc_src);
	free(pl->still);
	free(pl->rot_of);
	free(pl->pos_of);
	free(pl->times);
	free(pl->spread_lo);
	free(pl->spread_hi);
	free(pl->spread_weight);
}

int retarget_plan_make(struct plan *pl, const struct rig *from, const struct retarget_input *inputs,
                       size_t count, const struct rig *to, const struct bonemap *map,
                       const struct retarget_options *opt, struct retarget_result *r)
{
	unsigned char *moved;

	memset(pl, 0, sizeof(*pl));
	pl->from = from;
	pl->to = to;
	pl->map = map;
	pl->opt = *opt;
	if (rest_make(from, &pl->rs) < 0 || rest_make(to, &pl->rt) < 0)
		return -1;
	pl->aligned = malloc((to->count + 1) * 4 * sizeof(double));
	pl->first_child = malloc((to->count + 1) * sizeof(int32_t));
	pl->next_sibling = malloc((to->count + 1) * sizeof(int32_t));
	pl->anc_src = malloc((to->count + 1) * sizeof(int32_t));
	pl->still = calloc(from->count + 1, 1);
	pl->rot_of = calloc(from->count + 1, sizeof(*pl->rot_of));
	pl->pos_of = calloc(from->count + 1, sizeof(*pl->pos_of));
	moved = calloc(from->count + 1, 1);
	if (!pl->aligned || !pl->first_child || !pl->next_sibling || !pl->anc_src || !pl->still ||
	    !pl->rot_of || !pl->pos_of || !moved || source_times(pl, inputs, count, r) < 0) {
		free(moved);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const struct retarget_input *in = &inputs[i];
		moved[in->node] = 1;
		if (in->property == NODE_ROTATION)
			pl->rot_of[in->node] = in;
		else if (in->property == NODE_TRANSLATION)
			pl->pos_of[in->node] = in;
		if (in->property == NODE_SCALE || map->of_source[in->node] < 0)
			r->ignored++;
	}
	for (size_t k = 0; k < from->count; k++) {
		uint32_t n = pl->rs.order[k];
		int32_t p = from->nodes[n].parent;
		pl->still[n] = !moved[n] && (p < 0 || pl->still[p]);
	}
	free(moved);
	if (align_all(pl) < 0 || plan_chains(pl) < 0)
		return -1;
	root_scale(pl, r);
	return 0;
}
