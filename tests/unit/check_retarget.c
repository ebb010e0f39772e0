/* check_retarget.c: motion put on another rig (core/retarget.h), on a humanoid the test makes:
 * a rig onto itself gives its keys back bit for bit; onto the same skeleton remade in an A-pose
 * with other local bone axes every joint follows the source's world path (LINEAR, STEP, cubic
 * and Euler keys); scaled by 1.5 with root=scale, the path scaled; mode=world copies world
 * rotations; in_place keeps the hips over their rest; a joint the target lacks is baked with the
 * bones' directions kept; the figures (cycle, hands and feet, foot slide) are those of the
 * motion. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bonemap.h"
#include "core/pose.h"
#include "core/quat.h"
#include "core/retarget.h"
#include "testutil.h"

#define JOINTS 21
#define KEYS   5

static const char *const names[JOINTS] = {
    "Hips",      "Spine",       "Chest",       "Neck",          "Head",        "LeftShoulder",
    "LeftArm",   "LeftForeArm", "LeftHand",    "RightShoulder", "RightArm",    "RightForeArm",
    "RightHand", "LeftUpLeg",   "LeftLeg",     "LeftFoot",      "LeftToeBase", "RightUpLeg",
    "RightLeg",  "RightFoot",   "RightToeBase"};
static const int32_t parents[JOINTS] = {-1, 0,  1, 2,  3,  2,  5, 6,  7,  2, 9,
                                        10, 11, 0, 13, 14, 15, 0, 17, 18, 19};
/* A T-pose, y up, in metres */
static const double t_pose[JOINTS][3] = {
    {0, 1.0, 0},      {0, 1.1, 0},      {0, 1.3, 0},     {0, 1.5, 0},    {0, 1.62, 0},
    {0.05, 1.45, 0},  {0.2, 1.45, 0},   {0.45, 1.45, 0}, {0.7, 1.45, 0}, {-0.05, 1.45, 0},
    {-0.2, 1.45, 0},  {-0.45, 1.45, 0}, {-0.7, 1.45, 0}, {0.1, 0.95, 0}, {0.1, 0.5, 0},
    {0.1, 0.08, 0},   {0.1, 0.0, 0.12}, {-0.1, 0.95, 0}, {-0.1, 0.5, 0}, {-0.1, 0.08, 0},
    {-0.1, 0.0, 0.12}};

static uint32_t seed;

static double random_unit(void) /* in [-1, 1] */
{
	seed = seed * 1664525u + 1013904223u;
	return (double)(seed >> 8) / (double)(1u << 23) - 1.0;
}

static void random_turn(double angle, double q[4])
{
	double axis[3] = {random_unit(), random_unit(), random_unit() + 0.01}, len, a;

	len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
	a = angle * random_unit();
	for (int c = 0; c < 3; c++)
		q[c] = axis[c] / len * sin(a / 2);
	q[3] = cos(a / 2);
}

/* A rig whose joints are at world positions pos, each bone with its own world axes (a random
 * turn per bone, or none when axes is 0). */
static void make_rig(struct rig *rig, const double pos[JOINTS][3], int axes)
{
	double world[JOINTS][4];

	rig_init(rig);
	rig->nodes = calloc(JOINTS, sizeof(struct rig_node));
	ck_assert_ptr_nonnull(rig->nodes);
	rig->count = JOINTS;
	for (int i = 0; i < JOINTS; i++) {
		struct rig_node *n = &rig->nodes[i];
		double back[4] = {0, 0, 0, 1}, local[4], d[3];
		int32_t p = parents[i];
		if (axes)
			random_turn(3.0, world[i]);
		else
			world[i][0] = world[i][1] = world[i][2] = 0, world[i][3] = 1;
		n->source = (uint32_t)i;
		n->name = strdup(names[i]);
		n->parent = p;
		n->scale[0] = n->scale[1] = n->scale[2] = 1;
		for (int c = 0; c < 3; c++)
			d[c] = pos[i][c] - (p >= 0 ? pos[p][c] : 0);
		if (p >= 0)
			quat_conjugate(world[p], back);
		quat_rotate(back, d, d);
		quat_multiply(back, world[i], local);
		for (int c = 0; c < 3; c++)
			n->translation[c] = (float)d[c];
		for (int c = 0; c < 4; c++)
			n->rotation[c] = (float)local[c];
	}
}

