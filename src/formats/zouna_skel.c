/* zouna_skel.c: Skel_Z resources, the Zouna engine's skeletons (doc/formats.md 1.7). One entry of
 * class Skel_Z with a rig (a node per bone: its name's handle, parent and rest TRS) and no
 * tracks; the bones' other fields and the tail's links and volumes go into the structure.
 *
 * Three layouts, told apart by the bytes: the link header's size (4 bytes: FUEL and Toy Story
 * 3; 8 + 4 x n: Ratatouille and WALL-E), then, between those two, the body prefix (36 or 20
 * bytes) that makes the bones and the tail end exactly at the body's end with links that agree.
 * Every count, index and parent is checked before it is used.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "formats/reader.h"
#include "zouna.h"

#define BONE_SIZE ZOUNA_BONE_SIZE
/* how far a stored rotation may be from unit length and still be read as a rotation */
#define UNIT_TOLERANCE 1e-3

enum skel_layout { LAYOUT_RAT, LAYOUT_WALLE, LAYOUT_FUEL };

static const struct {
	const char *name, *builds;
	size_t prefix; /* body bytes before the bone count */
} layouts[] = {
    [LAYOUT_RAT] = {"rat", "Ratatouille v1.06", 36},
    [LAYOUT_WALLE] = {"walle", "WALL-E v1.291", 20},
    [LAYOUT_FUEL] = {"fuel", "FUEL v1.381+ or Toy Story 3 (identical bytes)", 20},
};

struct skel_bone {
	uint32_t user_define, flags, name_crc;
	float rotation[4], scale[3], translation[3], world_rotation[4], world[16];
	int32_t child, parent, next, previous;
};

struct skel_tail {
	json_t *materials, *object_datas, *object_data_bones, *morph_targets;
	uint32_t hit_spheres, spheres, boxes;
};

struct skel_read {
	enum skel_layout layout;
	uint32_t flag;
	float prefix[8]; /* rat: colour r g b a, bounding sphere; others: 4 raw words */
	uint32_t prefix_words[4];
	uint32_t count;
	struct skel_bone *bones;
	struct skel_tail tail;
	size_t reached; /* how far the bytes were read: which failed try went further */
};

static void skel_read_cleanup(struct skel_read *sk)
{
	free(sk->bones);
	json_decref(sk->tail.materials);
	json_decref(sk->tail.object_datas);
	json_decref(sk->tail.object_data_bones);
	json_decref(sk->tail.morph_targets);
	memset(sk, 0, sizeof(*sk));
}

static json_t *handle_json(uint32_t h)
{
	return json_sprintf("0x%08" PRIX32, h);
}

