/* check_bvh.c: BVH motion capture (doc/formats.md 5): files written here with every channel
 * order, 3 and 6 channels, End Sites, one frame and 100,000, posed and held against world
 * positions this file computes on its own; Debian's CMU files against assimp's reading of
 * them; and the hostile files, each a 422 naming its line. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "core/pose.h"
#include "formats/format.h"
#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int decode_named(const char *name, const void *data, size_t length,
                        struct upload_sibling *siblings, size_t sibling_count,
                        struct decode_result *r, struct error *err)
{
	struct upload up = {0};

	up.data = data;
	up.length = length;
	up.filename = name;
	up.siblings = siblings;
	up.sibling_count = sibling_count;
	error_init(err);
	decode_result_init(r);
	return format_decode(&up, r, err);
}

static struct resource *decoded(const char *text, size_t length, struct decode_result *r)
{
	struct error err;

	ck_assert_msg(decode_named("take.bvh", text, length, NULL, 0, r, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(r->count, 1);
	return r->resources[0];
}

/* The resource's rig posed by its own tracks, as the daemon poses it (pose_answer). */
static void pose_own(const struct resource *res, struct pose *p)
{
	ck_assert_int_eq(pose_init(p, &res->rig), 0);
	for (size_t n = 0; n < res->clip.channel_count; n++) {
		const struct channel *ch = &res->clip.channels[n];
		const struct target *tg = &res->clip.targets[ch->target];
		struct pose_target t = {.schema = tg->schema,
		                        .object = tg->object,
		                        .name = tg->name,
		                        .property = ch->property};
		const struct sampler *s = &res->clip.samplers[ch->sampler];
		const char *why = NULL;
		int euler = pose_target_euler(&t);
		int32_t node = pose_match(&res->rig, &t, 1, &why);
		ck_assert_msg(node >= 0, "track %zu: %s", n, why);
		ck_assert_ptr_null(pose_sampler_fits((enum node_property)t.property, euler, s));
		ck_assert_int_eq(
		    pose_add_track(p, (uint32_t)node, (enum node_property)t.property, euler, s), 0);
	}
}

/* A joint of a file this test writes, and what it knows of it. */
struct joint {
	const char *channels; /* its CHANNELS line after the count, or "" */
	int parent;
	double offset[3];
	double world[16]; /* at the frame last computed */
};

static const char *const orders[6] = {
    "Xrotation Yrotation Zrotation", "Xrotation Zrotation Yrotation",
    "Yrotation Xrotation Zrotation", "Yrotation Zrotation Xrotation",
    "Zrotation Xrotation Yrotation", "Zrotation Yrotation Xrotation"};

static void multiply(const double a[16], const double b[16], double out[16])
{
	double m[16];

	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++) {
			m[c * 4 + r] = 0;
			for (int k = 0; k < 4; k++)
				m[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
		}
	memcpy(out, m, sizeof(m));
}

/* The rotation about axis (0 x, 1 y, 2 z) by degrees, column-major. */
static void axis_rotation(int axis, double degrees, double m[16])
{
	double c = cos(degrees * M_PI / 180.0), s = sin(degrees * M_PI / 180.0);
	int i = (axis + 1) % 3, j = (axis + 2) % 3;

	memset(m, 0, 16 * sizeof(double));
	m[0] = m[5] = m[10] = m[15] = 1;
	m[i * 4 + i] = c;
	m[j * 4 + j] = c;
	m[i * 4 + j] = s; /* column i, row j */
	m[j * 4 + i] = -s;
}

/* The value a test file gives channel c of frame f. */
static double channel_value(int f, int c, int position)
{
	double v = sin(0.37 * (f + 1) * (c + 1) + 0.11 * c);
	return position ? 3.0 * v : 170.0 * v;
}

/* Joint local matrices from the channels' text, by this file's own arithmetic. */
static void joint_local(const struct joint *j, int frame, int *column, double local[16])
{
	double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, t[3];
	char words[128], *save = NULL;

	memcpy(t, j->offset, sizeof(t));
	snprintf(words, sizeof(words), "%s", j->channels);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int axis = w[0] - 'X';
		double v = channel_value(frame, *column, strstr(w, "position") != NULL), r[16];
		(*column)++;
		if (strstr(w, "position")) {
			t[axis] = v;
		} else {
			axis_rotation(axis, v, r);
			multiply(m, r, m);
		}
	}
	m[12] = t[0];
	m[13] = t[1];
	m[14] = t[2];
	memcpy(local, m, sizeof(m));
}

