/* gltf_rig.c: the rig of a glTF animation (doc/formats.md 4.1): the nodes it animates, their
 * ancestors up to the scene's roots, and the joints of every skin one of whose joints it
 * animates (with their inverse bind matrices), each with its name, parent and rest pose, in
 * the order of their node indices. A node given as a matrix is decomposed into translation,
 * rotation and scale, and refused when it cannot be (NODE_MATRIX_NON_TRS). The node tree is
 * checked as the validator checks it: children exist, a node has one parent at most
 * (NODE_PARENT_OVERRIDE), and none is its own ancestor (NODE_LOOP).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf.h"
#include "base/hash.h"

/* Every node's parent (-1 for a root) into parent[count], checked. A loop is found in one
 * walk up from each node that stops at the first node already walked: linear in the nodes. */
static int node_parents(struct gltf *g, const json_t *nodes, int32_t *parent)
{
	size_t count = json_array_size(nodes);
	unsigned char *state = calloc(count + 1, 1); /* 0 unseen, 1 on this walk, 2 done */
	char ptr[96];
	int rc = -1;

	if (!state) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		parent[i] = -1;
	for (size_t i = 0; i < count; i++) {
		const json_t *children = json_object_get(json_array_get(nodes, i), "children");
		for (size_t k = 0; k < json_array_size(children); k++) {
			const json_t *c = json_array_get(children, k);
			json_int_t child = json_is_integer(c) ? json_integer_value(c) : -1;
			if (child < 0 || (size_t)child >= count) {
				snprintf(ptr, sizeof(ptr), "/nodes/%zu/children/%zu", i, k);
				gltf_fail(g, "UNRESOLVED_REFERENCE", ptr,
				          "node %lld does not exist", (long long)child);
				goto done;
			}
			if (parent[child] != -1) {
				snprintf(ptr, sizeof(ptr), "/nodes/%zu/children/%zu", i, k);
				gltf_fail(g, "NODE_PARENT_OVERRIDE", ptr,
				          "node %lld is already a child of node %d",
				          (long long)child, (int)parent[child]);
				goto done;
			}
			parent[child] = (int32_t)i;
		}
	}
	for (size_t i = 0; i < count; i++) {
		int32_t p = (int32_t)i;
		while (p != -1 && state[p] == 0) {
			state[p] = 1;
			p = parent[p];
		}
		if (p != -1 && state[p] == 1) { /* back on this walk: a loop above node i */
			snprintf(ptr, sizeof(ptr), "/nodes/%zu", i);
			gltf_fail(g, "NODE_LOOP", ptr,
			          "node %zu is its own ancestor through its parents", i);
			goto done;
		}
		for (p = (int32_t)i; p != -1 && state[p] == 1; p = parent[p])
			state[p] = 2;
	}
	rc = 0;
done:
	free(state);
	return rc;
}

/* Every node's parent, read and checked once for all of the file's animations (g->parent);
 * NULL with the error set. */
static const int32_t *node_tree(struct gltf *g, const json_t *nodes)
{
	if (g->parent)
		return g->parent;
	g->parent = calloc(json_array_size(nodes) + 1, sizeof(*g->parent));
	if (!g->parent) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	if (node_parents(g, nodes, g->parent) < 0) {
		free(g->parent); /* (the file is refused: no animation reads it again) */
		g->parent = NULL;
	}
	return g->parent;
}

/* Marks node n and its ancestors as nodes of the rig. */
static void keep_with_ancestors(const int32_t *parent, unsigned char *kept, int32_t n)
{
	for (; n >= 0 && !kept[n]; n = parent[n])
		kept[n] = 1;
}

/* Reads n numbers of node i's `key` into out (when given); -1 with the error set when the
 * value is not an array of n finite numbers. */
static int node_floats(struct gltf *g, const json_t *node, size_t i, const char *key, size_t n,
                       double *out)
{
	const json_t *a = json_object_get(node, key);
	char ptr[96];

	if (!a)
		return 0;
	snprintf(ptr, sizeof(ptr), "/nodes/%zu/%s", i, key);
	if (!json_is_array(a) || json_array_size(a) != n)
		return gltf_fail(g, "ARRAY_LENGTH_NOT_IN_LIST", ptr, "%s must be %zu numbers", key,
		                 n);
	for (size_t k = 0; k < n; k++) {
		const json_t *v = json_array_get(a, k);
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return gltf_fail(g, "TYPE_MISMATCH", ptr,
			                 "element %zu is not a finite number", k);
		if (fabs(json_number_value(v)) > FLT_MAX)
			return gltf_fail(g, "VALUE_NOT_FLOAT32", ptr,
			                 "node %zu's %s element %zu is %.17g, beyond a 32-bit "
			                 "float's range (+-3.40282347e+38)",
			                 i, key, k, json_number_value(v));
		out[k] = json_number_value(v);
	}
	return 1;
}

/* Node i's rest pose into rn: its matrix decomposed, or its translation, rotation and scale
 * (glTF's defaults where absent). */