/* The T-pose with the arms 45 degrees down (an A-pose), scaled. */
static void a_pose(double out[JOINTS][3], double scale)
{
	memcpy(out, t_pose, sizeof(t_pose));
	for (int i = 6; i <= 12; i++) {
		int side = i <= 8 ? 1 : -1, pivot = i <= 8 ? 6 : 10;
		double x = t_pose[i][0] - t_pose[pivot][0], y = t_pose[i][1] - t_pose[pivot][1];
		double c = cos(0.78539816339744831), s = sin(0.78539816339744831) * -side;
		if (i == 9)
			continue;
		out[i][0] = t_pose[pivot][0] + c * x - s * y;
		out[i][1] = t_pose[pivot][1] + s * x + c * y;
	}
	for (int i = 0; i < JOINTS; i++)
		for (int c = 0; c < 3; c++)
			out[i][c] *= scale;
}

/* The motion: every bone turned up to 0.6 rad from its rest at KEYS keys, the hips walking. */
struct motion {
	struct sampler samplers[JOINTS + 1];
	struct retarget_input inputs[JOINTS + 1];
	float times[KEYS];
	float values[JOINTS + 1][3 * KEYS * 4];
};

static void make_motion(struct motion *m, const struct rig *rig, enum interpolation interp,
                        int euler)
{
	size_t per = interp == INTERP_CUBIC_SPLINE ? 3 : 1;

	memset(m, 0, sizeof(*m));
	for (int k = 0; k < KEYS; k++)
		m->times[k] = (float)k * 0.25f;
	for (int i = 0; i <= JOINTS; i++) {
		struct sampler *s = &m->samplers[i];
		int translation = i == JOINTS;
		s->type = translation || euler ? VALUE_FLOAT3 : VALUE_FLOAT4;
		s->array_size = 1;
		s->interp = interp;
		s->semantic = s->type == VALUE_FLOAT4 ? SEMANTIC_NORMALIZED_QUATERNION
		                                      : SEMANTIC_COMPONENT_WISE;
		s->key_count = KEYS;
		s->times = m->times;
		s->values = m->values[i];
		s->value_bytes = KEYS * per * value_type_components(s->type) * sizeof(float);
		for (int k = 0; k < KEYS; k++) {
			float *v =
			    m->values[i] + (k * per + (per == 3)) * value_type_components(s->type);
			if (translation) {
				v[0] = rig->nodes[0].translation[0] + 0.4f * (float)k;
				v[1] = rig->nodes[0].translation[1] + 0.05f * (float)random_unit();
				v[2] = rig->nodes[0].translation[2] + 0.1f * (float)random_unit();
			} else if (euler) {
				for (int c = 0; c < 3; c++)
					v[c] = (float)(40 * random_unit());
			} else {
				double turn[4], rest[4], q[4];
				random_turn(0.6, turn);
				for (int c = 0; c < 4; c++)
					rest[c] = rig->nodes[i].rotation[c];
				quat_multiply(rest, turn, q);
				for (int c = 0; c < 4; c++)
					v[c] = (float)q[c];
			}
			if (per == 3) /* tangents of a cubic spline */
				for (size_t c = 0; c < value_type_components(s->type); c++) {
					v[c - value_type_components(s->type)] =
					    (float)(0.3 * random_unit());
					v[c + value_type_components(s->type)] =
					    (float)(0.3 * random_unit());
				}
		}
		m->inputs[i].node = translation ? 0 : (uint32_t)i;
		m->inputs[i].property = translation ? NODE_TRANSLATION : NODE_ROTATION;
		m->inputs[i].euler = !translation && euler ? MOCAP_ROTATION_ZXY : 0;
		m->inputs[i].sampler = s;
	}
}

