/* zouna_skel_native.c: an entry's rig written back as a Zouna Skel_Z (formats/native.h,
 * doc/formats.md 1.7 and 1.8).
 *
 * The template, a Skel_Z as the game stored it, gives every byte: the headers, the bones' links,
 * flags, handles and the engine's own fields, the tail. What an entry gives is its rig's rest
 * pose: each bone of the template takes the translation, rotation and scale of the entry's rig
 * node that is the same bone (the same handle in a Zouna entry; in a glTF entry, a node named
 * after the bone's handle ("0x1234ABCD"), a name whose Asobo32 is the handle, or the name
 * animdex's export gives a bone without one, "node 3"). A bone whose values are the template's,
 * bit for bit, keeps its bytes; a changed one gets its three vectors, and it and every bone
 * under it their rest model matrix and model-space rotation, made from the TRS chain as the
 * engine makes them. Bones are neither added nor removed, and parents stay the template's.
 * The file is decoded again and its rig compared with what was meant before it is answered.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "formats/native.h"
#include "formats/reader.h"
#include "writer.h"
#include "zouna.h"

/* Offsets in a bone (doc/formats.md 1.7). */
enum {
	AT_ROTATION = 4,
	AT_SCALE = 20,
	AT_TRANSLATION = 36,
	AT_WORLD_ROTATION = 100,
	AT_WORLD = 164
};

