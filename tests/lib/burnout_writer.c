/* burnout_writer.c: Burnout test fixtures. */
#include "burnout_writer.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void pad_to(struct zbuf *b, size_t at)
{
	while (b->len < at)
		zbuf_u8(b, 0);
}

static void put_u32_at(struct zbuf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->data[at + (size_t)i] = (uint8_t)(v >> (b->big ? 24 - 8 * i : 8 * i));
}

void burnout_write_vehicle(struct zbuf *b, const struct bvehicle *v, int is64)
{
	size_t start = b->len, header = is64 ? 0x140 : 0x130, parts, anims, states;
	uint32_t counts[3] = {v->part_count, v->animation_count, v->state_count};
	size_t offsets[3];

	parts = header;
	anims = (parts + v->part_count * 3 + 15) & ~(size_t)15;
	states = anims + v->animation_count * 0x40;
	offsets[0] = parts, offsets[1] = anims, offsets[2] = states;
	zbuf_u32(b, 0); /* resourceSize, set below */
	zbuf_u32(b, 1);
	for (int i = 0; i < 3; i++) {
		uint64_t off = v->zero_offsets ? 0 : offsets[i];
		zbuf_u32(b, counts[i]);
		if (is64) {
			zbuf_u32(b, 0);
			zbuf_u32(b, b->big ? (uint32_t)(off >> 32) : (uint32_t)off);
			zbuf_u32(b, b->big ? (uint32_t)off : (uint32_t)(off >> 32));
		} else {
			zbuf_u32(b, (uint32_t)off);
		}
	}
	for (int i = 0; i < 4; i++)
		zbuf_u8(b, (uint8_t)v->wheels[i]);
	pad_to(b, start + (is64 ? 0x40 : 0x30));
	for (int w = 0; w < 4; w++)
		for (int k = 0; k < 16; k++)
			zbuf_f32(b, v->wheel_matrices[w][k]);
	pad_to(b, start + parts);
	for (uint32_t i = 0; i < v->part_count; i++)
		for (int k = 0; k < 3; k++)
			zbuf_u8(b, (uint8_t)v->parts[i].index[k]);
	pad_to(b, start + anims);
	for (uint32_t i = 0; i < v->animation_count; i++) {
		const struct banimation *a = &v->animations[i];
		zbuf_u8(b, (uint8_t)a->part);
		zbuf_u8(b, (uint8_t)a->type);
		zbuf_u8(b, (uint8_t)a->state_part);
		for (int k = 0; k < 13; k++)
			zbuf_u8(b, 0);
		for (int k = 0; k < 12; k++)
			zbuf_f32(b, a->matrix[k]);
	}
	for (uint32_t i = 0; i < v->state_count; i++) {
		const struct bstate *s = &v->states[i];
		zbuf_u8(b, (uint8_t)s->part);
		zbuf_u8(b, (uint8_t)s->trigger);
		zbuf_u8(b, s->loop);
		for (int k = 0; k < 13; k++)
			zbuf_u8(b, 0);
		for (int k = 0; k < 8; k++)
			zbuf_f32(b, s->vectors[k]);
	}
	put_u32_at(b, start, (uint32_t)(b->len - start));
}

void burnout_write_remap(struct zbuf *b, const uint16_t *parts, uint32_t count)
{
	zbuf_u32(b, 8 + 2 * count);
	zbuf_u32(b, count);
	for (uint32_t i = 0; i < count; i++)
		zbuf_u16(b, parts[i]);
}

static void put_u64(struct zbuf *b, uint64_t v)
{
	if (b->big) {
		zbuf_u32(b, (uint32_t)(v >> 32));
		zbuf_u32(b, (uint32_t)v);
	} else {
		zbuf_u32(b, (uint32_t)v);
		zbuf_u32(b, (uint32_t)(v >> 32));
	}
}

