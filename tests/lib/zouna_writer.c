/* zouna_writer.c: the test fixture writer for Zouna data. */
#include "zouna_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

void zbuf_init(struct zbuf *b, int big)
{
	memset(b, 0, sizeof(*b));
	b->big = big;
}

void zbuf_free(struct zbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void zbuf_bytes(struct zbuf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->data = realloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void zbuf_uint(struct zbuf *b, uint64_t v, size_t n)
{
	uint8_t bytes[8];

	for (size_t i = 0; i < n; i++)
		bytes[b->big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	zbuf_bytes(b, bytes, n);
}

void zbuf_u8(struct zbuf *b, uint8_t v)
{
	zbuf_bytes(b, &v, 1);
}

void zbuf_u16(struct zbuf *b, uint16_t v)
{
	zbuf_uint(b, v, 2);
}

void zbuf_u32(struct zbuf *b, uint32_t v)
{
	zbuf_uint(b, v, 4);
}

void zbuf_f32(struct zbuf *b, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, 4);
	zbuf_u32(b, bits);
}

static void zbuf_i16(struct zbuf *b, float v, float factor)
{
	zbuf_u16(b, (uint16_t)(int16_t)lrintf(v * factor));
}

static void pad_to_4(struct zbuf *b, size_t key_start)
{
	while ((b->len - key_start) % 4)
		zbuf_u8(b, 0xFF); /* real data pads with 0xFF */
}

struct wclass {
	const char *name;
	int has_flags, hermite, n, compressed, rot, word, message;
	float factor;
};

static const struct wclass wclasses[] = {
    {"KeyframerFloat_Z", 1, 1, 1, 0, 0, 0, 0, 1},
    {"KeyframerFloatComp_Z", 1, 1, 1, 1, 0, 0, 0, 4096},
    {"KeyframerFloatLinearComp_Z", 1, 0, 1, 1, 0, 0, 0, 4096},
    {"KeyframerVec2fLinear_Z", 1, 0, 2, 0, 0, 0, 0, 1},
    {"KeyframerVec2fLinearComp_Z", 1, 0, 2, 1, 0, 0, 0, 4096},
    {"KeyframerVec3fComp_Z", 1, 1, 3, 1, 0, 0, 0, 4096},
    {"KeyframerVec3fLinear_Z", 1, 0, 3, 0, 0, 0, 0, 1},
    {"KeyframerExtVec3f_Z", 1, 1, 3, 0, 0, 0, 0, 1},
    {"KeyframerVec4fLinear_Z", 1, 0, 4, 0, 0, 0, 0, 1},
    {"KeyframerVec4fLinearComp_Z", 1, 0, 4, 1, 0, 0, 0, 4096},
    {"KeyframerRot_Z", 0, 0, 4, 1, 1, 0, 0, 2000},
    {"KeyframerBezierRot_Z", 0, 1, 3, 0, 0, 0, 0, 1},
    {"KeyframerHdl_Z", 0, 0, 0, 0, 0, 1, 0, 1},
    {"KeyframerFlag_Z", 0, 0, 0, 0, 0, 1, 0, 1},
    {"KeyframerMessage_Z", 0, 0, 0, 0, 0, 0, 1, 1},
    {"KeyframerFloatLinear_Z", 1, 0, 1, 0, 0, 0, 0, 1},
    {"KeyframerVec2f_Z", 1, 1, 2, 0, 0, 0, 0, 1},
    {"KeyframerVec2fComp_Z", 1, 1, 2, 1, 0, 0, 0, 4096},
    {"KeyframerVec3f_Z", 1, 1, 3, 0, 0, 0, 0, 1},
    {"KeyframerVec3fLinearComp_Z", 1, 0, 3, 1, 0, 0, 0, 4096},
    {"KeyframerVec4f_Z", 1, 1, 4, 0, 0, 0, 0, 1},
    {"KeyframerVec4fComp_Z", 1, 1, 4, 1, 0, 0, 0, 4096},
};

int zouna_write_keyframer(struct zbuf *b, const char *class_name, uint16_t flags,
                          const struct zkey *keys, uint32_t count, int options)
{
	const struct wclass *c = NULL;

	for (size_t i = 0; i < sizeof(wclasses) / sizeof(wclasses[0]); i++)
		if (strcmp(wclasses[i].name, class_name) == 0)
			c = &wclasses[i];
	if (!c)
		return -1;
	if (c->has_flags)
		zbuf_u16(b, flags);
	zbuf_u32(b, count);
	for (uint32_t k = 0; k < count; k++) {
		const struct zkey *key = &keys[k];
		size_t start = b->len;
		int compressed = c->compressed;
		if (c->message) {
			zbuf_f32(b, key->time);
			zbuf_u32(b, key->message_count);
			for (uint32_t m = 0; m < key->message_count; m++) {
				const struct zmessage *msg = &key->messages[m];
				zbuf_u32(b, msg->message_class);
				zbuf_u32(b, msg->receiver);
				zbuf_u32(b, msg->c);
				zbuf_f32(b, msg->parameter);
				zbuf_u32(b, msg->id);
			}
			continue;
		}
		if (c->word) {
			if (options & ZW_HANDLE_FIRST) {
				zbuf_u32(b, key->word);
				zbuf_f32(b, key->time);
			} else {
				zbuf_f32(b, key->time);
				zbuf_u32(b, key->word);
			}
			continue;
		}
		if ((options & ZW_SEED_LAYOUT) && strcmp(class_name, "KeyframerExtVec3f_Z") == 0) {
			zbuf_u16(b, (uint16_t)key->time);
			zbuf_u16(b, 0x80);
		} else {
			zbuf_f32(b, key->time);
		}
		if ((options & ZW_SEED_LAYOUT) &&
		    strcmp(class_name, "KeyframerVec4fLinearComp_Z") == 0)
			compressed = 0;
		for (int part = 0; part < (c->hermite ? 3 : 1); part++) {
			const float *src = part == 0 ? key->v : part == 1 ? key->tin : key->tout;
			for (int j = 0; j < c->n; j++) {
				if (compressed)
					zbuf_i16(b, src[j], c->factor);
				else
					zbuf_f32(b, src[j]);
			}
		}
		pad_to_4(b, start);
	}
	return 0;
}

static const char *const body_classes[12] = {
    "KeyframerRot_Z",       "KeyframerBezierRot_Z", "KeyframerVec3fComp_Z", "KeyframerVec3fComp_Z",
    "KeyframerMessage_Z",   "KeyframerFloatComp_Z", "KeyframerFloatComp_Z", "KeyframerVec3fComp_Z",
    "KeyframerVec3fComp_Z", "KeyframerFloatComp_Z", "KeyframerFloatComp_Z", "KeyframerFloatComp_Z"};

void zouna_write_resource(struct zbuf *b, uint32_t class_crc, uint32_t name_crc,
                          const struct zbuf *link, const struct zbuf *body,
                          uint32_t compressed_size, size_t bff_size, uint8_t platform)
{
	if (bff_size) {
		/* little-endian whatever the platform: "BFF0", u16 size, u8 platform, u8 tag */
		zbuf_bytes(b, "BFF0", 4);
		zbuf_bytes(b, (uint8_t[]){(uint8_t)bff_size, 0, platform, 1}, 4);
		for (size_t i = 8; i < bff_size; i++)
			zbuf_u8(b, 0);
	}
	zbuf_u32(b, (uint32_t)(link->len + body->len)); /* dataSize */
	zbuf_u32(b, (uint32_t)link->len);
	zbuf_u32(b, (uint32_t)body->len); /* decompressedSize */
	zbuf_u32(b, compressed_size);
	zbuf_u32(b, class_crc);
	zbuf_u32(b, name_crc);
	zbuf_bytes(b, link->data, link->len);
	zbuf_bytes(b, body->data, body->len);
}

void zouna_write_animation(struct zbuf *b, const struct zanimation *a, size_t bff_size,
                           uint8_t platform)
{
	struct zbuf body, link;

	zbuf_init(&body, b->big);
	zbuf_init(&link, b->big);
	for (uint32_t i = 0; i < a->link_count; i++)
		zbuf_u32(&link, a->link[i]);
	zbuf_f32(&body, a->max_time);
	zbuf_f32(&body, a->smooth_ratio);
	zbuf_u16(&body, a->flag);
	for (int i = 0; i < 12; i++) {
		if (i == 0)
			zbuf_u16(&body, a->node_flag);
		zouna_write_keyframer(&body, body_classes[i], a->flags[i], a->keys[i], a->counts[i],
		                      0);
	}
	zbuf_u32(&body, a->node_count);
	for (uint32_t i = 0; i < a->node_count; i++) {
		const struct znode *n = &a->nodes[i];
		zbuf_u32(&body, n->bone_crc);
		zbuf_u16(&body, (uint16_t)n->id);
		zbuf_u16(&body, (uint16_t)n->flag);
		const uint16_t *parts[5] = {n->trans, n->rot, n->bezier_rot, n->scale, n->msg};
		for (int p = 0; p < 5; p++) {
			zbuf_u16(&body, parts[p][0]);
			zbuf_u16(&body, parts[p][1]);
		}
	}
	zbuf_u32(&body, a->material_count);
	for (uint32_t i = 0; i < a->material_count; i++) {
		const struct zmaterial *m = &a->materials[i];
		zbuf_u32(&body, m->crc);
		zbuf_u16(&body, (uint16_t)m->id);
		zbuf_u16(&body, (uint16_t)m->flag);
		const int16_t *parts[5] = {m->trans_u, m->emissive, m->diffuse, m->rot, m->trans_v};
		for (int p = 0; p < 5; p++) {
			zbuf_u16(&body, (uint16_t)parts[p][0]);
			zbuf_u16(&body, (uint16_t)parts[p][1]);
		}
	}
	for (int which = 0; which < 2; which++) {
		const struct zmesh *list = which ? a->morphs : a->meshes;
		uint32_t count = which ? a->morph_count : a->mesh_count;
		zbuf_u32(&body, count);
		for (uint32_t i = 0; i < count; i++) {
			zbuf_u32(&body, list[i].crc);
			zbuf_u16(&body, (uint16_t)list[i].id);
			zbuf_u16(&body, (uint16_t)list[i].flag);
			zbuf_u16(&body, (uint16_t)list[i].keys[0]);
			zbuf_u16(&body, (uint16_t)list[i].keys[1]);
		}
	}
	zouna_write_resource(b, a->class_crc ? a->class_crc : hash_asobo32("Animation_Z", 11),
	                     a->name_crc, &link, &body, a->compressed_size, bff_size, platform);
	zbuf_free(&body);
	zbuf_free(&link);
}

/* Skel_Z (doc/formats.md 1.7) */

/* The rest model matrix of a bone from its parent's: world(parent) * T * R * S, column-major
 * (which is the engine's row-major row-vector matrix, element for element). */
static void bone_world(const struct zbone *b, const double *parent, double out[16])
{
	double x = b->rotation[0], y = b->rotation[1], z = b->rotation[2], w = b->rotation[3];
	double local[16] = {(1 - 2 * (y * y + z * z)) * b->scale[0],
	                    (2 * (x * y + w * z)) * b->scale[0],
	                    (2 * (x * z - w * y)) * b->scale[0],
	                    0,
	                    (2 * (x * y - w * z)) * b->scale[1],
	                    (1 - 2 * (x * x + z * z)) * b->scale[1],
	                    (2 * (y * z + w * x)) * b->scale[1],
	                    0,
	                    (2 * (x * z + w * y)) * b->scale[2],
	                    (2 * (y * z - w * x)) * b->scale[2],
	                    (1 - 2 * (x * x + y * y)) * b->scale[2],
	                    0,
	                    b->translation[0],
	                    b->translation[1],
	                    b->translation[2],
	                    1};

	if (!parent) {
		memcpy(out, local, sizeof(local));
		return;
	}
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++) {
			double sum = 0;
			for (int k = 0; k < 4; k++)
				sum += parent[k * 4 + r] * local[c * 4 + k];
			out[c * 4 + r] = sum;
		}
}

/* The links a well-formed file has: first child, next and previous sibling, by parent. */
static void bone_links(const struct zbone *bones, uint32_t n, uint32_t i, int32_t links[4])
{
	links[0] = -1;
	links[1] = bones[i].parent;
	links[2] = links[3] = -1;
	for (uint32_t j = 0; j < n; j++) {
		if (bones[j].parent == (int32_t)i && links[0] < 0)
			links[0] = (int32_t)j;
		if (j != i && bones[j].parent == bones[i].parent && bones[i].parent >= 0) {
			if (j < i)
				links[3] = (int32_t)j; /* the last before i */
			else if (links[2] < 0)
				links[2] = (int32_t)j; /* the first after i */
		}
	}
}

static void junk(struct zbuf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		zbuf_u8(b, 0xCD); /* pointers and copies the decoder must not read */
}

void zouna_write_skeleton(struct zbuf *b, const struct zskeleton *s, size_t bff_size,
                          uint8_t platform)
{
	struct zbuf body, link;
	double *world = calloc((size_t)s->bone_count + 1, 16 * sizeof(double));
	int computed = 1;

	zbuf_init(&body, b->big);
	zbuf_init(&link, b->big);
	zbuf_u32(&link, s->name_crc);
	if (s->layout != ZSKEL_FUEL) {
		zbuf_u32(&link, s->link_count);
		for (uint32_t i = 0; i < s->link_count; i++)
			zbuf_u32(&link, s->links[i]);
	}
	zbuf_u32(&body, s->flag);
	if (s->layout == ZSKEL_RAT) {
		const float prefix[8] = {1, 0.5f, 0.25f, 1, 0, 1, 0, 2.5f};
		for (int i = 0; i < 8; i++)
			zbuf_f32(&body, prefix[i]);
	} else {
		for (int i = 0; i < 4; i++)
			zbuf_u32(&body, 0x11111111u * (uint32_t)(i + 1));
	}
	zbuf_u32(&body, s->declared_bone_count ? s->declared_bone_count : s->bone_count);
	/* world matrices in parent order (parents may come later in the array) */
	for (int pass = 0; pass < (int)s->bone_count + 1 && computed; pass++) {
		computed = 0;
		for (uint32_t i = 0; i < s->bone_count; i++) {
			int32_t p = s->bones[i].parent;
			if (world[i * 16 + 15] != 0)
				continue;
			if (p < 0 || p >= (int32_t)s->bone_count)
				bone_world(&s->bones[i], NULL, world + i * 16);
			else if (world[(size_t)p * 16 + 15] != 0)
				bone_world(&s->bones[i], world + (size_t)p * 16, world + i * 16);
			else
				continue;
			computed = 1;
		}
	}
	for (uint32_t i = 0; i < s->bone_count; i++) {
		const struct zbone *bn = &s->bones[i];
		int32_t links[4];
		zbuf_u32(&body, bn->user_define);
		for (int k = 0; k < 4; k++)
			zbuf_f32(&body, bn->rotation[k]);
		for (int k = 0; k < 3; k++)
			zbuf_f32(&body, bn->scale[k]);
		zbuf_u32(&body, bn->flags);
		for (int k = 0; k < 3; k++)
			zbuf_f32(&body, bn->translation[k]);
		junk(&body, 52); /* 48-99: pointers, ids, model rotation rows */
		for (int k = 0; k < 4; k++)
			zbuf_f32(&body, k == 3 ? 1.0f : 0.0f); /* rest model rotation: not read */
		junk(&body, 48);                               /* 116-163 */
		for (int k = 0; k < 16; k++)
			zbuf_f32(&body, (float)world[i * 16 + k]);
		if (s->raw_links)
			memcpy(links, bn->links, sizeof(links));
		else
			bone_links(s->bones, s->bone_count, i, links);
		for (int k = 0; k < 4; k++)
			zbuf_u32(&body, (uint32_t)links[k]);
		zbuf_u32(&body, bn->name_crc);
	}
	/* the tail: materials, object datas with their bone lists, morph targets, volumes */
	zbuf_u32(&body, s->material_count);
	for (uint32_t i = 0; i < s->material_count; i++)
		zbuf_u32(&body, 0xA0000000u + i);
	zbuf_u32(&body, s->object_data_count);
	for (uint32_t i = 0; i < s->object_data_count; i++)
		zbuf_u32(&body, 0xB0000000u + i);
	zbuf_u32(&body, s->object_data_count);
	for (uint32_t i = 0; i < s->object_data_count; i++) {
		zbuf_u32(&body, 1);
		zbuf_u32(&body, s->bones[0].name_crc);
	}
	zbuf_u32(&body, 0);
	for (int list = 0; list < 2; list++) {
		zbuf_u32(&body, s->sphere_count);
		for (uint32_t i = 0; i < s->sphere_count; i++) {
			for (int k = 0; k < 4; k++)
				zbuf_f32(&body, 0.5f);
			zbuf_u32(&body, 0);
			zbuf_u32(&body, 0xC0000000u + i);
			zbuf_u32(&body, s->bones[0].name_crc);
		}
	}
	zbuf_u32(&body, s->box_count);
	for (uint32_t i = 0; i < s->box_count; i++) {
		for (int k = 0; k < 16; k++)
			zbuf_f32(&body, 1.0f);
		zbuf_u32(&body, 0);
		zbuf_u32(&body, 0xD0000000u + i);
		zbuf_u32(&body, s->bones[0].name_crc);
	}
	for (uint32_t i = 0; i < s->trailing; i++)
		zbuf_u8(&body, 0);
	zouna_write_resource(b, hash_asobo32("Skel_Z", 6), s->name_crc, &link, &body, 0, bff_size,
	                     platform);
	zbuf_free(&body);
	zbuf_free(&link);
	free(world);
}

void zouna_write_example_animation(struct zbuf *b, int big, size_t bff, float trans_x,
                                   uint32_t bone[3])
{
	static struct zkey rot[5] = {{.time = 0, .v = {0, 0, 0, 1}},
	                             {.time = 2, .v = {0, 0, 1, 0}},
	                             {.time = 0.5f, .v = {0.7071f, 0, 0, 0.7071f}},
	                             {.time = 1, .v = {0, 0.7071f, 0, 0.7071f}},
	                             {.time = 3, .v = {0.5f, 0.5f, 0.5f, 0.5f}}}; /* no record */
	static struct zkey bezier[2] = {{.time = 0.25f, .v = {0, 1, 2}, .tout = {1, 1, 1}},
	                                {.time = 1, .v = {1, 2, 3}, .tin = {1, 1, 1}}};
	struct zkey trans[3] = {{.time = 0, .v = {0, 0, 0}, .tout = {0.5f, 0, 0}},
	                        {.time = 1, .v = {trans_x, 2, -1}, .tin = {0.25f, 0, 0}},
	                        {.time = 2, .v = {1, 2, -1}}};
	static struct zmessage msg = {36, 0xDEADBEEF, 0, 1.0f, 0x01020304};
	static struct zkey msgs[1] = {{.time = 0.5f, .messages = &msg, .message_count = 1}};
	static struct zkey mat[2] = {{.time = 0, .v = {0.25f}}, {.time = 1, .v = {0.5f}}};
	static struct zkey color[1] = {{.time = 0, .v = {1, 0.5f, 0.25f}}};
	static uint32_t link[2] = {0x11111111, 0x22222222};
	struct znode nodes[3] = {
	    {0, 0, 1, {0, 3}, {0, 2}, {0, 0}, {0, 0}, {0, 0}},
	    {0, 1, 6, {0, 0}, {0, 0}, {0, 2}, {0, 0}, {0, 0}},
	    {0, 2, 0, {0, 0}, {2, 2}, {0, 0}, {0, 0}, {0, 1}},
	};
	struct zmaterial material = {0x0BADF00D, 3, 1, {0, 2}, {1, 1}, {0, 1}, {0, 1}, {0, 0}};
	struct zmesh mesh = {0x0EE5EE5E, 4, 0, {0, 1}}, morph = {0x0F0F0F0F, 5, 0, {1, 1}};
	struct zanimation a = {0};

	bone[0] = hash_asobo32("TETE", 4);
	bone[1] = hash_asobo32("COU", 3);
	bone[2] = hash_asobo32("BRAS_G", 6);
	nodes[0].bone_crc = bone[0];
	nodes[1].bone_crc = bone[1];
	nodes[2].bone_crc = bone[2];

	a.max_time = 3.0f;
	a.smooth_ratio = 0.5f;
	a.flag = 3;
	a.node_flag = 1;
	a.keys[0] = rot, a.counts[0] = 5;
	a.keys[1] = bezier, a.counts[1] = 2;
	a.keys[3] = trans, a.counts[3] = 3, a.flags[3] = 1;
	a.keys[4] = msgs, a.counts[4] = 1;
	a.keys[5] = mat, a.counts[5] = 2, a.flags[5] = 2;
	a.keys[6] = mat, a.counts[6] = 2;
	a.keys[7] = color, a.counts[7] = 1;
	a.keys[8] = color, a.counts[8] = 1;
	a.keys[10] = mat, a.counts[10] = 1;
	a.keys[11] = mat, a.counts[11] = 2;
	a.nodes = nodes, a.node_count = 3;
	a.materials = &material, a.material_count = 1;
	a.meshes = &mesh, a.mesh_count = 1;
	a.morphs = &morph, a.morph_count = 1;
	a.link = link, a.link_count = 2;
	a.name_crc = hash_asobo32("hero_run", 8);
	zbuf_init(b, big);
	zouna_write_animation(b, &a, bff, big ? 10 : 0);
}

void zouna_write_walk_animation(struct zbuf *b, uint32_t bone[2])
{
	static struct zmessage step = {36, 0x57A1C0DE, 0, 1.0f, 0x00000001};
	struct zkey rot[18], trans[5], scale[3], msgs[1];
	struct znode nodes[2];
	struct zanimation a = {0};

	memset(rot, 0, sizeof(rot));
	memset(trans, 0, sizeof(trans));
	memset(scale, 0, sizeof(scale));
	memset(msgs, 0, sizeof(msgs));
	memset(nodes, 0, sizeof(nodes));
	for (int i = 0; i < 9; i++) {
		float t = 0.25f * (float)i;
		float hip = 0.35f * sinf(3.14159265f * t / 2);
		float knee = 0.35f * (1 - cosf(3.14159265f * t));
		rot[i].time = rot[9 + i].time = t;
		rot[i].v[0] = sinf(hip / 2);
		rot[i].v[3] = cosf(hip / 2);
		rot[9 + i].v[0] = sinf(knee / 2);
		rot[9 + i].v[3] = cosf(knee / 2);
	}
	for (int i = 0; i < 5; i++) {
		trans[i].time = 0.5f * (float)i;
		trans[i].v[1] = i % 2 ? 0.95f : 1.0f; /* tangents 0: flat at each key */
	}
	for (int i = 0; i < 3; i++) {
		scale[i].time = (float)i;
		scale[i].v[0] = scale[i].v[2] = 1;
		scale[i].v[1] = i == 1 ? 1.1f : 1.0f;
	}
	msgs[0].time = 1;
	msgs[0].messages = &step;
	msgs[0].message_count = 1;
	bone[0] = hash_asobo32("BASSIN", 6);
	bone[1] = hash_asobo32("GENOU_G", 7);
	nodes[0].bone_crc = bone[0];
	nodes[0].id = 0;
	nodes[0].flag = 1;
	nodes[0].rot[1] = 9;
	nodes[0].trans[1] = 5;
	nodes[0].msg[1] = 1;
	nodes[1].bone_crc = bone[1];
	nodes[1].id = 1;
	nodes[1].flag = 1;
	nodes[1].rot[0] = 9;
	nodes[1].rot[1] = 9;
	nodes[1].scale[1] = 3;
	a.max_time = 2.0f;
	a.smooth_ratio = 0.5f;
	a.flag = 3;
	a.node_flag = 1;
	/* the body's keyframers: 0 rot, 2 scale, 3 trans, 4 msg */
	a.keys[0] = rot, a.counts[0] = 18;
	a.keys[2] = scale, a.counts[2] = 3;
	a.keys[3] = trans, a.counts[3] = 5;
	a.keys[4] = msgs, a.counts[4] = 1;
	a.nodes = nodes, a.node_count = 2;
	a.name_crc = hash_asobo32("walk", 4);
	zbuf_init(b, 0);
	zouna_write_animation(b, &a, 0, 0);
}

int zouna_write_long_keyframer(struct zbuf *b, uint32_t count)
{
	struct zkey *keys = calloc(count ? count : 1, sizeof(*keys));
	int rc;

	zbuf_init(b, 0);
	if (!keys)
		return -1;
	for (uint32_t i = 0; i < count; i++)
		keys[i].time = (float)i / 30, keys[i].v[0] = (float)(i % 7);
	rc = zouna_write_keyframer(b, "KeyframerFloat_Z", 1, keys, count, 0);
	free(keys);
	return rc;
}
