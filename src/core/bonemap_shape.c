/* bonemap_shape.c: a humanoid rig's chains found by its shape at rest (bonemap_shape.h): the
 * hips, the spine, the neck and head, two arms and two legs, each a list of bones with where
 * each starts along its chain. */
#include "bonemap_shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A rig's tree and rest: children lists, subtree sizes and the sums of their joints' places. */
struct shape {
	const struct rig *rig;
	int32_t *first, *next;
	uint32_t *size;
	double *pos, *sum; /* count x 3: rest world positions, and their sums over each subtree */
};

static void shape_cleanup(struct shape *sh)
{
	free(sh->first);
	free(sh->next);
	free(sh->size);
	free(sh->pos);
	free(sh->sum);
}

static int shape_make(const struct rig *rig, struct shape *sh)
{
	size_t n = rig->count, looped;
	double *local = malloc((n + 1) * 16 * sizeof(double));
	double *world = malloc((n + 1) * 16 * sizeof(double));
	uint32_t *order = malloc((n + 1) * sizeof(uint32_t));
	int rc = -1;

	memset(sh, 0, sizeof(*sh));
	sh->rig = rig;
	sh->first = malloc((n + 1) * sizeof(int32_t));
	sh->next = malloc((n + 1) * sizeof(int32_t));
	sh->size = calloc(n + 1, sizeof(uint32_t));
	sh->pos = malloc((n + 1) * 3 * sizeof(double));
	sh->sum = calloc((n + 1) * 3, sizeof(double));
	if (!local || !world || !order || !sh->first || !sh->next || !sh->size || !sh->pos ||
	    !sh->sum || rig_order(rig, order, &looped) != 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const struct rig_node *node = &rig->nodes[i];
		rig_compose(node->translation, node->rotation, node->scale, local + i * 16);
		sh->first[i] = sh->next[i] = -1;
	}
	if (rig_world(rig, local, world) < 0)
		goto done;
	for (size_t k = n; k-- > 0;) { /* children first: sizes and sums up the tree */
		uint32_t i = order[k];
		int32_t p = rig->nodes[i].parent;
		memcpy(sh->pos + i * 3, world + (size_t)i * 16 + 12, 3 * sizeof(double));
		sh->size[i] += 1;
		for (int c = 0; c < 3; c++)
			sh->sum[i * 3 + c] += sh->pos[i * 3 + c];
		if (p < 0)
			continue;
		sh->size[p] += sh->size[i];
		for (int c = 0; c < 3; c++)
			sh->sum[(size_t)p * 3 + c] += sh->sum[i * 3 + c];
		sh->next[i] = sh->first[p];
		sh->first[p] = (int32_t)i;
	}
	rc = 0;
done:
	free(local);
	free(world);
	free(order);
	if (rc < 0)
		shape_cleanup(sh);
	return rc;
}

static size_t child_count(const struct shape *sh, int32_t b)
{
	size_t n = 0;

	for (int32_t c = sh->first[b]; c >= 0; c = sh->next[c])
		n++;
	return n;
}

static int32_t largest_child(const struct shape *sh, int32_t b)
{
	int32_t best = -1;

	for (int32_t c = sh->first[b]; c >= 0; c = sh->next[c])
		if (best < 0 || sh->size[c] > sh->size[best])
			best = c;
	return best;
}

/* Where subtree c's joints lie on average, from joint `from`. */
static void lies(const struct shape *sh, int32_t c, int32_t from, double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = sh->sum[(size_t)c * 3 + k] / sh->size[c] - sh->pos[(size_t)from * 3 + k];
}

/* A chain from `start` down each largest child: to its end, or (to_branch) to its first bone of
 * two children or more, included. */
static int walk(const struct shape *sh, int32_t start, int to_branch, struct bonemap_chains *out,
                enum bonemap_chain which)
{
	size_t n = 0, room = sh->rig->count;
	int32_t *bones = malloc((room + 1) * sizeof(int32_t));
	double *along = malloc((room + 1) * sizeof(double)), total = 0;

	if (!bones || !along) {
		free(bones);
		free(along);
		return -1;
	}
	for (int32_t b = start; b >= 0 && n < room; b = largest_child(sh, b)) {
		if (n > 0) {
			const double *x = sh->pos + (size_t)bones[n - 1] * 3,
			             *y = sh->pos + (size_t)b * 3;
			total +=
			    sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
			         (x[2] - y[2]) * (x[2] - y[2]));
		}
		along[n] = total;
		bones[n++] = b;
		if (to_branch && child_count(sh, b) >= 2)
			break;
	}
	for (size_t k = 0; k < n; k++)
		along[k] = total > 0 ? along[k] / total : (n > 1 ? (double)k / (double)(n - 1) : 0);
	out->bones[which] = bones;
	out->along[which] = along;
	out->length[which] = n;
	return 0;
}

