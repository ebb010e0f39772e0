/* keyframer.c: test files for make bench, on standard output. `keyframer N`: a bare
 * KeyframerFloatLinearComp_Z of N keys (the export of a track glTF cannot animate, kept in
 * extras: its keys in the asset's buffer). `keyframer N animation`: an Animation_Z of N keys
 * over 10 bones, each a rotation and a translation of N / 20 keys at 30 a second (native
 * beside export). `keyframer N records [SEED]`: an Animation_Z of N node records, each a bone
 * whose rotation is one key of its own (decoding time and memory per record); SEED changes the
 * name's CRC, for files that differ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "zouna_writer.h"

static int animation(unsigned n, struct zbuf *b)
{
	enum { BONES = 10 };
	unsigned per = n / (2 * BONES);
	struct zkey *rot = calloc((size_t)per * BONES + 1, sizeof(*rot));
	struct zkey *trans = calloc((size_t)per * BONES + 1, sizeof(*trans));
	struct znode nodes[BONES];
	struct zanimation a = {0};
	char name[16];

	if (!rot || !trans || per == 0 || per > 65535)
		return 1;
	memset(nodes, 0, sizeof(nodes));
	for (unsigned bone = 0; bone < BONES; bone++) {
		for (unsigned i = 0; i < per; i++) {
			struct zkey *r = &rot[bone * per + i], *t = &trans[bone * per + i];
			float time = (float)i / 30, angle = 0.5f * sinf(time + (float)bone);
			r->time = t->time = time;
			r->v[1] = sinf(angle / 2);
			r->v[3] = cosf(angle / 2);
			t->v[0] = cosf(time * 0.7f + (float)bone);
			t->v[1] = 0.1f * (float)bone;
		}
		snprintf(name, sizeof(name), "BONE_%u", bone);
		nodes[bone].bone_crc = hash_asobo32(name, strlen(name));
		nodes[bone].id = (int16_t)bone;
		nodes[bone].rot[0] = nodes[bone].trans[0] = (uint16_t)(bone * per);
		nodes[bone].rot[1] = nodes[bone].trans[1] = (uint16_t)per;
	}
	a.max_time = (float)(per - 1) / 30;
	a.smooth_ratio = 0.5f;
	a.keys[0] = rot, a.counts[0] = per * BONES; /* the body's keyframers: 0 rot, 3 trans */
	a.keys[3] = trans, a.counts[3] = per * BONES;
	a.nodes = nodes, a.node_count = BONES;
	a.name_crc = hash_asobo32("bench", 5);
	zbuf_init(b, 0);
	zouna_write_animation(b, &a, 0, 0);
	free(rot);
	free(trans);
	return 0;
}

static int records(unsigned n, unsigned seed, struct zbuf *b)
{
	struct zkey *rot = calloc(n ? n : 1, sizeof(*rot));
	struct znode *nodes = calloc(n ? n : 1, sizeof(*nodes));
	struct zanimation a = {0};
	char name[24];

	if (!rot || !nodes || n == 0 || n > 65535) {
		free(rot);
		free(nodes);
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		rot[i].v[3] = 1;
		snprintf(name, sizeof(name), "BONE_%u", i);
		nodes[i].bone_crc = hash_asobo32(name, strlen(name));
		nodes[i].id = (int16_t)i;
		nodes[i].rot[0] = (uint16_t)i;
		nodes[i].rot[1] = 1;
	}
	a.max_time = 1;
	a.smooth_ratio = 0.5f;
	a.keys[0] = rot, a.counts[0] = n;
	a.nodes = nodes, a.node_count = n;
	a.name_crc = hash_asobo32("records", 7) + seed; /* files that differ */
	zbuf_init(b, 0);
	zouna_write_animation(b, &a, 0, 0);
	free(rot);
	free(nodes);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4000000;
	struct zkey *keys;
	struct zbuf b;

	if (argc > 2 && (strcmp(argv[2], "animation") == 0 || strcmp(argv[2], "records") == 0)) {
		int failed = strcmp(argv[2], "records") == 0
		                 ? records(n, argc > 3 ? (unsigned)atoi(argv[3]) : 0, &b)
		                 : animation(n, &b);
		if (failed || fwrite(b.data, 1, b.len, stdout) != b.len)
			return 1;
		zbuf_free(&b);
		return 0;
	}
	keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		keys[i].time = (float)i * 0.01f;
		keys[i].v[0] = (float)((int)(i % 2000) - 1000) / 512.0f;
	}
	zbuf_init(&b, 0);
	if (zouna_write_keyframer(&b, "KeyframerFloatLinearComp_Z", 0, keys, n, ZW_DEFAULT) != 0 ||
	    fwrite(b.data, 1, b.len, stdout) != b.len)
		return 1;
	zbuf_free(&b);
	free(keys);
	return 0;
}
