/* rig.h: the node tree an entry's tracks move (or, for a skeleton, the tree alone): each node
 * with its source index, name, handle, parent and rest pose; and the matrix arithmetic of
 * poses (glTF's conventions: column vectors, column-major 4x4 matrices, local = T * R * S,
 * world = world(parent) * local).
 */
#ifndef ANIMDEX_RIG_H
#define ANIMDEX_RIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct rig_node {
	uint32_t source; /* its index in the source: a glTF node, a Skel_Z bone */
	char *name;      /* or NULL */
	uint32_t handle; /* the name's hash, where the family hashes names (has_handle) */
	int has_handle;
	char *handle_name; /* the name users gave the handle (POST /api/names), or NULL */
	int32_t parent;    /* the parent's index in the rig, or -1 for a root */
	float translation[3];
	float rotation[4]; /* a unit quaternion, x y z w */
	float scale[3];
	int has_inverse_bind;
	float inverse_bind[16]; /* column-major */
};

struct rig {
	struct rig_node *nodes;
	size_t count;
};

void rig_init(struct rig *rig);
void rig_cleanup(struct rig *rig);

/* Every parent is a node of the rig and no node is its own ancestor: 0, or -1 with err set
 * naming the node ("rig.nodes[3].parent"). Linear in the nodes (rig_order). */
int rig_check(const struct rig *rig, struct error *err);

/* Every node of the rig once, each after its parent, into order[count] (a topological order,
 * in one walk up from each node: linear in the nodes however deep the tree, so that a chain of
 * 100,000 bones costs what 100,000 siblings do). The parents must be nodes of the rig or -1.
 * 0; 1 when the parents make a cycle (*looped is the first node whose ancestors loop, and
 * order is incomplete); -1 when out of memory. */
int rig_order(const struct rig *rig, uint32_t *order, size_t *looped);

/* The matrix of a translation, rotation (a unit quaternion) and scale: T * R * S. */
void rig_compose(const float t[3], const float r[4], const float s[3], double m[16]);
/* The translation, rotation and scale of an affine matrix without shear (three.js's
 * Matrix4.decompose, which this follows, assumes none): 0, or -1 when the matrix has shear,
 * a scale of 0, or a last row other than 0 0 0 1. */
int rig_decompose(const double m[16], float t[3], float r[4], float s[3]);
/* out = a * b (out may be a or b). */
void rig_multiply(const double a[16], const double b[16], double out[16]);
/* The world matrix of every node from their local matrices (count x 16 each), parents
 * multiplied in whatever order the nodes come; the rig must pass rig_check. 0, or -1 when out
 * of memory. */
int rig_world(const struct rig *rig, const double *local, double *world);

/* The rig as JSON: [{"source", "name", "handle", "handle_name" (with a handle), "parent",
 * "translation", "rotation", "scale", "inverse_bind_matrix" (or null)}], parents by source
 * index. */
json_t *rig_json(const struct rig *rig);

/* n floats as a JSON array of numbers. */
json_t *rig_floats_json(const float *v, size_t n);

/* What a node is called in answers and exports: its name, else its handle's known name, else
 * "node N" after its source index (never after its place in the rig). */
void rig_node_label(const struct rig_node *node, char *out, size_t size);

/* to made a copy of from, names and all (to is overwritten, not cleaned up). 0, or -1 when
 * out of memory (to left empty). */
int rig_copy(const struct rig *from, struct rig *to);

/* Whether two rigs are the same nodes, names, parents and rest poses, bit for bit. */
int rig_equal(const struct rig *a, const struct rig *b);

#endif