/* A BVH file of the joints (each after its parent; End Sites have channels NULL). */
static char *write_bvh(const struct joint *joints, int count, int frames, double frame_time)
{
	struct buf b;
	int depth[64] = {0}, columns = 0;

	buf_init(&b, (size_t)1 << 28);
	buf_puts(&b, "HIERARCHY\n");
	for (int i = 0; i < count; i++) {
		const struct joint *j = &joints[i];
		depth[i] = j->parent < 0 ? 0 : depth[j->parent] + 1;
		if (i > 0)
			for (int d = depth[i - 1]; d >= depth[i]; d--)
				buf_printf(&b, "%*s}\n", d, "");
		if (!j->channels)
			buf_printf(&b, "%*sEnd Site\n", depth[i], "");
		else
			buf_printf(&b, "%*s%s j%d\n", depth[i], "",
			           j->parent < 0 ? "ROOT" : "JOINT", i);
		buf_printf(&b, "%*s{\n%*sOFFSET %.9g %.9g %.9g\n", depth[i], "", depth[i] + 1, "",
		           j->offset[0], j->offset[1], j->offset[2]);
		if (j->channels) {
			int n = 1;
			for (const char *c = j->channels; *c; c++)
				n += *c == ' ';
			buf_printf(&b, "%*sCHANNELS %d %s\n", depth[i] + 1, "", n, j->channels);
			columns += n;
		}
	}
	for (int d = depth[count - 1]; d >= 0; d--)
		buf_printf(&b, "%*s}\n", d, "");
	buf_printf(&b, "MOTION\nFrames: %d\nFrame Time: %.9g\n", frames, frame_time);
	for (int f = 0; f < frames; f++) {
		int column = 0;
		for (int i = 0; i < count; i++) {
			char words[128], *save = NULL;
			if (!joints[i].channels)
				continue;
			snprintf(words, sizeof(words), "%s", joints[i].channels);
			for (char *w = strtok_r(words, " ", &save); w;
			     w = strtok_r(NULL, " ", &save)) {
				buf_printf(&b, "%s%.9g", column ? " " : "",
				           channel_value(f, column, strstr(w, "position") != NULL));
				column++;
			}
		}
		buf_puts(&b, "\n");
	}
	ck_assert_int_eq(columns > 0, 1);
	return b.data;
}

START_TEST(every_channel_order_poses_as_written)
{
	/* a root of six channels, a chain through the six rotation orders, a joint whose
	 * positions come after its rotations, an End Site */
	struct joint joints[9] = {
	    {"Xposition Yposition Zposition Zrotation Xrotation Yrotation", -1, {1, 2, 3}, {0}},
	};
	struct decode_result r;
	struct resource *res;
	struct pose p;
	char *text;
	const int frames = 7;
	double height = 0;

	for (int i = 1; i <= 6; i++)
		joints[i] = (struct joint){orders[i - 1], i - 1, {0.5 * i, 4.0, -0.25 * i}, {0}};
	joints[7] = (struct joint){
	    "Yrotation Xrotation Zrotation Zposition Xposition Yposition", 6, {0, 3, 0}, {0}};
	joints[8] = (struct joint){NULL, 7, {0, 2.5, 0.5}, {0}};
	for (int i = 1; i < 9; i++)
		height += fabs(joints[i].offset[1]);
	text = write_bvh(joints, 9, frames, 1.0 / 30);
	res = decoded(text, strlen(text), &r);
	ck_assert_str_eq(res->family, "bvh");
	ck_assert_uint_eq(res->rig.count, 9);
	ck_assert_uint_eq(res->clip.channel_count, 2 + 6 + 2); /* positions: root and joint 7 */
	ck_assert_str_eq(res->track_names[1], "j0 rotation ZXY");
	for (int i = 1; i <= 6; i++) {
		char want[32];
		snprintf(want, sizeof(want), "j%d rotation %c%c%c", i, orders[i - 1][0],
		         orders[i - 1][10], orders[i - 1][20]);
		ck_assert_str_eq(res->track_names[1 + i], want);
	}
	ck_assert_str_eq(res->track_names[8], "j7 position");
	ck_assert_str_eq(res->track_names[9], "j7 rotation YXZ");
	ck_assert_str_eq(res->rig.nodes[8].name, "EndSite_j7");
	ck_assert_double_eq_tol(res->clip.duration, (float)(6.0 / 30), 1e-7);
	pose_own(res, &p);
	for (int f = 0; f < frames; f++) {
		int column = 0;
		pose_at(&p, (float)((double)f / 30));
		for (int i = 0; i < 9; i++) {
			double local[16];
			joint_local(&joints[i], f, &column, local);
			if (joints[i].channels == NULL) {
				memset(local, 0, sizeof(local));
				local[0] = local[5] = local[10] = local[15] = 1;
				memcpy(local + 12, joints[i].offset, 3 * sizeof(double));
			}
			if (joints[i].parent < 0)
				memcpy(joints[i].world, local, sizeof(local));
			else
				multiply(joints[joints[i].parent].world, local, joints[i].world);
			for (int k = 0; k < 16; k++)
				ck_assert_msg(fabs(p.world[i * 16 + k] - joints[i].world[k]) <=
				                  1e-5 * height,
				              "frame %d joint %d [%d]: %.9g, not %.9g", f, i, k,
				              p.world[i * 16 + k], joints[i].world[k]);
		}
	}
	pose_cleanup(&p);
	decode_result_cleanup(&r);
	free(text);
}
END_TEST

