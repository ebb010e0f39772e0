/* fuzz_target.c: one libFuzzer target per decoder, chosen at build time with -DFUZZ_FAMILY
 * ("radient", "zouna", "skel" (Zouna skeletons), "gltf", "burnout", or "" for the upload router
 * with no hints), and "native": a Zouna file decoded, written back as its own template
 * (formats/native.h) and decoded again must give the same tracks (a Burnout resource, and a
 * bundle's resources rebuilt into their bundle, a Radient clip and a Skel_Z, likewise). The
 * first input byte picks a class or file name where the family needs one, so one target
 * reaches every class of its family. Any crash, leak or sanitizer report is a finding. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/reduce.h"
#include "formats/format.h"
#include "formats/native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_one(const char *family, const uint8_t *data, size_t size);

static const char *const zouna_names[] = {"f.KeyframerFloat_Z",
                                          "f.KeyframerFloatComp_Z",
                                          "f.KeyframerFloatLinearComp_Z",
                                          "f.KeyframerVec2fLinear_Z",
                                          "f.KeyframerVec2fLinearComp_Z",
                                          "f.KeyframerVec3fComp_Z",
                                          "f.KeyframerVec3fLinear_Z",
                                          "f.KeyframerExtVec3f_Z",
                                          "f.KeyframerVec4fLinear_Z",
                                          "f.KeyframerVec4fLinearComp_Z",
                                          "f.KeyframerRot_Z",
                                          "f.KeyframerBezierRot_Z",
                                          "f.KeyframerHdl_Z",
                                          "f.KeyframerFlag_Z",
                                          "f.KeyframerMessage_Z",
                                          "f.KeyframerVec4fComp_Z",
                                          "f.Animation_Z",
                                          "f.Rtc_Z"};
static const char *const router_names[] = {"a.json",           "a.gltf",   "a.glb", "a.Animation_Z",
                                           "a.KeyframerRot_Z", "a.Skel_Z", "a.dat", "ECC975F6.dat",
                                           "F6_75_C9_EC.dat",  "a.bin",    NULL};

#ifdef FUZZ_FAMILY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_one(FUZZ_FAMILY, data, size) < 0)
		__builtin_trap();
	return 0;
}
#endif

/* Whether two decodings hold the same tracks, value for value. */
static int same_tracks(const struct resource *a, const struct resource *b)
{
	if (a->clip.channel_count != b->clip.channel_count)
		return 0;
	for (size_t i = 0; i < a->clip.channel_count; i++) {
		const struct sampler *x = &a->clip.samplers[a->clip.channels[i].sampler];
		const struct sampler *y = &b->clip.samplers[b->clip.channels[i].sampler];
		if (x->key_count != y->key_count || x->value_bytes != y->value_bytes ||
		    x->interp != y->interp || memcmp(x->times, y->times, x->key_count * 4) != 0 ||
		    memcmp(x->values, y->values, x->value_bytes) != 0)
			return 0;
	}
	return 1;
}

/* Whether every value of a float track is finite, and small enough that a segment's sums
 * stay finite. */
static int finite_values(const struct sampler *s)
{
	const float *v = s->values;

	for (size_t i = 0; i < s->value_bytes / sizeof(float); i++)
		if (!(fabsf(v[i]) < 1e30f))
			return 0;
	for (uint32_t i = 0; i < s->key_count; i++)
		if (!(fabsf(s->times[i]) < 1e30f))
			return 0;
	return 1;
}

