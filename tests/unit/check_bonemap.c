/* check_bonemap.c: the proposed bone map (core/bonemap.h): names folded by the conventions rigs
 * are named by (Mixamo, CMU, 3ds Max's Bip01, Unreal's _l/_r, Blender's .L), each rule in its
 * order, ambiguous names left to a later rule, the bones left under paired parents paired by
 * structure, and every bone left unmapped on either side. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bonemap.h"
#include "../../src/core/bonemap_shape.h" /* the chains the shape rule pairs */
#include "formats/format.h"
#include "testutil.h"

START_TEST(names_fold_by_the_usual_conventions)
{
	static const struct {
		const char *name, *folded;
	} cases[] = {
	    {"mixamorig:LeftUpLeg", "upleg.l"},
	    {"LeftUpLeg", "upleg.l"},
	    {"upleg_l", "upleg.l"},
	    {"Bip01 L UpLeg", "upleg.l"},
	    {"UpLeg.L", "upleg.l"},
	    {"RightHand", "hand.r"},
	    {"hand_r", "hand.r"},
	    {"Bip01 R Hand", "hand.r"},
	    {"LHipJoint", "hipjoint.l"},
	    {"Armature|Spine1", "spine1"},
	    {"EndSite_mixamorig:Neck", "endsiteneck"},
	    {"a:b:Head", "head"},
	    {"Hips", "hips"},
	    {"HIPS", "hips"},
	    {"Lower Back", "lowerback"},
	    {"LowerBack", "lowerback"},
	    {"neck-01", "neck01"},
	    {"", ""},
	};
	char out[BONEMAP_FOLDED_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bonemap_fold(cases[i].name, out, sizeof(out));
		ck_assert_msg(strcmp(out, cases[i].folded) == 0, "%s: '%s', not '%s'",
		              cases[i].name, out, cases[i].folded);
	}
	bonemap_fold(NULL, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

static void make_rig(struct rig *rig, const char *const *names, const int32_t *parents,
                     size_t count)
{
	rig_init(rig);
	rig->nodes = calloc(count, sizeof(struct rig_node));
	ck_assert_ptr_nonnull(rig->nodes);
	rig->count = count;
	for (size_t i = 0; i < count; i++) {
		rig->nodes[i].source = (uint32_t)i;
		rig->nodes[i].name = names[i] ? strdup(names[i]) : NULL;
		rig->nodes[i].parent = parents[i];
		rig->nodes[i].rotation[3] = 1;
		rig->nodes[i].scale[0] = rig->nodes[i].scale[1] = rig->nodes[i].scale[2] = 1;
	}
}

/* The rule that paired target bone `to` (by its index), or NULL. */
static const struct bonemap_pair *pair_of(const struct bonemap *map, uint32_t to)
{
	for (size_t i = 0; i < map->pair_count; i++)
		if (map->pairs[i].to == to)
			return &map->pairs[i];
	return NULL;
}

START_TEST(a_cmu_take_onto_a_mixamo_rig)
{
	/* CMU's names (as in Debian's 01_01.bvh) onto Mixamo's: the hips by synonym (Pelvis),
	 * the legs by their folded names, Spine1 by its name, a joint Mixamo lacks left */
	static const char *const cmu[8] = {"Hips",       "LHipJoint", "LeftUpLeg", "LeftLeg",
	                                   "RightUpLeg", "Spine",     "Spine1",    "LowerBack"};
	static const int32_t cmu_parents[8] = {-1, 0, 1, 2, 0, 0, 5, 0};
	static const char *const mixamo[6] = {"mixamorig:Pelvis",  "mixamorig:LeftUpLeg",
	                                      "mixamorig:LeftLeg", "mixamorig:RightUpLeg",
	                                      "mixamorig:Spine",   "mixamorig:Spine1"};
	static const int32_t mixamo_parents[6] = {-1, 0, 1, 0, 0, 4};
	struct rig from, to;
	struct bonemap map;
	const struct bonemap_pair *p;

	make_rig(&from, cmu, cmu_parents, 8);
	make_rig(&to, mixamo, mixamo_parents, 6);
	ck_assert_int_eq(bonemap_propose(&from, &to, &map), 0);
	ck_assert_uint_eq(map.pair_count, 6);
	ck_assert_ptr_nonnull(p = pair_of(&map, 0));
	ck_assert_uint_eq(p->from, 0);
	ck_assert_str_eq(p->how, "synonym"); /* Pelvis is the hips */
	ck_assert_ptr_nonnull(p = pair_of(&map, 1));
	ck_assert_uint_eq(p->from, 2);
	ck_assert_str_eq(p->how, "folded");
	ck_assert_double_eq(p->confidence, 0.9);
	ck_assert_uint_eq(pair_of(&map, 2)->from, 3);
	ck_assert_uint_eq(pair_of(&map, 3)->from, 4);
	ck_assert_uint_eq(pair_of(&map, 5)->from, 6);
	ck_assert_int_eq(map.of_source[1], -1); /* LHipJoint: Mixamo has none */
	ck_assert_int_eq(map.of_source[7], -1); /* LowerBack */
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

START_TEST(each_rule_in_its_order_and_ambiguity_left_to_the_next)
{
	/* handles first; an exact name before a folded one; "Finger1" and "finger_1"
	 * fold to one key... and the two "Tail" bones of the target are ambiguous: never paired */
	static const char *const a[6] = {"Root", "Head", "head", "Arm1_L", "Tail", "Extra"};
	static const int32_t ap[6] = {-1, 0, 0, 0, 0, 0};
	static const char *const b[6] = {"root", "Head", "HEAD2", "arm_l", "Tail", "Tail"};
	static const int32_t bp[6] = {-1, 0, 0, 0, 0, 0};
	struct rig from, to;
	struct bonemap map;

	make_rig(&from, a, ap, 6);
	make_rig(&to, b, bp, 6);
	from.nodes[0].has_handle = to.nodes[0].has_handle = 1;
	from.nodes[0].handle = to.nodes[0].handle = 0xDEADBEEF;
	ck_assert_int_eq(bonemap_propose(&from, &to, &map), 0);
	ck_assert_str_eq(pair_of(&map, 0)->how, "handle");
	ck_assert_uint_eq(pair_of(&map, 1)->from, 1); /* "Head", not "head" */
	ck_assert_str_eq(pair_of(&map, 1)->how, "name");
	ck_assert_ptr_nonnull(pair_of(&map, 3)); /* Arm1_L onto arm_l: the number dropped */
	ck_assert_uint_eq(pair_of(&map, 3)->from, 3);
	ck_assert_str_eq(pair_of(&map, 3)->how, "number");
	ck_assert_ptr_null(pair_of(&map, 4)); /* two Tails */
	ck_assert_ptr_null(pair_of(&map, 5));
	/* "head" and "HEAD2" fold apart, and "Head" is taken: they stay unmapped as the
	 * structure pass finds several bones left under the root on each side */
	ck_assert_ptr_null(pair_of(&map, 2));
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

/* Boxing_Toes's names (Debian's CMU set, another convention) onto 01_01's: a leg by synonyms,
 * and a word two bones of one side share (Collar and Shoulder are both shoulders) pairs
 * neither by it. */
START_TEST(synonyms_pair_another_conventions_legs)
{
	static const char *const boxing[7] = {"Hips",     "LeftHip",    "LeftKnee",    "LeftAnkle",
	                                      "LeftToes", "LeftCollar", "LeftShoulder"};
	static const int32_t bp[7] = {-1, 0, 1, 2, 3, 0, 5};
	static const char *const cmu[7] = {"Hips",        "LeftUpLeg",    "LeftLeg", "LeftFoot",
	                                   "LeftToeBase", "LeftShoulder", "LeftArm"};
	static const int32_t cp[7] = {-1, 0, 1, 2, 3, 0, 5};
	struct rig from, to;
	struct bonemap map;

	make_rig(&from, boxing, bp, 7);
	make_rig(&to, cmu, cp, 7);
	ck_assert_int_eq(bonemap_propose(&from, &to, &map), 0);
	for (uint32_t i = 1; i <= 4; i++) {
		ck_assert_uint_eq(pair_of(&map, i)->from, i);
		ck_assert_str_eq(pair_of(&map, i)->how, "synonym");
		ck_assert_double_eq(pair_of(&map, i)->confidence, 0.6);
	}
	ck_assert_str_eq(pair_of(&map, 5)->how, "name"); /* LeftShoulder: its name first */
	ck_assert_int_eq(map.of_source[5], -1);          /* LeftCollar: "shoulder.l" twice */
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

START_TEST(structure_pairs_chains_of_other_names)
{
	/* a chain named nothing alike: paired root down, one bone a parent */
	static const char *const a[4] = {"a", "b", "c", NULL};
	static const int32_t ap[4] = {-1, 0, 1, 2};
	static const char *const b[5] = {"x", "y", "z", "w", "v"};
	static const int32_t bp[5] = {-1, 0, 1, 2, 2};
	struct rig from, to;
	struct bonemap map;

	make_rig(&from, a, ap, 4);
	make_rig(&to, b, bp, 5);
	ck_assert_int_eq(bonemap_propose(&from, &to, &map), 0);
	ck_assert_uint_eq(map.pair_count, 3); /* z has two children: w and v stay unmapped */
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(pair_of(&map, i)->from, i);
		ck_assert_str_eq(pair_of(&map, i)->how, "structure");
	}
	ck_assert_int_eq(map.of_source[3], -1);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

/* A bone map document decodes to a BoneMap entry keeping its pairs; a bad one is a 422 naming
 * the field; its pairs applied to two rigs pair the bones they name, the others said. */
static int decode_text(const char *text, struct decode_result *r, struct error *err)
{
	struct upload up = {0};

	up.data = (const uint8_t *)text;
	up.length = strlen(text);
	up.filename = "map.json";
	error_init(err);
	decode_result_init(r);
	return format_decode(&up, r, err);
}

START_TEST(bone_map_documents_are_entries)
{
	static const char good[] =
	    "{\"bone_map\": {\"name\": \"cmu onto hero\", \"from\": \"CMU\", \"to\": \"hero\", "
	    "\"pairs\": [{\"from\": \"Hips\", \"to\": \"ROOT\"}, {\"from\": \"LeftUpLeg\", \"to\": "
	    "\"node 1\"}, {\"from\": \"Gone\", \"to\": \"Spine\"}]}}";
	static const struct {
		const char *text, *path;
	} bad[] = {
	    {"{\"bone_map\": []}", "bone_map"},
	    {"{\"bone_map\": {\"to\": \"b\", \"pairs\": [{\"from\": \"x\", \"to\": \"y\"}]}}",
	     "bone_map.from"},
	    {"{\"bone_map\": {\"from\": \"a\", \"to\": \"b\", \"pairs\": []}}", "bone_map.pairs"},
	    {"{\"bone_map\": {\"from\": \"a\", \"to\": \"b\", \"pairs\": [7]}}",
	     "bone_map.pairs[0]"},
	    {"{\"bone_map\": {\"from\": \"a\", \"to\": \"b\", \"pairs\": [{\"from\": \"x\", "
	     "\"to\": 3}]}}",
	     "bone_map.pairs[0].to"},
	    {"{\"bone_map\": {\"from\": \"a\", \"to\": \"b\", \"pairs\": [{\"from\": \"x\", "
	     "\"to\": "
	     "\"y\"}, {\"from\": \"z\", \"to\": \"y\"}]}}",
	     "bone_map.pairs[1].to"},
	};
	static const char *const cmu[2] = {"Hips", "LeftUpLeg"}, *const hero[3] = {"ROOT", NULL,
	                                                                           "Spine"};
	static const int32_t cp[2] = {-1, 0}, hp[3] = {-1, 0, 0};
	const char *names[6];
	unsigned char found[3];
	struct decode_result r;
	struct resource *res;
	struct rig from, to;
	struct bonemap map;
	struct error err;
	json_t *pairs;

	ck_assert_msg(decode_text(good, &r, &err) == 0, "%s", err.message);
	res = r.resources[0];
	ck_assert_str_eq(res->class_name, "BoneMap");
	ck_assert_str_eq(res->name, "cmu onto hero");
	pairs = json_object_get(res->metadata, "pairs");
	ck_assert_uint_eq(json_array_size(pairs), 3);
	for (size_t k = 0; k < 3; k++) {
		names[2 * k] = json_string_value(json_object_get(json_array_get(pairs, k), "from"));
		names[2 * k + 1] =
		    json_string_value(json_object_get(json_array_get(pairs, k), "to"));
	}
	make_rig(&from, cmu, cp, 2);
	make_rig(&to, hero, hp, 3);
	ck_assert_int_eq(bonemap_from_pairs(&from, &to, names, 3, &map, found), 0);
	ck_assert_uint_eq(map.pair_count, 2);
	ck_assert(found[0] && found[1] && !found[2]); /* "node 1" names the unnamed node */
	ck_assert_int_eq(map.of_target[1], 1);
	ck_assert_str_eq(map.pairs[0].how, "map");
	bonemap_cleanup(&map);
	{ /* one bone in two pairs (the document forbids it; the function holds to it too): the
	   * second is not found */
		const char *twice[4] = {"Hips", "ROOT", "LeftUpLeg", "ROOT"};
		ck_assert_int_eq(bonemap_from_pairs(&from, &to, twice, 2, &map, found), 0);
		ck_assert(found[0] && !found[1]);
		ck_assert_uint_eq(map.pair_count, 1);
		ck_assert_int_eq(map.of_source[1], -1);
		bonemap_cleanup(&map);
	}
	rig_cleanup(&from);
	rig_cleanup(&to);
	decode_result_cleanup(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(decode_text(bad[i].text, &r, &err) < 0, "%s: decoded", bad[i].text);
		ck_assert_msg(error_http_status(err.code) == 422 &&
		                  strcmp(err.path, bad[i].path) == 0,
		              "%s: %u %s (%s)", bad[i].text, error_http_status(err.code), err.path,
		              err.message);
		decode_result_cleanup(&r);
	}
}
END_TEST

/* A copy of a rig without its names (a game's bones nobody has named), its legs a third
 * longer. */
static void nameless_copy(const struct rig *from, struct rig *out)
{
	rig_init(out);
	out->nodes = calloc(from->count, sizeof(struct rig_node));
	ck_assert_ptr_nonnull(out->nodes);
	out->count = from->count;
	for (size_t i = 0; i < from->count; i++) {
		out->nodes[i] = from->nodes[i];
		out->nodes[i].name = NULL;
		out->nodes[i].handle_name = NULL;
		out->nodes[i].has_handle = 0;
		if (from->nodes[i].name && strstr(from->nodes[i].name, "Leg"))
			for (int c = 0; c < 3; c++)
				out->nodes[i].translation[c] *= 1.3f;
	}
}

START_TEST(a_take_onto_a_skeleton_of_no_names_pairs_by_shape)
{
	const char *path = "/usr/share/assimp/models/BVH/01_01.bvh";
	struct upload up = {0};
	struct decode_result r;
	struct bonemap map;
	struct rig bare;
	struct error err;
	size_t length, shape = 0;
	char *text;

	if (access(path, R_OK) != 0) {
		printf("SKIP: a_take_onto_a_skeleton_of_no_names_pairs_by_shape: needs Debian's "
		       "assimp-testmodels (%s)\n",
		       path);
		return;
	}
	ck_assert_ptr_nonnull(text = testutil_read_file(path, &length));
	up.data = (const uint8_t *)text;
	up.length = length;
	up.filename = "01_01.bvh";
	error_init(&err);
	decode_result_init(&r);
	ck_assert_int_eq(format_decode(&up, &r, &err), 0);
	nameless_copy(&r.resources[0]->rig, &bare);
	ck_assert_int_eq(bonemap_propose(&r.resources[0]->rig, &bare, &map), 0);
	for (size_t k = 0; k < map.pair_count; k++) {
		const struct bonemap_pair *p = &map.pairs[k];
		ck_assert_msg(p->from == p->to, "%s paired with node %u (%s)",
		              r.resources[0]->rig.nodes[p->from].name, p->to, p->how);
		shape += strcmp(p->how, "shape") == 0;
	}
	ck_assert_uint_eq(map.pair_count, 38); /* every joint, the fingers by their directions */
	/* the chains themselves, by the take's names: the spine up to the chest, the arms to the
	 * hands (+x is the take's left), the neck to the head's end, the legs to the toes' */
	{
		static const struct {
			enum bonemap_chain chain;
			const char *first, *last;
		} want[] = {{CHAIN_SPINE, "LowerBack", "Spine1"},
		            {CHAIN_NECK, "Neck", "EndSite_Head"},
		            {CHAIN_ARM_PLUS, "LeftShoulder", "LeftHand"},
		            {CHAIN_ARM_MINUS, "RightShoulder", "RightHand"},
		            {CHAIN_LEG_PLUS, "LHipJoint", "EndSite_LeftToeBase"},
		            {CHAIN_LEG_MINUS, "RHipJoint", "EndSite_RightToeBase"}};
		const struct rig *rig = &r.resources[0]->rig;
		struct bonemap_chains ch;
		ck_assert_int_eq(bonemap_shape_chains(&bare, &ch), 0);
		ck_assert_str_eq(rig->nodes[ch.hips].name, "Hips");
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			size_t n = ch.length[want[k].chain];
			ck_assert_uint_gt(n, 1);
			ck_assert_str_eq(rig->nodes[ch.bones[want[k].chain][0]].name,
			                 want[k].first);
			ck_assert_str_eq(rig->nodes[ch.bones[want[k].chain][n - 1]].name,
			                 want[k].last);
			ck_assert_double_eq(ch.along[want[k].chain][n - 1], 1);
		}
		bonemap_shape_cleanup(&ch);
	}
	ck_assert_uint_ge(shape, 20);
	bonemap_cleanup(&map);
	rig_cleanup(&bare);
	decode_result_cleanup(&r);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bonemap");
	TCase *tc = tcase_create("bonemap");

	tcase_add_test(tc, names_fold_by_the_usual_conventions);
	tcase_add_test(tc, a_cmu_take_onto_a_mixamo_rig);
	tcase_add_test(tc, each_rule_in_its_order_and_ambiguity_left_to_the_next);
	tcase_add_test(tc, structure_pairs_chains_of_other_names);
	tcase_add_test(tc, synonyms_pair_another_conventions_legs);
	tcase_add_test(tc, bone_map_documents_are_entries);
	tcase_add_test(tc, a_take_onto_a_skeleton_of_no_names_pairs_by_shape);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
