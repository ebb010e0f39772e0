/* pose_answer.c: GET /api/resources/{id}/pose's answer (pose_answer.h): which track moves
 * which node of which rig, then the poses, a time at a time, as JSON text or float32. */
#include "answers/pose_answer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/retarget_answer.h"
#include "render/render.h"
#include "render/render_float.h"

#define PIECE_BYTES (64u * 1024) /* text produced at a time, at least */

enum phase { PHASE_HEAD, PHASE_POSES, PHASE_TAIL, PHASE_DONE };

void pose_answer_free(void *state)
{
	struct pose_answer *pa = state;

	if (!pa)
		return;
	pose_cleanup(&pa->pose);
	for (size_t i = 0; i < pa->track_count; i++)
		catalog_track_cleanup(&pa->tracks[i]);
	free(pa->tracks);
	rig_cleanup(&pa->rig);
	json_decref(pa->head);
	free(pa->times.list);
	buf_cleanup(&pa->pending);
	retarget_answer_free(pa->retargeted);
	free(pa);
}

static json_t *nodes_json(const struct rig *rig)
{
	json_t *nodes = json_array();
	char label[160], handle[11];

	for (size_t i = 0; i < rig->count; i++) {
		const struct rig_node *n = &rig->nodes[i];
		rig_node_label(n, label, sizeof(label));
		render_handle(n->handle, handle);
		json_array_append_new(
		    nodes, json_pack("{s:I, s:s, s:o, s:o}", "source", (json_int_t)n->source,
		                     "name", label, "handle",
		                     n->has_handle ? json_string(handle) : json_null(), "parent",
		                     n->parent >= 0 ? json_integer(rig->nodes[n->parent].source)
		                                    : json_null()));
	}
	return nodes;
}

/* One track: matched to a node (its sampler read and added to the pose), or why not. */
static int bind_track(struct catalog *cat, struct pose_answer *pa,
                      const struct catalog_target *track, unsigned char *tracked, json_t *listed,
                      struct error *err)
{
	struct pose_target t = track->target;
	const char *why = NULL;
	unsigned n = track->n;
	int32_t node, euler;
	json_t *row;

	euler = pose_target_euler(&t);
	node = track->events ? (why = "it holds events", -1)
	                     : pose_match(&pa->rig, &t, pa->skeleton == 0, &why);
	if (node >= 0) {
		struct catalog_track *ct = &pa->tracks[pa->track_count];
		if (catalog_read_track(cat, pa->id, n, ct, err) < 0)
			return -1;
		why = pose_sampler_fits((enum node_property)t.property, euler, &ct->sampler);
		if (why) {
			catalog_track_cleanup(ct);
			node = -1;
		} else {
			pa->track_count++;
			pa->euler |= euler;
			if (pose_add_track(&pa->pose, (uint32_t)node,
			                   (enum node_property)t.property, euler,
			                   &ct->sampler) < 0) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				return -1;
			}
			tracked[node] = 1;
		}
	}
	row = json_pack("{s:I, s:o, s:o}", "n", (json_int_t)n, "node",
	                node >= 0 ? json_integer(pa->rig.nodes[node].source) : json_null(),
	                "property", render_u64(track->target.property));
	if (node < 0)
		json_object_set_new(row, "reason", json_string(why));
	else
		json_object_set_new(row, "property_name",
		                    json_string(schema_property_name(t.schema, t.property)));
	json_array_append_new(listed, row);
	return 0;
}

/* The rig to pose on: the skeleton's, or the entry's own. */
static int read_rig(struct catalog *cat, struct pose_answer *pa, const struct catalog_entry *entry,
                    struct error *err)
{
	if (pa->skeleton)
		return catalog_read_skeleton(cat, pa->skeleton, &pa->rig, err);
	if (catalog_read_rig(cat, pa->id, &pa->rig, err) < 0)
		return -1;
	if (pa->rig.count > 0)
		return 0;
	error_set(err, ERROR_CONFLICT, "skeleton", -1,
	          "entry %" PRId64 " (%s) has no rig of its own: pose it on a skeleton with "
	          "skeleton=ID (GET /api/resources/%" PRId64 "/skeletons lists those that fit)",
	          pa->id, entry->class_name, pa->id);
	return -1;
}