/* decode -> native -> decode: -1 when the file written is refused or reads otherwise. */
static int native_round_trip(const struct upload *up, const struct decode_result *first)
{
	static const struct native_options defaults = {.byte_order = -1, .bff = -1};
	const struct resource *res = first->resources[0];
	const char *order = json_string_value(json_object_get(res->metadata, "byte_order"));
	struct upload again = *up, tmpl = *up;
	struct native_file file;
	struct decode_result second;
	struct error err;
	int rc = -1;

	if (!order) /* an Animation_Z says it in its container */
		order = json_string_value(
		    json_object_get(json_object_get(res->metadata, "container"), "byte_order"));
	tmpl.class_name = res->class_name;
	tmpl.endian = order;
	error_init(&err);
	if (native_zouna(&tmpl, res, &defaults, &file, &err) < 0)
		return err.code == ERROR_INVALID || err.code == ERROR_VALUE_OUT_OF_RANGE ? 0 : -1;
	again.data = file.bytes;
	again.length = file.length;
	again.class_name = file.extension;
	again.endian = order;
	decode_result_init(&second);
	if (format_decode(&again, &second, &err) == 0 && second.count == 1 &&
	    same_tracks(res, second.resources[0]))
		rc = 0;
	/* every float track reduced (core/reduce.h): never more keys, and a linear track's
	 * never past the tolerance where its values are finite (a segment of one interval is
	 * the track itself) */
	for (size_t i = 0; rc == 0 && i < res->clip.channel_count; i++) {
		const struct sampler *s = &res->clip.samplers[res->clip.channels[i].sampler];
		struct sampler reduced;
		struct reduce_result r;
		if (!reduce_applies(s))
			continue;
		if (reduce_sampler(s, 1e-3, (i % 2) ? REDUCE_HERMITE : REDUCE_LINEAR, &reduced,
		                   &r) < 0 ||
		    r.keys_after > r.keys_before || r.keys_after < (s->key_count > 1 ? 2u : 1u) ||
		    (finite_values(s) && s->interp == INTERP_LINEAR && !(r.largest_error <= 1e-3)))
			rc = -1;
		free(reduced.times);
		free(reduced.values);
	}
	decode_result_cleanup(&second);
	native_file_cleanup(&file);
	return rc;
}

/* A Burnout resource written back as itself is its bytes; in every layout, it is written or
 * refused by name (native_burnout decodes what it writes: a 500 is a finding). A bundle is no
 * template: refused by name too. */
static int burnout_round_trip(const struct upload *up, const struct resource *res)
{
	static const int layouts[][2] = {{0, -1}, {32, 1}, {64, 0}};
	struct upload tmpl = *up;

	tmpl.class_name = res->class_name;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		struct native_options opt = {.byte_order = layouts[i][1], .bff = -1};
		struct native_file file;
		struct error err;
		int rc;
		opt.layout = layouts[i][0];
		error_init(&err);
		rc = native_burnout(&tmpl, res, &opt, &file, &err);
		if (rc < 0 && (err.code == ERROR_NONE || err.code == ERROR_INTERNAL))
			return -1;
		if (rc == 0 && i == 0 &&
		    (file.length != up->length || memcmp(file.bytes, up->data, up->length) != 0)) {
			native_file_cleanup(&file);
			return -1;
		}
		if (rc == 0)
			native_file_cleanup(&file);
	}
	return 0;
}

/* A resource of a bundle written back as itself into its bundle is the bundle, byte for byte;
 * written in the other layout (a Vehicle Animation) and put in its place, the bundle is rebuilt
 * or refused by name (native_burnout_bundle decodes what it rebuilt: a 500 is a finding). */
static int bundle_round_trip(const struct upload *up, const struct resource *res)
{
	struct upload tmpl = *up;
	uint8_t *bytes = NULL;
	size_t length;
	int rc = 0;

	tmpl.class_name = res->class_name;
	for (int layout = 0; layout <= 64 && rc == 0; layout += 64) {
		struct native_options opt = {.byte_order = -1, .bff = -1, .layout = layout};
		struct native_file file;
		struct error err;
		error_init(&err);
		if (native_burnout_bundle_resource(up, res->crc32, &bytes, &length, &err) < 0)
			return err.code == ERROR_NONE || err.code == ERROR_INTERNAL ? -1 : 0;
		tmpl.data = bytes;
		tmpl.length = length;
		if (native_burnout(&tmpl, res, &opt, &file, &err) < 0) {
			rc = err.code == ERROR_NONE || err.code == ERROR_INTERNAL ? -1 : 0;
		} else if (native_burnout_bundle(up, res->crc32, &file, &err) < 0) {
			rc = err.code == ERROR_NONE || err.code == ERROR_INTERNAL ? -1 : 0;
			native_file_cleanup(&file);
		} else {
			if (layout == 0 && (file.length != up->length ||
			                    memcmp(file.bytes, up->data, up->length) != 0))
				rc = -1;
			native_file_cleanup(&file);
		}
		free(bytes);
		bytes = NULL;
		if (strcmp(res->class_name, "VehicleAnimation") != 0)
			break;
	}
	return rc;
}

/* A clip document written back as itself is its bytes (formats/native.h: native_radient). */
static int radient_round_trip(const struct upload *up, const struct resource *res)
{
	struct native_options opt = {.byte_order = -1, .bff = -1};
	struct native_file file;
	struct error err;
	int rc;

	error_init(&err);
	if (native_radient(up, res, &opt, &file, &err) < 0)
		return -1; /* its own document is always a template for it */
	rc = file.length == up->length && memcmp(file.bytes, up->data, up->length) == 0 ? 0 : -1;
	native_file_cleanup(&file);
	return rc;
}