static int rest_pose(struct gltf *g, const json_t *node, size_t i, struct rig_node *rn,
                     struct resource *res)
{
	double m[16], t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, len;
	char ptr[96];
	int rc = node_floats(g, node, i, "matrix", 16, m);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		snprintf(ptr, sizeof(ptr), "/nodes/%zu/matrix", i);
		if (rig_decompose(m, rn->translation, rn->rotation, rn->scale) < 0)
			return gltf_fail(g, "NODE_MATRIX_NON_TRS", ptr,
			                 "node %zu's matrix does not decompose into translation, "
			                 "rotation and scale (it has shear, a zero scale or a "
			                 "projection)",
			                 i);
		for (int k = 0; k < 3; k++)
			if (!isfinite(rn->translation[k]) || !isfinite(rn->scale[k]))
				return gltf_fail(
				    g, "VALUE_NOT_FLOAT32", ptr,
				    "node %zu's matrix gives a %s of %.9g, beyond a "
				    "32-bit float's range",
				    i, isfinite(rn->scale[k]) ? "translation" : "scale",
				    isfinite(rn->scale[k]) ? m[12 + k] : (double)rn->scale[k]);
		return 0;
	}
	if (node_floats(g, node, i, "translation", 3, t) < 0 ||
	    node_floats(g, node, i, "rotation", 4, r) < 0 ||
	    node_floats(g, node, i, "scale", 3, s) < 0)
		return -1;
	len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
	if (!(len > 0)) {
		snprintf(ptr, sizeof(ptr), "/nodes/%zu/rotation", i);
		return gltf_fail(g, "NODE_ROTATION_NON_UNIT", ptr, "node %zu's rotation is zero",
		                 i);
	}
	/* a rotation within the validator's tolerance of unit is kept as the file has it (rest
	 * TRS bit for bit); only one beyond it is normalised, and the note says so */
	if (fabs(len - 1.0) > QUATERNION_TOLERANCE) {
		char note[160];
		snprintf(note, sizeof(note),
		         "nodes[%zu].rotation has length %.6g: normalised for the rig's rest pose",
		         i, len);
		resource_assume(res, note);
	} else {
		len = 1.0;
	}
	for (int k = 0; k < 3; k++) {
		rn->translation[k] = (float)t[k];
		rn->scale[k] = (float)s[k];
	}
	for (int k = 0; k < 4; k++)
		rn->rotation[k] = (float)(r[k] / len);
	return 0;
}

/* The inverse bind matrices of skin si (one MAT4 a joint), onto its joints in the rig that
 * have none yet; -1 with the error set. */
static int skin_bind_matrices(struct gltf *g, const json_t *skin, size_t si,
                              const int32_t *rig_index, struct rig *rig)
{
	const json_t *joints = json_object_get(skin, "joints");
	json_int_t ibm = gltf_int(skin, "inverseBindMatrices", -1);
	struct accessor a;
	char ptr[96];
	float *m;

	if (ibm < 0)
		return 0; /* identity matrices, glTF says: nothing to keep */
	snprintf(ptr, sizeof(ptr), "/skins/%zu/inverseBindMatrices", si);
	if (gltf_accessor_info(g, ibm, ptr, &a) < 0)
		return -1;
	if (a.components != 16 || a.component_type != COMPONENT_FLOAT || a.has_stride)
		return gltf_fail(
		    g, "SKIN_IBM_INVALID_FORMAT", ptr,
		    "inverse bind matrices are a MAT4 float accessor without byteStride");
	if (a.count < json_array_size(joints))
		return gltf_fail(g, "INVALID_IBM_ACCESSOR_COUNT", ptr,
		                 "%zu matrices for %zu joints", a.count, json_array_size(joints));
	m = gltf_accessor_read(g, ibm, ptr, &a);
	if (!m)
		return -1;
	for (size_t k = 0; k < json_array_size(joints); k++) {
		const json_t *v = json_array_get(joints, k);
		json_int_t j = json_is_integer(v) ? json_integer_value(v) : -1;
		/* joints were checked to be nodes (skin_joints) */
		if (j < 0 || rig_index[j] < 0 || rig->nodes[rig_index[j]].has_inverse_bind)
			continue;
		memcpy(rig->nodes[rig_index[j]].inverse_bind, m + k * 16, 16 * sizeof(float));
		rig->nodes[rig_index[j]].has_inverse_bind = 1;
	}
	free(m);
	return 0;
}