static int floats_finite(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static void read_floats(struct reader *r, float *out, size_t n, const char *field)
{
	for (size_t i = 0; i < n; i++)
		out[i] = reader_f32(r, field);
}

/* One 248-byte bone record: the fields the engine loads, the junk between them skipped. */
static void read_bone(struct reader *r, size_t at, struct skel_bone *b)
{
	reader_seek(r, at, "bones");
	b->user_define = reader_u32(r, "bones.userDefine");
	read_floats(r, b->rotation, 4, "bones.rotation");
	read_floats(r, b->scale, 3, "bones.scale");
	b->flags = reader_u32(r, "bones.flags");
	read_floats(r, b->translation, 3, "bones.translation");
	reader_seek(r, at + 100, "bones");
	read_floats(r, b->world_rotation, 4, "bones.worldRotation");
	reader_seek(r, at + 164, "bones");
	read_floats(r, b->world, 16, "bones.worldMatrix");
	b->child = reader_i32(r, "bones.child");
	b->parent = reader_i32(r, "bones.parent");
	b->next = reader_i32(r, "bones.next");
	b->previous = reader_i32(r, "bones.previous");
	b->name_crc = reader_u32(r, "bones.name");
}

/* A link column (child, parent, next, previous) is -1 or a bone. */
static int check_index(const struct skel_read *sk, uint32_t i, const char *field, int32_t v,
                       size_t at, struct error *err)
{
	if (v >= -1 && v < (int64_t)sk->count)
		return 0;
	error_set(err, ERROR_INDEX_OUT_OF_RANGE, "bones.link", (long long)at,
	          "bones[%" PRIu32 "].%s: %" PRId32 " is not -1 (none) nor one of the %" PRIu32
	          " bones",
	          i, field, v, sk->count);
	return -1;
}

static int check_bone(const struct skel_read *sk, uint32_t i, size_t at, struct error *err)
{
	const struct skel_bone *b = &sk->bones[i];
	double length;

	if (!floats_finite(b->rotation, 4) || !floats_finite(b->scale, 3) ||
	    !floats_finite(b->translation, 3) || !floats_finite(b->world, 16)) {
		error_set(err, ERROR_VALUE_NOT_FINITE, "bones", (long long)at,
		          "bones[%" PRIu32 "]: a rest rotation, scale, translation or matrix value "
		          "is not finite",
		          i);
		return -1;
	}
	length =
	    sqrt((double)b->rotation[0] * b->rotation[0] + (double)b->rotation[1] * b->rotation[1] +
	         (double)b->rotation[2] * b->rotation[2] + (double)b->rotation[3] * b->rotation[3]);
	if (fabs(length - 1.0) > UNIT_TOLERANCE) {
		error_set(err, ERROR_VALUE_OUT_OF_RANGE, "bones.rotation", (long long)at + 4,
		          "bones[%" PRIu32 "].rotation: (%g, %g, %g, %g) has length %g, not a unit "
		          "quaternion (within %g)",
		          i, (double)b->rotation[0], (double)b->rotation[1], (double)b->rotation[2],
		          (double)b->rotation[3], length, UNIT_TOLERANCE);
		return -1;
	}
	if (check_index(sk, i, "child", b->child, at + 228, err) < 0 ||
	    check_index(sk, i, "parent", b->parent, at + 232, err) < 0 ||
	    check_index(sk, i, "next", b->next, at + 236, err) < 0 ||
	    check_index(sk, i, "previous", b->previous, at + 240, err) < 0)
		return -1;
	if (i == 0 && b->parent != -1) {
		error_set(err, ERROR_INDEX_OUT_OF_RANGE, "bones.parent", (long long)at + 232,
		          "bones[0].parent: %" PRId32 ", but bone 0 is the skeleton's root (-1)",
		          b->parent);
		return -1;
	}
	if (i != 0 && b->parent == -1) {
		error_set(err, ERROR_INDEX_OUT_OF_RANGE, "bones.parent", (long long)at + 232,
		          "bones[%" PRIu32 "].parent: -1, but only bone 0 may be a root", i);
		return -1;
	}
	return 0;
}

/* The child and sibling columns agree with the parents (a column that disagrees says the
 * layout was misread, or the file is damaged). */
static int check_links(const struct skel_read *sk, size_t bones_at, struct error *err)
{
	for (uint32_t i = 0; i < sk->count; i++) {
		const struct skel_bone *b = &sk->bones[i];
		size_t at = bones_at + (size_t)i * BONE_SIZE;
		const char *field = NULL;
		int32_t v = 0;
		if (b->child >= 0 && sk->bones[b->child].parent != (int32_t)i)
			field = "child", v = b->child;
		else if (b->next >= 0 && sk->bones[b->next].parent != b->parent)
			field = "next", v = b->next;
		else if (b->previous >= 0 && sk->bones[b->previous].parent != b->parent)
			field = "previous", v = b->previous;
		if (field) {
			error_set(err, ERROR_INDEX_OUT_OF_RANGE, "bones.link", (long long)at + 228,
			          "bones[%" PRIu32 "].%s: bone %" PRId32 " has parent %" PRId32
			          ", which does not agree (its %s must have parent %" PRId32 ")",
			          i, field, v, sk->bones[v].parent, field,
			          strcmp(field, "child") == 0 ? (int32_t)i : b->parent);
			return -1;
		}
	}
	return 0;
}

/* A counted array of fixed-size items: its count, checked against the bytes left. */
static uint32_t tail_count(struct reader *r, size_t item, const char *field)
{
	uint32_t n = reader_u32(r, field);

	if (reader_failed(r) || reader_check_count(r, n, item, field) < 0)
		return 0;
	return n;
}

static json_t *tail_handles(struct reader *r, const char *field)
{
	uint32_t n = tail_count(r, 4, field);
	json_t *list = json_array();

	for (uint32_t i = 0; i < n && !reader_failed(r); i++)
		json_array_append_new(list, handle_json(reader_u32(r, field)));
	return list;
}

/* The tail after the bones (doc/formats.md 1.7): links, bone lists, spheres and boxes. */
static void read_tail(struct reader *r, struct skel_tail *t)
{
	uint32_t n;

	t->materials = tail_handles(r, "materials");
	t->object_datas = tail_handles(r, "objectDatas");
	t->object_data_bones = json_array();
	n = tail_count(r, 4, "objectDataBones");
	for (uint32_t i = 0; i < n && !reader_failed(r); i++)
		json_array_append_new(t->object_data_bones, tail_handles(r, "objectDataBones"));
	t->morph_targets = tail_handles(r, "morphTargets");
	t->hit_spheres = tail_count(r, 28, "hitSpheres");
	reader_skip(r, (size_t)t->hit_spheres * 28, "hitSpheres");
	t->spheres = tail_count(r, 28, "spheres");
	reader_skip(r, (size_t)t->spheres * 28, "spheres");
	t->boxes = tail_count(r, 76, "boxes");
	reader_skip(r, (size_t)t->boxes * 76, "boxes");
}

/* Reads the body in one layout: 0, or -1 with err set (sk->reached says how far it got). */
static int read_skeleton(const struct upload *up, const struct zouna_object_header *h,
                         enum skel_layout layout, struct skel_read *sk, struct error *err)
{
	size_t body = h->start + OBJECT_HEADER_SIZE + h->link_size, bones_at;
	struct reader r;

	memset(sk, 0, sizeof(*sk));
	sk->layout = layout;
	reader_init(&r, up->data, up->length, h->order, err);
	reader_seek(&r, body, "body");
	sk->flag = reader_u32(&r, "flag");
	if (layout == LAYOUT_RAT)
		read_floats(&r, sk->prefix, 8, "colour and bounding sphere");
	else
		for (int i = 0; i < 4; i++)
			sk->prefix_words[i] = reader_u32(&r, "bounding sphere");
	sk->count = reader_u32(&r, "boneCount");
	sk->reached = r.pos;
	if (reader_failed(&r))
		return -1;
	if (sk->count == 0) {
		error_set(err, ERROR_INVALID, "boneCount", (long long)(r.pos - 4),
		          "boneCount: 0, but a skeleton has at least its root bone");
		return -1;
	}
	if (reader_check_count(&r, sk->count, BONE_SIZE, "boneCount") < 0)
		return -1;
	sk->bones = calloc(sk->count, sizeof(*sk->bones));
	if (!sk->bones)
		return zouna_oom(err);
	bones_at = r.pos;
	for (uint32_t i = 0; i < sk->count; i++) {
		size_t at = bones_at + (size_t)i * BONE_SIZE;
		read_bone(&r, at, &sk->bones[i]);
		if (reader_failed(&r) || check_bone(sk, i, at, err) < 0)
			return -1;
		sk->reached = at + BONE_SIZE;
	}
	if (check_links(sk, bones_at, err) < 0)
		return -1;
	read_tail(&r, &sk->tail);
	if (reader_failed(&r))
		return -1;
	sk->reached = r.pos;
	if (reader_remaining(&r) != 0) {
		error_set(err, ERROR_INVALID, "tail", (long long)r.pos,
		          "tail: %zu bytes after the boxes, but the body ends there",
		          reader_remaining(&r));
		return -1;
	}
	return 0;
}

/* Between Ratatouille's and WALL-E's body prefixes, the one after which bone 0 (the root)
 * has parent -1 at its record's offset 232, whatever the count says: LAYOUT_RAT or
 * LAYOUT_WALLE, or LAYOUT_FUEL when both or neither do (the bytes do not tell). */
static enum skel_layout root_layout(const struct upload *up, const struct zouna_object_header *h)
{
	size_t body = h->start + OBJECT_HEADER_SIZE + h->link_size;
	int root[2];

	for (int l = LAYOUT_RAT; l <= LAYOUT_WALLE; l++) {
		struct reader r;
		reader_init(&r, up->data, up->length, h->order, NULL);
		reader_seek(&r, body + layouts[l].prefix + 4 + 232, NULL);
		root[l] = reader_i32(&r, NULL) == -1 && !reader_failed(&r);
	}
	if (root[LAYOUT_RAT] == root[LAYOUT_WALLE])
		return LAYOUT_FUEL;
	return root[LAYOUT_RAT] ? LAYOUT_RAT : LAYOUT_WALLE;
}

/* Which layout the bytes are: FUEL's by its link header; Ratatouille's or WALL-E's by the one
 * prefix that reads whole. */
static int read_any_layout(const struct upload *up, const struct zouna_object_header *h,
                           struct skel_read *sk, const char **evidence, struct error *err)
{
	struct skel_read walle;
	struct error rat_err, walle_err;
	uint32_t links = 0;
	int rat_ok, walle_ok;

	if (h->link_size == 4) {
		*evidence = "a 4-byte link header (its name only)";
		return read_skeleton(up, h, LAYOUT_FUEL, sk, err);
	}
	if (h->link_size >= 8) {
		struct reader r;
		reader_init(&r, up->data, up->length, h->order, NULL);
		reader_seek(&r, h->start + OBJECT_HEADER_SIZE + 4, NULL);
		links = reader_u32(&r, NULL);
	}
	if (h->link_size < 8 || (uint64_t)links * 4 + 8 != h->link_size) {
		error_set(err, ERROR_INVALID, "linkHeaderSize", (long long)h->start + 4,
		          "linkHeaderSize: %" PRIu32
		          " is neither 4 (FUEL, Toy Story 3: a name) nor "
		          "8 + 4 x its link count (Ratatouille, WALL-E: a name, a count and links)",
		          h->link_size);
		return -1;
	}
	error_init(&rat_err);
	error_init(&walle_err);
	rat_ok = read_skeleton(up, h, LAYOUT_RAT, sk, &rat_err) == 0;
	walle_ok = read_skeleton(up, h, LAYOUT_WALLE, &walle, &walle_err) == 0;
	if (rat_ok && walle_ok) {
		skel_read_cleanup(&walle);
		error_set(
		    err, ERROR_INVALID, "body", (long long)h->start + OBJECT_HEADER_SIZE,
		    "body: reads whole both as a Ratatouille skeleton (36-byte prefix) and as "
		    "a WALL-E one (20-byte prefix); animdex cannot tell which it is");
		return -1;
	}
	if (walle_ok) {
		skel_read_cleanup(sk);
		*sk = walle;
		*evidence = "only the 20-byte (WALL-E) prefix reads the bones and tail whole";
		return 0;
	}
	if (rat_ok) {
		skel_read_cleanup(&walle);
		*evidence = "only the 36-byte (Ratatouille) prefix reads the bones and tail whole";
		return 0;
	}
	/* neither: report the reading the file's own bytes point to (bone 0, the root, has
	 * parent -1 where that layout puts it), so that the count and offset named are the
	 * file's; when the bytes do not tell, the reading that went further */
	switch (root_layout(up, h)) {
	case LAYOUT_RAT: *err = rat_err; break;
	case LAYOUT_WALLE: *err = walle_err; break;
	default: *err = sk->reached >= walle.reached ? rat_err : walle_err;
	}
	skel_read_cleanup(&walle);
	return -1;
}

/* The rig: one node per bone, in the file's order (children may come before parents). */
static int make_rig(const struct skel_read *sk, struct resource *res, struct error *err)
{
	struct rig *rig = &res->rig;
	struct error cycle;

	rig->nodes = calloc(sk->count, sizeof(*rig->nodes));
	if (!rig->nodes)
		return zouna_oom(err);
	rig->count = sk->count;
	for (uint32_t i = 0; i < sk->count; i++) {
		const struct skel_bone *b = &sk->bones[i];
		struct rig_node *n = &rig->nodes[i];
		n->source = i;
		n->handle = b->name_crc;
		n->has_handle = 1;
		n->parent = b->parent;
		memcpy(n->translation, b->translation, sizeof(n->translation));
		memcpy(n->rotation, b->rotation, sizeof(n->rotation));
		memcpy(n->scale, b->scale, sizeof(n->scale));
	}
	error_init(&cycle);
	if (rig_check(rig, &cycle) < 0 && cycle.code == ERROR_VALUE_OUT_OF_RANGE) {
		*err = cycle; /* rest values whose world matrices float32 cannot hold */
		return -1;
	}
	if (error_is_set(&cycle)) {
		error_set(err, ERROR_INDEX_OUT_OF_RANGE, "bones.parent", -1,
		          "bones.parent: the parents make a cycle, which no skeleton has (%s)",
		          cycle.message);
		return -1;
	}
	return 0;
}

/* How far the stored rest matrices are from the ones the rest TRS chain makes (the engine
 * loads the matrix and recomputes it from the TRS as it poses): the largest difference of an
 * element, or -1 when out of memory. */
static double rest_matrix_difference(const struct skel_read *sk, const struct rig *rig)
{
	double *local = malloc(sizeof(double) * 16 * rig->count);
	double *world = malloc(sizeof(double) * 16 * rig->count), most = 0;

	if (!local || !world) {
		free(local);
		free(world);
		return -1;
	}
	for (size_t i = 0; i < rig->count; i++)
		rig_compose(rig->nodes[i].translation, rig->nodes[i].rotation, rig->nodes[i].scale,
		            local + i * 16);
	if (rig_world(rig, local, world) < 0) {
		free(local);
		free(world);
		return -1;
	}
	for (size_t i = 0; i < rig->count; i++)
		/* row-major row-vector storage is the column-major column-vector matrix */
		for (int e = 0; e < 16; e++)
			if (fabs(world[i * 16 + e] - sk->bones[i].world[e]) > most)
				most = fabs(world[i * 16 + e] - sk->bones[i].world[e]);
	free(local);
	free(world);
	return most;
}

static json_t *bones_json(const struct skel_read *sk)
{
	json_t *bones = json_array();

	for (uint32_t i = 0; i < sk->count; i++) {
		const struct skel_bone *b = &sk->bones[i];
		json_array_append_new(
		    bones, json_pack("{s:I, s:o, s:o, s:I, s:[f, f, f, f]}", "index", (json_int_t)i,
		                     "name_crc32", handle_json(b->name_crc), "user_define",
		                     b->user_define ? handle_json(b->user_define) : json_null(),
		                     "flags", (json_int_t)b->flags, "world_rotation",
		                     (double)b->world_rotation[0], (double)b->world_rotation[1],
		                     (double)b->world_rotation[2], (double)b->world_rotation[3]));
	}
	return bones;
}

/* n floats as JSON numbers, null for one that is not finite (JSON has no NaN). */
static json_t *finite_floats(const float *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, zouna_number_json((double)v[i]));
	return a;
}

