/* zouna.c: Zouna engine keyframers and Animation_Z resources (doc/formats.md 1).
 *
 * A keyframer is, in the platform's byte order:
 *
 *   [u16 flags]  u32 count  key[count]
 *
 * (no flags field on Rot, BezierRot, Hdl, Flag and Message), each key a C struct padded to a
 * multiple of 4 bytes that starts with f32 time:
 *
 *   Hermite classes   time, value[n], tangentIn[n], tangentOut[n]   (f32, or i16 / 4096)
 *   Linear classes    time, value[n]                                (f32, or i16 / 4096)
 *   KeyframerRot_Z    time, i16 x, y, z, w / 2000                   (12 bytes)
 *   KeyframerHdl_Z    time, u32 handle  (or handle, time: see below) (8 bytes)
 *   KeyframerFlag_Z   time, u32 flag                                (8 bytes)
 *   KeyframerMessage_Z time, u32 n, n x {u32 class, receiver, c; f32 parameter; u32 id}
 *
 * Three readings are told apart from the bytes (doc/formats.md 1.4): KeyframerExtVec3f_Z keys start
 * with an f32 time, or (the seed's reading) u16 time and u16 flags; KeyframerVec4fLinearComp_Z
 * keys hold i16 or f32 values, as the blob's length says; KeyframerHdl_Z keys hold the time
 * first or the handle first, whichever column is a finite, non-decreasing time.
 *
 * An extracted Animation_Z resource is an optional 16/22/24-byte "BFF0" header (little-endian),
 * then the 24-byte object header (dataSize, linkHeaderSize, decompressedSize, compressedSize,
 * classCRC32, nameCRC32), the link header, and the body (doc/formats.md 1.5): maxTime, smoothRatio,
 * flag, the node keyframers (rot, bezierRot, scale, trans, msg), the material keyframers, the
 * mesh and morph keyframers, then the node, material, mesh and morph records whose
 * (start, count) pairs cut the shared keyframers into one curve per bone and channel.
 *
 * Hermite keys become CUBIC_SPLINE keys with per-second tangents: the engine's tangents are
 * per segment (unscaled), so a tangent is divided by the length of the segment it shapes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/format.h"
#include "base/hash.h"
#include "formats/reader.h"
#include "zouna.h"

/* Resource classes that hold keyframers but are not decoded (yet). */
static const char *const other_resource_classes[] = {"AnimFrame_Z", "MaterialAnim_Z", "Particles_Z",
                                                     "Rtc_Z"};

/* What every Zouna entry says of how its tracks are sampled (doc/formats.md 1.3). */
static json_t *sampling_metadata(void)
{
	return json_pack("{s:s, s:s}", "before_first_key", "last key's value", "why",
	                 "the engine searches forward for the segment holding the time, "
	                 "finds none before the first key, and returns the last key "
	                 "(RatDecomp KeyframerHdl_Z.cpp, KeyframerU32_Z.cpp); Radient and "
	                 "glTF give the first value there");
}

/* The byte orders to try: forced by endian=, else little then big. */
int zouna_byte_orders(const struct upload *up, enum byte_order orders[2], struct error *err)
{
	if (!up->endian || !*up->endian) {
		orders[0] = BYTE_ORDER_LITTLE;
		orders[1] = BYTE_ORDER_BIG;
		return 2;
	}
	if (strcasecmp(up->endian, "little") == 0 || strcasecmp(up->endian, "le") == 0) {
		orders[0] = BYTE_ORDER_LITTLE;
		return 1;
	}
	if (strcasecmp(up->endian, "big") == 0 || strcasecmp(up->endian, "be") == 0) {
		orders[0] = BYTE_ORDER_BIG;
		return 1;
	}
	error_set(err, ERROR_BAD_PARAMETER, "endian", -1,
	          "endian: '%s' is not little or big (leave it out to detect the byte order)",
	          up->endian);
	return -1;
}

static const char *order_name(enum byte_order o)
{
	return o == BYTE_ORDER_LITTLE ? "little" : "big";
}

/* A bare keyframer blob: one entry, one track. */
static int decode_keyframer(const struct upload *up, const struct zouna_class *c,
                            struct decode_result *out, struct error *err)
{
	enum byte_order orders[2];
	struct zouna_keys k = {0};
	struct error tries[2];
	struct resource *res;
	int n = zouna_byte_orders(up, orders, err), chosen = -1;
	struct track_target tt = {SCHEMA_ZOUNA, 0, c->name, ZOUNA_VALUE, 0, 0};