/* Marks the joints of every skin that has an animated joint (and their ancestors). */
static int skin_joints(struct gltf *g, const int32_t *parent, const unsigned char *animated,
                       unsigned char *kept, unsigned char *skin_used)
{
	const json_t *skins = json_object_get(g->doc, "skins");
	size_t count = json_array_size(json_object_get(g->doc, "nodes"));
	char ptr[96];

	for (size_t si = 0; si < json_array_size(skins); si++) {
		const json_t *joints = json_object_get(json_array_get(skins, si), "joints");
		for (size_t k = 0; k < json_array_size(joints); k++) {
			const json_t *v = json_array_get(joints, k);
			json_int_t j = json_is_integer(v) ? json_integer_value(v) : -1;
			if (j < 0 || (size_t)j >= count) {
				snprintf(ptr, sizeof(ptr), "/skins/%zu/joints/%zu", si, k);
				return gltf_fail(g, "UNRESOLVED_REFERENCE", ptr,
				                 "node %lld does not exist", (long long)j);
			}
			if (animated[j])
				skin_used[si] = 1;
		}
		for (size_t k = 0; skin_used[si] && k < json_array_size(joints); k++)
			keep_with_ancestors(parent, kept,
			                    (int32_t)json_integer_value(json_array_get(joints, k)));
	}
	return 0;
}

/* The rig nodes, in node order, from the nodes kept. */
static int make_rig(struct gltf *g, const json_t *nodes, const int32_t *parent,
                    const unsigned char *kept, int32_t *rig_index, struct resource *res)
{
	size_t count = json_array_size(nodes), n = 0;
	struct rig *rig = &res->rig;

	for (size_t i = 0; i < count; i++)
		rig_index[i] = kept[i] ? (int32_t)n++ : -1;
	rig->nodes = calloc(n + 1, sizeof(*rig->nodes));
	if (!rig->nodes) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const json_t *node;
		const char *name;
		struct rig_node *rn;
		if (!kept[i])
			continue; /* (before reading the node: a file may hold thousands of rigs) */
		node = json_array_get(nodes, i);
		name = json_string_value(json_object_get(node, "name"));
		rn = &rig->nodes[rig->count++];
		rn->source = (uint32_t)i;
		rn->parent = parent[i] >= 0 ? rig_index[parent[i]] : -1;
		if (name) {
			rn->name = strdup(name);
			rn->handle = hash_crc32_lower(name, strlen(name));
			rn->has_handle = 1;
		}
		if (rest_pose(g, node, i, rn, res) < 0)
			return -1;
	}
	return 0;
}

int gltf_rig(struct gltf *g, struct resource *res, int whole)
{
	const json_t *nodes = json_object_get(g->doc, "nodes");
	const json_t *skins = json_object_get(g->doc, "skins");
	size_t count = json_array_size(nodes);
	int32_t *rig_index = calloc(count + 1, sizeof(*rig_index));
	unsigned char *animated = calloc(count + 1, 1), *kept = calloc(count + 1, 1);
	unsigned char *skin_used = calloc(json_array_size(skins) + 1, 1);
	const int32_t *parent = node_tree(g, nodes);
	int rc = -1;

	if (!parent)
		goto done;
	if (!rig_index || !animated || !kept || !skin_used) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	for (size_t t = 0; t < res->clip.target_count; t++) {
		uint64_t n = res->clip.targets[t].object;
		const char *schema = res->clip.targets[t].schema;
		if (strcmp(schema, SCHEMA_NODE) != 0 && strcmp(schema, SCHEMA_MORPH) != 0)
			continue; /* a kept track's target (a bone's handle, a part): no node */
		if (n < count) {
			animated[n] = 1;
			keep_with_ancestors(parent, kept, (int32_t)n);
		}
	}
	for (size_t n = 0; whole && n < count; n++) /* every node but animdex's entry nodes */
		if (!gltf_entry_node_tracks(g, json_array_get(nodes, n)))
			animated[n] = kept[n] = 1;
	if (skin_joints(g, parent, animated, kept, skin_used) < 0 ||
	    make_rig(g, nodes, parent, kept, rig_index, res) < 0)
		goto done;
	for (size_t si = 0; si < json_array_size(skins); si++)
		if (skin_used[si] &&
		    skin_bind_matrices(g, json_array_get(skins, si), si, rig_index, &res->rig) < 0)
			goto done;
	rc = rig_check(&res->rig, g->err);
done:
	free(rig_index);
	free(animated);
	free(kept);
	free(skin_used);
	return rc;
}

int gltf_skeleton(struct gltf *g, struct decode_result *out)
{
	struct resource *res = resource_create("gltf", "Skeleton");
	char stem[128];

	if (!res) {
		error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	res->name = strdup(gltf_file_stem(g->up, stem, sizeof(stem)) ? stem : "skeleton");
	res->clip.name = res->name ? strdup(res->name) : NULL;
	if (!res->name || !res->clip.name || gltf_rig(g, res, 1) < 0) {
		if (!error_is_set(g->err))
			error_set(g->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		resource_free(res);
		return -1;
	}
	res->metadata =
	    json_pack("{s:s, s:I, s:I, s:O?}", "container", g->glb ? "glb" : "gltf", "node_count",
	              (json_int_t)json_array_size(json_object_get(g->doc, "nodes")), "skin_count",
	              (json_int_t)json_array_size(json_object_get(g->doc, "skins")), "asset",
	              json_object_get(g->doc, "asset"));
	return decode_result_add(out, res);
}