static int oom(struct error *err)
{
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

/* Whether the entry's rig node n is the template's bone (its handle, its index as the label
 * animdex's export gives a bone with no name). */
static int is_bone(const struct resource *src, const struct rig_node *n,
                   const struct rig_node *bone)
{
	const char *hex;
	char label[32];
	uint32_t crc;

	if (strcmp(src->family, "zouna") == 0)
		return n->has_handle && n->handle == bone->handle;
	if (!n->name)
		return 0;
	hex = strstr(n->name, "0x");
	if (hex && strspn(hex + 2, "0123456789abcdefABCDEF") == 8) {
		char digits[11];
		memcpy(digits, hex, 10);
		digits[10] = '\0';
		return hash_parse_handle(digits, &crc) == 0 && crc == bone->handle;
	}
	snprintf(label, sizeof(label), "node %" PRIu32, bone->source);
	return strcmp(n->name, label) == 0 ||
	       hash_asobo32(n->name, strlen(n->name)) == bone->handle;
}

static long find_node(const struct resource *src, const struct rig_node *bone,
                      const unsigned char *used)
{
	for (size_t j = 0; j < src->rig.count; j++)
		if (!used[j] && is_bone(src, &src->rig.nodes[j], bone))
			return (long)j;
	return -1;
}

static int same_pose(const struct rig_node *a, const struct rig_node *b)
{
	return memcmp(a->translation, b->translation, sizeof(a->translation)) == 0 &&
	       memcmp(a->rotation, b->rotation, sizeof(a->rotation)) == 0 &&
	       memcmp(a->scale, b->scale, sizeof(a->scale)) == 0;
}

static void put_floats(uint8_t *p, const float *v, size_t n, enum byte_order order)
{
	for (size_t i = 0; i < n; i++)
		writer_put_f32(p + 4 * i, v[i], order);
}

/* Every bone under a changed one (or changed itself) gets its rest model matrix and rotation
 * from the TRS chain. 0, or -1 with err set. */
static int write_world(uint8_t *bytes, size_t bones_at, enum byte_order order,
                       const struct rig *rig, const unsigned char *changed, json_t *notes,
                       struct error *err)
{
	size_t n = rig->count, looped;
	double *local = malloc(sizeof(double) * 16 * n), *world = malloc(sizeof(double) * 16 * n);
	uint32_t *walk = malloc(sizeof(uint32_t) * n);
	unsigned char *moved = calloc(n, 1);
	int rc = -1;

	if (!local || !world || !walk || !moved) {
		oom(err);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		rig_compose(rig->nodes[i].translation, rig->nodes[i].rotation, rig->nodes[i].scale,
		            local + 16 * i);
	if (rig_world(rig, local, world) < 0 || rig_order(rig, walk, &looped) != 0) {
		oom(err);
		goto done;
	}
	for (size_t k = 0; k < n; k++) { /* parents before children */
		uint32_t i = walk[k];
		int32_t p = rig->nodes[i].parent;
		uint8_t *bone = bytes + bones_at + (size_t)i * ZOUNA_BONE_SIZE;
		float m[16], t[3], r[4], s[3];
		moved[i] = changed[i] || (p >= 0 && moved[p]);
		if (!moved[i])
			continue;
		/* row-major row-vector storage is the column-major column-vector matrix */
		for (int e = 0; e < 16; e++)
			m[e] = (float)world[16 * i + e];
		put_floats(bone + AT_WORLD, m, 16, order);
		if (rig_decompose(world + 16 * i, t, r, s) == 0)
			put_floats(bone + AT_WORLD_ROTATION, r, 4, order);
		else
			json_array_append_new(notes,
			                      json_sprintf("bone 0x%08" PRIX32
			                                   ": its rest model matrix has shear; "
			                                   "its model-space rotation is kept",
			                                   rig->nodes[i].handle));
	}
	rc = 0;
done:
	free(local);
	free(world);
	free(walk);
	free(moved);
	return rc;
}

/* The file decoded again: its rig is the one meant, bit for bit. */
static int check_written(const struct upload *tmpl, const uint8_t *bytes, size_t length,
                         const struct rig *meant, struct error *err)
{
	struct upload up = *tmpl;
	struct decode_result again;
	struct error e;
	int ok;

	up.data = bytes;
	up.length = length;
	error_init(&e);
	decode_result_init(&again);
	ok = format_decode(&up, &again, &e) == 0 && again.count == 1 &&
	     again.resources[0]->rig.count == meant->count;
	for (size_t i = 0; ok && i < meant->count; i++)
		ok = same_pose(&again.resources[0]->rig.nodes[i], &meant->nodes[i]);
	decode_result_cleanup(&again);
	if (!ok)
		error_set(err, ERROR_INTERNAL, "template", -1,
		          "native: the Skel_Z written does not read back as the rest pose meant "
		          "(%.200s); this is a bug in animdex's encoder",
		          e.message[0] ? e.message : "a bone differs");
	return ok ? 0 : -1;
}

static int refuse_options(const struct native_options *opt, struct error *err)
{
	const char *p = native_binary_option(opt);

	if (!p && opt->reduce > 0)
		p = "reduce";

	if (!p)
		return 0;
	error_set(err, ERROR_BAD_PARAMETER, p, -1,
	          "%s: a Skel_Z is written on its template's bytes, in its layout, byte order and "
	          "headers, with no keys to reduce",
	          p);
	return -1;
}

/* Each bone's rest pose from the entry's rig: into rig (the template's, a copy), rows and
 * changed[]. */
static int plan_bones(const struct resource *src, struct rig *rig, unsigned char *changed,
                      json_t *report, struct error *err)
{
	unsigned char *used = calloc(src->rig.count + 1, 1);
	json_t *rows = json_object_get(report, "tracks");

	if (!used)
		return oom(err);
	for (size_t i = 0; i < rig->count; i++) {
		struct rig_node *bone = &rig->nodes[i];
		long j = find_node(src, bone, used);
		char name[48];
		snprintf(name, sizeof(name), "bone 0x%08" PRIX32 " rest pose", bone->handle);
		if (j < 0) {
			json_array_append_new(json_object_get(report, "kept_from_template"),
			                      json_string(name));
			continue;
		}
		used[j] = 1;
		changed[i] = !same_pose(&src->rig.nodes[j], bone);
		if (changed[i]) {
			const float *q = src->rig.nodes[j].rotation;
			double length = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
			                     (double)q[2] * q[2] + (double)q[3] * q[3]);
			if (!(fabs(length - 1) <= 1e-3)) {
				free(used);
				error_set(
				    err, ERROR_INVALID, "template", -1,
				    "%s: the rotation (%.9g, %.9g, %.9g, %.9g) is %.9g long; a "
				    "Skel_Z bone's is a unit quaternion (within 0.001)",
				    name, (double)q[0], (double)q[1], (double)q[2], (double)q[3],
				    length);
				return -1;
			}
		}
		json_array_append_new(rows, json_pack("{s:s, s:s, s:i, s:b, s:f}", "track", name,
		                                      "class", "Skel_Z bone", "keys", 1, "kept",
		                                      !changed[i], "largest_difference", 0.0));
		if (changed[i]) {
			const struct rig_node *n = &src->rig.nodes[j];
			memcpy(bone->translation, n->translation, sizeof(bone->translation));
			memcpy(bone->rotation, n->rotation, sizeof(bone->rotation));
			memcpy(bone->scale, n->scale, sizeof(bone->scale));
		}
	}
	for (size_t j = 0; j < src->rig.count; j++)
		if (!used[j]) {
			char label[160];
			rig_node_label(&src->rig.nodes[j], label, sizeof(label));
			json_array_append_new(
			    json_object_get(report, "notes"),
			    json_sprintf("%s: the template has no such bone; animdex does not add "
			                 "bones to a Skel_Z, so it is not written",
			                 label));
		}
	free(used);
	return 0;
}

/* A copy of a rig's nodes (names and handles shared with the original: not freed). */
static int copy_rig(const struct rig *from, struct rig *to)
{
	to->nodes = malloc(sizeof(*to->nodes) * (from->count + 1));
	if (!to->nodes)
		return -1;
	memcpy(to->nodes, from->nodes, sizeof(*to->nodes) * from->count);
	to->count = from->count;
	return 0;
}

int native_zouna_skeleton(const struct upload *tmpl, const struct resource *source,
                          const struct native_options *opt, struct native_file *out,
                          struct error *err)
{
	struct decode_result decoded;
	struct zouna_object_header h;
	struct rig rig = {0};
	const struct resource *t;
	unsigned char *changed = NULL;
	enum byte_order orders[2];
	int forced;
	size_t bones_at, any = 0;
	uint32_t count;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (refuse_options(opt, err) < 0)
		return -1;
	if (source->rig.count == 0) {
		error_set(
		    err, ERROR_INVALID, "template", -1,
		    "template: a Skel_Z holds a skeleton's rest pose, and the entry has no rig "
		    "(no nodes or bones) to take one from");
		return -1;
	}
	decode_result_init(&decoded);
	if (format_decode(tmpl, &decoded, err) < 0)
		goto done;
	t = decoded.resources[0];
	/* the object header found as the decoder finds it */
	forced = zouna_byte_orders(tmpl, orders, err);
	if (forced < 0 || zouna_find_object_header(tmpl, &h, orders[0], forced == 1, err) < 0 ||
	    zouna_skeleton_bones_at(tmpl, &h, &bones_at, &count, err) < 0)
		goto done;
	if (count != t->rig.count || copy_rig(&t->rig, &rig) < 0 ||
	    !(changed = calloc(count + 1, 1)) ||
	    !(out->report = json_pack("{s:s, s:s, s:[], s:[], s:[]}", "container", "Skel_Z",
	                              "byte_order", h.order == BYTE_ORDER_BIG ? "big" : "little",
	                              "tracks", "kept_from_template", "notes")) ||
	    !(out->bytes = malloc(tmpl->length + 1))) {
		oom(err);
		goto done;
	}
	memcpy(out->bytes, tmpl->data, tmpl->length);
	out->length = tmpl->length;
	out->extension = "Skel_Z";
	if (plan_bones(source, &rig, changed, out->report, err) < 0)
		goto done;
	for (size_t i = 0; i < count; i++) {
		uint8_t *bone = out->bytes + bones_at + i * ZOUNA_BONE_SIZE;
		if (!changed[i])
			continue;
		any++;
		put_floats(bone + AT_ROTATION, rig.nodes[i].rotation, 4, h.order);
		put_floats(bone + AT_SCALE, rig.nodes[i].scale, 3, h.order);
		put_floats(bone + AT_TRANSLATION, rig.nodes[i].translation, 3, h.order);
	}
	if (any && (write_world(out->bytes, bones_at, h.order, &rig, changed,
	                        json_object_get(out->report, "notes"), err) < 0 ||
	            check_written(tmpl, out->bytes, out->length, &rig, err) < 0))
		goto done;
	rc = 0;
done:
	if (rc < 0)
		native_file_cleanup(out);
	free(rig.nodes);
	free(changed);
	decode_result_cleanup(&decoded);
	return rc;
}