static void pose_result(struct pose *p, const struct rig *rig, const struct retarget_result *r)
{
	ck_assert_int_eq(pose_init(p, rig), 0);
	for (size_t i = 0; i < r->track_count; i++)
		ck_assert_int_eq(pose_add_track(p, r->tracks[i].node, r->tracks[i].property,
		                                r->tracks[i].euler, &r->tracks[i].sampler),
		                 0);
}

static void pose_motion(struct pose *p, const struct rig *rig, const struct motion *m)
{
	ck_assert_int_eq(pose_init(p, rig), 0);
	for (int i = 0; i <= JOINTS; i++)
		ck_assert_int_eq(pose_add_track(p, m->inputs[i].node, m->inputs[i].property,
		                                m->inputs[i].euler, m->inputs[i].sampler),
		                 0);
}

/* The largest distance of a joint of `to` (at scale times the source's place) from its source
 * joint's, over times in [0, 1] between and at the keys (at the keys alone for Euler angles:
 * between them a line in angles is not the slerp of the quaternion keys written). */
static double path_error(const struct rig *from, const struct motion *m, const struct rig *to,
                         const struct retarget_result *r, double scale)
{
	struct pose ps, pt;
	double worst = 0;
	int step = m->inputs[0].euler ? 10 : 1;

	pose_motion(&ps, from, m);
	pose_result(&pt, to, r);
	for (int k = 0; k <= 40; k += step) {
		pose_at(&ps, (float)k / 40);
		pose_at(&pt, (float)k / 40);
		for (int i = 0; i < JOINTS; i++)
			for (int c = 12; c < 15; c++)
				worst = fmax(worst, fabs(pt.world[i * 16 + c] -
				                         scale * ps.world[i * 16 + c]));
	}
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	return worst;
}

static void run(const struct rig *from, const struct motion *m, const struct rig *to,
                enum retarget_mode mode, enum retarget_root root, struct bonemap *map,
                struct retarget_result *r)
{
	struct retarget_options opt = {mode, root, 0};
	struct error err;

	error_init(&err);
	ck_assert_int_eq(bonemap_propose(from, to, map), 0);
	ck_assert_int_eq(map->pair_count, JOINTS);
	ck_assert_msg(retarget_run(from, m->inputs, JOINTS + 1, to, map, &opt, r, &err) == 0, "%s",
	              err.message);
}

START_TEST(a_rig_onto_itself_gives_its_keys_back_bit_for_bit)
{
	static struct motion m;
	struct rig rig;
	struct bonemap map;
	struct retarget_result r;
	struct retarget_quality q;
	struct retarget_options opt = {RETARGET_REST, RETARGET_ROOT_SCALE, 0};
	struct error err;

	seed = 7;
	error_init(&err);
	make_rig(&rig, t_pose, 1);
	make_motion(&m, &rig, INTERP_LINEAR, 0);
	run(&rig, &m, &rig, RETARGET_REST, RETARGET_ROOT_SCALE, &map, &r);
	ck_assert_int_eq(r.identity, 1);
	ck_assert_int_eq(r.track_count, JOINTS + 1);
	ck_assert_int_eq(r.keys_baked, 0);
	for (size_t i = 0; i < r.track_count; i++) {
		const struct retarget_track *t = &r.tracks[i];
		const struct sampler *s =
		    m.inputs[t->property == NODE_TRANSLATION ? JOINTS : t->node].sampler;
		ck_assert_int_eq(t->sampler.value_bytes, s->value_bytes);
		ck_assert_msg(memcmp(t->sampler.values, s->values, s->value_bytes) == 0,
		              "track of %s: keys changed", names[t->node]);
		ck_assert(memcmp(t->sampler.times, s->times, KEYS * sizeof(float)) == 0);
	}
	ck_assert_int_eq(
	    retarget_measure(&rig, m.inputs, JOINTS + 1, &rig, &map, &opt, &r, &q, &err), 0);
	ck_assert_double_lt(q.cycle, 1e-6); /* the way back is resampled at the times compared */
	ck_assert_double_lt(q.effectors, 1e-6);
	ck_assert_int_eq(q.effector_count, 5); /* two hands, two feet, the head */
	ck_assert_double_eq_tol(q.skate_from, q.skate_to, 1e-6);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&rig);
}
END_TEST