START_TEST(end_sites_offsets_and_frames_as_stored)
{
	char path[600], *text;
	size_t length;
	struct decode_result r;
	struct resource *res;
	float v[3];

	testutil_src_path("tests/data/bvh/two_joints.bvh", path, sizeof(path));
	ck_assert_ptr_nonnull(text = testutil_read_file(path, &length));
	res = decoded(text, length, &r);
	ck_assert_uint_eq(res->rig.count, 3);
	ck_assert_str_eq(res->rig.nodes[1].name, "Spine");
	ck_assert_int_eq(res->rig.nodes[1].parent, 0);
	ck_assert_float_eq(res->rig.nodes[1].translation[1], 5.21f);
	ck_assert_str_eq(res->rig.nodes[2].name, "EndSite_Spine");
	ck_assert_int_eq(res->rig.nodes[2].parent, 1);
	ck_assert_float_eq(res->rig.nodes[2].translation[1], 4.0f);
	ck_assert_int_eq(json_integer_value(json_object_get(res->metadata, "joints")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(res->metadata, "end_sites")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(res->metadata, "frames")), 3);
	ck_assert_uint_eq(res->clip.channel_count, 3);
	ck_assert_uint_eq(res->clip.samplers[0].key_count, 3);
	ck_assert_float_eq(res->clip.samplers[0].times[2], (float)(2 * 0.033333));
	testutil_sample(res, 0, res->clip.samplers[0].times[1], v);
	ck_assert_float_eq(v[0], 0.5f);
	ck_assert_float_eq(v[1], 35.1f);
	ck_assert_float_eq(v[2], 0.2f);
	testutil_sample(res, 2, res->clip.samplers[2].times[2], v); /* Spine: Z X Y as written */
	ck_assert_float_eq(v[0], 30.0f);
	ck_assert_float_eq(v[1], 0.0f);
	ck_assert_float_eq(v[2], -6.0f);
	decode_result_cleanup(&r);
	free(text);
}
END_TEST

#define HEAD                                                                                    \
	"HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Zrotation Xrotation Yrotation\n" \
	"\tEnd Site\n\t{\n\t\tOFFSET 0 1 0\n\t}\n}\nMOTION\n"

/* Lines past the frames Frames: counts (Debian's CMU Boxing_Toes.bvh has one) are left unread,
 * as assimp leaves them, and the entry says so. */
START_TEST(lines_after_the_frames_are_left_and_said)
{
	static const char text[] =
	    HEAD "Frames: 2\nFrame Time: 0.5\n1 2 3\n4 5 6\n7 8 9\n\n10 11\n";
	struct decode_result r;
	struct resource *res = decoded(text, sizeof(text) - 1, &r);
	char *notes = json_dumps(res->assumed, 0);

	ck_assert_uint_eq(res->clip.samplers[0].key_count, 2);
	ck_assert_int_eq(json_integer_value(json_object_get(res->metadata, "lines_after_frames")),
	                 2);
	ck_assert_msg(strstr(notes, "2 lines after the 2 frames"), "%s", notes);
	free(notes);
	decode_result_cleanup(&r);
}
END_TEST

