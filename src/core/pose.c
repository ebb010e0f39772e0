/* pose.c: a rig posed by tracks (pose.h): matching tracks to nodes, sampling them, and chaining
 * the local matrices into world matrices, parents first. */
#include "core/pose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"

/* R = R(axis[0], e[0]) R(axis[1], e[1]) R(axis[2], e[2]), in degrees */
static void ordered_euler_quaternion(const int axis[3], const float e[3], float out[4])
{
	double q[4] = {0, 0, 0, 1};

	for (int i = 0; i < 3; i++) {
		double half = (double)e[i] * (3.14159265358979323846 / 360.0),
		       turn[4] = {0, 0, 0, cos(half)};
		turn[axis[i]] = sin(half);
		quat_multiply(q, turn, q);
	}
	for (int i = 0; i < 4; i++)
		out[i] = (float)q[i];
}

void pose_euler_quaternion(int euler, const float e[3], float q[4])
{
	static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
	                                 {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	double cx, sx, cy, sy, cz, sz;

	if (euler >= MOCAP_ROTATION_XYZ && euler <= MOCAP_ROTATION_ZYX) {
		ordered_euler_quaternion(orders[euler - MOCAP_ROTATION_XYZ], e, q);
		return;
	}
	cx = cos(e[0] / 2.0), sx = sin(e[0] / 2.0);
	cy = cos(e[1] / 2.0), sy = sin(e[1] / 2.0);
	cz = cos(e[2] / 2.0), sz = sin(e[2] / 2.0);
	q[0] = (float)(sx * cy * cz - cx * sy * sz);
	q[1] = (float)(cx * sy * cz + sx * cy * sz);
	q[2] = (float)(cx * cy * sz - sx * sy * cz);
	q[3] = (float)(cx * cy * cz + sx * sy * sz);
}

int pose_target_euler(struct pose_target *t)
{
	int euler = POSE_EULER_NONE;

	if (strcmp(t->schema, SCHEMA_ZOUNA) == 0 && t->property == ZOUNA_EULER_ROTATION) {
		euler = POSE_EULER_ZOUNA;
		t->property = NODE_ROTATION;
	} else if (strcmp(t->schema, SCHEMA_MOCAP) == 0 && t->property >= MOCAP_ROTATION_XYZ &&
	           t->property <= MOCAP_ROTATION_ZYX) {
		euler = (int)t->property;
		t->property = NODE_ROTATION;
	} else if (strcmp(t->schema, SCHEMA_MOCAP) == 0 && t->property == MOCAP_POSITION) {
		t->property = NODE_TRANSLATION;
	} else {
		return POSE_EULER_NONE;
	}
	t->schema = SCHEMA_NODE;
	return euler;
}

int32_t pose_match(const struct rig *rig, const struct pose_target *target, int own_rig,
                   const char **why)
{
	if (strcmp(target->schema, SCHEMA_NODE) != 0 ||
	    (target->property != NODE_TRANSLATION && target->property != NODE_ROTATION &&
	     target->property != NODE_SCALE)) {
		*why = "it is not a node's translation, rotation or scale";
		return -1;
	}
	if (own_rig) {
		for (size_t i = 0; i < rig->count; i++)
			if (rig->nodes[i].source == target->object)
				return (int32_t)i;
		*why = "its node is not in the entry's rig";
		return -1;
	}
	if (target->has_handle) {
		for (size_t i = 0; i < rig->count; i++)
			if (rig->nodes[i].has_handle && rig->nodes[i].handle == target->handle)
				return (int32_t)i;
		*why = "the skeleton has no bone with its handle";
		return -1;
	}
	if (target->name) {
		for (size_t i = 0; i < rig->count; i++)
			if (rig->nodes[i].name && strcmp(rig->nodes[i].name, target->name) == 0)
				return (int32_t)i;
		*why = "the skeleton has no node of its name";
		return -1;
	}
	/* a bone named by its handle only (Skel_Z) is not unnamed */
	for (size_t i = 0; i < rig->count; i++)
		if (!rig->nodes[i].name && !rig->nodes[i].has_handle &&
		    rig->nodes[i].source == target->object)
			return (int32_t)i;
	*why = "it has no name, and the skeleton has no unnamed node of its index";
	return -1;
}

const char *pose_sampler_fits(enum node_property property, int euler, const struct sampler *s)
{
	if (s->array_size != 1)
		return "it holds several values per key";
	if (euler)
		return s->type == VALUE_FLOAT3 ? NULL : "Euler angles must be FLOAT3";
	if (property == NODE_ROTATION)
		return s->type == VALUE_FLOAT4 && s->semantic == SEMANTIC_NORMALIZED_QUATERNION
		           ? NULL
		           : "a rotation must be a FLOAT4 quaternion";
	return s->type == VALUE_FLOAT3 ? NULL : "a translation or scale must be FLOAT3";
}

int pose_init(struct pose *p, const struct rig *rig)
{
	size_t n = rig->count, looped;

	memset(p, 0, sizeof(*p));
	p->rig = rig;
	p->order = malloc((n + 1) * sizeof(*p->order));
	p->trs = malloc((n + 1) * POSE_TRS * sizeof(*p->trs));
	p->world = malloc((n + 1) * 16 * sizeof(*p->world));
	/* parents first, in one linear walk (a checked rig has no cycle) */
	if (!p->order || !p->trs || !p->world || rig_order(rig, p->order, &looped) != 0) {
		pose_cleanup(p);
		return -1;
	}
	return 0;
}

void pose_cleanup(struct pose *p)
{
	free(p->tracks);
	free(p->order);
	free(p->trs);
	free(p->world);
	memset(p, 0, sizeof(*p));
}

int pose_add_track(struct pose *p, uint32_t node, enum node_property property, int euler,
                   const struct sampler *s)
{
	struct pose_track *pt;

	if (p->track_count == p->track_cap) {
		size_t cap = p->track_cap ? 2 * p->track_cap : 16;
		struct pose_track *grown = realloc(p->tracks, cap * sizeof(*grown));
		if (!grown)
			return -1;
		p->tracks = grown;
		p->track_cap = cap;
	}
	pt = &p->tracks[p->track_count++];
	pt->node = node;
	pt->property = property;
	pt->euler = euler;
	curve_from_sampler(&pt->curve, s);
	curve_cursor_init(&pt->cursor);
	return 0;
}

/* Where a property's floats are in a node's POSE_TRS. */
static size_t trs_offset(enum node_property property)
{
	return property == NODE_TRANSLATION ? 0 : property == NODE_ROTATION ? 3 : 7;
}

void pose_at(struct pose *p, float t)
{
	const struct rig *rig = p->rig;

	for (size_t i = 0; i < rig->count; i++) {
		float *trs = p->trs + i * POSE_TRS;
		memcpy(trs, rig->nodes[i].translation, 3 * sizeof(float));
		memcpy(trs + 3, rig->nodes[i].rotation, 4 * sizeof(float));
		memcpy(trs + 7, rig->nodes[i].scale, 3 * sizeof(float));
	}
	for (size_t k = 0; k < p->track_count; k++) {
		struct pose_track *pt = &p->tracks[k];
		float *at = p->trs + (size_t)pt->node * POSE_TRS + trs_offset(pt->property);
		if (pt->euler) {
			float angles[3];
			curve_sample_f32(&pt->curve, &pt->cursor, t, angles);
			pose_euler_quaternion(pt->euler, angles, at);
		} else {
			curve_sample_f32(&pt->curve, &pt->cursor, t, at);
		}
	}
	for (size_t k = 0; k < rig->count; k++) {
		uint32_t i = p->order[k];
		const float *trs = p->trs + (size_t)i * POSE_TRS;
		double *world = p->world + (size_t)i * 16;
		int32_t parent = rig->nodes[i].parent;
		rig_compose(trs, trs + 3, trs + 7, world);
		if (parent >= 0)
			rig_multiply(p->world + (size_t)parent * 16, world, world);
	}
}