	if (n < 0)
		return -1;
	for (int i = 0; i < n && chosen < 0; i++) {
		struct reader r;
		error_init(&tries[i]);
		reader_init(&r, up->data, up->length, orders[i], &tries[i]);
		if (zouna_read_keyframer(&r, c, c->name, 1, &k, &tries[i]) == 0 &&
		    reader_remaining(&r) == 0)
			chosen = i;
		else if (!error_is_set(&tries[i]))
			error_set(&tries[i], ERROR_MALFORMED, c->name, (long long)r.pos,
			          "%s: %zu bytes are left after the last key", c->name,
			          reader_remaining(&r));
		if (chosen < 0)
			zouna_keys_cleanup(&k);
	}
	if (chosen < 0) {
		*err = tries[0];
		if (n == 2) {
			char message[sizeof(err->message)];
			snprintf(message, sizeof(message), "%.300s (read big-endian: %.150s)",
			         tries[0].message, tries[1].message);
			memcpy(err->message, message, sizeof(message));
		}
		return -1;
	}
	res = resource_create("zouna", c->name);
	if (!res) {
		zouna_keys_cleanup(&k);
		return zouna_oom(err);
	}
	if (c->kind == KIND_MESSAGE)
		tt.property = ZOUNA_MESSAGES;
	else if (strcmp(c->name, "KeyframerBezierRot_Z") == 0)
		tt.property = ZOUNA_EULER_ROTATION;
	res->clip.duration = k.count ? k.times[k.count - 1] : 0;
	if (res->clip.duration < 0)
		res->clip.duration = 0;
	if (zouna_add_track(res, NULL, &k, 0, k.count, &tt, c->name, err) == -1)
		goto fail;
	zouna_assume_for_class(res, c);
	res->metadata = json_pack("{s:s, s:s, s:o, s:o}", "container", "bare keyframer",
	                          "byte_order", order_name(orders[chosen]), "keyframer",
	                          zouna_keyframer_info(&k), "sampling", sampling_metadata());
	if (n == 2 && chosen == 0) {
		/* did the other order fit as well? then say the choice was made, not read */
		struct zouna_keys other = {0};
		struct reader r;
		struct error ignored;
		error_init(&ignored);
		reader_init(&r, up->data, up->length, BYTE_ORDER_BIG, &ignored);
		if (k.count > 0 && zouna_read_keyframer(&r, c, c->name, 1, &other, &ignored) == 0 &&
		    reader_remaining(&r) == 0)
			json_object_set_new(res->metadata, "byte_order_note",
			                    json_string("both byte orders read as valid keys; "
			                                "little-endian chosen (give endian=big to "
			                                "override)"));
		zouna_keys_cleanup(&other);
	}
	zouna_keys_cleanup(&k);
	return decode_result_add(out, res);
fail:
	zouna_keys_cleanup(&k);
	resource_free(res);
	return -1;
}

/* Animation_Z */

static int read_object_header(const struct upload *up, size_t at, enum byte_order order,
                              struct zouna_object_header *h)
{
	struct reader r;

	if (up->length < at + OBJECT_HEADER_SIZE)
		return -1;
	reader_init(&r, up->data, up->length, order, NULL);
	reader_seek(&r, at, NULL);
	h->start = at;
	h->order = order;
	h->data_size = reader_u32(&r, NULL);
	h->link_size = reader_u32(&r, NULL);
	h->decompressed_size = reader_u32(&r, NULL);
	h->compressed_size = reader_u32(&r, NULL);
	h->class_crc = reader_u32(&r, NULL);
	h->name_crc = reader_u32(&r, NULL);
	/* the sizes must add up to the file's length */
	if ((uint64_t)at + OBJECT_HEADER_SIZE + h->data_size != up->length ||
	    h->link_size > h->data_size)
		return -1;
	return 0;
}

static const char *const bff_platforms[] = {
    "PC",  "UWP",  "Mac i386", "Mac PPC",  "PS2",      "PS3", "PS4",    "PS5",
    "PSP", "Xbox", "Xbox 360", "Xbox One", "GameCube", "Wii", "Switch", "Xbox Series"};

static int platform_is_big_endian(unsigned platform)
{
	return platform == 3 || platform == 5 || platform == 10 || platform == 12 || platform == 13;
}

/* Finds the object header: after a BFF0 header of 16, 24 or 22 bytes, or at 0. The BFF0
 * header's own size field is tried first; another offset is taken only when its sizes add up
 * and its class CRC names a known class, so a damaged size cannot make a coincidence win. */
