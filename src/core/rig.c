/* rig.c: a rig's checks, its JSON, and the matrix arithmetic of poses (rig.h). Matrices are
 * column-major doubles, as glTF writes them and three.js computes them: the element in row r
 * and column c is m[c * 4 + r]. */
#include "core/rig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHEAR_TOLERANCE 1e-4 /* how far from orthogonal a decomposed rotation may be */

void rig_init(struct rig *rig)
{
	rig->nodes = NULL;
	rig->count = 0;
}

void rig_cleanup(struct rig *rig)
{
	for (size_t i = 0; i < rig->count; i++) {
		free(rig->nodes[i].name);
		free(rig->nodes[i].handle_name);
	}
	free(rig->nodes);
	rig_init(rig);
}

int rig_order(const struct rig *rig, uint32_t *order, size_t *looped)
{
	size_t n = rig->count, done = 0;
	unsigned char *state = calloc(n + 1, 1); /* 0 unseen, 1 on this walk, 2 ordered */
	uint32_t *walk = malloc((n + 1) * sizeof(*walk));
	int rc = 0;

	if (!state || !walk) {
		free(state);
		free(walk);
		return -1;
	}
	/* from each node, walk up to the first node already ordered (or a root), then order the
	 * walk from its top: every node is walked once, however deep the tree */
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t depth = 0;
		int32_t p = (int32_t)i;
		while (p >= 0 && state[p] == 0) {
			state[p] = 1;
			walk[depth++] = (uint32_t)p;
			p = rig->nodes[p].parent;
		}
		if (p >= 0 && state[p] == 1) {
			*looped = i;
			rc = 1;
			break;
		}
		while (depth > 0) {
			uint32_t k = walk[--depth];
			state[k] = 2;
			order[done++] = k;
		}
	}
	free(state);
	free(walk);
	return rc;
}

/* Whether every node's rest values and rest world matrix hold in float32 (a rest pose of
 * 3e38 in a bone and its child multiplies past it): 0, or -1 with err naming the node. The rig
 * has passed the parents' checks. */
static int rest_in_float32(const struct rig *rig, struct error *err)
{
	double *local = malloc((rig->count + 1) * 16 * sizeof(*local));
	double *world = malloc((rig->count + 1) * 16 * sizeof(*world));
	int rc = 0;

	for (size_t i = 0; local && i < rig->count; i++)
		rig_compose(rig->nodes[i].translation, rig->nodes[i].rotation, rig->nodes[i].scale,
		            local + i * 16);
	if (!local || !world || rig_world(rig, local, world) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < rig->count; i++) {
		const struct rig_node *n = &rig->nodes[i];
		char label[96];
		int finite = 1;
		for (int e = 0; e < 16 && finite; e++)
			finite = isfinite((float)world[i * 16 + e]);
		for (int e = 0; e < 3 && finite; e++)
			finite = isfinite(n->translation[e]) && isfinite(n->scale[e]);
		if (finite)
			continue;
		rig_node_label(n, label, sizeof(label));
		error_set(
		    err, ERROR_VALUE_OUT_OF_RANGE, "rig.nodes", -1,
		    "rig.nodes[%zu]: %s's rest pose is beyond a 32-bit float's range (its "
		    "translation, scale or its ancestors' multiply past +-3.4e38: translation "
		    "%.9g %.9g %.9g, scale %.9g %.9g %.9g)",
		    i, label, (double)n->translation[0], (double)n->translation[1],
		    (double)n->translation[2], (double)n->scale[0], (double)n->scale[1],
		    (double)n->scale[2]);
		rc = -1;
	}
	free(local);
	free(world);
	return rc;
}