START_TEST(one_frame_and_a_hundred_thousand)
{
	static const struct joint joints[2] = {
	    {"Xposition Yposition Zposition Xrotation Yrotation Zrotation", -1, {0, 0, 0}, {0}},
	    {NULL, 0, {0, 1, 0}, {0}}};
	struct decode_result r;
	struct resource *res;
	char *text = write_bvh(joints, 2, 1, 0.01);

	res = decoded(text, strlen(text), &r);
	ck_assert_uint_eq(res->clip.samplers[0].key_count, 1);
	ck_assert_double_eq(res->clip.duration, 0);
	decode_result_cleanup(&r);
	free(text);
	text = write_bvh(joints, 2, 100000, 1.0 / 120);
	res = decoded(text, strlen(text), &r);
	ck_assert_uint_eq(res->clip.samplers[1].key_count, 100000);
	ck_assert_float_eq(res->clip.samplers[1].times[99999], (float)(99999.0 / 120));
	decode_result_cleanup(&r);
	free(text);
}
END_TEST

/* Windows line ends, two ROOTs (a prop beside the actor), and a take of no frames: a rig and
 * no tracks. */
START_TEST(crlf_two_roots_and_no_frames)
{
	static const char two[] = "HIERARCHY\r\nROOT actor\r\n{\r\n\tOFFSET 0 1 0\r\n"
	                          "\tCHANNELS 3 Zrotation Xrotation Yrotation\r\n}\r\n"
	                          "ROOT prop\r\n{\r\n\tOFFSET 2 0 0\r\n\tCHANNELS 3 Xposition "
	                          "Yposition Zposition\r\n}\r\nMOTION\r\nFrames: 2\r\n"
	                          "Frame Time: 0.5\r\n1 2 3 4 5 6\r\n7 8 9 10 11 12\r\n";
	static const char none[] = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation "
	                           "Yrotation Zrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n"
	                           "MOTION\nFrames: 0\nFrame Time: 0.033\n";
	struct decode_result r;
	struct resource *res = decoded(two, sizeof(two) - 1, &r);
	float v[3];

	ck_assert_uint_eq(res->rig.count, 2);
	ck_assert_int_eq(res->rig.nodes[1].parent, -1);
	ck_assert_str_eq(res->track_names[1], "prop position");
	testutil_sample(res, 1, 0.5f, v);
	ck_assert_float_eq(v[0], 10.0f);
	ck_assert_float_eq(v[2], 12.0f);
	ck_assert_double_eq(res->clip.duration, 0.5);
	decode_result_cleanup(&r);
	res = decoded(none, sizeof(none) - 1, &r);
	ck_assert_uint_eq(res->rig.count, 2);
	ck_assert_uint_eq(res->clip.channel_count, 0);
	ck_assert_double_eq(res->clip.duration, 0);
	decode_result_cleanup(&r);
}
END_TEST

/* A file refused with a 422 whose message starts with "line N:" and says `says`. */
static void refused(const char *what, const char *text, size_t length, unsigned long line,
                    const char *says)
{
	struct decode_result r;
	struct error err;
	char want[32];

	ck_assert_msg(decode_named("bad.bvh", text, length, NULL, 0, &r, &err) < 0, "%s: decoded",
	              what);
	decode_result_cleanup(&r);
	ck_assert_msg(error_http_status(err.code) == 422, "%s: %u %s", what,
	              error_http_status(err.code), err.message);
	snprintf(want, sizeof(want), "line %lu: ", line);
	ck_assert_msg(strncmp(err.message, want, strlen(want)) == 0, "%s: %s", what, err.message);
	ck_assert_msg(strstr(err.message, says) != NULL, "%s: %s", what, err.message);
}