int zouna_find_object_header(const struct upload *up, struct zouna_object_header *h,
                             enum byte_order forced, int has_forced, struct error *err)
{
	size_t offsets[4] = {16, 24, 22, 0};
	int bff = up->length >= 4 && memcmp(up->data, "BFF0", 4) == 0;
	enum byte_order orders[2] = {BYTE_ORDER_LITTLE, BYTE_ORDER_BIG};
	size_t count = 3, declared = 0;

	if (bff && up->length >= 7 && platform_is_big_endian(up->data[6]))
		orders[0] = BYTE_ORDER_BIG, orders[1] = BYTE_ORDER_LITTLE;
	if (has_forced)
		orders[0] = orders[1] = forced;
	if (!bff) {
		offsets[0] = 0;
		count = 1;
	} else if (up->length >= 6) {
		declared = (size_t)up->data[4] | (size_t)up->data[5] << 8;
		for (size_t i = 1; i < 3; i++)
			if (offsets[i] == declared) {
				offsets[i] = offsets[0];
				offsets[0] = declared;
			}
	}
	for (size_t i = 0; i < count; i++)
		for (int o = 0; o < 2; o++)
			if (read_object_header(up, offsets[i], orders[o], h) == 0 &&
			    (offsets[i] == declared || !bff || zouna_class_of_crc(h->class_crc))) {
				h->bff_size = offsets[i];
				return 0;
			}
	if (bff)
		error_set(
		    err, ERROR_INVALID, "object_header", -1,
		    "object header: after the BFF0 header (which says it is %zu bytes), no "
		    "object header at offset 16, 24 or 22 has sizes that add up to the file's "
		    "%zu bytes (24 + dataSize, with linkHeaderSize <= dataSize)",
		    declared, up->length);
	else
		error_set(
		    err, ERROR_INVALID, "object_header", 0,
		    "object header: its sizes do not add up to the file's %zu bytes in either "
		    "byte order (24 + dataSize, with linkHeaderSize <= dataSize)",
		    up->length);
	return -1;
}

/* Which class a class CRC names, among the ones animdex knows of. */
const char *zouna_class_of_crc(uint32_t crc)
{
	static const char *const known[] = {"Animation_Z", "AnimFrame_Z", "MaterialAnim_Z",
	                                    "Particles_Z", "Rtc_Z",       "Skel_Z"};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (hash_asobo32(known[i], strlen(known[i])) == crc)
			return known[i];
	return NULL;
}

/* The body's keyframers, in the order they are stored. */
const struct zouna_body_keyframer zouna_animation_keyframers[KF_KEYFRAMER_COUNT] = {
    {"node.rot", "KeyframerRot_Z"},
    {"node.bezierRot", "KeyframerBezierRot_Z"},
    {"node.scale", "KeyframerVec3fComp_Z"},
    {"node.trans", "KeyframerVec3fComp_Z"},
    {"node.msg", "KeyframerMessage_Z"},
    {"material.transU", "KeyframerFloatComp_Z"},
    {"material.transV", "KeyframerFloatComp_Z"},
    {"material.diffuse", "KeyframerVec3fComp_Z"},
    {"material.emissive", "KeyframerVec3fComp_Z"},
    {"material.rot", "KeyframerFloatComp_Z"},
    {"mesh", "KeyframerFloatComp_Z"},
    {"morph", "KeyframerFloatComp_Z"},
};

/* Checks a record's (start, count) against its keyframer. */
static int check_slice(const struct zouna_keys *k, uint32_t start, uint32_t count, const char *path,
                       struct error *err)
{
	if ((uint64_t)start + count > k->count) {
		error_set(err, ERROR_INDEX_OUT_OF_RANGE, path, -1,
		          "%s: keys [%" PRIu32 ", %" PRIu64 ") are outside the %" PRIu32
		          " keys of its %s keyframer",
		          path, start, (uint64_t)start + count, k->count, k->cls->name);
		return -1;
	}
	return 0;
}

/* Material, mesh and morph records hold signed 16-bit starts and counts (doc/formats.md 1.5). */
static int check_signed_slice(const struct zouna_keys *k, int16_t start, int16_t count,
                              const char *path, struct error *err)
{
	if (start < 0 || count < 0) {
		error_set(err, ERROR_VALUE_OUT_OF_RANGE, path, -1,
		          "%s: %s %d is negative; starts and counts are signed 16-bit and must be "
		          ">= 0",
		          path, start < 0 ? "start" : "count", start < 0 ? start : count);
		return -1;
	}
	return check_slice(k, (uint32_t)start, (uint32_t)count, path, err);
}

/* An Animation_Z being read: its keyframers, the entry it becomes, and its records as the
 * structure shows them. */
