/* rig_files.c: writes the binary files the page's 3D view test uploads (tests/browser/
 * view.test.mjs), with the test library's writers: hero.Skel_Z (a root and a chain of three
 * bones), run.Animation_Z (two of hero's bones move, one bone hero lacks), other.Skel_Z (bones
 * none of run's tracks name), spine.Skel_Z (one bone of run's), and pusmc01_vanm.dat (a Burnout
 * vehicle: a root, two animated parts, four wheels at their corners), and pusmc02_vanm.dat (a
 * vehicle whose one state animation names no part: its track moves no node). Usage: rig_files DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burnout_writer.h"
#include "base/hash.h"
#include "zouna_writer.h"

static int save(const char *dir, const char *name, const struct zbuf *b)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int skeleton(const char *dir, const char *file, const char *const *names, int count)
{
	struct zbone bones[8];
	struct zskeleton s = {.layout = ZSKEL_RAT, .bones = bones, .bone_count = (uint32_t)count};
	struct zbuf b;
	int rc;

	memset(bones, 0, sizeof(bones));
	for (int i = 0; i < count; i++) {
		bones[i].name_crc = hash_asobo32(names[i], strlen(names[i]));
		bones[i].parent = i - 1;
		bones[i].rotation[3] = 1;
		bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
		bones[i].translation[1] = i ? 0.5f : 1.0f;
	}
	s.name_crc = hash_asobo32(file, strlen(file));
	zbuf_init(&b, 0);
	zouna_write_skeleton(&b, &s, 16, 0);
	rc = save(dir, file, &b);
	zbuf_free(&b);
	return rc;
}

static int vehicle(const char *dir, const char *file, int moving)
{
	static const struct bpart parts[2] = {{{4, -1, -1}}, {{5, -1, -1}}};
	static const struct banimation animations[1] = {
	    {0, 1, -1, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}}};
	static const struct bstate states[1] = {{1, 10, 1, {0, 0, 0, 0, 1, 1, 1, 1}}};
	static const struct bstate unnamed[1] = {{-1, 10, 1, {0, 0, 0, 0, 1, 1, 1, 1}}};
	static const float corners[4][3] = {
	    {0.8f, 0.35f, 1.4f}, {-0.8f, 0.35f, 1.4f}, {0.8f, 0.35f, -1.3f}, {-0.8f, 0.35f, -1.3f}};
	struct bvehicle v = {
	    parts, 2, animations, moving ? 1 : 0, moving ? states : unnamed, 1, {-1, -1, -1, -1},
	    {{0}}, 0};
	struct zbuf b;
	int rc;

	for (int w = 0; w < 4; w++) {
		for (int k = 0; k < 4; k++)
			v.wheel_matrices[w][k * 5] = 1;
		for (int k = 0; k < 3; k++)
			v.wheel_matrices[w][12 + k] = corners[w][k];
	}
	zbuf_init(&b, 0);
	burnout_write_vehicle(&b, &v, 0);
	rc = save(dir, file, &b);
	zbuf_free(&b);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char *const hero[4] = {"ROOT", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Head"};
	static const char *const other[2] = {"TAIL_A", "TAIL_B"};
	static const char *const spine[2] = {"ROOT", "Bip01 Spine"};
	static struct zkey rot[3] = {{.time = 0, .v = {0, 0, 0, 1}},
	                             {.time = 1, .v = {0, 0, 0.70710678f, 0.70710678f}},
	                             {.time = 2, .v = {0, 0, 0, 1}}};
	static struct zkey trans[5] = {{.time = 0, .v = {0, 0.5f, 0}},
	                               {.time = 1, .v = {0.5f, 0.5f, 0}},
	                               {.time = 2, .v = {0, 0.5f, 0}},
	                               {.time = 0, .v = {1, 0, 0}},
	                               {.time = 2, .v = {2, 0, 0}}};
	struct znode nodes[3] = {
	    {hash_asobo32("Bip01 Pelvis", 12), 0, 0, {0, 0}, {0, 3}, {0, 0}, {0, 0}, {0, 0}},
	    {hash_asobo32("Bip01 Spine", 11), 1, 0, {0, 3}, {0, 0}, {0, 0}, {0, 0}, {0, 0}},
	    {hash_asobo32("Bip01 Tail", 10), 2, 0, {3, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}},
	};
	struct zanimation a = {0};
	struct zbuf b;

	if (argc != 2) {
		fprintf(stderr, "usage: rig_files DIR\n");
		return 2;
	}
	if (skeleton(argv[1], "hero.Skel_Z", hero, 4) < 0 ||
	    skeleton(argv[1], "other.Skel_Z", other, 2) < 0 ||
	    skeleton(argv[1], "spine.Skel_Z", spine, 2) < 0)
		return 1;
	a.max_time = 2;
	a.keys[0] = rot, a.counts[0] = 3;
	a.keys[3] = trans, a.counts[3] = 5;
	a.nodes = nodes, a.node_count = 3;
	a.name_crc = hash_asobo32("run", 3);
	zbuf_init(&b, 0);
	zouna_write_animation(&b, &a, 16, 0);
	if (save(argv[1], "run.Animation_Z", &b) < 0)
		return 1;
	zbuf_free(&b);
	return vehicle(argv[1], "pusmc01_vanm.dat", 1) || vehicle(argv[1], "pusmc02_vanm.dat", 0);
}
