/* zouna_writer.h: writes Zouna keyframers and Animation_Z resources from explicit keys, in
 * either byte order, so that tests know every decoded value in advance (doc/formats.md 1). */
#ifndef ANIMDEX_ZOUNA_WRITER_H
#define ANIMDEX_ZOUNA_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct zbuf {
	uint8_t *data;
	size_t len, cap;
	int big; /* big-endian */
};

void zbuf_init(struct zbuf *b, int big);
void zbuf_free(struct zbuf *b);
void zbuf_u8(struct zbuf *b, uint8_t v);
void zbuf_u16(struct zbuf *b, uint16_t v);
void zbuf_u32(struct zbuf *b, uint32_t v);
void zbuf_f32(struct zbuf *b, float v);
void zbuf_bytes(struct zbuf *b, const void *p, size_t n);

struct zmessage {
	uint32_t message_class, receiver, c;
	float parameter;
	uint32_t id;
};

/* One key: time and up to four components of value and tangents (engine units: compressed
 * classes get value * factor written as i16), or a word (Hdl, Flag), or messages. */
struct zkey {
	float time;
	float v[4], tin[4], tout[4];
	uint32_t word;
	const struct zmessage *messages;
	uint32_t message_count;
};

enum zwrite_option {
	ZW_DEFAULT = 0,
	ZW_HANDLE_FIRST = 1, /* KeyframerHdl_Z: handle, then time (RatDecomp's order) */
	ZW_SEED_LAYOUT = 2,  /* KeyframerExtVec3f_Z: u16 time, u16 flags; Vec4fLinearComp: f32 */
};

/* Appends a keyframer of the named class. Returns -1 for an unknown class. */
int zouna_write_keyframer(struct zbuf *b, const char *class_name, uint16_t flags,
                          const struct zkey *keys, uint32_t count, int options);
/* Writes into b (initialised here) a KeyframerFloat_Z of `count` keys, 30 a second, whose
 * values go 0, 1, ... 6 and round again: a large entry (100,000 keys: 1.6 MB) for the tests
 * of what answers may hold. 0, or -1 when out of memory. */
int zouna_write_long_keyframer(struct zbuf *b, uint32_t count);

/* Animation_Z. */
struct znode {
	uint32_t bone_crc;
	int16_t id, flag;
	uint16_t trans[2], rot[2], bezier_rot[2], scale[2], msg[2]; /* start, count */
};
/* A material record: its (start, count) pairs are signed and written in the engine's order,
 * transU, emissive, diffuse, rot, transV, not the keyframers' order (doc/formats.md 1.5). */
struct zmaterial {
	uint32_t crc;
	int16_t id, flag;
	int16_t trans_u[2], trans_v[2], diffuse[2], emissive[2], rot[2];
};
struct zmesh {
	uint32_t crc;
	int16_t id, flag;
	int16_t keys[2]; /* start, count: signed */
};

struct zanimation {
	float max_time, smooth_ratio;
	uint16_t flag, node_flag;
	/* the twelve keyframers in body order; NULL keys with count 0 write empty ones */
	const struct zkey *keys[12];
	uint32_t counts[12];
	uint16_t flags[12];
	const struct znode *nodes;
	uint32_t node_count;
	const struct zmaterial *materials;
	uint32_t material_count;
	const struct zmesh *meshes;
	uint32_t mesh_count;
	const struct zmesh *morphs;
	uint32_t morph_count;
	const uint32_t *link; /* link header words */
	uint32_t link_count;
	uint32_t name_crc;
	uint32_t class_crc;       /* 0: Animation_Z's */
	uint32_t compressed_size; /* normally 0 */
};

/* Writes an object: a BFF0 header of bff_size bytes (0 for none), the object header, the
 * link header and the body. */
void zouna_write_resource(struct zbuf *b, uint32_t class_crc, uint32_t name_crc,
                          const struct zbuf *link, const struct zbuf *body,
                          uint32_t compressed_size, size_t bff_size, uint8_t platform);

/* Writes the whole resource: a BFF0 header of bff_size bytes (16, 22, 24; 0 for none) with
 * the platform byte, then the object header, link header and body in b's byte order. */
void zouna_write_animation(struct zbuf *b, const struct zanimation *a, size_t bff_size,
                           uint8_t platform);

/* An Animation_Z with every kind of record: rotations (one not quite unit length, as 16-bit
 * steps of 1/2000 make them, starting after 0; and a key no record names), Euler rotations
 * (from 0.25 s), translations (key 1's x is trans_x), messages, a material, a mesh and a
 * morph, a link header; bone[] gets the bones' CRCs (TETE, COU, BRAS_G). Every value is a whole
 * step of its class when trans_x is. */
void zouna_write_example_animation(struct zbuf *b, int big, size_t bff, float trans_x,
                                   uint32_t bone[3]);

/* A walk as a game keys it, for the Blender round trip (tests/scripts/blender_native.sh): a
 * hip (BASSIN) swinging about x and bobbing (Hermite keys, flat at each extreme), a knee
 * (GENOU_G) bending and scaling, a message at 1 s; rotation keys every 0.25 s, at most 11
 * degrees apart; every time on a 24-frames-a-second grid. Little-endian, no BFF0 header. */
void zouna_write_walk_animation(struct zbuf *b, uint32_t bone[2]);

/* Skel_Z (doc/formats.md 1.7): the three layouts. */
enum zskel_layout { ZSKEL_RAT, ZSKEL_WALLE, ZSKEL_FUEL };

struct zbone {
	uint32_t name_crc, user_define, flags;
	float rotation[4], scale[3], translation[3];
	int32_t parent;   /* -1 for the root */
	int32_t links[4]; /* child, parent, next, previous: written as given with raw_links */
};

struct zskeleton {
	enum zskel_layout layout;
	uint32_t name_crc, flag;
	const uint32_t *links; /* link header links (Ratatouille, WALL-E) */
	uint32_t link_count;
	const struct zbone *bones;
	uint32_t bone_count;
	uint32_t declared_bone_count; /* 0: bone_count (else a lie, for hostile tests) */
	int raw_links;                /* write each bone's links as given, not from parents */
	uint32_t material_count, object_data_count, sphere_count, box_count;
	uint32_t trailing; /* zero bytes after the tail */
};

/* Writes a Skel_Z in b's byte order: the rest model matrices from the TRS chain, junk where
 * the engine keeps pointers, every tail list. */
void zouna_write_skeleton(struct zbuf *b, const struct zskeleton *s, size_t bff_size,
                          uint8_t platform);

#endif
