/* make_seeds.c: seed corpora for the fuzz targets, from the fixture writers. Each file is the
 * selector byte of fuzz_target.c followed by a valid input. Usage: make_seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "burnout_writer.h"
#include "gltf_writer.h"
#include "zouna_writer.h"

static void save(const char *dir, const char *target, const char *name, uint8_t pick,
                 const void *data, size_t len)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	f = fopen(path, "wb");
	fputc(pick, f);
	fwrite(data, 1, len, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	static const char *const classes[] = {"KeyframerFloat_Z",
	                                      "KeyframerFloatComp_Z",
	                                      "KeyframerFloatLinearComp_Z",
	                                      "KeyframerVec2fLinear_Z",
	                                      "KeyframerVec2fLinearComp_Z",
	                                      "KeyframerVec3fComp_Z",
	                                      "KeyframerVec3fLinear_Z",
	                                      "KeyframerExtVec3f_Z",
	                                      "KeyframerVec4fLinear_Z",
	                                      "KeyframerVec4fLinearComp_Z",
	                                      "KeyframerRot_Z",
	                                      "KeyframerBezierRot_Z",
	                                      "KeyframerHdl_Z",
	                                      "KeyframerFlag_Z",
	                                      "KeyframerMessage_Z"};
	struct zmessage m = {36, 0x1234, 0, 1.0f, 0x5678};
	struct zkey keys[3] = {
	    {.time = 0, .v = {0, 0, 0, 1}, .word = 5, .messages = &m, .message_count = 1},
	    {.time = 1, .v = {1, 0, 0, 0}, .tout = {1, 1, 1, 1}, .word = 6},
	    {.time = 2,
	     .v = {0, 1, 0, 0},
	     .tin = {1},
	     .word = 7,
	     .messages = &m,
	     .message_count = 1}};
	const char *dir = argc > 1 ? argv[1] : ".";
	char name[64];

	mkdir(dir, 0755);
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++)
		for (int big = 0; big < 2; big++) {
			struct zbuf b;
			zbuf_init(&b, big);
			zouna_write_keyframer(&b, classes[c], 1, keys, 3, 0);
			snprintf(name, sizeof(name), "%s-%s", classes[c], big ? "be" : "le");
			save(dir, "zouna", name, (uint8_t)(c | (big ? 0x80 : 0)), b.data, b.len);
			zbuf_free(&b);
		}
	{
		struct znode node = {0x11, 0, 1, {0, 0}, {0, 2}, {0, 0}, {0, 0}, {0, 1}};
		struct zanimation a = {0};
		struct zbuf b;
		a.max_time = 2;
		a.keys[0] = keys, a.counts[0] = 2;
		a.keys[4] = keys, a.counts[4] = 1;
		a.nodes = &node, a.node_count = 1;
		for (int big = 0; big < 2; big++) {
			zbuf_init(&b, big);
			zouna_write_animation(&b, &a, big ? 0 : 16, 0);
			save(dir, "zouna", big ? "animation-be" : "animation-bff", 16, b.data,
			     b.len);
			save(dir, "router", big ? "animation-be" : "animation-bff", 3, b.data,
			     b.len);
			zbuf_free(&b);
		}
	}
	{
		static const struct bstate st = {1, 10, 1, {0, 0, 0, 0, 1, 1, 1, 1}};
		static const struct bpart p[2] = {{{0, -1, -1}}, {{1, -1, -1}}};
		static const uint16_t map[2] = {1, 2};
		struct bvehicle v = {p, 2, NULL, 0, &st, 1, {0, 1, -1, -1}, {{0}}, 0};
		struct zbuf va, bpr, bnd;
		struct bentry e[2];
		for (int layout = 0; layout < 3; layout++) {
			zbuf_init(&va, layout == 1);
			burnout_write_vehicle(&va, &v, layout == 2);
			snprintf(name, sizeof(name), "vehicle-%d", layout);
			save(dir, "burnout", name, (uint8_t)(1 | (layout == 2 ? 0x80 : 0)), va.data,
			     va.len);
			zbuf_free(&va);
		}
		zbuf_init(&va, 0);
		burnout_write_vehicle(&va, &v, 0);
		zbuf_init(&bpr, 0);
		burnout_write_remap(&bpr, map, 2);
		save(dir, "burnout", "remap", 2, bpr.data, bpr.len);
		e[0] = (struct bentry){0x2CE66AC1u, 0x10023, va.data, va.len, NULL, 0};
		e[1] = (struct bentry){0x11u, 0x10024, bpr.data, bpr.len, NULL, 0};
		for (int z = 0; z < 2; z++) {
			zbuf_init(&bnd, 0);
			burnout_write_bundle(&bnd, e, 2, z,
			                     "<Resource id=\"2ce66ac1\" name=\"x_vanm\"/>");
			save(dir, "burnout", z ? "bundle-zlib" : "bundle", 0, bnd.data, bnd.len);
			save(dir, "router", z ? "bundle-zlib" : "bundle", 5, bnd.data, bnd.len);
			zbuf_free(&bnd);
		}
		zbuf_free(&va);
		zbuf_free(&bpr);
	}
	for (int layout = 0; layout < 3; layout++) { /* Skel_Z: every layout, both byte orders */
		struct zbone bones[3] = {{0}};
		struct zskeleton s = {.layout = (enum zskel_layout)layout,
		                      .name_crc = 0x5E1E,
		                      .bones = bones,
		                      .bone_count = 3,
		                      .material_count = 1,
		                      .object_data_count = 1,
		                      .sphere_count = 1,
		                      .box_count = 1};
		for (int i = 0; i < 3; i++) {
			bones[i].name_crc = 0x100u + (uint32_t)i;
			bones[i].parent = i - 1;
			bones[i].rotation[3] = 1;
			bones[i].scale[0] = bones[i].scale[1] = bones[i].scale[2] = 1;
			bones[i].translation[1] = 1;
		}
		for (int big = 0; big < 2; big++) {
			struct zbuf b;
			zbuf_init(&b, big);
			zouna_write_skeleton(&b, &s, big ? 0 : 16, 0);
			snprintf(name, sizeof(name), "skeleton-%d-%s", layout, big ? "be" : "le");
			save(dir, "skel", name, (uint8_t)(big ? 0x80 : 0), b.data, b.len);
			save(dir, "router", name, 3, b.data, b.len);
			zbuf_free(&b);
		}
	}
	{
		struct gltf_writer w;
		float t[2] = {0, 1}, v[8] = {0, 0, 0, 1, 0, 0, 1, 0};
		size_t len;
		uint8_t *file;
		gltf_writer_init(&w);
		int in = gltf_writer_accessor(&w, 5126, "SCALAR", 2, t, sizeof(t), 0, 1);
		int out = gltf_writer_accessor(&w, 5126, "VEC4", 2, v, sizeof(v), 0, 0);
		gltf_writer_channel(&w, 0, gltf_writer_node(&w, "n", 0), "rotation", "LINEAR", in,
		                    out);
		file = gltf_writer_embedded(&w, &len);
		save(dir, "gltf", "embedded", 0, file, len);
		save(dir, "router", "embedded", 1, file, len);
		free(file);
		file = gltf_writer_glb(&w, &len);
		save(dir, "gltf", "glb", 0, file, len);
		save(dir, "router", "glb", 2, file, len);
		free(file);
		gltf_writer_cleanup(&w);
	}
	return 0;
}