struct pose_answer *pose_answer_create(struct catalog *cat, int64_t id, int64_t skeleton,
                                       enum sample_format format, struct error *err)
{
	struct pose_answer *pa = calloc(1, sizeof(*pa));
	struct catalog_entry entry;
	json_t *listed = NULL;
	unsigned char *tracked = NULL;
	size_t matched, untracked = 0;

	memset(&entry, 0, sizeof(entry));
	if (!pa) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	pa->id = id;
	pa->skeleton = skeleton;
	pa->format = format;
	rig_init(&pa->rig);
	buf_init(&pa->pending, (size_t)256 << 20);
	if (catalog_entry_read(cat, id, CATALOG_ENTRY_TRACKS, &entry, err) < 0 ||
	    read_rig(cat, pa, &entry, err) < 0)
		goto fail;
	pa->tracks = calloc(entry.track_count + 1, sizeof(*pa->tracks));
	tracked = calloc(pa->rig.count + 1, 1);
	listed = json_array();
	if (!pa->tracks || !tracked || !listed || pose_init(&pa->pose, &pa->rig) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < entry.track_count; i++)
		if (bind_track(cat, pa, &entry.tracks[i], tracked, listed, err) < 0)
			goto fail;
	matched = pa->track_count;
	for (size_t n = 0; n < pa->rig.count; n++)
		untracked += !tracked[n];
	pa->head = json_pack("{s:I, s:o, s:o, s:o, s:I, s:I, s:I}", "id", (json_int_t)id,
	                     "skeleton", skeleton ? json_integer(skeleton) : json_null(), "nodes",
	                     nodes_json(&pa->rig), "tracks", listed, "matched", (json_int_t)matched,
	                     "unmatched", (json_int_t)(entry.track_count - matched),
	                     "untracked_nodes", (json_int_t)untracked);
	listed = NULL;
	if (!pa->head) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	if (pa->euler)
		json_object_set_new(pa->head, "assumed",
		                    json_pack("[s]",
		                              "KeyframerBezierRot_Z Euler angles are read as "
		                              "radians applied X, then Y, then Z (q = qz qy "
		                              "qx); the axis order is assumed, not "
		                              "documented"));
	catalog_entry_cleanup(&entry);
	free(tracked);
	return pa;
fail:
	catalog_entry_cleanup(&entry);
	json_decref(listed);
	free(tracked);
	pose_answer_free(pa);
	return NULL;
}

struct pose_answer *pose_answer_create_retargeted(struct retarget_answer *a, int64_t id,
                                                  int64_t skeleton, enum sample_format format,
                                                  struct error *err)
{
	struct pose_answer *pa = calloc(1, sizeof(*pa));
	const struct retarget_result *r = retarget_answer_result(a);
	unsigned char *tracked = NULL;
	json_t *listed = json_array();
	size_t untracked = 0;

