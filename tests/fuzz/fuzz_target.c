/* fuzz_target.c: one libFuzzer target per decoder, chosen at build time with -DFUZZ_FAMILY
 * ("radient", "zouna", "skel" (Zouna skeletons), "gltf", "burnout", or "" for the upload router
 * with no hints). The
 * first input byte picks a class or file name where the family needs one, so one target
 * reaches every class of its family. Any crash, leak or sanitizer report is a finding. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/format.h"

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
	if (strcmp(family, "zouna") == 0) {
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
	if (format_decode(&up, &result, &err) < 0 && err.code == ERROR_NONE) {
		decode_result_cleanup(&result);
		return -1; /* a failure must say why */
	}
	decode_result_cleanup(&result);
	return 0;
}