static json_t *skeleton_metadata(const struct skel_read *sk, const char *evidence,
                                 double difference)
{
	json_t *prefix;

	if (sk->layout == LAYOUT_RAT) /* stored as they are: a non-finite one is null */
		prefix = json_pack("{s:o, s:o}", "default_colour", finite_floats(sk->prefix, 4),
		                   "bounding_sphere", finite_floats(sk->prefix + 4, 4));
	else
		prefix =
		    json_pack("{s:[o, o, o, o]}", "bounding_sphere_words",
		              handle_json(sk->prefix_words[0]), handle_json(sk->prefix_words[1]),
		              handle_json(sk->prefix_words[2]), handle_json(sk->prefix_words[3]));
	return json_pack("{s:s, s:s, s:s, s:I, s:o, s:I, s:f, s:o, s:{s:O, s:O, s:O, s:O, s:I, "
	                 "s:I, s:I}}",
	                 "layout", layouts[sk->layout].name, "builds", layouts[sk->layout].builds,
	                 "layout_evidence", evidence, "flag", (json_int_t)sk->flag, "prefix",
	                 prefix, "bone_count", (json_int_t)sk->count, "rest_matrix_max_difference",
	                 difference, "bones", bones_json(sk), "tail", "materials",
	                 sk->tail.materials, "object_datas", sk->tail.object_datas,
	                 "object_data_bones", sk->tail.object_data_bones, "morph_target_meshes",
	                 sk->tail.morph_targets, "hit_spheres", (json_int_t)sk->tail.hit_spheres,
	                 "spheres", (json_int_t)sk->tail.spheres, "boxes",
	                 (json_int_t)sk->tail.boxes);
}

