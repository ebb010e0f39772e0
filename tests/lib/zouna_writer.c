/* zouna_writer.c: the test fixture writer for Zouna data. */
#include "zouna_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

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
	if (bff_size) {
		/* little-endian whatever the platform: "BFF0", u16 size, u8 platform, u8 tag */
		zbuf_bytes(b, "BFF0", 4);
		zbuf_bytes(b, (uint8_t[]){(uint8_t)bff_size, 0, platform, 1}, 4);
		for (size_t i = 8; i < bff_size; i++)
			zbuf_u8(b, 0);
	}
	zbuf_u32(b, (uint32_t)(link.len + body.len)); /* dataSize */
	zbuf_u32(b, (uint32_t)link.len);
	zbuf_u32(b, (uint32_t)body.len); /* decompressedSize */
	zbuf_u32(b, a->compressed_size);
	zbuf_u32(b, a->class_crc ? a->class_crc : hash_asobo32("Animation_Z", 11));
	zbuf_u32(b, a->name_crc);
	zbuf_bytes(b, link.data, link.len);
	zbuf_bytes(b, body.data, body.len);
	zbuf_free(&body);
	zbuf_free(&link);
}