int rig_check(const struct rig *rig, struct error *err)
{
	uint32_t *order;
	size_t looped = 0;
	int rc;

	for (size_t i = 0; i < rig->count; i++) {
		int32_t p = rig->nodes[i].parent;
		if (p != -1 && (p < 0 || (size_t)p >= rig->count)) {
			error_set(err, ERROR_INDEX_OUT_OF_RANGE, "rig.nodes.parent", -1,
			          "rig.nodes[%zu].parent: %d is not a node of the rig's %zu", i,
			          (int)p, rig->count);
			return -1;
		}
	}
	order = malloc((rig->count + 1) * sizeof(*order));
	rc = order ? rig_order(rig, order, &looped) : -1;
	if (rc < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	if (rc > 0) {
		free(order);
		error_set(err, ERROR_INVALID, "rig.nodes.parent", -1,
		          "rig.nodes[%zu].parent: its parents come back to a node (a cycle); a "
		          "node tree has none",
		          looped);
		return -1;
	}
	free(order);
	return rest_in_float32(rig, err);
}

void rig_compose(const float t[3], const float r[4], const float s[3], double m[16])
{
	double x = r[0], y = r[1], z = r[2], w = r[3];
	double xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
	double wx = w * x, wy = w * y, wz = w * z;

	m[0] = (1 - 2 * (yy + zz)) * s[0];
	m[1] = 2 * (xy + wz) * s[0];
	m[2] = 2 * (xz - wy) * s[0];
	m[3] = 0;
	m[4] = 2 * (xy - wz) * s[1];
	m[5] = (1 - 2 * (xx + zz)) * s[1];
	m[6] = 2 * (yz + wx) * s[1];
	m[7] = 0;
	m[8] = 2 * (xz + wy) * s[2];
	m[9] = 2 * (yz - wx) * s[2];
	m[10] = (1 - 2 * (xx + yy)) * s[2];
	m[11] = 0;
	m[12] = t[0];
	m[13] = t[1];
	m[14] = t[2];
	m[15] = 1;
}

/* A rotation matrix's quaternion (Shepperd's method, as three.js's setFromRotationMatrix). */
static void quaternion_of(const double c0[3], const double c1[3], const double c2[3], double q[4])
{
	double m11 = c0[0], m12 = c1[0], m13 = c2[0];
	double m21 = c0[1], m22 = c1[1], m23 = c2[1];
	double m31 = c0[2], m32 = c1[2], m33 = c2[2];
	double trace = m11 + m22 + m33, s;

	if (trace > 0) {
		s = 0.5 / sqrt(trace + 1.0);
		q[3] = 0.25 / s;
		q[0] = (m32 - m23) * s;
		q[1] = (m13 - m31) * s;
		q[2] = (m21 - m12) * s;
	} else if (m11 > m22 && m11 > m33) {
		s = 2.0 * sqrt(1.0 + m11 - m22 - m33);
		q[3] = (m32 - m23) / s;
		q[0] = 0.25 * s;
		q[1] = (m12 + m21) / s;
		q[2] = (m13 + m31) / s;
	} else if (m22 > m33) {
		s = 2.0 * sqrt(1.0 + m22 - m11 - m33);
		q[3] = (m13 - m31) / s;
		q[0] = (m12 + m21) / s;
		q[1] = 0.25 * s;
		q[2] = (m23 + m32) / s;
	} else {
		s = 2.0 * sqrt(1.0 + m33 - m11 - m22);
		q[3] = (m21 - m12) / s;
		q[0] = (m13 + m31) / s;
		q[1] = (m23 + m32) / s;
		q[2] = 0.25 * s;
	}
}

static double dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int rig_decompose(const double m[16], float t[3], float r[4], float s[3])
{
	double col[3][3], scale[3], q[4], det, len;

	for (int i = 0; i < 16; i++)
		if (!isfinite(m[i]))
			return -1;
	if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
		return -1;
	for (int c = 0; c < 3; c++) {
		for (int k = 0; k < 3; k++)
			col[c][k] = m[c * 4 + k];
		scale[c] = sqrt(dot3(col[c], col[c]));
		if (!(scale[c] > 0))
			return -1;
	}
	det = col[0][0] * (col[1][1] * col[2][2] - col[2][1] * col[1][2]) -
	      col[1][0] * (col[0][1] * col[2][2] - col[2][1] * col[0][2]) +
	      col[2][0] * (col[0][1] * col[1][2] - col[1][1] * col[0][2]);
	if (det < 0) /* a mirror: three.js puts it on the x scale */
		scale[0] = -scale[0];
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++)
			col[c][k] /= scale[c];
	/* without shear the columns are orthonormal */
	if (fabs(dot3(col[0], col[1])) > SHEAR_TOLERANCE ||
	    fabs(dot3(col[0], col[2])) > SHEAR_TOLERANCE ||
	    fabs(dot3(col[1], col[2])) > SHEAR_TOLERANCE)
		return -1;
	quaternion_of(col[0], col[1], col[2], q);
	len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	for (int k = 0; k < 3; k++) {
		t[k] = (float)m[12 + k];
		s[k] = (float)scale[k];
	}
	for (int k = 0; k < 4; k++)
		r[k] = (float)(q[k] / len);
	return 0;
}

void rig_multiply(const double a[16], const double b[16], double out[16])
{
	double m[16];

	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++)
			m[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] +
			               a[8 + r] * b[c * 4 + 2] + a[12 + r] * b[c * 4 + 3];
	memcpy(out, m, sizeof(m));
}