	if (!pa) {
		retarget_answer_free(a);
		json_decref(listed);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	pa->retargeted = a;
	pa->id = id;
	pa->skeleton = skeleton;
	pa->format = format;
	buf_init(&pa->pending, (size_t)256 << 20);
	pa->tracks = calloc(r->track_count + 1, sizeof(*pa->tracks));
	if (rig_copy(retarget_answer_rig(a), &pa->rig) < 0 || !pa->tracks || !listed ||
	    !(tracked = calloc(pa->rig.count + 1, 1)) || pose_init(&pa->pose, &pa->rig) < 0)
		goto oom;
	for (size_t i = 0; i < r->track_count; i++) {
		const struct retarget_track *t = &r->tracks[i];
		struct catalog_track *ct = &pa->tracks[pa->track_count++];
		ct->resource_id = id;
		ct->n = (unsigned)i;
		ct->borrowed = 1; /* the retarget's keys */
		ct->sampler = t->sampler;
		tracked[t->node] = 1;
		if (pose_add_track(&pa->pose, t->node, t->property, t->euler, &ct->sampler) < 0)
			goto oom;
		json_array_append_new(
		    listed, json_pack("{s:I, s:I, s:s}", "n", (json_int_t)i, "node",
		                      (json_int_t)pa->rig.nodes[t->node].source, "property",
		                      t->property == NODE_ROTATION ? "rotation" : "translation"));
	}
	for (size_t n = 0; n < pa->rig.count; n++)
		untracked += !tracked[n];
	pa->head =
	    json_pack("{s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:I}", "id", (json_int_t)id, "skeleton",
	              (json_int_t)skeleton, "retarget", retarget_answer_json(a), "nodes",
	              nodes_json(&pa->rig), "tracks", listed, "matched", (json_int_t)r->track_count,
	              "unmatched", (json_int_t)0, "untracked_nodes", (json_int_t)untracked);
	listed = NULL;
	if (!pa->head)
		goto oom;
	free(tracked);
	return pa;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	json_decref(listed);
	free(tracked);
	pose_answer_free(pa);
	return NULL;
}

void pose_answer_range(const struct pose_answer *pa, double *from, double *to)
{
	*from = *to = 0;
	for (size_t i = 0; i < pa->track_count; i++) {
		const struct sampler *s = &pa->tracks[i].sampler;
		if (i == 0 || s->times[0] < *from)
			*from = s->times[0];
		if (i == 0 || s->times[s->key_count - 1] > *to)
			*to = s->times[s->key_count - 1];
	}
}

uint64_t pose_answer_estimate(const struct pose_answer *pa)
{
	uint64_t per_time = 4 + (uint64_t)pa->rig.count * POSE_F32_NODE_FLOATS * 4;

	/* text: about 12 bytes a float at most */
	return (uint64_t)pa->times.count * (pa->format == FORMAT_F32 ? per_time : per_time * 3) +
	       (pa->format == FORMAT_F32 ? 0 : 4096 + (uint64_t)pa->rig.count * 200);
}

size_t pose_answer_memory(const struct pose_answer *pa)
{
	size_t memory =
	    sizeof(*pa) + pa->rig.count * (sizeof(struct rig_node) + POSE_TRS * 4 + 16 * 8 + 4);

	for (size_t i = 0; i < pa->track_count; i++)
		memory += pa->tracks[i].sampler.value_bytes + pa->tracks[i].sampler.key_count * 4;
	return memory + PIECE_BYTES * 2;
}

static void put_floats(struct buf *b, const float *v, size_t n)
{
	char text[32];

	buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ',');
		buf_append(b, text, render_float(v[i], 0, text));
	}
	buf_putc(b, ']');
}

/* One pose of the JSON answer. */
static void put_pose_json(struct pose_answer *pa, float t, struct buf *b)
{
	static const char *const parts[3] = {"translation", "rotation", "scale"};
	static const size_t offsets[3] = {0, 3, 7}, sizes[3] = {3, 4, 3};
	char text[32];

	buf_puts(b, pa->i ? ",{\"t\":" : "{\"t\":");
	buf_append(b, text, render_float(t, 0, text));
	for (int p = 0; p < 3; p++) {
		buf_printf(b, ",\"%s\":[", parts[p]);
		for (size_t n = 0; n < pa->rig.count; n++) {
			if (n)
				buf_putc(b, ',');
			put_floats(b, pa->pose.trs + n * POSE_TRS + offsets[p], sizes[p]);
		}
		buf_putc(b, ']');
	}
	buf_puts(b, ",\"world\":[");
	for (size_t n = 0; n < pa->rig.count; n++) {
		float m[16];
		for (int e = 0; e < 16; e++)
			m[e] = (float)pa->pose.world[n * 16 + e];
		if (n)
			buf_putc(b, ',');
		put_floats(b, m, 16);
	}
	buf_puts(b, "]}");
}

