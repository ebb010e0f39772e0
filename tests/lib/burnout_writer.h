/* burnout_writer.h: writes Burnout Paradise Vehicle Animation and Body Part Remap Data
 * resources and BND2 bundles from explicit values, so tests know every decoded field. */
#ifndef ANIMDEX_BURNOUT_WRITER_H
#define ANIMDEX_BURNOUT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "zouna_writer.h" /* struct zbuf: a byte buffer in a chosen byte order */

struct bpart {
	int8_t index[3];
};
struct banimation {
	int8_t part, type, state_part;
	float matrix[12]; /* 3 rows of 4 */
};
struct bstate {
	int8_t part, trigger;
	uint8_t loop;
	float vectors[8];
};
struct bvehicle {
	const struct bpart *parts;
	uint32_t part_count;
	const struct banimation *animations;
	uint32_t animation_count;
	const struct bstate *states;
	uint32_t state_count;
	int8_t wheels[4];
	float wheel_matrices[4][16];
	int zero_offsets; /* write 0 offsets: the arrays follow the header in order */
};

/* Appends a Vehicle Animation resource (32- or 64-bit layout) in b's byte order. */
void burnout_write_vehicle(struct zbuf *b, const struct bvehicle *v, int is64);
void burnout_write_remap(struct zbuf *b, const uint16_t *parts, uint32_t count);

struct bentry {
	uint64_t id;
	uint32_t type;
	const uint8_t *data; /* the resource's primary block */
	size_t length;
	const uint64_t *imports; /* written after the data, at importsOffset */
	uint16_t import_count;
};

/* A BND2 bundle in b's byte order (platform 1 little-endian, 2 big); `xml` may be NULL. */
void burnout_write_bundle(struct zbuf *b, const struct bentry *entries, size_t count,
                          int compressed, const char *xml);

/* The bundle several suites upload (little-endian): a Vehicle Animation (0x2CE66AC1) of v and
 * a Body Part Remap Data (0x87654321) mapping parts 7 and 9; compressed or not, with the debug
 * `xml` (or NULL). b is initialised here. */
void burnout_write_vehicle_bundle(struct zbuf *b, const struct bvehicle *v, int compressed,
                                  const char *xml);

#endif
