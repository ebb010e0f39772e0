/* bvh.c: the BVH motion-capture decoder (doc/formats.md 5): a HIERARCHY of joints (ROOT, JOINT,
 * End Site, OFFSET, CHANNELS) and its MOTION (Frames, Frame Time, one line a frame) become one
 * entry with a rig (the joints in file order, OFFSETs as rest translations, End Sites as leaf
 * nodes) and its tracks as stored: per joint a position (where it has position channels) and
 * an Euler rotation in degrees in its channels' order (SCHEMA_MOCAP).
 *
 * Every byte is read through the bounds-checked reader; the file is read once, each token
 * once, so the time is linear in the file. A count that lies, a frame line short or long, a
 * number that is not one, a tree too large or too deep, or a name past 255 bytes or not UTF-8
 * is a 422 naming the line and the field.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "formats/format.h"
#include "formats/reader.h"

#define BVH_MAX_JOINTS 4096 /* joints and End Sites: CMU takes 38, large rigs a few hundred */
#define BVH_MAX_DEPTH  512  /* a chain from a ROOT */
#define BVH_MAX_TOKEN  255  /* a name's bytes, and any other word */

enum bvh_channel { POS_X, POS_Y, POS_Z, ROT_X, ROT_Y, ROT_Z, CHANNEL_KINDS };

static const char *const channel_words[CHANNEL_KINDS] = {"Xposition", "Yposition", "Zposition",
                                                         "Xrotation", "Yrotation", "Zrotation"};

struct bvh_joint {
	char *name;
	int32_t parent;
	int end_site;
	int has_offset;
	float offset[3];
	uint8_t channels[CHANNEL_KINDS]; /* enum bvh_channel, in the file's order */
	unsigned channel_count;
	int has_channels;
	uint32_t column; /* its first value on a frame line */
};

struct bvh {
	struct reader r;
	unsigned long line; /* of the token last read */
	char token[BVH_MAX_TOKEN + 1];
	size_t token_length;
	struct bvh_joint *joints;
	size_t joint_count, joint_cap;
	uint32_t columns; /* values on a frame line */
	uint32_t frames;
	uint64_t lines_after; /* lines past the frames Frames: counts, left unread */
	double frame_time;
	float *values; /* frames x columns */
	struct error *err;
};