static void put_pose_f32(struct pose_answer *pa, float t, struct buf *b)
{
	buf_append(b, &t, sizeof(t));
	for (size_t n = 0; n < pa->rig.count; n++) {
		float m[16];
		buf_append(b, pa->pose.trs + n * POSE_TRS, POSE_TRS * sizeof(float));
		for (int e = 0; e < 16; e++)
			m[e] = (float)pa->pose.world[n * 16 + e];
		buf_append(b, m, sizeof(m));
	}
}

/* Whether every float of the pose just made holds in float32; when one does not (rest values
 * or keys near float32's limits multiply beyond it), pa->failure names the node and the time,
 * and the answer stops there rather than write a number JSON cannot hold. */
static int pose_finite(struct pose_answer *pa, float t)
{
	for (size_t n = 0; n < pa->rig.count; n++) {
		int finite = 1;
		char label[96];
		for (int e = 0; e < POSE_TRS && finite; e++)
			finite = isfinite(pa->pose.trs[n * POSE_TRS + e]);
		for (int e = 0; e < 16 && finite; e++)
			finite = isfinite((float)pa->pose.world[n * 16 + e]);
		if (finite)
			continue;
		rig_node_label(&pa->rig.nodes[n], label, sizeof(label));
		error_set(&pa->failure, ERROR_VALUE_OUT_OF_RANGE, "t", -1,
		          "t: at %.9g s the pose of %s (source %" PRIu32 ") is beyond a 32-bit "
		          "float's range: its values or its ancestors' multiply past +-3.4e38",
		          (double)t, label, pa->rig.nodes[n].source);
		return 0;
	}
	return 1;
}

int pose_answer_produce(struct pose_answer *pa, struct buf *b)
{
	size_t start = b->len;

	if (pa->phase == PHASE_HEAD) {
		if (pa->format == FORMAT_JSON) {
			char *head = json_dumps(pa->head, JSON_COMPACT);
			size_t len = head ? strlen(head) : 0;
			if (!head) {
				b->overflow = 1;
				return 0;
			}
			/* the head without its closing brace, then the count and the poses */
			buf_append(b, head, len - 1);
			buf_printf(b, ",\"count\":%zu,\"poses\":[", pa->times.count);
			free(head);
		}
		pa->phase = PHASE_POSES;
	}
	while (pa->phase == PHASE_POSES && b->len - start < PIECE_BYTES && !b->overflow) {
		float t;
		if (pa->i >= pa->times.count) {
			pa->phase = PHASE_TAIL;
			break;
		}
		track_answer_times(&pa->times, pa->i, 1, &t);
		pose_at(&pa->pose, t);
		if (!pose_finite(pa, t)) {
			b->overflow = 1;
			pa->phase = PHASE_DONE;
			return 0;
		}
		if (pa->format == FORMAT_JSON)
			put_pose_json(pa, t, b);
		else
			put_pose_f32(pa, t, b);
		pa->i++;
	}
	if (pa->phase == PHASE_TAIL) {
		if (pa->format == FORMAT_JSON)
			buf_puts(b, "]}");
		pa->phase = PHASE_DONE;
	}
	return pa->phase != PHASE_DONE;
}

long pose_answer_fill(void *state, char *out, size_t room)
{
	struct pose_answer *pa = state;
	size_t n = 0;

	while (n < room) {
		if (pa->sent < pa->pending.len) {
			n += buf_give(&pa->pending, &pa->sent, out + n, room - n);
			continue;
		}
		if (pa->phase == PHASE_DONE)
			break;
		pa->pending.len = 0;
		pa->sent = 0;
		pose_answer_produce(pa, &pa->pending);
		if (pa->pending.overflow)
			return -1;
	}
	return (long)n;
}