void burnout_write_bundle(struct zbuf *b, const struct bentry *entries, size_t count,
                          int compressed, const char *xml)
{
	struct zbuf *blocks = calloc(count + 1, sizeof(*blocks));
	size_t data_start, entries_start = 0x30, xml_start, offset = 0;
	size_t *stored = calloc(count + 1, sizeof(*stored));

	for (size_t i = 0; i < count; i++) {
		zbuf_init(&blocks[i], b->big);
		zbuf_bytes(&blocks[i], entries[i].data, entries[i].length);
		if (entries[i].import_count) {
			while (blocks[i].len % 16)
				zbuf_u8(&blocks[i], 0);
			for (uint16_t k = 0; k < entries[i].import_count; k++) {
				put_u64(&blocks[i], entries[i].imports[k]);
				zbuf_u32(&blocks[i], 0);
				zbuf_u32(&blocks[i], 0);
			}
		}
	}
	xml_start = entries_start + count * 0x40;
	data_start = (xml_start + (xml ? strlen(xml) + 1 : 0) + 15) & ~(size_t)15;
	zbuf_bytes(b, "bnd2", 4);
	zbuf_u32(b, 2);
	zbuf_u32(b, b->big ? 2 : 1);
	zbuf_u32(b, xml ? (uint32_t)xml_start : 0);
	zbuf_u32(b, (uint32_t)count);
	zbuf_u32(b, (uint32_t)entries_start);
	zbuf_u32(b, (uint32_t)data_start);
	zbuf_u32(b, (uint32_t)data_start);
	zbuf_u32(b, (uint32_t)data_start);
	zbuf_u32(b, (compressed ? 1u : 0u) | (xml ? 8u : 0u));
	zbuf_u32(b, 0);
	zbuf_u32(b, 0);
	/* compress the blocks first: entries need their sizes */
	uint8_t **packed = calloc(count + 1, sizeof(*packed));
	for (size_t i = 0; i < count; i++) {
		if (compressed) {
			uLongf n = compressBound(blocks[i].len);
			packed[i] = malloc(n);
			compress(packed[i], &n, blocks[i].data, blocks[i].len);
			stored[i] = n;
		} else {
			packed[i] = malloc(blocks[i].len + 1);
			memcpy(packed[i], blocks[i].data, blocks[i].len);
			stored[i] = blocks[i].len;
		}
	}
	for (size_t i = 0; i < count; i++) {
		put_u64(b, entries[i].id);
		put_u64(b, 0);
		zbuf_u32(b, (uint32_t)blocks[i].len | (4u << 28)); /* alignment 2^4 */
		zbuf_u32(b, 0);
		zbuf_u32(b, 0);
		zbuf_u32(b, compressed ? (uint32_t)stored[i] : 0);
		zbuf_u32(b, 0);
		zbuf_u32(b, 0);
		zbuf_u32(b, (uint32_t)offset);
		zbuf_u32(b, 0);
		zbuf_u32(b, 0);
		zbuf_u32(b, entries[i].import_count
		                ? (uint32_t)((entries[i].length + 15) & ~(size_t)15)
		                : 0);
		zbuf_u32(b, entries[i].type);
		zbuf_u16(b, entries[i].import_count);
		zbuf_u8(b, 0);
		zbuf_u8(b, 0);
		offset = (offset + stored[i] + 15) & ~(size_t)15;
	}
	if (xml)
		zbuf_bytes(b, xml, strlen(xml) + 1);
	while (b->len < data_start)
		zbuf_u8(b, 0);
	for (size_t i = 0; i < count; i++) {
		zbuf_bytes(b, packed[i], stored[i]);
		while ((b->len - data_start) % 16)
			zbuf_u8(b, 0);
		free(packed[i]);
		zbuf_free(&blocks[i]);
	}
	free(packed);
	free(blocks);
	free(stored);
}

void burnout_write_vehicle_bundle(struct zbuf *b, const struct bvehicle *v, int compressed,
                                  const char *xml)
{
	static const uint16_t map[2] = {7, 9};
	struct zbuf va, bpr;
	struct bentry e[2];

	zbuf_init(&va, 0);
	burnout_write_vehicle(&va, v, 0);
	zbuf_init(&bpr, 0);
	burnout_write_remap(&bpr, map, 2);
	e[0] = (struct bentry){0x2CE66AC1u, 0x10023, va.data, va.len, NULL, 0};
	e[1] = (struct bentry){0x87654321u, 0x10024, bpr.data, bpr.len, NULL, 0};
	zbuf_init(b, 0);
	burnout_write_bundle(b, e, 2, compressed, xml);
	zbuf_free(&va);
	zbuf_free(&bpr);
}