/* The motion on the A-pose rig at `scale`: paths within 1e-4 of the height, cycle too. */
static void onto_a_pose(enum interpolation interp, int euler, double scale)
{
	static struct motion m;
	double a[JOINTS][3];
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r;
	struct retarget_quality q;
	struct retarget_options opt = {RETARGET_REST, RETARGET_ROOT_SCALE, 0};
	struct error err;
	double height;

	seed = 11 + (unsigned)interp * 3 + (unsigned)euler;
	error_init(&err);
	a_pose(a, scale);
	make_rig(&from, t_pose, 1);
	make_rig(&to, a, 1);
	make_motion(&m, &from, interp, euler);
	run(&from, &m, &to, RETARGET_REST, RETARGET_ROOT_SCALE, &map, &r);
	height = retarget_rig_height(&from);
	ck_assert_double_eq_tol(r.root_scale, scale, 1e-6);
	ck_assert_int_eq(r.keys_baked, 0);
	ck_assert_int_eq(r.identity, 0);
	ck_assert_msg(path_error(&from, &m, &to, &r, scale) < 1e-4 * height * scale,
	              "interp %d euler %d scale %g: joints off the source's paths by %g", interp,
	              euler, scale, path_error(&from, &m, &to, &r, scale));
	ck_assert_int_eq(
	    retarget_measure(&from, m.inputs, JOINTS + 1, &to, &map, &opt, &r, &q, &err), 0);
	ck_assert_msg(q.cycle < 1e-4, "cycle %g", q.cycle);
	ck_assert_msg(q.effectors < 1e-4, "hands and feet off by %g", q.effectors);
	ck_assert_double_eq_tol(q.skate_from, q.skate_to, 1e-4);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}

START_TEST(a_t_pose_clip_onto_an_a_pose_rig_follows_the_source)
{
	onto_a_pose(INTERP_LINEAR, 0, 1.0);
	onto_a_pose(INTERP_STEP, 0, 1.0);
	onto_a_pose(INTERP_CUBIC_SPLINE, 0, 1.0);
	onto_a_pose(INTERP_LINEAR, 1, 1.0); /* motion capture's Euler angles */
}
END_TEST

START_TEST(onto_a_rig_half_as_large_again_the_paths_scale)
{
	onto_a_pose(INTERP_LINEAR, 0, 1.5);
	onto_a_pose(INTERP_LINEAR, 1, 0.5);
}
END_TEST

