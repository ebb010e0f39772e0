/* make_inputs.c: writes the input files of tests/data/legacy-v1/catalog.db (see README there).
 * Kept for provenance: it was built once against commit 1902015 with the tests' writers:
 *
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Itests tests/data/legacy-v1/make_inputs.c \
 *      tests/zouna_writer.c tests/gltf_writer.c libanimdex.a $(pkg-config --libs jansson) -o mk
 *   ./mk DIR && ./animdexd import --db catalog.db DIR
 */
#include <stdio.h>
#include <string.h>

#include "gltf_writer.h"
#include "base/hash.h"
#include "zouna_writer.h"

static void save(const char *dir, const char *name, const void *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	fwrite(data, 1, len, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct zbuf b;

	/* An Animation_Z whose five material keyframers have 4 keys each, so that the record's
	 * (start, count) pairs fit both the storage order and the engine's order. Each keyframer
	 * has its own values: read in the wrong order, the slices show the wrong numbers. One
	 * bone's translation starts at 0.5 s. */
	{
		static struct zkey tu[4] = {{.time = 0, .v = {0.125f}},
		                            {.time = 1, .v = {0.25f}},
		                            {.time = 2, .v = {0.375f}},
		                            {.time = 3, .v = {0.5f}}};
		static struct zkey tv[4] = {{.time = 0, .v = {-0.125f}},
		                            {.time = 1, .v = {-0.25f}},
		                            {.time = 2, .v = {-0.375f}},
		                            {.time = 3, .v = {-0.5f}}};
		static struct zkey diffuse[4] = {{.time = 0, .v = {1, 0, 0}},
		                                 {.time = 1, .v = {0, 1, 0}},
		                                 {.time = 2, .v = {0, 0, 1}},
		                                 {.time = 3, .v = {1, 1, 1}}};
		static struct zkey emissive[4] = {{.time = 0, .v = {0.5f, 0.5f, 0}},
		                                  {.time = 1, .v = {0, 0.5f, 0.5f}},
		                                  {.time = 2, .v = {0.5f, 0, 0.5f}},
		                                  {.time = 3, .v = {0.25f, 0.25f, 0.25f}}};
		static struct zkey mrot[4] = {{.time = 0, .v = {1.5f}},
		                              {.time = 1, .v = {1.75f}},
		                              {.time = 2, .v = {2.0f}},
		                              {.time = 3, .v = {2.25f}}};
		static struct zkey trans[2] = {{.time = 0.5f, .v = {1, 2, 3}},
		                               {.time = 1.5f, .v = {4, 5, 6}}};
		static struct zkey rot[2] = {{.time = 0, .v = {0, 0, 0, 1}},
		                             {.time = 2, .v = {0, 0, 1, 0}}};
		/* storage-order pairs as today's writer lays them: transU, transV, diffuse,
		 * emissive, rot; read in the engine's order the second pair is emissive and the
		 * last is transV */
		struct zmaterial material = {
		    hash_asobo32("mat_glow", 8), 0, 0, {0, 2}, {1, 3}, {2, 2}, {0, 1}, {3, 1}};
		struct znode node = {
		    hash_asobo32("Bip01 Pelvis", 12), 0, 0, {0, 2}, {0, 2}, {0, 0}, {0, 0}, {0, 0}};
		struct zanimation a = {0};
		a.max_time = 3.0f;
		a.smooth_ratio = 0.5f;
		a.keys[0] = rot, a.counts[0] = 2;
		a.keys[3] = trans, a.counts[3] = 2;
		a.keys[5] = tu, a.counts[5] = 4;
		a.keys[6] = tv, a.counts[6] = 4;
		a.keys[7] = diffuse, a.counts[7] = 4;
		a.keys[8] = emissive, a.counts[8] = 4;
		a.keys[9] = mrot, a.counts[9] = 4;
		a.nodes = &node, a.node_count = 1;
		a.materials = &material, a.material_count = 1;
		a.name_crc = hash_asobo32("glow_pulse", 10);
		zbuf_init(&b, 0);
		zouna_write_animation(&b, &a, 16, 0);
		save(dir, "glow_pulse.Animation_Z", b.data, b.len);
		zbuf_free(&b);
	}
	/* A bare keyframer whose first key is at 0.5 s. */
	{
		static struct zkey keys[2] = {{.time = 0.5f, .v = {2}, .tout = {1}},
		                              {.time = 1.5f, .v = {4}, .tin = {1}}};
		zbuf_init(&b, 1);
		zouna_write_keyframer(&b, "KeyframerFloat_Z", 1, keys, 2, 0);
		save(dir, "late_start.KeyframerFloat_Z", b.data, b.len);
		zbuf_free(&b);
	}
	/* A KeyframerVec4fLinear_Z: w between keys. */
	{
		static struct zkey keys[2] = {{.time = 0, .v = {0, 0, 0, 0.25f}},
		                              {.time = 1, .v = {1, 2, 3, 0.75f}}};
		zbuf_init(&b, 0);
		zouna_write_keyframer(&b, "KeyframerVec4fLinear_Z", 2, keys, 2, 0);
		save(dir, "colour.KeyframerVec4fLinear_Z", b.data, b.len);
		zbuf_free(&b);
	}
	/* A Radient clip. */
	{
		const char *doc =
		    "{\"name\": \"walk\", \"duration\": 1.0,\n"
		    " \"targets\": [{\"schema\": \"E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3\", "
		    "\"object\": 0, \"name\": \"hips\"}],\n"
		    " \"samplers\": [{\"value\": {\"type\": \"FLOAT3\", \"array_size\": 1}, "
		    "\"interpolation\": \"LINEAR\", \"times\": [0.25, 1], \"values\": [0,0,0, "
		    "2,1,0]}],\n"
		    " \"channels\": [{\"target\": 0, \"property\": 1, \"first_array_element\": 0, "
		    "\"sampler\": 0}]}\n";
		save(dir, "walk.json", doc, strlen(doc));
	}
	/* A glTF file with one animation whose keys start at 0.25 s. */
	{
		struct gltf_writer w;
		static const float times[2] = {0.25f, 1.0f};
		static const float moves[6] = {0, 0, 0, 1, 2, 3};
		size_t len;
		uint8_t *file;
		gltf_writer_init(&w);
		int in = gltf_writer_accessor(&w, 5126, "SCALAR", 2, times, sizeof(times), 0, 1);
		int out = gltf_writer_accessor(&w, 5126, "VEC3", 2, moves, sizeof(moves), 0, 0);
		int node = gltf_writer_node(&w, "mover", 0);
		gltf_writer_channel(&w, 0, node, "translation", "LINEAR", in, out);
		json_object_set_new(json_array_get(json_object_get(w.doc, "animations"), 0), "name",
		                    json_string("slide"));
		file = gltf_writer_glb(&w, &len);
		save(dir, "slide.glb", file, len);
		free(file);
		gltf_writer_cleanup(&w);
	}
	return 0;
}