struct animation_read {
	struct zouna_keys keys[KF_KEYFRAMER_COUNT];
	struct resource *res;
	struct zouna_target_index index; /* res's targets */
	json_t *nodes, *materials, *meshes, *morphs, *link, *keyframers;
	uint64_t keys_named;  /* keys the records have named so far, overlaps counted again */
	uint32_t unlisted[4]; /* node, material, mesh and morph records past RECORDS_LISTED */
	struct error *err;
};

/* The structure lists the first records of each kind, as it lists the link header's first
 * words: a JSON object a record costs a hundred times the record's 28 bytes. Every record is
 * decoded into tracks all the same. */
#define RECORDS_LISTED 4096

static void list_record(json_t *list, uint32_t *unlisted, json_t *record)
{
	if (json_array_size(list) < RECORDS_LISTED)
		json_array_append_new(list, record);
	else {
		json_decref(record);
		(*unlisted)++;
	}
}

/* Records may name the same keys more than once (two bones sharing a slice), and every key
 * named becomes a key of the decoded clip; a few hundred records each naming one 65,535-key
 * slice would turn a 2 MB upload into gigabytes. Records may name, in all, eight times the
 * keys stored plus one full slice. */
#define KEYS_NAMED_PER_KEY_STORED 8
#define KEYS_NAMED_EXTRA          65536

static int name_keys(struct animation_read *an, uint32_t count, const char *path)
{
	uint64_t stored = 0, limit;

	for (int i = 0; i < KF_KEYFRAMER_COUNT; i++)
		stored += an->keys[i].count;
	limit = stored * KEYS_NAMED_PER_KEY_STORED + KEYS_NAMED_EXTRA;
	an->keys_named += count;
	if (an->keys_named > limit) {
		error_set(an->err, ERROR_INVALID, path, -1,
		          "%s: the records name %" PRIu64 " keys by this one, past the %" PRIu64
		          " allowed: records may name at most %d times the %" PRIu64
		          " keys the keyframers store, plus %d, so that a small upload cannot "
		          "decode to gigabytes",
		          path, an->keys_named, limit, KEYS_NAMED_PER_KEY_STORED, stored,
		          KEYS_NAMED_EXTRA);
		return -1;
	}
	return 0;
}

/* The object header names Animation_Z (or a keyframer class, read by the bare keyframer path)
 * and an uncompressed body; -1 with err set otherwise. */
static int check_animation_header(const struct zouna_object_header *h, struct error *err)
{
	const char *cls = zouna_class_of_crc(h->class_crc);

	if (!cls || !zouna_is_resource_class(cls)) {
		if (cls)
			error_set(
			    err, ERROR_UNSUPPORTED_FORMAT, "class", (long long)h->start + 16,
			    "class: this is a %s resource; animdex decodes Animation_Z and Skel_Z "
			    "resources and bare keyframers, not %s (yet)",
			    cls, cls);
		else
			error_set(err, ERROR_UNSUPPORTED_FORMAT, "class", (long long)h->start + 16,
			          "class: the object header's class CRC 0x%08X (%u) is not "
			          "Animation_Z (0x%08X)",
			          h->class_crc, h->class_crc, ANIMATION_Z_CRC);
		return -1;
	}
	if (h->compressed_size != 0) {
		error_set(err, ERROR_INVALID, "compressedSize", (long long)h->start + 12,
		          "compressedSize: %u: the body is compressed with Asobo's LZ variant, "
		          "which animdex does not decompress; extract the resource decompressed "
		          "(bff and dpc do by default)",
		          h->compressed_size);
		return -1;
	}
	return 0;
}

/* The link header, read as handles (its layout is not documented): references of the entry,
 * and the first 4096 listed in the structure. */
static void read_link_header(const struct upload *up, const struct zouna_object_header *h,
                             struct animation_read *an)
{
	struct reader r;

	reader_init(&r, up->data, up->length, h->order, an->err);
	reader_seek(&r, h->start + OBJECT_HEADER_SIZE, "link header");
	for (uint32_t i = 0; i + 4 <= h->link_size; i += 4) {
		uint32_t w = reader_u32(&r, "link header");
		char handle[11];
		if (w && json_array_size(an->link) < 4096) {
			snprintf(handle, sizeof(handle), "0x%08" PRIX32, w);
			json_array_append_new(an->link, json_string(handle));
		}
		if (w)
			resource_add_reference(an->res, w, "link_header", -1, -1);
	}
}

