/* retarget_answer.c: GET /api/resources/{id}/retarget's answer (retarget_answer.h): the clip's
 * tracks matched to the nodes of the rig it moves, put on the target's through the map, and
 * said as a report, as JSON keys or as a glTF animation on the target's node tree. */
#include "answers/retarget_answer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/bonemap_answer.h"
#include "export_internal.h"
#include "core/pose.h"
#include "render/render.h"
#include "render/render_float.h"

struct retarget_answer {
	struct retarget_request rq;
	struct catalog_entry entry; /* the clip, with its tracks' targets */
	struct rig from, to;
	struct bonemap map;
	struct catalog_track *tracks; /* the tracks that move a node of `from`, read */
	struct retarget_input *inputs;
	size_t input_count;
	json_t *ignored;   /* [{"n", "reason"}]: tracks that move no node of `from` */
	json_t *not_found; /* a stored map's pairs whose bones are not there, or NULL */
	struct retarget_result result;
	struct retarget_quality quality;
	size_t bytes; /* of the keys held */
};

void retarget_answer_free(struct retarget_answer *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->input_count; i++)
		catalog_track_cleanup(&a->tracks[i]);
	free(a->tracks);
	free(a->inputs);
	retarget_result_cleanup(&a->result);
	bonemap_cleanup(&a->map);
	rig_cleanup(&a->from);
	rig_cleanup(&a->to);
	catalog_entry_cleanup(&a->entry);
	json_decref(a->ignored);
	json_decref(a->not_found);
	free(a);
}

/* The rig the clip moves: from='s, or its own. */
static int read_source_rig(struct catalog *cat, struct retarget_answer *a, struct error *err)
{
	if (a->rq.from)
		return catalog_read_rig_of(cat, a->rq.from, "from", &a->from, err);
	if (catalog_read_rig(cat, a->rq.id, &a->from, err) < 0)
		return -1;
	if (a->from.count > 0)
		return 0;
	error_set(err, ERROR_CONFLICT, "from", -1,
	          "entry %" PRId64 " (%s) has no rig of its own: say which skeleton it moves "
	          "with from=ID (GET /api/resources/%" PRId64 "/skeletons lists those that fit)",
	          a->rq.id, a->entry.class_name, a->rq.id);
	return -1;
}

static int ignore(struct retarget_answer *a, unsigned n, const char *why)
{
	return json_array_append_new(a->ignored,
	                             json_pack("{s:I, s:s}", "n", (json_int_t)n, "reason", why));
}