static int fail(struct bvh *b, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct bvh *b, const char *field, const char *fmt, ...)
{
	char text[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	error_set(b->err, ERROR_INVALID, field, (long long)b->r.pos, "line %lu: %s", b->line, text);
	return -1;
}

static int peek(const struct bvh *b)
{
	return reader_remaining(&b->r) ? b->r.data[b->r.pos] : -1;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Skips blanks; stops at a newline when `lines` (the newline not consumed). */
static void skip_blanks(struct bvh *b, int lines)
{
	int c;

	while ((c = peek(b)) >= 0 && is_space(c)) {
		if (c == '\n') {
			if (lines)
				return;
			b->line++;
		}
		(void)reader_u8(&b->r, "blank");
	}
}

/* The next word into b->token: 1, 0 at the end of the file, -1 when past BVH_MAX_TOKEN. */
static int next_word(struct bvh *b, int lines)
{
	int c;

	skip_blanks(b, lines);
	b->token_length = 0;
	while ((c = peek(b)) >= 0 && !is_space(c)) {
		if (b->token_length == BVH_MAX_TOKEN) {
			b->token[b->token_length] = '\0';
			return fail(b, "token", "a word longer than 255 bytes (starting \"%.40s\")",
			            b->token);
		}
		b->token[b->token_length++] = (char)reader_u8(&b->r, "token");
		if (b->token_length == 1 && (c == '{' || c == '}'))
			break;
	}
	b->token[b->token_length] = '\0';
	return b->token_length > 0;
}

static int expect(struct bvh *b, const char *word, const char *field)
{
	int got = next_word(b, 0);

	if (got < 0)
		return -1;
	if (!got)
		return fail(b, field, "the file ends where \"%s\" belongs", word);
	if (strcmp(b->token, word) != 0) {
		char text[300];
		snprintf(text, sizeof(text), "\"%s\" expected, not \"%.200s\"", word, b->token);
		return fail(b, field, "%s", text);
	}
	return 0;
}

/* A finite number that a float holds, from the word just read. */
static int word_number(struct bvh *b, const char *field, double *out)
{
	char *end;
	double v;

	for (size_t i = 0; i < b->token_length; i++)
		if (!strchr("0123456789+-.eE", b->token[i]))
			return fail(b, field, "\"%.200s\" is not a number", b->token);
	v = strtod(b->token, &end);
	if (b->token_length == 0 || *end != '\0')
		return fail(b, field, "\"%.200s\" is not a number", b->token);
	if (!isfinite(v) || fabs(v) > 3.4028234663852886e38)
		return fail(b, field, "%.200s is past what a float holds", b->token);
	*out = v;
	return 0;
}

static int read_number(struct bvh *b, const char *field, double *out)
{
	int got = next_word(b, 0);

	if (got < 0)
		return -1;
	if (!got)
		return fail(b, field, "the file ends where a number belongs");
	return word_number(b, field, out);
}

static struct bvh_joint *add_joint(struct bvh *b, const char *name, int32_t parent)
{
	struct bvh_joint *j;

	if (b->joint_count == BVH_MAX_JOINTS) {
		fail(b, "JOINT", "more than 4,096 joints and End Sites");
		return NULL;
	}
	if (b->joint_count == b->joint_cap) {
		size_t cap = b->joint_cap ? b->joint_cap * 2 : 64;
		struct bvh_joint *p = realloc(b->joints, cap * sizeof(*p));
		if (!p)
			goto oom;
		b->joints = p;
		b->joint_cap = cap;
	}
	j = &b->joints[b->joint_count];
	memset(j, 0, sizeof(*j));
	j->parent = parent;
	if (!(j->name = strdup(name)))
		goto oom;
	b->joint_count++;
	return j;
oom:
	error_set(b->err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return NULL;
}

static int read_name(struct bvh *b, const char *field)
{
	int got = next_word(b, 0);

	if (got < 0)
		return -1;
	if (!got || strcmp(b->token, "{") == 0 || strcmp(b->token, "}") == 0)
		return fail(b, field, "a joint's name expected, not \"%s\"", got ? b->token : "");
	if (!utf8_valid(b->token, b->token_length))
		return fail(b, field, "a joint's name is not UTF-8");
	return 0;
}

static int read_offset(struct bvh *b, struct bvh_joint *j)
{
	if (j->has_offset)
		return fail(b, "OFFSET", "a second OFFSET for \"%.200s\"", j->name);
	for (int i = 0; i < 3; i++) {
		double v;
		if (read_number(b, "OFFSET", &v) < 0)
			return -1;
		j->offset[i] = (float)v;
	}
	j->has_offset = 1;
	return 0;
}

static int read_channels(struct bvh *b, struct bvh_joint *j)
{
	unsigned seen = 0;
	double n;

	if (j->has_channels)
		return fail(b, "CHANNELS", "a second CHANNELS for \"%.200s\"", j->name);
	if (read_number(b, "CHANNELS", &n) < 0)
		return -1;
	if (n != floor(n) || n < 0 || n > CHANNEL_KINDS)
		return fail(b, "CHANNELS", "%s channels: a joint has 0 to 6", b->token);
	j->has_channels = 1;
	for (unsigned i = 0; i < (unsigned)n; i++) {
		int got = next_word(b, 0), kind = -1;
		if (got < 0)
			return -1;
		for (int k = 0; got && k < CHANNEL_KINDS; k++)
			if (strcmp(b->token, channel_words[k]) == 0)
				kind = k;
		if (kind < 0)
			return fail(b, "CHANNELS",
			            "\"%.200s\" is not a channel (Xposition, Yposition, Zposition, "
			            "Xrotation, Yrotation or Zrotation)",
			            got ? b->token : "");
		if (seen & (1u << kind))
			return fail(b, "CHANNELS", "%s twice: a joint has each channel once",
			            channel_words[kind]);
		seen |= 1u << kind;
		j->channels[j->channel_count++] = (uint8_t)kind;
	}
	return 0;
}

/* End Site { OFFSET x y z }: a leaf node named after its joint. */
static int read_end_site(struct bvh *b, int32_t parent)
{
	char name[BVH_MAX_TOKEN + 16];
	struct bvh_joint *j;

	if (expect(b, "Site", "End Site") < 0 || expect(b, "{", "End Site") < 0)
		return -1;
	snprintf(name, sizeof(name), "EndSite_%s", b->joints[parent].name);
	if (!(j = add_joint(b, name, parent)))
		return -1;
	j->end_site = 1;
	for (;;) {
		int got = next_word(b, 0);
		if (got < 0)
			return -1;
		if (got && strcmp(b->token, "OFFSET") == 0) {
			if (read_offset(b, &b->joints[b->joint_count - 1]) < 0)
				return -1;
		} else if (got && strcmp(b->token, "}") == 0) {
			break;
		} else {
			return fail(b, "End Site",
			            "an End Site holds only an OFFSET, not \"%.200s\"",
			            got ? b->token : "(the end of the file)");
		}
	}
	if (!b->joints[b->joint_count - 1].has_offset)
		return fail(b, "End Site", "an End Site of \"%.200s\" without an OFFSET",
		            b->joints[parent].name);
	return 0;
}

/* HIERARCHY, its ROOTs and their joints, up to MOTION; without recursion (a stack of open
 * joints), so that the deepest chain costs what the widest tree does. */
static int read_hierarchy(struct bvh *b)
{
	int32_t open[BVH_MAX_DEPTH];
	size_t depth = 0;

	if (expect(b, "HIERARCHY", "HIERARCHY") < 0)
		return -1;
	for (;;) {
		int got = next_word(b, 0);
		if (got < 0)
			return -1;
		if (depth == 0) {
			if (got && strcmp(b->token, "MOTION") == 0 && b->joint_count)
				return 0;
			if (!got || strcmp(b->token, "ROOT") != 0)
				return fail(b, "ROOT", "%s expected, not \"%.200s\"",
				            b->joint_count ? "ROOT or MOTION" : "ROOT",
				            got ? b->token : "(the end of the file)");
		}
		if (!got)
			return fail(b, "HIERARCHY",
			            "the file ends inside a joint (a \"}\" is missing)");
		if (strcmp(b->token, "ROOT") == 0 || strcmp(b->token, "JOINT") == 0) {
			const char *word = depth ? "JOINT" : "ROOT";
			if (depth == 0 && strcmp(b->token, "ROOT") != 0)
				return fail(b, "ROOT", "a JOINT outside any ROOT");
			if (depth && strcmp(b->token, "ROOT") == 0)
				return fail(b, "ROOT", "a ROOT inside a joint");
			if (depth == BVH_MAX_DEPTH)
				return fail(b, word, "a chain more than 512 joints deep");
			if (read_name(b, word) < 0 ||
			    !add_joint(b, b->token, depth ? open[depth - 1] : -1) ||
			    expect(b, "{", word) < 0)
				return -1;
			open[depth++] = (int32_t)(b->joint_count - 1);
		} else if (strcmp(b->token, "OFFSET") == 0) {
			if (read_offset(b, &b->joints[open[depth - 1]]) < 0)
				return -1;
		} else if (strcmp(b->token, "CHANNELS") == 0) {
			if (read_channels(b, &b->joints[open[depth - 1]]) < 0)
				return -1;
		} else if (strcmp(b->token, "End") == 0) {
			if (read_end_site(b, open[depth - 1]) < 0)
				return -1;
		} else if (strcmp(b->token, "}") == 0) {
			const struct bvh_joint *j = &b->joints[open[depth - 1]];
			if (!j->has_offset)
				return fail(b, "OFFSET", "joint \"%.200s\" has no OFFSET", j->name);
			depth--;
		} else {
			return fail(b, "HIERARCHY",
			            "\"%.200s\" is not OFFSET, CHANNELS, JOINT, End Site or \"}\"",
			            b->token);
		}
	}
}

/* The rest of a line is blank: 0, or -1 naming what follows. */
static int line_ends(struct bvh *b, const char *field, const char *after)
{
	int got = next_word(b, 1);

	if (got < 0)
		return -1;
	if (got) {
		char text[300];
		snprintf(text, sizeof(text), "\"%.100s\" after %s on its line", b->token, after);
		return fail(b, field, "%s", text);
	}
	return 0;
}

static int read_motion_header(struct bvh *b)
{
	double frames, frame_time;
	uint64_t remaining;

	if (line_ends(b, "MOTION", "MOTION") < 0 || expect(b, "Frames:", "Frames") < 0 ||
	    read_number(b, "Frames", &frames) < 0)
		return -1;
	if (frames != floor(frames) || frames < 0 || frames > UINT32_MAX)
		return fail(b, "Frames", "Frames: %s is not a count of frames", b->token);
	if (line_ends(b, "Frames", "the frame count") < 0 || expect(b, "Frame", "Frame Time") < 0 ||
	    expect(b, "Time:", "Frame Time") < 0 || read_number(b, "Frame Time", &frame_time) < 0)
		return -1;
	if (!(frame_time > 0))
		return fail(b, "Frame Time", "Frame Time: %s is not a duration above 0", b->token);
	if (line_ends(b, "Frame Time", "the frame time") < 0)
		return -1;
	b->frames = (uint32_t)frames;
	b->frame_time = frame_time;
	/* every value takes a character and a separator: a count that lies is refused before
	 * anything is allocated for it */
	remaining = reader_remaining(&b->r);
	if ((uint64_t)b->frames * b->columns > remaining / 2 + 1) {
		char text[200];
		snprintf(text, sizeof(text),
		         "Frames: %" PRIu32 " needs %" PRIu64 " values, more than the %" PRIu64
		         " bytes left hold",
		         b->frames, (uint64_t)b->frames * b->columns, remaining);
		return fail(b, "Frames", "%s", text);
	}
	return 0;
}

static int read_frames(struct bvh *b)
{
	size_t n = (size_t)b->frames * b->columns;
	char field[48];

	b->values = malloc((n ? n : 1) * sizeof(float));
	if (!b->values) {
		error_set(b->err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	for (uint32_t f = 0; f < b->frames && b->columns; f++) {
		float *row = b->values + (size_t)f * b->columns;
		uint32_t got_values = 0;
		snprintf(field, sizeof(field), "frames[%" PRIu32 "]", f);
		skip_blanks(b, 0); /* blank lines between frames are no frames */
		for (;;) {
			int got = next_word(b, 1);
			double v;
			if (got < 0)
				return -1;
			if (!got)
				break;
			if (got_values == b->columns) {
				char text[200];
				snprintf(text, sizeof(text),
				         "frame %" PRIu32 " has more than the %" PRIu32
				         " values the CHANNELS name",
				         f, b->columns);
				return fail(b, field, "%s", text);
			}
			if (word_number(b, field, &v) < 0)
				return -1;
			row[got_values++] = (float)v;
		}
		if (got_values < b->columns) {
			char text[200];
			snprintf(text, sizeof(text),
			         got_values ? "frame %" PRIu32 " has %" PRIu32
			                      " values, not the %" PRIu32 " the CHANNELS name"
			                    : "the file ends at frame %" PRIu32 " (%" PRIu32
			                      " values of %" PRIu32 "), before Frames: says",
			         f, got_values, b->columns);
			return fail(b, field, "%s", text);
		}
	}
	/* lines after the frames Frames: counts (Debian's CMU Boxing_Toes.bvh has one) are left
	 * unread, as assimp leaves them; the entry says how many */
	for (;;) {
		int got = next_word(b, 0);
		if (got < 0)
			return -1;
		if (!got)
			return 0;
		b->lines_after++;
		while (peek(b) >= 0 && peek(b) != '\n')
			(void)reader_u8(&b->r, "line after the frames");
	}
}

/* The rotation's axis order: the rotation channels in the file's order, the axes it lacks
 * after them (held at 0). */
static uint64_t rotation_order(const struct bvh_joint *j, int axis[3])
{
	static const char *const orders[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
	unsigned n = 0, seen = 0;
	char text[4];

	for (unsigned c = 0; c < j->channel_count; c++)
		if (j->channels[c] >= ROT_X) {
			axis[n++] = j->channels[c] - ROT_X;
			seen |= 1u << (j->channels[c] - ROT_X);
		}
	for (int a = 0; a < 3; a++)
		if (!(seen & (1u << a)))
			axis[n++] = a;
	for (int i = 0; i < 3; i++)
		text[i] = (char)('X' + axis[i]);
	text[3] = '\0';
	for (int o = 0; o < 6; o++)
		if (strcmp(orders[o], text) == 0)
			return MOCAP_ROTATION_XYZ + (uint64_t)o;
	return MOCAP_ROTATION_XYZ;
}

static int add_track(struct resource *res, const struct bvh *b, uint32_t target, uint64_t property,
                     const float *times, const float fill[3], const int column[3])
{
	struct clip *c = &res->clip;
	struct sampler *s = &c->samplers[c->sampler_count];
	float *v;

	s->type = VALUE_FLOAT3;
	s->array_size = 1;
	s->interp = INTERP_LINEAR;
	s->key_count = b->frames;
	s->times = malloc(b->frames * sizeof(float));
	s->value_bytes = (size_t)b->frames * 3 * sizeof(float);
	s->values = v = malloc(s->value_bytes);
	if (!s->times || !v)
		return -1;
	memcpy(s->times, times, b->frames * sizeof(float));
	for (uint32_t f = 0; f < b->frames; f++)
		for (int i = 0; i < 3; i++)
			v[(size_t)f * 3 + (size_t)i] =
			    column[i] < 0 ? fill[i]
			                  : b->values[(size_t)f * b->columns + (size_t)column[i]];
	c->channels[c->channel_count] = (struct channel){
	    .target = target, .property = property, .sampler = (uint32_t)c->sampler_count};
	c->sampler_count++;
	c->channel_count++;
	return 0;
}

/* The joints' tracks: a position where a joint has position channels (the ones it lacks from
 * its OFFSET), a rotation where it has rotation channels. */
static int make_tracks(struct resource *res, const struct bvh *b, struct error *err)
{
	struct clip *c = &res->clip;
	float *times = malloc((b->frames ? b->frames : 1) * sizeof(float));

	c->targets = calloc(b->joint_count + 1, sizeof(struct target));
	c->samplers = calloc(2 * b->joint_count + 1, sizeof(struct sampler));
	c->channels = calloc(2 * b->joint_count + 1, sizeof(struct channel));
	if (!times || !c->targets || !c->samplers || !c->channels)
		goto oom;
	for (uint32_t f = 0; f < b->frames; f++) {
		times[f] = (float)((double)f * b->frame_time);
		if (f && !(times[f] > times[f - 1])) {
			error_set(err, ERROR_INVALID, "Frame Time", -1,
			          "Frame Time: %.9g s is too short for frame %" PRIu32
			          " to come after frame %" PRIu32 " in float seconds",
			          b->frame_time, f, f - 1);
			free(times);
			return -1;
		}
	}
	for (size_t i = 0; b->frames && i < b->joint_count; i++) {
		const struct bvh_joint *j = &b->joints[i];
		int position[3] = {-1, -1, -1}, rotation[3] = {-1, -1, -1}, axis[3];
		int has_position = 0, has_rotation = 0;
		static const float zero[3] = {0, 0, 0};
		struct target *t;
		uint64_t order;
		if (!j->channel_count)
			continue;
		for (unsigned k = 0; k < j->channel_count; k++) {
			if (j->channels[k] < ROT_X) {
				position[j->channels[k]] = (int)(j->column + k);
				has_position = 1;
			} else {
				has_rotation = 1;
			}
		}
		order = rotation_order(j, axis);
		for (int a = 0; a < 3; a++)
			for (unsigned k = 0; k < j->channel_count; k++)
				if (j->channels[k] == ROT_X + axis[a])
					rotation[a] = (int)(j->column + k);
		t = &c->targets[c->target_count];
		snprintf(t->schema, sizeof(t->schema), "%s", SCHEMA_MOCAP);
		t->object = i;
		if (!(t->name = strdup(j->name)))
			goto oom;
		if ((has_position && add_track(res, b, (uint32_t)c->target_count, MOCAP_POSITION,
		                               times, j->offset, position) < 0) ||
		    (has_rotation && add_track(res, b, (uint32_t)c->target_count, order, times,
		                               zero, rotation) < 0))
			goto oom;
		c->target_count++;
	}
	c->duration = b->frames > 1 ? (double)times[b->frames - 1] : 0.0;
	free(times);
	return 0;
oom:
	free(times);
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

static int make_rig(struct resource *res, const struct bvh *b, struct error *err)
{
	res->rig.nodes = calloc(b->joint_count, sizeof(struct rig_node));
	if (!res->rig.nodes) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	res->rig.count = b->joint_count;
	for (size_t i = 0; i < b->joint_count; i++) {
		struct rig_node *n = &res->rig.nodes[i];
		n->source = (uint32_t)i;
		n->name = b->joints[i].name; /* the rig owns it now */
		b->joints[i].name = NULL;
		n->parent = b->joints[i].parent;
		memcpy(n->translation, b->joints[i].offset, sizeof(n->translation));
		n->rotation[3] = 1;
		n->scale[0] = n->scale[1] = n->scale[2] = 1;
	}
	return rig_check(&res->rig, err);
}

static json_t *bvh_metadata(const struct bvh *b)
{
	size_t end_sites = 0;
	json_t *orders = json_object();

	for (size_t i = 0; i < b->joint_count; i++) {
		const struct bvh_joint *j = &b->joints[i];
		char text[CHANNEL_KINDS * 10 + 1] = "";
		end_sites += (size_t)j->end_site;
		for (unsigned k = 0; k < j->channel_count; k++) {
			strcat(text, k ? " " : "");
			strncat(text, channel_words[j->channels[k]], 9);
		}
		json_object_set_new(
		    orders, text,
		    json_integer(json_integer_value(json_object_get(orders, text)) + 1));
	}
	json_object_del(orders, "");
	return json_pack(
	    "{s:I, s:f, s:I, s:I, s:I, s:o}", "frames", (json_int_t)b->frames, "frame_time",
	    b->frame_time, "joints", (json_int_t)(b->joint_count - end_sites), "end_sites",
	    (json_int_t)end_sites, "channels", (json_int_t)b->columns, "channel_orders", orders);
}

static void bvh_cleanup(struct bvh *b)
{
	for (size_t i = 0; i < b->joint_count; i++)
		free(b->joints[i].name);
	free(b->joints);
	free(b->values);
}

static enum format_match bvh_match(const struct upload *up, char *why, size_t why_size)
{
	size_t i = 0;

	if (up->family && strcasecmp(up->family, "bvh") == 0)
		return MATCH_EXPLICIT;
	if (up->class_name && strcasecmp(up->class_name, "BVH") == 0)
		return MATCH_EXPLICIT;
	while (i < up->length && is_space(up->data[i]))
		i++;
	if (up->length - i >= 9 && memcmp(up->data + i, "HIERARCHY", 9) == 0)
		return MATCH_MAGIC;
	if (format_has_extension(up->filename, "bvh"))
		return MATCH_EXTENSION;
	snprintf(why, why_size, "does not start with HIERARCHY");
	return MATCH_NONE;
}

static int bvh_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	struct bvh b = {.line = 1, .err = err};
	struct resource *res = NULL;

	reader_init(&b.r, up->data, up->length, BYTE_ORDER_LITTLE, err);
	if (read_hierarchy(&b) < 0)
		goto fail;
	for (size_t i = 0; i < b.joint_count; i++) {
		b.joints[i].column = b.columns;
		b.columns += b.joints[i].channel_count;
	}
	if (read_motion_header(&b) < 0 || read_frames(&b) < 0)
		goto fail;
	if (!(res = resource_create("bvh", "BVH"))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	if (make_tracks(res, &b, err) < 0 || !(res->metadata = bvh_metadata(&b)) ||
	    make_rig(res, &b, err) < 0)
		goto fail;
	resource_assume(res, "BVH: positions and OFFSETs are in the file's own units; rotations "
	                     "are degrees, applied in the channels' order as written (R = R1 R2 "
	                     "R3), as assimp reads them");
	if (b.lines_after) {
		char note[200];
		snprintf(note, sizeof(note),
		         "BVH: %" PRIu64 " line%s after the %" PRIu32
		         " frames Frames: counts left unread, as assimp leaves them",
		         b.lines_after, b.lines_after == 1 ? "" : "s", b.frames);
		resource_assume(res, note);
		json_object_set_new(res->metadata, "lines_after_frames",
		                    json_integer((json_int_t)b.lines_after));
	}
	bvh_cleanup(&b);
	if (decode_result_add(out, res) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
fail:
	if (!error_is_set(err))
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	resource_free(res);
	bvh_cleanup(&b);
	return -1;
}

const struct format format_bvh = {
    .family = "bvh",
    .version = 1,
    .description = "BVH motion capture (HIERARCHY and MOTION)",
    .match = bvh_match,
    .decode = bvh_decode,
};