/* Node records (28 bytes): a bone each, with its tracks' slices of the node keyframers. */
static int read_nodes(struct reader *r, struct animation_read *an)
{
	static const struct {
		int keyframer, start;
		uint64_t property;
		int node_schema;
	} parts[] = {{KF_NODE_TRANS, 0, NODE_TRANSLATION, 1},
	             {KF_NODE_ROT, 2, NODE_ROTATION, 1},
	             {KF_NODE_BEZIER, 4, ZOUNA_EULER_ROTATION, 0},
	             {KF_NODE_SCALE, 6, NODE_SCALE, 1},
	             {KF_NODE_MSG, 8, ZOUNA_MESSAGES, 0}};
	uint32_t count = reader_u32(r, "nodes");
	char path[96];

	if (reader_check_count(r, count, 28, "nodes") < 0)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t crc = reader_u32(r, "nodes");
		int16_t id = reader_i16(r, "nodes"), nflag = reader_i16(r, "nodes");
		uint16_t v[10];
		char bone[32];
		json_t *flags = json_array();
		for (int j = 0; j < 10; j++)
			v[j] = reader_u16(r, "nodes");
		snprintf(bone, sizeof(bone), "0x%08" PRIX32, crc);
		if (nflag & 1)
			json_array_append_new(flags, json_string("reset translation"));
		if (nflag & 2)
			json_array_append_new(flags, json_string("reset rotation"));
		if (nflag & 4)
			json_array_append_new(flags, json_string("reset scale"));
		list_record(
		    an->nodes, &an->unlisted[0],
		    json_pack("{s:s, s:i, s:i, s:o, s:[i,i], s:[i,i], s:[i,i], s:[i,i], s:[i,i]}",
		              "bone_crc32", bone, "bone_id", id, "flag", nflag, "flags_named",
		              flags, "trans", v[0], v[1], "rot", v[2], v[3], "bezier_rot", v[4],
		              v[5], "scale", v[6], v[7], "msg", v[8], v[9]));
		snprintf(bone, sizeof(bone), "bone 0x%08" PRIX32, crc);
		for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			int kf = parts[p].keyframer;
			struct track_target tt = {parts[p].node_schema ? SCHEMA_NODE : SCHEMA_ZOUNA,
			                          crc,
			                          bone,
			                          parts[p].property,
			                          1,
			                          crc};
			uint16_t start = v[parts[p].start], n = v[parts[p].start + 1];
			/* a bone uses rot when it has rot keys, else bezierRot */
			if (kf == KF_NODE_BEZIER && v[3] > 0)
				continue;
			snprintf(path, sizeof(path), "nodes[%" PRIu32 "].%s", i,
			         zouna_animation_keyframers[kf].field + 5);
			if (check_slice(&an->keys[kf], start, n, path, an->err) < 0 ||
			    name_keys(an, n, path) < 0 ||
			    zouna_add_track(an->res, &an->index, &an->keys[kf], start, n, &tt,
			                    zouna_animation_keyframers[kf].field, an->err) == -1)
				return -1;
		}
		resource_add_reference(an->res, crc, "bone", -1, (int32_t)i);
	}
	return 0;
}

/* Material records (28 bytes): their (start, count) pairs in the engine's order, which is
 * not the order the keyframers are stored in (doc/formats.md 1.5). */
static int read_materials(struct reader *r, struct animation_read *an)
{
	/* tracks in the keyframers' order; `pair` is where the record holds each one's (start,
	 * count) */
	static const struct {
		int keyframer, pair;
		uint64_t property;
		const char *field;
	} parts[] = {{KF_MAT_TRANS_U, 0, ZOUNA_MATERIAL_TRANS_U, "transU"},
	             {KF_MAT_TRANS_V, 4, ZOUNA_MATERIAL_TRANS_V, "transV"},
	             {KF_MAT_DIFFUSE, 2, ZOUNA_MATERIAL_DIFFUSE, "diffuse"},
	             {KF_MAT_EMISSIVE, 1, ZOUNA_MATERIAL_EMISSIVE, "emissive"},
	             {KF_MAT_ROT, 3, ZOUNA_MATERIAL_ROTATION, "rot"}};
	uint32_t count = reader_u32(r, "materials");
	char path[96];

	if (reader_check_count(r, count, 28, "materials") < 0)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t crc = reader_u32(r, "materials");
		int16_t id = reader_i16(r, "materials"), mflag = reader_i16(r, "materials");
		int16_t v[10];
		char name[32];
		for (int j = 0; j < 10; j++)
			v[j] = reader_i16(r, "materials");
		snprintf(name, sizeof(name), "0x%08" PRIX32, crc);
		list_record(
		    an->materials, &an->unlisted[1],
		    json_pack("{s:s, s:i, s:i, s:[i,i], s:[i,i], s:[i,i], s:[i,i], s:[i,i]}",
		              "material_crc32", name, "id", id, "flag", mflag, "trans_u", v[0],
		              v[1], "emissive", v[2], v[3], "diffuse", v[4], v[5], "rot", v[6],
		              v[7], "trans_v", v[8], v[9]));
		snprintf(name, sizeof(name), "material 0x%08" PRIX32, crc);
		for (size_t p = 0; p < 5; p++) {
			int kf = parts[p].keyframer;
			struct track_target tt = {SCHEMA_ZOUNA,      crc, name,
			                          parts[p].property, 1,   crc};
			int16_t start = v[2 * parts[p].pair], n = v[2 * parts[p].pair + 1];
			snprintf(path, sizeof(path), "materials[%" PRIu32 "].%s", i,
			         parts[p].field);
			if (check_signed_slice(&an->keys[kf], start, n, path, an->err) < 0 ||
			    name_keys(an, (uint32_t)n, path) < 0 ||
			    zouna_add_track(an->res, &an->index, &an->keys[kf], (uint32_t)start,
			                    (uint32_t)n, &tt, zouna_animation_keyframers[kf].field,
			                    an->err) == -1)
				return -1;
		}
		resource_add_reference(an->res, crc, "material", -1, (int32_t)i);
	}
	return 0;
}