/* The hips: from the root of most bones, the first bone of two children or more. */
static int32_t find_hips(const struct shape *sh)
{
	const struct rig *rig = sh->rig;
	int32_t b = -1;

	for (size_t i = 0; i < rig->count; i++)
		if (rig->nodes[i].parent < 0 && (b < 0 || sh->size[i] > sh->size[b]))
			b = (int32_t)i;
	for (size_t steps = 0; b >= 0 && steps < rig->count; steps++) {
		size_t n = child_count(sh, b);
		if (n >= 2)
			return b;
		b = n ? sh->first[b] : -1;
	}
	return -1;
}

/* The chest's children: the arms (more to a side than up), and the neck (the largest up). */
static int chest_chains(const struct shape *sh, int32_t chest, struct bonemap_chains *out)
{
	int32_t arm[2] = {-1, -1}, neck = -1;
	double arm_x[2] = {0, 0};

	for (int32_t c = sh->first[chest]; c >= 0; c = sh->next[c]) {
		double v[3];
		lies(sh, c, chest, v);
		if (fabs(v[0]) > fabs(v[1])) {
			int side = v[0] > 0 ? 0 : 1;
			if (arm[side] < 0 || fabs(v[0]) > arm_x[side]) {
				arm[side] = c;
				arm_x[side] = fabs(v[0]);
			}
		} else if (v[1] > 0 && (neck < 0 || sh->size[c] > sh->size[neck])) {
			neck = c;
		}
	}
	return (arm[0] >= 0 && walk(sh, arm[0], 1, out, CHAIN_ARM_PLUS) < 0) ||
	               (arm[1] >= 0 && walk(sh, arm[1], 1, out, CHAIN_ARM_MINUS) < 0) ||
	               (neck >= 0 && walk(sh, neck, 0, out, CHAIN_NECK) < 0)
	           ? -1
	           : 0;
}

double *bonemap_shape_rest(const struct rig *rig)
{
	struct shape sh;
	double *pos;

	if (shape_make(rig, &sh) < 0)
		return NULL;
	pos = realloc(sh.pos, (2 * rig->count + 1) * 3 * sizeof(double));
	if (pos) {
		sh.pos = NULL; /* the caller's */
		for (size_t i = 0; i < rig->count; i++)
			for (int c = 0; c < 3; c++)
				pos[(rig->count + i) * 3 + c] = sh.sum[i * 3 + c] / sh.size[i];
	}
	shape_cleanup(&sh);
	return pos;
}

int bonemap_shape_chains(const struct rig *rig, struct bonemap_chains *out)
{
	struct shape sh;
	int32_t spine = -1, leg[2] = {-1, -1};
	double leg_x[2] = {0, 0};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->hips = -1;
	if (rig->count < 3)
		return 0;
	if (shape_make(rig, &sh) < 0)
		return -1;
	out->hips = find_hips(&sh);
	for (int32_t c = out->hips >= 0 ? sh.first[out->hips] : -1; c >= 0; c = sh.next[c]) {
		double v[3];
		lies(&sh, c, out->hips, v);
		if (v[1] > 0) {
			if (spine < 0 || sh.size[c] > sh.size[spine])
				spine = c;
		} else {
			int side = v[0] > 0 ? 0 : 1;
			if (leg[side] < 0 || fabs(v[0]) > leg_x[side]) {
				leg[side] = c;
				leg_x[side] = fabs(v[0]);
			}
		}
	}
	if ((leg[0] >= 0 && walk(&sh, leg[0], 0, out, CHAIN_LEG_PLUS) < 0) ||
	    (leg[1] >= 0 && walk(&sh, leg[1], 0, out, CHAIN_LEG_MINUS) < 0) ||
	    (spine >= 0 && walk(&sh, spine, 1, out, CHAIN_SPINE) < 0))
		goto done;
	if (out->length[CHAIN_SPINE] &&
	    chest_chains(&sh, out->bones[CHAIN_SPINE][out->length[CHAIN_SPINE] - 1], out) < 0)
		goto done;
	rc = 0;
done:
	shape_cleanup(&sh);
	if (rc < 0)
		bonemap_shape_cleanup(out);
	return rc;
}

void bonemap_shape_cleanup(struct bonemap_chains *c)
{
	for (int k = 0; k < CHAIN_COUNT; k++) {
		free(c->bones[k]);
		free(c->along[k]);
		c->bones[k] = NULL;
		c->along[k] = NULL;
		c->length[k] = 0;
	}
}