/* The link header's links (Ratatouille, WALL-E: after its name and count), as handles. */
static json_t *link_json(const struct upload *up, const struct zouna_object_header *h,
                         struct resource *res)
{
	json_t *links = json_array();
	struct reader r;

	reader_init(&r, up->data, up->length, h->order, NULL);
	reader_seek(&r, h->start + OBJECT_HEADER_SIZE + 8, NULL);
	for (uint32_t at = 8; at + 4 <= h->link_size && !reader_failed(&r); at += 4) {
		uint32_t w = reader_u32(&r, NULL);
		if (json_array_size(links) < 4096)
			json_array_append_new(links, handle_json(w));
		if (w)
			resource_add_reference(res, w, "link_header", -1, -1);
	}
	return links;
}

static void add_references(const struct skel_read *sk, struct resource *res)
{
	size_t i;
	json_t *h;

	for (uint32_t b = 0; b < sk->count; b++)
		resource_add_reference(res, sk->bones[b].name_crc, "bone", -1, (int32_t)b);
	json_array_foreach(sk->tail.materials, i, h) resource_add_reference(
	    res, (uint32_t)strtoul(json_string_value(h), NULL, 16), "material_link", -1, -1);
	json_array_foreach(sk->tail.object_datas, i, h) resource_add_reference(
	    res, (uint32_t)strtoul(json_string_value(h), NULL, 16), "object_datas_link", -1, -1);
}