/* Mesh (which 0) or morph (which 1) records: 12 bytes, signed starts and counts. */
static int read_objects(struct reader *r, int which, struct animation_read *an)
{
	const char *field = which ? "morphs" : "meshes";
	int keyframer = which ? KF_MORPH : KF_MESH;
	uint32_t count = reader_u32(r, field);
	char path[96];

	if (reader_check_count(r, count, 12, field) < 0)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t crc = reader_u32(r, field);
		int16_t id = reader_i16(r, field), mflag = reader_i16(r, field);
		int16_t start = reader_i16(r, field), n = reader_i16(r, field);
		char name[40];
		struct track_target tt = {
		    SCHEMA_ZOUNA, crc, name, which ? ZOUNA_MORPH : ZOUNA_MESH, 1, crc};
		snprintf(name, sizeof(name), "0x%08" PRIX32, crc);
		list_record(which ? an->morphs : an->meshes, &an->unlisted[2 + which],
		            json_pack("{s:s, s:i, s:i, s:[i,i]}", "object_crc32", name, "id", id,
		                      "flag", mflag, "keys", start, n));
		snprintf(name, sizeof(name), "%s 0x%08" PRIX32, which ? "morph" : "mesh", crc);
		snprintf(path, sizeof(path), "%s[%" PRIu32 "].keys", field, i);
		if (check_signed_slice(&an->keys[keyframer], start, n, path, an->err) < 0 ||
		    name_keys(an, (uint32_t)n, path) < 0 ||
		    zouna_add_track(an->res, &an->index, &an->keys[keyframer], (uint32_t)start,
		                    (uint32_t)n, &tt, zouna_animation_keyframers[keyframer].field,
		                    an->err) == -1)
			return -1;
		resource_add_reference(an->res, crc, which ? "morph" : "mesh", -1, (int32_t)i);
	}
	return 0;
}

/* The body's scalars and keyframers, the animation part of the metadata. */
struct animation_body {
	float max_time, smooth;
	uint16_t flag, node_flag;
};

json_t *zouna_container_json(const struct upload *up, const struct zouna_object_header *h,
                             const char *class_name, json_t *link)
{
	char class_crc[11], name_crc[11];
	json_t *container;

	snprintf(class_crc, sizeof(class_crc), "0x%08" PRIX32, h->class_crc);
	snprintf(name_crc, sizeof(name_crc), "0x%08" PRIX32, h->name_crc);
	container = json_pack("{s:s, s:s, s:{s:I, s:I, s:I, s:I, s:s, s:s, s:s}, s:o}", "kind",
	                      h->bff_size ? "bff" : "object", "byte_order", order_name(h->order),
	                      "object_header", "data_size", (json_int_t)h->data_size,
	                      "link_header_size", (json_int_t)h->link_size, "decompressed_size",
	                      (json_int_t)h->decompressed_size, "compressed_size",
	                      (json_int_t)h->compressed_size, "class_crc32", class_crc, "class",
	                      class_name, "name_crc32", name_crc, "link_header", link);
	if (container && h->bff_size) {
		unsigned platform = up->data[6];
		json_object_set_new(container, "bff_header_size",
		                    json_integer((json_int_t)h->bff_size));
		json_object_set_new(container, "platform",
		                    platform < 16 ? json_string(bff_platforms[platform])
		                                  : json_sprintf("unknown (%u)", platform));
	}
	return container;
}