START_TEST(mode_world_copies_world_rotations)
{
	static struct motion m;
	double a[JOINTS][3];
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r;
	struct pose ps, pt;
	double worst = 0;

	seed = 23;
	a_pose(a, 1.0);
	make_rig(&from, t_pose, 1);
	make_rig(&to, a, 1);
	make_motion(&m, &from, INTERP_LINEAR, 0);
	run(&from, &m, &to, RETARGET_WORLD, RETARGET_ROOT_KEEP, &map, &r);
	pose_motion(&ps, &from, &m);
	pose_result(&pt, &to, &r);
	for (int k = 0; k <= 20; k++) {
		pose_at(&ps, (float)k / 20);
		pose_at(&pt, (float)k / 20);
		for (int i = 0; i < JOINTS; i++)
			for (int c = 0; c < 12; c++) /* the rotation's columns */
				worst =
				    fmax(worst, fabs(pt.world[i * 16 + c] - ps.world[i * 16 + c]));
	}
	ck_assert_msg(worst < 1e-5, "world rotations differ by %g", worst);
	/* the hips travel as the source's, the arms do not follow (other rest) */
	ck_assert_double_lt(fabs(pt.world[12] - ps.world[12]), 1e-5);
	ck_assert_double_gt(path_error(&from, &m, &to, &r, 1.0), 1e-2);
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

START_TEST(in_place_keeps_the_hips_over_their_rest)
{
	static struct motion m;
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r;
	struct pose ps, pt;

	seed = 31;
	make_rig(&from, t_pose, 1);
	make_rig(&to, t_pose, 1);
	make_motion(&m, &from, INTERP_LINEAR, 0);
	run(&from, &m, &to, RETARGET_REST, RETARGET_ROOT_IN_PLACE, &map, &r);
	ck_assert_int_eq(r.identity, 0);
	pose_motion(&ps, &from, &m);
	pose_result(&pt, &to, &r);
	for (int k = 0; k <= 8; k++) {
		pose_at(&ps, (float)k / 8);
		pose_at(&pt, (float)k / 8);
		ck_assert_double_eq_tol(pt.world[12], t_pose[0][0], 1e-6);
		ck_assert_double_eq_tol(pt.world[14], t_pose[0][2], 1e-6);
		ck_assert_double_eq_tol(pt.world[13], ps.world[13], 1e-6); /* up and down kept */
	}
	ck_assert_double_gt(ps.world[12], 1.0); /* the source did walk */
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

START_TEST(a_joint_the_target_lacks_is_baked_with_the_bones_pointing_the_same_way)
{
	static struct motion m;
	double a[JOINTS][3];
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r;
	struct retarget_options opt = {RETARGET_REST, RETARGET_ROOT_SCALE, 0};
	struct pose ps, pt;
	struct error err;
	double worst = 0;

	seed = 41;
	error_init(&err);
	a_pose(a, 1.0);
	make_rig(&from, t_pose, 1);
	make_rig(&to, a, 1);
	/* the target's neck hangs from its spine: its chest is not the neck's parent */
	to.nodes[3].parent = 1;
	{
		float v[3] = {0, 0.4f, 0};
		memcpy(to.nodes[3].translation, v, sizeof(v));
		to.nodes[3].rotation[0] = to.nodes[3].rotation[1] = to.nodes[3].rotation[2] = 0;
		to.nodes[3].rotation[3] = 1;
	}
	make_motion(&m, &from, INTERP_LINEAR, 0);
	ck_assert_int_eq(bonemap_propose(&from, &to, &map), 0);
	ck_assert_msg(retarget_run(&from, m.inputs, JOINTS + 1, &to, &map, &opt, &r, &err) == 0,
	              "%s", err.message);
	ck_assert_int_eq(r.keys_baked, KEYS); /* the neck's, at the source's key times */
	pose_motion(&ps, &from, &m);
	pose_result(&pt, &to, &r);
	for (int k = 0; k < KEYS; k++) {
		pose_at(&ps, m.times[k]);
		pose_at(&pt, m.times[k]);
		for (int i = 1; i < JOINTS; i++) { /* every bone's direction from its parent */
			int p = parents[i];
			double ds[3], dt[3], ls = 0, lt = 0;
			if (i == 3)
				continue; /* the neck hangs elsewhere */
			for (int c = 0; c < 3; c++) {
				ds[c] = ps.world[i * 16 + 12 + c] - ps.world[p * 16 + 12 + c];
				dt[c] = pt.world[i * 16 + 12 + c] - pt.world[p * 16 + 12 + c];
				ls += ds[c] * ds[c];
				lt += dt[c] * dt[c];
			}
			for (int c = 0; c < 3; c++)
				worst = fmax(worst, fabs(ds[c] / sqrt(ls) - dt[c] / sqrt(lt)));
		}
	}
	ck_assert_msg(worst < 1e-5, "bones point %g away", worst);
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

START_TEST(a_rig_facing_another_way_is_turned_to_the_sources_at_rest)
{
	static struct motion m;
	double yawed[JOINTS][3];
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r;

	seed = 61;
	for (int i = 0; i < JOINTS; i++) { /* a quarter turn about the hips' upright: it faces x */
		yawed[i][0] = t_pose[i][2];
		yawed[i][1] = t_pose[i][1];
		yawed[i][2] = -t_pose[i][0];
	}
	make_rig(&from, t_pose, 1);
	make_rig(&to, yawed, 1);
	make_motion(&m, &from, INTERP_LINEAR, 0);
	run(&from, &m, &to, RETARGET_REST, RETARGET_ROOT_SCALE, &map, &r);
	/* the hips' and the chest's children (legs, shoulders) turn it round: every joint on the
	 * source's path */
	ck_assert_msg(path_error(&from, &m, &to, &r, 1.0) < 1e-4 * retarget_rig_height(&from),
	              "joints %g off the source's paths", path_error(&from, &m, &to, &r, 1.0));
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

START_TEST(cubic_hips_travel_from_their_own_rest_place)
{
	static struct motion m;
	double legs[JOINTS][3];
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r;
	struct pose ps, pt;
	double worst = 0;

	seed = 71;
	memcpy(legs, t_pose, sizeof(legs));
	for (int i = 13; i < JOINTS;
	     i++) /* longer legs: the hips' rest is not k times the source's */
		legs[i][1] = t_pose[0][1] - (t_pose[0][1] - t_pose[i][1]) * 1.3;
	make_rig(&from, t_pose, 1);
	make_rig(&to, legs, 1);
	make_motion(&m, &from, INTERP_CUBIC_SPLINE, 0);
	run(&from, &m, &to, RETARGET_REST, RETARGET_ROOT_SCALE, &map, &r);
	pose_motion(&ps, &from, &m);
	pose_result(&pt, &to, &r);
	for (int k = 0; k <= 40; k++) { /* P' = P'(rest) + k (P - P(rest)), between keys too */
		pose_at(&ps, (float)k / 40);
		pose_at(&pt, (float)k / 40);
		for (int c = 0; c < 3; c++)
			worst = fmax(worst, fabs(pt.world[12 + c] -
			                         (legs[0][c] + r.root_scale * (ps.world[12 + c] -
			                                                       t_pose[0][c]))));
	}
	ck_assert_double_gt(fabs(r.root_scale - 1), 0.1);
	ck_assert_msg(worst < 1e-5, "the hips %g off their travel", worst);
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

/* The lowest joint's height of a posed rig. */
static double lowest_of(const struct pose *p, size_t count)
{
	double low = 1e30;

	for (size_t i = 0; i < count; i++)
		low = fmin(low, p->world[i * 16 + 13]);
	return low;
}

START_TEST(ground_keeps_the_lowest_foot_where_the_sources_is)
{
	static struct motion m;
	double legs[JOINTS][3];
	struct rig from, to;
	struct bonemap map;
	struct retarget_result r, floating;
	struct retarget_quality q;
	struct retarget_options opt = {RETARGET_REST, RETARGET_ROOT_SCALE, 1};
	struct pose ps, pt, pf;
	struct error err;
	double worst = 0, off = 0;

	seed = 51;
	error_init(&err);
	memcpy(legs, t_pose, sizeof(legs));
	for (int i = 13; i < JOINTS;
	     i++) /* legs a third longer: the hips' height, not the body's */
		legs[i][1] = t_pose[0][1] - (t_pose[0][1] - t_pose[i][1]) * 1.3;
	make_rig(&from, t_pose, 1);
	make_rig(&to, legs, 1);
	make_motion(&m, &from, INTERP_LINEAR, 0);
	run(&from, &m, &to, RETARGET_REST, RETARGET_ROOT_SCALE, &map, &floating);
	ck_assert_msg(retarget_run(&from, m.inputs, JOINTS + 1, &to, &map, &opt, &r, &err) == 0,
	              "%s", err.message);
	pose_motion(&ps, &from, &m);
	pose_result(&pt, &to, &r);
	pose_result(&pf, &to, &floating);
	for (int k = 0; k < KEYS; k++) {
		pose_at(&ps, m.times[k]);
		pose_at(&pt, m.times[k]);
		pose_at(&pf, m.times[k]);
		worst = fmax(worst,
		             fabs(lowest_of(&pt, JOINTS) - r.root_scale * lowest_of(&ps, JOINTS)));
		off =
		    fmax(off, fabs(lowest_of(&pf, JOINTS) - r.root_scale * lowest_of(&ps, JOINTS)));
	}
	ck_assert_msg(worst < 1e-5, "the lowest joint %g off the source's times %g", worst,
	              r.root_scale);
	ck_assert_msg(off > 1e-3, "without ground=1 the feet were already there (%g)", off);
	ck_assert_int_eq(
	    retarget_measure(&from, m.inputs, JOINTS + 1, &to, &map, &opt, &r, &q, &err), 0);
	ck_assert_msg(q.skate_to <= q.skate_from * 1.05 + 1e-6, "feet slide %g, the source's %g",
	              q.skate_to, q.skate_from);
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	pose_cleanup(&pf);
	retarget_result_cleanup(&r);
	retarget_result_cleanup(&floating);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

/* A rig of count joints at world positions pos (rest rotations none). */
static void line_rig(struct rig *rig, const char *const *joint, const int32_t *parent,
                     const double (*pos)[3], size_t count)
{
	rig_init(rig);
	rig->nodes = calloc(count, sizeof(struct rig_node));
	ck_assert_ptr_nonnull(rig->nodes);
	rig->count = count;
	for (size_t i = 0; i < count; i++) {
		struct rig_node *n = &rig->nodes[i];
		n->source = (uint32_t)i;
		n->name = strdup(joint[i]);
		n->parent = parent[i];
		n->rotation[3] = 1;
		n->scale[0] = n->scale[1] = n->scale[2] = 1;
		for (int c = 0; c < 3; c++)
			n->translation[c] =
			    (float)(pos[i][c] - (parent[i] >= 0 ? pos[parent[i]][c] : 0));
	}
}

START_TEST(a_three_bone_spine_onto_five_bends_along_it)
{
	static const char *const from_names[6] = {"Hips",   "Spine", "Spine1",
	                                          "Spine2", "Neck",  "Head"};
	static const char *const to_names[8] = {"Hips", "S0", "S1",   "S2",
	                                        "S3",   "S4", "Neck", "Head"};
	static const int32_t from_parents[6] = {-1, 0, 1, 2, 3, 4};
	static const int32_t to_parents[8] = {-1, 0, 1, 2, 3, 4, 5, 6};
	static const double from_pos[6][3] = {{0, 1, 0},   {0, 1.1, 0},  {0, 1.25, 0},
	                                      {0, 1.4, 0}, {0, 1.55, 0}, {0, 1.7, 0}};
	static const double to_pos[8][3] = {{0, 1, 0},    {0, 1.1, 0},  {0, 1.19, 0}, {0, 1.28, 0},
	                                    {0, 1.37, 0}, {0, 1.46, 0}, {0, 1.55, 0}, {0, 1.7, 0}};
	/* the map pairs the chain's ends: the spines are left to be spread */
	static const char *const pairs[6] = {"Hips", "Hips", "Neck", "Neck", "Head", "Head"};
	static float times[KEYS], turns[3][KEYS * 4];
	struct sampler samplers[3];
	struct retarget_input in[3];
	struct rig from, to;
	struct bonemap map;
	unsigned char found[3];
	struct retarget_result r;
	struct retarget_quality q;
	struct retarget_options opt = {RETARGET_REST, RETARGET_ROOT_SCALE, 0};
	struct pose ps, pt;
	struct error err;
	double worst = 0, turn_worst = 0, bent = 0;
	size_t spread = 0;

	error_init(&err);
	line_rig(&from, from_names, from_parents, from_pos, 6);
	line_rig(&to, to_names, to_parents, to_pos, 8);
	ck_assert_int_eq(bonemap_from_pairs(&from, &to, pairs, 3, &map, found), 0);
	for (int j = 0; j < 3; j++) { /* each spine bone bends forward, up to 0.3 rad */
		for (int k = 0; k < KEYS; k++) {
			double a = 0.3 * sin(k * 0.8 + j);
			times[k] = (float)k * 0.25f;
			turns[j][k * 4] = (float)sin(a / 2);
			turns[j][k * 4 + 1] = turns[j][k * 4 + 2] = 0;
			turns[j][k * 4 + 3] = (float)cos(a / 2);
		}
		samplers[j] = (struct sampler){VALUE_FLOAT4,
		                               1,
		                               INTERP_LINEAR,
		                               SEMANTIC_NORMALIZED_QUATERNION,
		                               KEYS,
		                               times,
		                               turns[j],
		                               sizeof(turns[j]),
		                               0};
		in[j] = (struct retarget_input){(uint32_t)j + 1, NODE_ROTATION, 0, &samplers[j]};
	}
	ck_assert_msg(retarget_run(&from, in, 3, &to, &map, &opt, &r, &err) == 0, "%s",
	              err.message);
	for (size_t i = 0; i < r.track_count; i++)
		spread += r.tracks[i].node >= 1 && r.tracks[i].node <= 5 && r.tracks[i].baked;
	ck_assert_uint_eq(spread, 5); /* every bone of the longer spine turns */
	pose_init(&ps, &from);
	pose_result(&pt, &to, &r);
	for (int j = 0; j < 3; j++)
		pose_add_track(&ps, in[j].node, NODE_ROTATION, 0, &samplers[j]);
	for (int k = 0; k < KEYS; k++) {
		pose_at(&ps, times[k]);
		pose_at(&pt, times[k]);
		for (int c = 0; c < 3; c++) { /* the neck and head where the source's are */
			worst = fmax(worst,
			             fabs(ps.world[4 * 16 + 12 + c] - pt.world[6 * 16 + 12 + c]));
			worst = fmax(worst,
			             fabs(ps.world[5 * 16 + 12 + c] - pt.world[7 * 16 + 12 + c]));
		}
		for (int c = 0; c < 12; c++) /* and the neck turned as the source's */
			turn_worst =
			    fmax(turn_worst, fabs(ps.world[4 * 16 + c] - pt.world[6 * 16 + c]));
		bent = fmax(bent, fabs(ps.world[5 * 16 + 14]));
	}
	ck_assert_double_gt(bent, 0.05); /* the source did bend */
	ck_assert_msg(worst < 1e-2 * 0.7, "the neck and head %g off the source's", worst);
	ck_assert_msg(turn_worst < 1e-5, "the neck turned %g off the source's", turn_worst);
	ck_assert_int_eq(retarget_measure(&from, in, 3, &to, &map, &opt, &r, &q, &err), 0);
	ck_assert_msg(q.cycle < 1e-2, "cycle %g", q.cycle);
	pose_cleanup(&ps);
	pose_cleanup(&pt);
	retarget_result_cleanup(&r);
	bonemap_cleanup(&map);
	rig_cleanup(&from);
	rig_cleanup(&to);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("retarget");
	TCase *tc = tcase_create("retarget");

	tcase_add_test(tc, a_rig_onto_itself_gives_its_keys_back_bit_for_bit);
	tcase_add_test(tc, a_t_pose_clip_onto_an_a_pose_rig_follows_the_source);
	tcase_add_test(tc, onto_a_rig_half_as_large_again_the_paths_scale);
	tcase_add_test(tc, mode_world_copies_world_rotations);
	tcase_add_test(tc, in_place_keeps_the_hips_over_their_rest);
	tcase_add_test(tc, a_joint_the_target_lacks_is_baked_with_the_bones_pointing_the_same_way);
	tcase_add_test(tc, a_three_bone_spine_onto_five_bends_along_it);
	tcase_add_test(tc, ground_keeps_the_lowest_foot_where_the_sources_is);
	tcase_add_test(tc, a_rig_facing_another_way_is_turned_to_the_sources_at_rest);
	tcase_add_test(tc, cubic_hips_travel_from_their_own_rest_place);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