/* Whether animdex has seen this layout in this byte order in a checked source. */
static int layout_checked(enum skel_layout layout, enum byte_order order)
{
	return order == BYTE_ORDER_LITTLE || layout == LAYOUT_RAT; /* rat: PC and GameCube */
}

int zouna_decode_skeleton(const struct upload *up, const struct zouna_object_header *h,
                          struct decode_result *out, struct error *err)
{
	struct skel_read sk = {0};
	struct resource *res = NULL;
	const char *evidence = "";
	double difference;
	int rc = -1;

	if (h->compressed_size != 0) {
		error_set(err, ERROR_INVALID, "compressedSize", (long long)h->start + 12,
		          "compressedSize: %" PRIu32 ": the body is compressed with Asobo's LZ "
		          "variant, which animdex does not decompress; extract the resource "
		          "decompressed (bff and dpc do by default)",
		          h->compressed_size);
		return -1;
	}
	if (read_any_layout(up, h, &sk, &evidence, err) < 0)
		goto done;
	res = resource_create("zouna", "Skel_Z");
	if (!res) {
		zouna_oom(err);
		goto done;
	}
	res->crc32 = h->name_crc;
	snprintf(res->crc32_source, sizeof(res->crc32_source), "header");
	if (make_rig(&sk, res, err) < 0)
		goto done;
	difference = rest_matrix_difference(&sk, &res->rig);
	if (difference < 0) {
		zouna_oom(err);
		goto done;
	}
	res->metadata = json_pack("{s:o, s:o}", "container",
	                          zouna_container_json(up, h, "Skel_Z", link_json(up, h, res)),
	                          "skeleton", skeleton_metadata(&sk, evidence, difference));
	if (!layout_checked(sk.layout, h->order))
		resource_assume(res,
		                "Skel_Z: this layout in this byte order is read as on the "
		                "platforms of doc/formats.md 1.7 that were checked (Ratatouille "
		                "PC and GameCube, WALL-E PC, FUEL PC), in the file's byte order");
	resource_assume(res, "Skel_Z: bone 0's rest model matrix is its own local TRS, as the "
	                     "other bones' are their parent's times theirs; the stored matrices "
	                     "are compared (skeleton.rest_matrix_max_difference), not used");
	add_references(&sk, res);
	zouna_name_from_file(up, res);
	rc = decode_result_add(out, res);
	res = NULL;
done:
	resource_free(res);
	skel_read_cleanup(&sk);
	return rc;
}

int zouna_skeleton_bones_at(const struct upload *up, const struct zouna_object_header *h,
                            size_t *bones_at, uint32_t *count, struct error *err)
{
	struct skel_read sk = {0};
	const char *evidence = "";
	int rc = read_any_layout(up, h, &sk, &evidence, err);

	if (rc == 0) {
		*bones_at =
		    h->start + OBJECT_HEADER_SIZE + h->link_size + layouts[sk.layout].prefix + 4;
		*count = sk.count;
	}
	skel_read_cleanup(&sk);
	return rc;
}