int rig_world(const struct rig *rig, const double *local, double *world)
{
	unsigned char *done = calloc(rig->count + 1, 1);
	size_t *chain = malloc((rig->count + 1) * sizeof(*chain));

	if (!done || !chain) {
		free(done);
		free(chain);
		return -1;
	}
	for (size_t i = 0; i < rig->count; i++) {
		size_t depth = 0;
		/* the node and its ancestors not yet made, nearest first; then made from the top
		 * (a loop, not recursion: a hostile file's chain may be as long as the rig) */
		for (int32_t n = (int32_t)i; n >= 0 && !done[n]; n = rig->nodes[n].parent)
			chain[depth++] = (size_t)n;
		while (depth > 0) {
			size_t n = chain[--depth];
			int32_t p = rig->nodes[n].parent;
			if (p < 0)
				memcpy(world + n * 16, local + n * 16, 16 * sizeof(double));
			else
				rig_multiply(world + (size_t)p * 16, local + n * 16,
				             world + n * 16);
			done[n] = 1;
		}
	}
	free(done);
	free(chain);
	return 0;
}

json_t *rig_floats_json(const float *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

/* Parents by source index: the rig must pass rig_check. */
json_t *rig_json(const struct rig *rig)
{
	json_t *nodes = json_array();

	for (size_t i = 0; i < rig->count; i++) {
		const struct rig_node *n = &rig->nodes[i];
		char handle[11];
		snprintf(handle, sizeof(handle), "0x%08X", (unsigned)n->handle);
		json_array_append_new(
		    nodes,
		    json_pack(
		        "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "source", (json_int_t)n->source,
		        "name", n->name ? json_string(n->name) : json_null(), "handle",
		        n->has_handle ? json_string(handle) : json_null(), "parent",
		        n->parent >= 0 ? json_integer(rig->nodes[n->parent].source) : json_null(),
		        "translation", rig_floats_json(n->translation, 3), "rotation",
		        rig_floats_json(n->rotation, 4), "scale", rig_floats_json(n->scale, 3),
		        "inverse_bind_matrix",
		        n->has_inverse_bind ? rig_floats_json(n->inverse_bind, 16) : json_null()));
		if (n->has_handle)
			json_object_set_new(json_array_get(nodes, i), "handle_name",
			                    n->handle_name ? json_string(n->handle_name)
			                                   : json_null());
	}
	return nodes;
}

void rig_node_label(const struct rig_node *node, char *out, size_t size)
{
	if (node->name)
		snprintf(out, size, "%s", node->name);
	else if (node->handle_name)
		snprintf(out, size, "%s", node->handle_name);
	else
		snprintf(out, size, "node %u", (unsigned)node->source);
}

static int same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int rig_equal(const struct rig *a, const struct rig *b)
{
	if (a->count != b->count)
		return 0;
	for (size_t i = 0; i < a->count; i++) {
		const struct rig_node *x = &a->nodes[i], *y = &b->nodes[i];
		if (x->source != y->source || !same_text(x->name, y->name) ||
		    x->has_handle != y->has_handle || (x->has_handle && x->handle != y->handle) ||
		    x->parent != y->parent || x->has_inverse_bind != y->has_inverse_bind ||
		    memcmp(x->translation, y->translation, sizeof(x->translation)) != 0 ||
		    memcmp(x->rotation, y->rotation, sizeof(x->rotation)) != 0 ||
		    memcmp(x->scale, y->scale, sizeof(x->scale)) != 0 ||
		    (x->has_inverse_bind &&
		     memcmp(x->inverse_bind, y->inverse_bind, sizeof(x->inverse_bind)) != 0))
			return 0;
	}
	return 1;
}

int rig_copy(const struct rig *from, struct rig *to)
{
	rig_init(to);
	if (from->count == 0)
		return 0;
	to->nodes = calloc(from->count, sizeof(*to->nodes));
	if (!to->nodes)
		return -1;
	to->count = from->count;
	for (size_t i = 0; i < from->count; i++) {
		struct rig_node *n = &to->nodes[i];
		*n = from->nodes[i];
		n->name = n->handle_name = NULL;
		if ((from->nodes[i].name && !(n->name = strdup(from->nodes[i].name))) ||
		    (from->nodes[i].handle_name &&
		     !(n->handle_name = strdup(from->nodes[i].handle_name)))) {
			rig_cleanup(to);
			return -1;
		}
	}
	return 0;
}
