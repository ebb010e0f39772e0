/* burnout_rig.c: a Vehicle Animation's rig (doc/formats.md 2.1): a vehicle root, a child for
 * each part an animation or state animation moves, and the four wheels at the resource's wheel
 * matrices. The parts' own places are not in the resource (they are the vehicle model's), so
 * they sit at the root; everything here rests on the wiki's unconfirmed research, and the entry
 * says so. Node sources: 0 the root, 1 + p part p, 257 + i wheel i when no part is named for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burnout.h"

#define PART_SOURCE(p)  (1u + (uint32_t)(p))
#define WHEEL_SOURCE(i) (257u + (uint32_t)(i))

static const char *const corners[4] = {"front left", "front right", "rear left", "rear right"};

/* The node of source `source`, added (as a child of the root, at rest) when new. */
static struct rig_node *node_of(struct rig *rig, uint32_t source, const char *name)
{
	for (size_t i = 0; i < rig->count; i++)
		if (rig->nodes[i].source == source)
			return &rig->nodes[i];
	struct rig_node *n = &rig->nodes[rig->count];
	memset(n, 0, sizeof(*n));
	n->source = source;
	n->name = strdup(name);
	n->parent = rig->count ? 0 : -1;
	n->rotation[3] = 1;
	n->scale[0] = n->scale[1] = n->scale[2] = 1;
	rig->count++;
	return n->name ? n : NULL;
}

/* A part moved by the records of `key` ("animations", "states"), each naming it in "part". */
static int add_parts(struct rig *rig, const json_t *records)
{
	size_t i;
	const json_t *record;
	char name[32];

	json_array_foreach(records, i, record)
	{
		json_int_t p = json_integer_value(json_object_get(record, "part"));
		if (p < 0 || p > 127)
			continue;
		snprintf(name, sizeof(name), "part %d", (int)p);
		if (!node_of(rig, PART_SOURCE(p), name))
			return -1;
	}
	return 0;
}

/* A wheel at its matrix (row-major, translation in row 3: the bytes of the column-major
 * column-vector matrix); 1 when the matrix has no TRS form (kept at rest), 0, -1 (memory). */
static int add_wheel(struct rig *rig, int i, const json_t *wheel)
{
	json_int_t p = json_integer_value(json_object_get(wheel, "part_index"));
	const json_t *rows = json_object_get(wheel, "matrix44");
	struct rig_node *n;
	double m[16];
	char name[48];

	if (p >= 0) {
		snprintf(name, sizeof(name), "wheel %s (part %d)", corners[i], (int)p);
		n = node_of(rig, PART_SOURCE(p), name);
		if (n && strncmp(n->name, "wheel", 5) != 0) { /* an animated part: a wheel too */
			free(n->name);
			n->name = strdup(name);
		}
	} else {
		snprintf(name, sizeof(name), "wheel %s", corners[i]);
		n = node_of(rig, WHEEL_SOURCE(i), name);
	}
	if (!n || !n->name)
		return -1;
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 4; c++)
			m[r * 4 + c] = json_number_value(
			    json_array_get(json_array_get(rows, (size_t)r), (size_t)c));
	/* the w lane of an affine matrix's rows is not stored reliably: 0 0 0 1 */
	m[3] = m[7] = m[11] = 0;
	m[15] = 1;
	return rig_decompose(m, n->translation, n->rotation, n->scale) < 0 ? 1 : 0;
}

int burnout_vehicle_rig(struct resource *res, struct error *err)
{
	const json_t *animations = json_object_get(res->metadata, "animations");
	const json_t *states = json_object_get(res->metadata, "states");
	const json_t *wheels = json_object_get(res->metadata, "wheels");
	struct rig *rig = &res->rig;
	size_t most = 1 + json_array_size(animations) + json_array_size(states) + 4;
	int unposed = 0;

	rig->nodes = calloc(most, sizeof(*rig->nodes));
	if (!rig->nodes || !node_of(rig, 0, "vehicle") || add_parts(rig, animations) < 0 ||
	    add_parts(rig, states) < 0)
		goto oom;
	for (int i = 0; i < 4 && i < (int)json_array_size(wheels); i++) {
		int rc = add_wheel(rig, i, json_array_get(wheels, (size_t)i));
		if (rc < 0)
			goto oom;
		unposed += rc;
	}
	resource_assume(res, "Burnout vehicle rig: a vehicle root with a child for each animated "
	                     "part, at the root (the parts' places are the vehicle model's, not "
	                     "this resource's), and the four wheels at the wheel matrices, read "
	                     "row-major with the translation in row 3 (doc/formats.md 2.1)");
	if (unposed)
		resource_assume(res,
		                "Burnout vehicle rig: a wheel matrix with shear or a zero scale "
		                "has no translation, rotation and scale; that wheel is at rest");
	return 0;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}