/* Each track of the clip that moves a node of `from`, read into an input. */
static int read_inputs(struct catalog *cat, struct retarget_answer *a, struct error *err)
{
	const int own = a->rq.from == 0;

	a->tracks = calloc(a->entry.track_count + 1, sizeof(*a->tracks));
	a->inputs = calloc(a->entry.track_count + 1, sizeof(*a->inputs));
	if (!a->tracks || !a->inputs || !(a->ignored = json_array()))
		goto oom;
	for (size_t i = 0; i < a->entry.track_count; i++) {
		const struct catalog_target *track = &a->entry.tracks[i];
		struct pose_target t = track->target;
		struct catalog_track *ct = &a->tracks[a->input_count];
		const char *why = NULL;
		int euler = pose_target_euler(&t);
		int32_t node = track->events ? (why = "it holds events", -1)
		                             : pose_match(&a->from, &t, own, &why);
		if (node >= 0 && strcmp(t.schema, SCHEMA_NODE) != 0)
			node = (why = "it moves no node's translation, rotation or scale", -1);
		if (node < 0) {
			if (ignore(a, track->n, why) < 0)
				goto oom;
			continue;
		}
		if (catalog_read_track(cat, a->rq.id, track->n, ct, err) < 0)
			return -1;
		if ((why =
		         pose_sampler_fits((enum node_property)t.property, euler, &ct->sampler))) {
			catalog_track_cleanup(ct);
			if (ignore(a, track->n, why) < 0)
				goto oom;
			continue;
		}
		a->bytes += ct->sampler.value_bytes + ct->sampler.key_count * sizeof(float);
		a->inputs[a->input_count].node = (uint32_t)node;
		a->inputs[a->input_count].property = (enum node_property)t.property;
		a->inputs[a->input_count].euler = euler;
		a->inputs[a->input_count].sampler = &ct->sampler;
		a->input_count++;
	}
	return 0;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

struct retarget_answer *retarget_answer_make(struct catalog *cat, const struct retarget_request *rq,
                                             struct error *err)
{
	struct retarget_answer *a = calloc(1, sizeof(*a));

	if (!a) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	a->rq = *rq;
	rig_init(&a->from);
	rig_init(&a->to);
	if (catalog_entry_read(cat, rq->id, CATALOG_ENTRY_TRACKS, &a->entry, err) < 0 ||
	    read_source_rig(cat, a, err) < 0 ||
	    catalog_read_rig_of(cat, rq->onto, "onto", &a->to, err) < 0 ||
	    rig_check(&a->from, err) < 0 || rig_check(&a->to, err) < 0)
		goto fail;
	if (rq->map ? bonemap_answer_stored(cat, rq->map, &a->from, &a->to, &a->map, &a->not_found,
	                                    err) < 0
	            : bonemap_propose(&a->from, &a->to, &a->map) < 0)
		goto fail;
	if (read_inputs(cat, a, err) < 0 ||
	    retarget_run(&a->from, a->inputs, a->input_count, &a->to, &a->map, &rq->opt, &a->result,
	                 err) < 0 ||
	    (!rq->unmeasured &&
	     retarget_measure(&a->from, a->inputs, a->input_count, &a->to, &a->map, &rq->opt,
	                      &a->result, &a->quality, err) < 0))
		goto fail;
	for (size_t i = 0; i < a->result.track_count; i++)
		a->bytes += a->result.tracks[i].sampler.value_bytes +
		            a->result.tracks[i].sampler.key_count * sizeof(float);
	return a;
fail:
	if (!error_is_set(err))
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	retarget_answer_free(a);
	return NULL;
}

const struct rig *retarget_answer_rig(const struct retarget_answer *a)
{
	return &a->to;
}

const struct retarget_result *retarget_answer_result(const struct retarget_answer *a)
{
	return &a->result;
}

void retarget_answer_file_name(const struct retarget_answer *a, char *out, size_t size)
{
	snprintf(out, size, "%s on %" PRId64, a->entry.name ? a->entry.name : "retargeted",
	         a->rq.onto);
}

size_t retarget_answer_memory(const struct retarget_answer *a)
{
	return sizeof(*a) + a->bytes + (a->from.count + a->to.count) * sizeof(struct rig_node);
}

static const char *const mode_names[] = {"rest", "world"};
static const char *const root_names[] = {"scale", "keep", "in_place"};

static json_t *bone_json(const struct rig *rig, int32_t i)
{
	char label[300];

	if (i < 0)
		return json_null();
	rig_node_label(&rig->nodes[i], label, sizeof(label));
	return json_pack("{s:I, s:s}", "source", (json_int_t)rig->nodes[i].source, "name", label);
}

/* A figure of the quality, or null where it has no meaning (-1). */
static json_t *figure(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

/* Keys' floats as JSON text: key k's `width` floats from `at` + k * stride, each key an array
 * (width > 1) or a number; "[...]" into a splice. */
static int floats_text(struct render_splices *sp, json_t **placeholder, const float *v, size_t keys,
                       size_t stride, size_t at, size_t width)
{
	struct buf b;
	char text[32];

	buf_init(&b, (size_t)1 << 31);
	buf_putc(&b, '[');
	for (size_t k = 0; k < keys; k++) {
		if (k)
			buf_putc(&b, ',');
		if (width > 1)
			buf_putc(&b, '[');
		for (size_t c = 0; c < width; c++) {
			if (c)
				buf_putc(&b, ',');
			buf_append(&b, text, render_float(v[k * stride + at + c], 0, text));
		}
		if (width > 1)
			buf_putc(&b, ']');
	}
	buf_putc(&b, ']');
	if (b.overflow || (sp->count == sp->cap && export_grow_splices(sp) < 0) ||
	    !(*placeholder = json_string(""))) {
		buf_cleanup(&b);
		return -1;
	}
	sp->items[sp->count].value = *placeholder;
	sp->items[sp->count].text = buf_steal(&b, &sp->items[sp->count].length);
	sp->count++;
	return 0;
}

/* One written track with its keys (their floats as text, in sp). */
static json_t *track_keys(const struct retarget_answer *a, const struct retarget_track *t,
                          struct render_splices *sp)
{
	const struct sampler *s = &t->sampler;
	size_t width = value_type_components(s->type),
	       per = s->interp == INTERP_CUBIC_SPLINE ? 3 : 1;
	json_t *times = NULL, *values = NULL, *in = NULL, *out = NULL, *o;
	char label[300];

	rig_node_label(&a->to.nodes[t->node], label, sizeof(label));
	if (floats_text(sp, &times, s->times, s->key_count, 1, 0, 1) < 0 ||
	    floats_text(sp, &values, s->values, s->key_count, per * width, per == 3 ? width : 0,
	                width) < 0 ||
	    (per == 3 &&
	     (floats_text(sp, &in, s->values, s->key_count, per * width, 0, width) < 0 ||
	      floats_text(sp, &out, s->values, s->key_count, per * width, 2 * width, width) < 0))) {
		json_decref(times);
		json_decref(values);
		json_decref(in);
		return NULL;
	}
	o = json_pack("{s:I, s:s, s:s, s:s, s:b, s:o, s:o}", "node",
	              (json_int_t)a->to.nodes[t->node].source, "name", label, "property",
	              t->property == NODE_ROTATION ? "rotation" : "translation", "interpolation",
	              interpolation_name(s->interp), "baked", t->baked, "times", times, "values",
	              values);
	if (t->euler)
		json_object_set_new(
		    o, "euler",
		    json_string(t->euler == POSE_EULER_ZOUNA
		                    ? "radians, X then Y then Z"
		                    : schema_property_name(SCHEMA_MOCAP, (uint64_t)t->euler)));
	if (per == 3) {
		json_object_set_new(o, "in_tangents", in);
		json_object_set_new(o, "out_tangents", out);
	}
	return o;
}

static json_t *notes_json(const struct retarget_answer *a)
{
	json_t *notes = json_array();
	const struct retarget_result *r = &a->result;

	if (r->euler_linear)
		json_array_append_new(notes,
		                      json_string("Euler rotations became quaternion keys at "
		                                  "the same times: between keys the turn is a "
		                                  "slerp, not a line in angles"));
	if (r->keys_baked)
		json_array_append_new(
		    notes, json_string("where a bone's nearest mapped ancestor is not its source's "
		                       "parent, its rotation was baked at every key time of the "
		                       "source"));
	if (r->samples_capped)
		json_array_append_new(notes, json_sprintf("baked tracks were sampled at %d of the "
		                                          "source's key times, evenly taken",
		                                          RETARGET_MAX_SAMPLES));
	if (r->hip_to < 0)
		json_array_append_new(notes, json_string("no bone is mapped: nothing moves"));
	json_array_append_new(notes, json_string("y is up on both rigs: the heights, the ground "
	                                         "and in_place are along y"));
	return notes;
}

static json_t *report_json(const struct retarget_answer *a);

json_t *retarget_answer_json(const struct retarget_answer *a)
{
	return report_json(a);
}

char *retarget_answer_text(const struct retarget_answer *a, size_t *length)
{
	struct render_splices sp = {NULL, 0, 0};
	json_t *o = report_json(a), *list = json_array();
	char *text = NULL;

	for (size_t i = 0; o && list && i < a->result.track_count; i++) {
		json_t *t = track_keys(a, &a->result.tracks[i], &sp);
		if (!t || json_array_append_new(list, t) < 0)
			goto done;
	}
	if (o && list && json_object_set(o, "retargeted", list) == 0)
		text = render_json_spliced(o, &sp, length);
done:
	json_decref(o);
	json_decref(list);
	for (size_t i = 0; i < sp.count; i++)
		free((char *)sp.items[i].text);
	free(sp.items);
	return text;
}

static json_t *report_json(const struct retarget_answer *a)
{
	const struct retarget_result *r = &a->result;
	const struct retarget_quality *q = &a->quality;
	json_t *map = bonemap_answer_json(a->rq.from ? a->rq.from : a->rq.id, &a->from, a->rq.onto,
	                                  &a->to, &a->map);
	json_t *o;
	size_t baked = 0;

	for (size_t i = 0; i < r->track_count; i++)
		baked += r->tracks[i].baked;
	if (a->rq.map) {
		json_object_set_new(map, "map", json_integer((json_int_t)a->rq.map));
		json_object_set(map, "not_found", a->not_found);
	}
	o = json_pack(
	    "{s:I, s:I, s:o, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:O}, s:{s:I, s:I}, "
	    "s:{s:{s:o, s:o}, s:f, s:{s:f, s:f}}, s:{s:b, s:f, s:o, s:I, s:{s:o, s:o}, s:I}, s:o}",
	    "id", (json_int_t)a->rq.id, "onto", (json_int_t)a->rq.onto, "from",
	    a->rq.from ? json_integer((json_int_t)a->rq.from) : json_null(), "mode",
	    mode_names[a->rq.opt.mode], "root", root_names[a->rq.opt.root], "map", map, "tracks",
	    "source", (json_int_t)a->entry.track_count, "matched", (json_int_t)a->input_count,
	    "written", (json_int_t)r->track_count, "baked", (json_int_t)baked, "ignored",
	    a->ignored, "keys", "rewritten", (json_int_t)r->keys_rewritten, "baked",
	    (json_int_t)r->keys_baked, "root_motion", "hips", "from",
	    bone_json(&a->from, r->hip_from), "to", bone_json(&a->to, r->hip_to), "scale",
	    r->root_scale, "heights", "from", r->height_from, "to", r->height_to, "quality",
	    "identity", r->identity, "cycle", q->cycle, "effectors", figure(q->effectors),
	    "effector_count", (json_int_t)q->effector_count, "foot_skate", "from",
	    figure(q->skate_from), "to", figure(q->skate_to), "samples", (json_int_t)q->samples,
	    "notes", notes_json(a));
	if (!o)
		return NULL;
	json_object_set_new(o, "ground", json_boolean(a->rq.opt.ground));
	if (a->rq.unmeasured) /* not worked out: said as such, not as zeros */
		json_object_set_new(o, "quality", json_null());
	json_object_set_new(json_object_get(o, "root_motion"), "hip_ratio",
	                    json_real(r->hip_ratio));
	return o;
}

/* What a written track says of its target, as a stored track would. */
static void written_target(const struct retarget_answer *a, const struct retarget_track *t,
                           unsigned n, struct catalog_target *out)
{
	const struct rig_node *node = &a->to.nodes[t->node];

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->name = node->name;
	out->kind = "node";
	out->handle_name = node->handle_name;
	out->target.schema = t->euler == POSE_EULER_ZOUNA ? SCHEMA_ZOUNA
	                     : t->euler                   ? SCHEMA_MOCAP
	                                                  : SCHEMA_NODE;
	out->target.property = t->euler == POSE_EULER_ZOUNA ? ZOUNA_EULER_ROTATION
	                       : t->euler                   ? (uint64_t)t->euler
	                                                    : (uint64_t)t->property;
	out->target.object = node->source;
	out->target.name = node->name;
	out->target.has_handle = node->has_handle;
	out->target.handle = node->handle;
	out->type = t->sampler.type;
	out->array_size = t->sampler.array_size;
	out->key_count = t->sampler.key_count;
	out->interp = t->sampler.interp;
}

int retarget_answer_export(const struct retarget_answer *a, struct exporter *ex, struct error *err)
{
	const struct retarget_result *r = &a->result;
	struct export_entry e;
	int rc = -1;

	memset(&e, 0, sizeof(e));
	e.id = a->rq.id;
	e.entry = a->entry; /* its summary; the tracks are the written ones */
	e.entry.tracks = calloc(r->track_count + 1, sizeof(*e.entry.tracks));
	e.entry.track_count = r->track_count;
	e.tracks = calloc(r->track_count + 1, sizeof(*e.tracks));
	e.track_count = r->track_count;
	if (!e.entry.tracks || !e.tracks || rig_copy(&a->to, &e.rig) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < r->track_count; i++) {
		written_target(a, &r->tracks[i], (unsigned)i, &e.entry.tracks[i]);
		e.tracks[i].resource_id = a->rq.id;
		e.tracks[i].n = (unsigned)i;
		e.tracks[i].borrowed = 1; /* the answer's keys */
		e.tracks[i].sampler = r->tracks[i].sampler;
	}
	rc = exporter_add_entry(ex, &e, err);
done:
	free(e.entry.tracks);
	free(e.tracks);
	rig_cleanup(&e.rig);
	return rc;
}

/* A written track's target as a resource has it (copied into t). */
static int resource_target(const struct retarget_answer *a, const struct retarget_track *rt,
                           struct target *t)
{
	const struct rig_node *node = &a->to.nodes[rt->node];
	char handle[16];

	snprintf(t->schema, sizeof(t->schema), "%s",
	         rt->euler == POSE_EULER_ZOUNA ? SCHEMA_ZOUNA
	         : rt->euler                   ? SCHEMA_MOCAP
	                                       : SCHEMA_NODE);
	t->object = node->source;
	snprintf(handle, sizeof(handle), "0x%08" PRIX32, node->handle);
	t->name = node->has_handle ? strdup(handle) : node->name ? strdup(node->name) : NULL;
	return node->has_handle || node->name ? (t->name ? 0 : -1) : 0;
}

struct resource *retarget_answer_resource(const struct retarget_answer *a)
{
	const struct retarget_result *r = &a->result;
	struct resource *res = resource_create("retarget", "RetargetedClip");
	size_t n = r->track_count;
	double duration = 0;

	if (!res)
		return NULL;
	res->crc32 = a->entry.crc32;
	res->clip.targets = calloc(n + 1, sizeof(struct target));
	res->clip.samplers = calloc(n + 1, sizeof(struct sampler));
	res->clip.channels = calloc(n + 1, sizeof(struct channel));
	res->track_names = calloc(n + 1, sizeof(char *));
	if ((a->entry.name && !(res->name = strdup(a->entry.name))) || !res->clip.targets ||
	    !res->clip.samplers || !res->clip.channels || !res->track_names)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const struct retarget_track *t = &r->tracks[i];
		struct sampler *s = &res->clip.samplers[i];
		char label[300], name[340];
		*s = t->sampler;
		s->times = malloc((size_t)s->key_count * sizeof(float) + 1);
		s->values = malloc(s->value_bytes + 1);
		res->clip.target_count = res->clip.sampler_count = res->clip.channel_count = i + 1;
		if (!s->times || !s->values || resource_target(a, t, &res->clip.targets[i]) < 0)
			goto fail;
		memcpy(s->times, t->sampler.times, (size_t)s->key_count * sizeof(float));
		memcpy(s->values, t->sampler.values, s->value_bytes);
		res->clip.channels[i].target = (uint32_t)i;
		res->clip.channels[i].sampler = (uint32_t)i;
		res->clip.channels[i].property = t->euler == POSE_EULER_ZOUNA ? ZOUNA_EULER_ROTATION
		                                 : t->euler                   ? (uint64_t)t->euler
		                                            : (uint64_t)t->property;
		rig_node_label(&a->to.nodes[t->node], label, sizeof(label));
		snprintf(name, sizeof(name), "%s %s", label,
		         t->property == NODE_ROTATION ? "rotation" : "translation");
		if (!(res->track_names[i] = strdup(name)))
			goto fail;
		if (s->times[s->key_count - 1] > duration)
			duration = s->times[s->key_count - 1];
	}
	res->clip.duration = duration;
	return res;
fail:
	resource_free(res);
	return NULL;
}

static void free_answer(void *a)
{
	retarget_answer_free(a);
}

void retarget_answer_entry(struct retarget_answer *a, struct export_entry *out)
{
	const struct retarget_result *r = &a->result;
	struct catalog_target *written = calloc(r->track_count + 1, sizeof(*written));
	struct catalog_track *tracks = calloc(r->track_count + 1, sizeof(*tracks));

	memset(out, 0, sizeof(*out));
	out->id = a->rq.id;
	out->entry = a->entry; /* taken over: its texts are the entry's now */
	memset(&a->entry, 0, sizeof(a->entry));
	free(out->entry.tracks); /* the clip's own targets: the written ones instead */
	out->entry.tracks = written;
	out->entry.track_count = written && tracks ? r->track_count : 0;
	out->tracks = tracks;
	out->track_count = out->entry.track_count;
	for (size_t i = 0; i < out->track_count; i++) {
		written_target(a, &r->tracks[i], (unsigned)i, &written[i]);
		tracks[i].resource_id = a->rq.id;
		tracks[i].n = (unsigned)i;
		tracks[i].borrowed = 1;
		tracks[i].sampler = r->tracks[i].sampler;
		out->bytes += r->tracks[i].sampler.value_bytes;
	}
	out->owner = a;
	out->owner_free = free_answer;
}

static int read_retargeted(void *ctx, struct catalog *cat, int64_t id, struct export_entry *out,
                           struct error *err)
{
	struct retarget_request rq = *(const struct retarget_request *)ctx;
	struct retarget_answer *a;

	rq.id = id;
	if (!(a = retarget_answer_make(cat, &rq, err)))
		return -1;
	retarget_answer_entry(a, out);
	if (out->track_count != a->result.track_count) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1; /* the caller cleans out up, and a with it */
	}
	return 0;
}

int retarget_export_source(const struct retarget_request *rq, struct export_source *out)
{
	struct retarget_request *ctx = malloc(sizeof(*ctx));

	if (!ctx)
		return -1;
	*ctx = *rq;
	ctx->unmeasured = 1;
	out->read = read_retargeted;
	out->free = free;
	out->ctx = ctx;
	return 0;
}
