/* export_rig.c: rigs in an export: an entry's rig (or the skeleton= rig every entry is put on)
 * as the asset's node tree, with its rest TRS, unique names, the source index in each node's
 * extras, and a skin where the rig has inverse bind matrices; and which node of it a track
 * drives. A rig shared by several entries (the clips of one file, a batch on one skeleton) is
 * written once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "core/pose.h"

void export_rigs_free(struct exporter *ex)
{
	for (size_t i = 0; i < ex->rig_count; i++) {
		rig_cleanup(&ex->rigs[i].rig);
		free(ex->rigs[i].slot);
	}
	free(ex->rigs);
}

int exporter_set_skeleton(struct exporter *ex, struct catalog *cat, int64_t id, struct error *err)
{
	const struct export_rig *er;
	struct rig rig;

	if (catalog_read_skeleton(cat, id, &rig, err) < 0)
		return -1;
	er = export_rig_add(ex, id, &rig, err);
	rig_cleanup(&rig);
	if (!er)
		return -1;
	ex->skeleton_id = id;
	ex->skeleton_rig = (size_t)(er - ex->rigs);
	return 0;
}

/* The skin of a rig's nodes with inverse bind matrices: joints in rig order, their matrices
 * in an accessor made again from the rig when the buffer is. */
static int add_skin(struct exporter *ex, const struct export_rig *er)
{
	size_t joints = 0;
	float *matrices;
	json_t *list = json_array();
	int accessor;

	for (size_t i = 0; i < er->rig.count; i++)
		joints += er->rig.nodes[i].has_inverse_bind;
	if (joints == 0) {
		json_decref(list);
		return 0;
	}
	matrices = malloc(joints * 16 * sizeof(float));
	if (!matrices) {
		json_decref(list);
		return -1;
	}
	joints = 0;
	for (size_t i = 0; i < er->rig.count; i++)
		if (er->rig.nodes[i].has_inverse_bind) {
			memcpy(matrices + joints * 16, er->rig.nodes[i].inverse_bind,
			       16 * sizeof(float));
			json_array_append_new(list, json_integer(ex->nodes[er->slot[i]].index));
			joints++;
		}
	ex->source = (struct export_recipe){.entry = er->entry, .part = PART_BIND};
	accessor = export_add_accessor(ex, matrices, joints, "MAT4", 16, 0, 0);
	free(matrices);
	if (accessor < 0) {
		json_decref(list);
		return -1;
	}
	json_array_append_new(
	    json_object_get(ex->doc, "skins"),
	    json_pack("{s:o, s:i}", "joints", list, "inverseBindMatrices", accessor));
	return 0;
}

int export_bind_matrices(const struct rig *rig, float **out, size_t *bytes)
{
	size_t joints = 0;

	for (size_t i = 0; i < rig->count; i++)
		joints += rig->nodes[i].has_inverse_bind;
	*out = malloc(joints * 16 * sizeof(float) + 1);
	if (!*out)
		return -1;
	joints = 0;
	for (size_t i = 0; i < rig->count; i++)
		if (rig->nodes[i].has_inverse_bind)
			memcpy(*out + 16 * joints++, rig->nodes[i].inverse_bind,
			       16 * sizeof(float));
	*bytes = joints * 16 * sizeof(float);
	return 0;
}

/* Writes the rig's nodes into the asset: names unique, parents' children, roots in the scene. */
static int add_nodes(struct exporter *ex, struct export_rig *er)
{
	json_t *nodes = json_object_get(ex->doc, "nodes");
	json_t *scene =
	    json_object_get(json_array_get(json_object_get(ex->doc, "scenes"), 0), "nodes");
	size_t first = json_array_size(nodes);

	for (size_t i = 0; i < er->rig.count; i++) {
		const struct rig_node *n = &er->rig.nodes[i];
		char label[160], key[64], handle[11];
		struct export_node *node;
		json_t *about = json_pack("{s:I, s:I}", "entry", (json_int_t)er->entry, "source",
		                          (json_int_t)n->source);
		rig_node_label(n, label, sizeof(label));
		if (n->has_handle) {
			render_handle(n->handle, handle);
			json_object_set_new(about, "handle", json_string(handle));
		}
		snprintf(key, sizeof(key), "rig %zu %zu", (size_t)(er - ex->rigs), i);
		node = export_node_add(ex, key, label, (int)(first + i));
		if (!node) {
			json_decref(about);
			return -1;
		}
		er->slot[i] = (size_t)(node - ex->nodes);
		json_array_append_new(
		    nodes, json_pack("{s:s, s:o, s:o, s:o, s:{s:o}}", "name", node->name,
		                     "translation", rig_floats_json(n->translation, 3), "rotation",
		                     rig_floats_json(n->rotation, 4), "scale",
		                     rig_floats_json(n->scale, 3), "extras", "animdex", about));
	}
	for (size_t i = 0; i < er->rig.count; i++) {
		int32_t p = er->rig.nodes[i].parent;
		if (p < 0) {
			json_array_append_new(scene, json_integer((json_int_t)(first + i)));
			continue;
		}
		json_t *parent = json_array_get(nodes, first + (size_t)p);
		if (!json_object_get(parent, "children"))
			json_object_set_new(parent, "children", json_array());
		json_array_append_new(json_object_get(parent, "children"),
		                      json_integer((json_int_t)(first + i)));
	}
	return 0;
}

const struct export_rig *export_rig_add(struct exporter *ex, int64_t entry, struct rig *rig,
                                        struct error *err)
{
	struct export_rig *er;

	for (size_t i = 0; i < ex->rig_count; i++)
		if (rig_equal(&ex->rigs[i].rig, rig))
			return &ex->rigs[i];
	er = realloc(ex->rigs, (ex->rig_count + 1) * sizeof(*er));
	if (!er)
		goto oom;
	ex->rigs = er;
	er = &ex->rigs[ex->rig_count];
	memset(er, 0, sizeof(*er));
	er->entry = entry;
	er->slot = calloc(rig->count + 1, sizeof(*er->slot));
	if (!er->slot)
		goto oom;
	er->rig = *rig; /* taken over */
	rig_init(rig);
	ex->rig_count++;
	if (add_nodes(ex, er) < 0)
		goto oom;
	if (add_skin(ex, er) < 0)
		return export_too_large(ex, err), NULL;
	return er;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return NULL;
}

int32_t export_rig_match(const struct export_rig *er, int64_t entry,
                         const struct catalog_target *track, const char **why)
{
	struct pose_target t = track->target;

	pose_target_euler(&t); /* baked into rotation keys, it moves the bone too */
	return pose_match(&er->rig, &t, er->entry == entry, why);
}