/* A skeleton written back on itself is its bytes; with its root moved it is written or refused
 * by name (native_zouna_skeleton decodes what it writes: a 500 is a finding). */
static int skeleton_round_trip(const struct upload *up, struct resource *res)
{
	struct native_options opt = {.byte_order = -1, .bff = -1};
	struct native_file file;
	struct error err;
	int rc;

	error_init(&err);
	if (native_zouna_skeleton(up, res, &opt, &file, &err) < 0)
		return -1; /* a skeleton is always a template for itself */
	rc = file.length == up->length && memcmp(file.bytes, up->data, up->length) == 0 ? 0 : -1;
	native_file_cleanup(&file);
	if (rc < 0 || res->rig.count == 0)
		return rc;
	res->rig.nodes[0].translation[0] += 1.0f;
	error_init(&err);
	rc = native_zouna_skeleton(up, res, &opt, &file, &err);
	if (rc == 0)
		native_file_cleanup(&file);
	return rc < 0 && (err.code == ERROR_NONE || err.code == ERROR_INTERNAL) ? -1 : 0;
}

/* Decodes data as an upload of `family` would be; returns -1 when a refusal has no reason. */
int fuzz_one(const char *family, const uint8_t *data, size_t size)
{
	struct upload up = {0};
	struct decode_result result;
	struct error err;
	uint8_t pick;

	if (size < 1)
		return 0;
	pick = data[0];
	up.data = data + 1;
	up.length = size - 1;
	up.max_inflate = 1u << 20;
	if (strcmp(family, "zouna") == 0 || strcmp(family, "native") == 0) {
		up.filename = zouna_names[pick % (sizeof(zouna_names) / sizeof(zouna_names[0]))];
		up.endian = pick & 0x80 ? "big" : NULL;
	} else if (strcmp(family, "skel") == 0) {
		up.filename = pick & 1 ? "f.Skel_Z" : "1234.Skel_Z";
		up.endian = pick & 0x80 ? "big" : NULL;
	} else if (strcmp(family, "burnout") == 0) {
		up.family = "burnout";
		up.class_name = pick % 3 == 1   ? "VehicleAnimation"
		                : pick % 3 == 2 ? "BodyPartRemapData"
		                                : NULL;
		up.layout = pick & 0x80 ? "64" : NULL;
		up.filename = pick & 0x40 ? "F6_75_C9_EC.dat" : "x.dat";
	} else if (family[0]) {
		up.family = family;
	} else {
		up.filename = router_names[pick % (sizeof(router_names) / sizeof(router_names[0]))];
	}
	error_init(&err);
	decode_result_init(&result);
	if (format_decode(&up, &result, &err) < 0) {
		decode_result_cleanup(&result);
		return err.code == ERROR_NONE ? -1 : 0; /* a failure must say why */
	}
	if (strcmp(family, "burnout") == 0 && result.count == 1 &&
	    burnout_round_trip(&up, result.resources[0]) < 0) {
		decode_result_cleanup(&result);
		return -1;
	}
	for (size_t i = 0; i < result.count; i++)
		if (!result.resources[i]->metadata && /* every entry keeps its structure (a clip */
		    strcmp(result.resources[i]->family, "radient") != 0) { /* document has none) */
			decode_result_cleanup(&result);
			return -1;
		}
	if (strcmp(family, "skel") == 0 && result.count == 1 &&
	    strcmp(result.resources[0]->class_name, "Skel_Z") == 0 &&
	    skeleton_round_trip(&up, result.resources[0]) < 0) {
		decode_result_cleanup(&result);
		return -1;
	}
	if (strcmp(family, "radient") == 0 && result.count == 1 &&
	    radient_round_trip(&up, result.resources[0]) < 0) {
		decode_result_cleanup(&result);
		return -1;
	}
	for (size_t i = 0; strcmp(family, "burnout") == 0 && i < result.count && i < 4; i++)
		if (json_object_get(result.resources[i]->metadata, "bundle") &&
		    bundle_round_trip(&up, result.resources[i]) < 0) {
			decode_result_cleanup(&result);
			return -1;
		}
	if (strcmp(family, "native") == 0 && result.count == 1 &&
	    strcmp(result.resources[0]->class_name, "Skel_Z") != 0 &&
	    native_round_trip(&up, &result) < 0) {
		decode_result_cleanup(&result);
		return -1;
	}
	decode_result_cleanup(&result);
	return 0;
}