START_TEST(hostile_files_are_refused_naming_their_line)
{
	static const struct {
		const char *what, *text;
		unsigned long line;
		const char *says;
	} cases[] = {
	    {"frames that lie", HEAD "Frames: 3\nFrame Time: 0.1\n1.25 2.25 3.25\n4.25 5.25 6.25\n",
	     16, "ends at frame 2"},
	    {"a count past the file", HEAD "Frames: 4000000000\nFrame Time: 0.1\n1 2 3\n", 13,
	     "more than the"},
	    {"a short line", HEAD "Frames: 2\nFrame Time: 0.1\n1 2 3\n4 5\n", 15,
	     "has 2 values, not the 3"},
	    {"a long line", HEAD "Frames: 2\nFrame Time: 0.1\n1 2 3\n4 5 6 7\n", 15,
	     "more than the 3"},
	    {"NaN", HEAD "Frames: 1\nFrame Time: 0.1\n1 nan 3\n", 14, "\"nan\" is not a number"},
	    {"past a float", HEAD "Frames: 1\nFrame Time: 0.1\n1 1e39 3\n", 14,
	     "past what a float"},
	    {"a frame time of 0", HEAD "Frames: 1\nFrame Time: 0\n1 2 3\n", 13, "not a duration"},
	    {"half a frame", HEAD "Frames: 1.5\nFrame Time: 0.1\n1 2 3\n", 12, "not a count"},
	    {"a channel twice",
	     "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Xrotation\n", 5,
	     "Xrotation twice"},
	    {"seven channels", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 7\n", 5, "0 to 6"},
	    {"no such channel", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Wrotation\n", 5,
	     "not a channel"},
	    {"no OFFSET", "HIERARCHY\nROOT a\n{\nCHANNELS 1 Xrotation\n}\nMOTION\n", 5,
	     "no OFFSET"},
	    {"a word that is no keyword", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nSCALE 1\n", 5,
	     "\"SCALE\" is not"},
	    {"an unclosed joint", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\n", 5, "ends inside a joint"},
	    {"an OFFSET short", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 }\n", 4, "\"}\" is not a number"},
	    {"a name not UTF-8", "HIERARCHY\nROOT \xff\xfe\n{\n", 2, "not UTF-8"},
	    {"no MOTION", HEAD "Frames: 1\n", 13, "\"Frame\" belongs"},
	};
	struct buf b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		refused(cases[i].what, cases[i].text, strlen(cases[i].text), cases[i].line,
		        cases[i].says);
	/* a name of 300 bytes */
	buf_init(&b, 4096);
	buf_puts(&b, "HIERARCHY\nROOT ");
	for (int i = 0; i < 300; i++)
		buf_puts(&b, "n");
	refused("a long name", b.data, b.len, 2, "longer than 255 bytes");
	buf_cleanup(&b);
	/* 100,000 joints beside each other, and a chain 10,000 deep */
	buf_init(&b, (size_t)1 << 24);
	buf_puts(&b, "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n");
	for (int i = 0; i < 100000; i++)
		buf_printf(&b, "JOINT j%d\n{\nOFFSET 0 1 0\n}\n", i);
	buf_puts(&b, "}\nMOTION\nFrames: 0\nFrame Time: 0.1\n");
	refused("100,000 joints", b.data, b.len, 5 + 4 * 4095, "more than 4,096 joints");
	buf_cleanup(&b);
	buf_init(&b, (size_t)1 << 24);
	buf_puts(&b, "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n");
	for (int i = 0; i < 10000; i++)
		buf_printf(&b, "JOINT j%d\n{\nOFFSET 0 1 0\n", i);
	refused("a chain 10,000 deep", b.data, b.len, 5 + 3 * 511, "512 joints deep");
	buf_cleanup(&b);
}
END_TEST

/* The world translation of every rig node at time t, by name. */
static json_t *world_positions(const struct resource *res, struct pose *p, float t)
{
	json_t *out = json_object();

	pose_at(p, t);
	for (size_t i = 0; i < res->rig.count; i++)
		if (res->rig.nodes[i].name)
			json_object_set_new(out, res->rig.nodes[i].name,
			                    json_pack("[f, f, f]", p->world[i * 16 + 12],
			                              p->world[i * 16 + 13],
			                              p->world[i * 16 + 14]));
	return out;
}

/* Debian's CMU takes, posed by animdex and by assimp's glTF of them (posed by animdex's glTF
 * reader, which the glTF tests hold to the Khronos samples): every joint's world position at
 * every frame within 1e-4 of the rig's height. */
START_TEST(cmu_takes_pose_as_assimp_reads_them)
{
	static const char *const takes[3] = {"01_01", "01_03", "Boxing_Toes"};
	const char *dir = "/usr/share/assimp/models/BVH";
	char *tmp, cmd[2048], path[1024];
	int status;

	if (system("command -v assimp >/dev/null 2>&1") != 0 || access(dir, R_OK) != 0) {
		printf("SKIP: cmu_takes_pose_as_assimp_reads_them: needs assimp-utils and "
		       "assimp-testmodels (the test command installs them)\n");
		return;
	}
	tmp = testutil_temp_dir();
	for (int k = 0; k < 3; k++) {
		struct decode_result rb, rg;
		struct upload_sibling bin = {0};
		struct resource *bvh, *gltf;
		struct pose pb, pg;
		struct error err;
		char *text, *gtext;
		size_t length, glength;
		double low = INFINITY, high = -INFINITY, worst = 0;
		const struct sampler *s;
		json_t *rest;
		const char *name;
		json_t *where;
		snprintf(path, sizeof(path), "%s/%s.bvh", dir, takes[k]);
		ck_assert_ptr_nonnull(text = testutil_read_file(path, &length));
		bvh = decoded(text, length, &rb);
		snprintf(cmd, sizeof(cmd),
		         "cd '%s' && assimp export '%s' '%s.gltf' >/dev/null 2>&1", tmp, path,
		         takes[k]);
		free(testutil_shell(cmd, &status));
		ck_assert_int_eq(status, 0);
		snprintf(path, sizeof(path), "%s/%s.gltf", tmp, takes[k]);
		ck_assert_ptr_nonnull(gtext = testutil_read_file(path, &glength));
		snprintf(path, sizeof(path), "%s/%s.bin", tmp, takes[k]);
		bin.filename = strrchr(path, '/') + 1;
		ck_assert_ptr_nonnull(bin.data =
		                          (const uint8_t *)testutil_read_file(path, &bin.length));
		ck_assert_msg(decode_named("take.gltf", gtext, glength, &bin, 1, &rg, &err) == 0,
		              "%s", err.message);
		gltf = rg.resources[0];
		pose_own(bvh, &pb);
		pose_own(gltf, &pg);
		rest = world_positions(bvh, &pb, -1);
		json_object_foreach(rest, name, where)
		{
			double y = json_real_value(json_array_get(where, 1));
			low = y < low ? y : low;
			high = y > high ? y : high;
		}
		json_decref(rest);
		s = &bvh->clip.samplers[0];
		for (uint32_t f = 0; f < s->key_count; f += 1) {
			json_t *a = world_positions(bvh, &pb, s->times[f]),
			       *b = world_positions(gltf, &pg, s->times[f]);
			json_object_foreach(a, name, where)
			{
				json_t *other = json_object_get(b, name);
				ck_assert_msg(other, "%s: assimp has no node %s", takes[k], name);
				for (int i = 0; i < 3; i++) {
					double d = fabs(json_real_value(json_array_get(where, i)) -
					                json_real_value(json_array_get(other, i)));
					worst = d > worst ? d : worst;
				}
			}
			json_decref(a);
			json_decref(b);
		}
		printf(
		    "%s: %u frames, %zu nodes, largest difference from assimp %.3g of the height "
		    "(%.4g)\n",
		    takes[k], s->key_count, bvh->rig.count, worst / (high - low), high - low);
		ck_assert_msg(worst <= 1e-4 * (high - low), "%s: %.9g of %.9g", takes[k], worst,
		              high - low);
		pose_cleanup(&pb);
		pose_cleanup(&pg);
		decode_result_cleanup(&rb);
		decode_result_cleanup(&rg);
		free(text);
		free(gtext);
		free((void *)bin.data);
	}
	testutil_remove_tree(tmp);
	free(tmp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bvh");
	TCase *tc = tcase_create("bvh");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, every_channel_order_poses_as_written);
	tcase_add_test(tc, end_sites_offsets_and_frames_as_stored);
	tcase_add_test(tc, one_frame_and_a_hundred_thousand);
	tcase_add_test(tc, lines_after_the_frames_are_left_and_said);
	tcase_add_test(tc, crlf_two_roots_and_no_frames);
	tcase_add_test(tc, hostile_files_are_refused_naming_their_line);
	tcase_add_test(tc, cmu_takes_pose_as_assimp_reads_them);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