/* What the entry's structure shows of the file: its container and the animation's records
 * (the records move into the metadata). */
json_t *zouna_number_json(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *animation_metadata(const struct upload *up, const struct zouna_object_header *h,
                                  const struct animation_body *body, size_t trailing,
                                  struct animation_read *an)
{
	json_t *container = zouna_container_json(up, h, "Animation_Z", an->link), *metadata;

	an->link = NULL;
	metadata = json_pack("{s:o, s:o, s:{s:f, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:I}}",
	                     "container", container, "sampling", sampling_metadata(), "animation",
	                     "max_time", (double)body->max_time, "smooth_ratio",
	                     zouna_number_json(body->smooth), "flag", body->flag, "node_flag",
	                     body->node_flag, "keyframers", an->keyframers, "nodes", an->nodes,
	                     "materials", an->materials, "meshes", an->meshes, "morphs", an->morphs,
	                     "trailing_bytes", (json_int_t)trailing);
	an->keyframers = an->nodes = an->materials = an->meshes = an->morphs = NULL;
	for (int i = 0; i < 4; i++) {
		static const char *const unlisted[4] = {"nodes_unlisted", "materials_unlisted",
		                                        "meshes_unlisted", "morphs_unlisted"};
		if (an->unlisted[i])
			json_object_set_new(json_object_get(metadata, "animation"), unlisted[i],
			                    json_integer(an->unlisted[i]));
	}
	return metadata;
}

/* A name from the file name, when it is not just the CRC printed in decimal. */
void zouna_name_from_file(const struct upload *up, struct resource *res)
{
	const char *base;
	size_t len;
	uint32_t parsed;
	char stem[256];

	if (!up->filename)
		return;
	base = strrchr(up->filename, '/');
	base = base ? base + 1 : up->filename;
	len = strcspn(base, ".");
	snprintf(stem, sizeof(stem), "%.*s", (int)(len < 255 ? len : 255), base);
	if (len > 0 && hash_parse_handle(stem, &parsed) < 0)
		res->name = strdup(stem);
}

/* The body: maxTime, smoothRatio, flag, the keyframers, then the node, material, mesh and
 * morph records that slice them into tracks. */
static int read_animation_body(struct reader *r, size_t body_start, struct animation_body *body,
                               struct animation_read *an)
{
	body->max_time = reader_f32(r, "maxTime");
	body->smooth = reader_f32(r, "smoothRatio");
	body->flag = reader_u16(r, "flag");
	for (int i = 0; i < KF_KEYFRAMER_COUNT && !reader_failed(r); i++) {
		if (i == KF_NODE_ROT)
			body->node_flag = reader_u16(r, "node.flag");
		if (zouna_read_keyframer(
		        r, zouna_class_named(zouna_animation_keyframers[i].class_name),
		        zouna_animation_keyframers[i].field, 0, &an->keys[i], an->err) < 0)
			return -1;
		json_object_set_new(an->keyframers, zouna_animation_keyframers[i].field,
		                    zouna_keyframer_info(&an->keys[i]));
	}
	if (reader_failed(r))
		return -1;
	if (!isfinite(body->max_time) || body->max_time < 0) {
		error_set(an->err, ERROR_DURATION_INVALID, "maxTime", (long long)body_start,
		          "maxTime: %g is not a duration (finite, >= 0)", (double)body->max_time);
		return -1;
	}
	an->res->clip.duration = body->max_time;
	if (read_nodes(r, an) < 0 || read_materials(r, an) < 0 || read_objects(r, 0, an) < 0 ||
	    read_objects(r, 1, an) < 0 || reader_failed(r))
		return -1;
	return 0;
}

static int decode_animation(const struct upload *up, struct decode_result *out, struct error *err)
{
	struct animation_read an = {.nodes = json_array(),
	                            .materials = json_array(),
	                            .meshes = json_array(),
	                            .morphs = json_array(),
	                            .link = json_array(),
	                            .keyframers = json_object(),
	                            .err = err};
	struct animation_body body = {0, 0, 0, 0};
	struct zouna_object_header h;
	enum byte_order forced[2];
	int nforced = zouna_byte_orders(up, forced, err);
	struct reader r;
	size_t body_start;
	int rc = -1;

	if (nforced < 0 || zouna_find_object_header(up, &h, forced[0], nforced == 1, err) < 0)
		goto done;
	if (h.class_crc == SKEL_Z_CRC) {
		rc = zouna_decode_skeleton(up, &h, out, err);
		goto done;
	}
	if (check_animation_header(&h, err) < 0)
		goto done;
	an.res = resource_create("zouna", "Animation_Z");
	if (!an.res) {
		zouna_oom(err);
		goto done;
	}
	an.res->crc32 = h.name_crc;
	snprintf(an.res->crc32_source, sizeof(an.res->crc32_source), "header");
	read_link_header(up, &h, &an);
	body_start = h.start + OBJECT_HEADER_SIZE + h.link_size;
	reader_init(&r, up->data, up->length, h.order, err);
	reader_seek(&r, body_start, "body");
	if (read_animation_body(&r, body_start, &body, &an) < 0)
		goto done;
	resource_assume(an.res, "KeyframerRot_Z: quaternions (x, y, z, w) normalised and "
	                        "interpolated by shortest-path slerp; the engine's interpolation "
	                        "code is not public");
	if (an.keys[KF_NODE_BEZIER].count)
		resource_assume(an.res,
		                "KeyframerBezierRot_Z: values read as Euler angles (axis order "
		                "unknown), interpolated component-wise; their conversion to a "
		                "rotation is unknown");
	an.res->metadata = animation_metadata(up, &h, &body, reader_remaining(&r), &an);
	zouna_name_from_file(up, an.res);
	rc = decode_result_add(out, an.res);
	an.res = NULL;
done:
	for (int i = 0; i < KF_KEYFRAMER_COUNT; i++)
		zouna_keys_cleanup(&an.keys[i]);
	zouna_target_index_cleanup(&an.index);
	resource_free(an.res);
	json_decref(an.nodes);
	json_decref(an.materials);
	json_decref(an.meshes);
	json_decref(an.morphs);
	json_decref(an.link);
	json_decref(an.keyframers);
	return rc;
}

/* The class an upload names: class=, else the file name's extension. */
static const char *upload_class(const struct upload *up)
{
	return up->class_name ? up->class_name : format_extension(up->filename);
}

static enum format_match zouna_match(const struct upload *up, char *why, size_t why_size)
{
	const char *cls = upload_class(up);
	struct zouna_object_header h;
	struct error ignored;

	if (up->class_name) {
		if (zouna_class_named(cls) || zouna_is_resource_class(cls))
			return MATCH_EXPLICIT;
		for (size_t i = 0; i < sizeof(other_resource_classes) / sizeof(char *); i++)
			if (strcasecmp(cls, other_resource_classes[i]) == 0)
				return MATCH_EXPLICIT; /* refused with a clear message */
		snprintf(why, why_size, "class=%s is not a Zouna keyframer, Animation_Z or Skel_Z",
		         cls);
		return MATCH_NONE;
	}
	if (up->family) {
		if (strcasecmp(up->family, "zouna") == 0)
			return MATCH_EXPLICIT;
		snprintf(why, why_size, "family=%s is not zouna", up->family);
		return MATCH_NONE;
	}
	if (up->length >= 4 && memcmp(up->data, "BFF0", 4) == 0)
		return MATCH_MAGIC;
	if (zouna_class_named(cls) || zouna_is_resource_class(cls))
		return MATCH_EXTENSION;
	for (size_t i = 0; i < sizeof(other_resource_classes) / sizeof(char *); i++)
		if (strcasecmp(cls, other_resource_classes[i]) == 0)
			return MATCH_EXTENSION;
	error_init(&ignored);
	if (zouna_find_object_header(up, &h, BYTE_ORDER_LITTLE, 0, &ignored) == 0 &&
	    zouna_class_of_crc(h.class_crc))
		return MATCH_PROBE;
	snprintf(why, why_size,
	         "no BFF0 header, no Zouna class in class= or the file name's extension (e.g. "
	         "run.KeyframerRot_Z), and no object header of a known class");
	return MATCH_NONE;
}

static int zouna_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	const char *cls = upload_class(up);
	const struct zouna_class *c = zouna_class_named(cls);
	int bff = up->length >= 4 && memcmp(up->data, "BFF0", 4) == 0;

	if (c && !bff)
		return decode_keyframer(up, c, out, err);
	if (up->class_name && !zouna_is_resource_class(cls)) {
		if (c)
			return decode_keyframer(up, c, out, err);
		error_set(err, ERROR_UNSUPPORTED_FORMAT, "class", -1,
		          "class: %s resources are not decoded (yet); animdex reads Animation_Z "
		          "and Skel_Z resources and bare keyframers",
		          cls);
		return -1;
	}
	return decode_animation(up, out, err);
}

const struct format format_zouna = {
    .family = "zouna",
    .version = 2,
    .description = "Zouna engine keyframers and Animation_Z resources",
    .match = zouna_match,
    .decode = zouna_decode,
};
