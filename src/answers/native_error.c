/* native_error.c: native's answers in object space (include/answers/native_error.h): the rig
 * an entry is judged on, reduce=object before the encoder writes the keys, and the file the
 * encoder wrote decoded again and measured against the entry. */
#include "answers/native_error.h"

#include <stdlib.h>
#include <string.h>

#include "core/object_error.h"
#include "core/reduce.h"
#include "formats/format.h"

#define ACL_THRESHOLD_CM 0.01 /* without reduce=object, the share under it is reported */

/* The pose target of channel i of r. */
static struct pose_target target_of(const struct resource *r, size_t i)
{
	const struct channel *ch = &r->clip.channels[i];
	const struct target *tg = &r->clip.targets[ch->target];
	const struct track_extra *x = r->extras ? &r->extras[i] : NULL;
	struct pose_target t = {tg->schema,        tg->object,  tg->name, x ? x->has_handle : 0,
	                        x ? x->handle : 0, ch->property};

	return t;
}

/* r's tracks that move a node of the rig, as object tracks; channel[] their channels. */
static size_t match(const struct resource *r, const struct rig *rig, int own_rig,
                    struct object_track *out, size_t *channel)
{
	size_t m = 0;

	for (size_t i = 0; i < r->clip.channel_count; i++) {
		const char *why;
		if (r->extras && r->extras[i].events)
			continue;
		if (object_track_match(rig, target_of(r, i), own_rig,
		                       &r->clip.samplers[r->clip.channels[i].sampler], &out[m],
		                       &why) == 0)
			channel[m++] = i;
	}
	return m;
}

static int oom(struct error *err)
{
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

/* reduce=object: src's matched tracks reduced together into ne->reduced. */
static int reduce_entry(const struct native_request *rq, const struct resource *src,
                        struct native_error *ne, struct error *err)
{
	size_t n = src->clip.channel_count, m;
	struct object_track *ot = calloc(n + 1, sizeof(*ot));
	size_t *channel = calloc(n + 1, sizeof(*channel));
	struct sampler *out = calloc(n + 1, sizeof(*out));
	unsigned char *taken = calloc(src->clip.sampler_count + 1, 1);
	struct object_scale scale;
	struct reduce_object_options opt;
	struct reduce_object_result r;
	int rc = -1;

	if (!ot || !channel || !out || !taken) {
		oom(err);
		goto done;
	}
	m = match(src, ne->rig, ne->own_rig, ot, channel);
	if (m == 0) {
		error_set(err, ERROR_INVALID, "reduce", -1,
		          "reduce: object measures the error where the rig's nodes go, and entry "
		          "%lld moves no node of %s; give skeleton=ID, a rig its tracks move, or "
		          "reduce=TOLERANCE",
		          (long long)rq->id, rq->skeleton ? "that skeleton" : "its own rig");
		goto done;
	}
	if (object_error_scale(ne->rig, ot, m, &scale) < 0) {
		oom(err);
		goto done;
	}
	opt.threshold = reduce_length_units(&rq->object.error, &scale);
	opt.vv = reduce_length_units(&rq->object.vv, &scale);
	opt.duration = src->clip.duration;
	opt.fit = REDUCE_LINEAR;
	if (reduce_object(ne->rig, ot, m, &opt, out, &r) < 0) {
		oom(err);
		goto done;
	}
	ne->reduced = *src;
	ne->samplers = malloc((src->clip.sampler_count + 1) * sizeof(*ne->samplers));
	if (!ne->samplers) {
		oom(err);
		goto done;
	}
	memcpy(ne->samplers, src->clip.samplers, src->clip.sampler_count * sizeof(*ne->samplers));
	ne->reduced.clip.samplers = ne->samplers;
	for (size_t j = 0; j < m; j++) { /* a sampler two channels share: reduced once */
		uint32_t s = src->clip.channels[channel[j]].sampler;
		if (taken[s])
			continue;
		taken[s] = 1;
		ne->samplers[s] = out[j];
		memset(&out[j], 0, sizeof(out[j]));
	}
	ne->owned = taken; /* the samplers not reduced are the entry's */
	taken = NULL;
	ne->reduction = json_pack("{s:s, s:{s:I, s:I}}", "reduce", "object", "keys", "before",
	                          (json_int_t)r.keys_before, "after", (json_int_t)r.keys_after);
	rc = ne->reduction ? 0 : oom(err);
done:
	for (size_t j = 0; out && j < n; j++) {
		free(out[j].times);
		free(out[j].values);
	}
	free(ot);
	free(channel);
	free(out);
	free(taken);
	return rc;
}

int native_error_prepare(struct catalog *cat, const struct native_request *rq,
                         const struct resource *src, struct native_error *ne,
                         const struct resource **use, struct error *err)
{
	memset(ne, 0, sizeof(*ne));
	rig_init(&ne->skeleton);
	*use = src;
	if (rq->skeleton) {
		if (catalog_read_skeleton(cat, rq->skeleton, &ne->skeleton, err) < 0)
			return -1;
		ne->rig = &ne->skeleton;
	} else if (src->rig.count > 0) {
		ne->rig = &src->rig;
		ne->own_rig = 1;
	}
	if (!rq->object.object)
		return 0;
	if (!ne->rig) {
		error_set(
		    err, ERROR_INVALID, "reduce", -1,
		    "reduce: object measures the error where a rig's nodes go, and entry %lld "
		    "has no rig of its own; give skeleton=ID (a Skel_Z its bones are on) or "
		    "reduce=TOLERANCE",
		    (long long)rq->id);
		return -1;
	}
	if (reduce_entry(rq, src, ne, err) < 0)
		return -1;
	*use = &ne->reduced;
	return 0;
}

static void note(json_t *report, const char *text)
{
	json_t *notes = json_object_get(report, "notes");

	if (!json_is_array(notes))
		json_object_set_new(report, "notes", notes = json_array());
	json_object_set_new(report, "object_error", json_null());
	json_array_append_new(notes, json_string(text));
}

int native_error_report(const struct native_request *rq, struct native_error *ne,
                        const struct resource *src, const struct upload *as,
                        struct native_file *out, struct error *err)
{
	struct upload again = *as;
	struct decode_result dr;
	struct error decode_err;
	const struct resource *got;
	const char *order = json_string_value(json_object_get(out->report, "byte_order"));
	size_t n = src->clip.channel_count, m = 0, k = 0, times_count = 0;
	struct object_track *a = NULL, *b = NULL;
	size_t *channel = NULL;
	struct object_scale scale;
	struct object_error_report e;
	float *times = NULL;
	double threshold, vv;
	json_t *figures;
	int rc = -1;

	if (ne->reduction)
		json_object_set(out->report, "reduction", ne->reduction);
	if (!ne->rig) {
		note(out->report,
		     "object_error: the entry is on no rig (none of its own, and no "
		     "skeleton= given): give skeleton=ID to measure it in object space");
		return 0;
	}
	again.data = out->bytes;
	again.length = out->length;
	again.siblings = NULL;
	again.sibling_count = 0;
	if (order)
		again.endian = order;
	error_init(&decode_err);
	decode_result_init(&dr);
	if (format_decode(&again, &dr, &decode_err) < 0 || dr.count < 1 ||
	    (got = dr.resources[0])->clip.channel_count == 0) {
		decode_result_cleanup(&dr);
		note(out->report, "object_error: the file holds no animation to measure");
		return 0;
	}
	a = calloc(n + 1, sizeof(*a));
	b = calloc(got->clip.channel_count + 1, sizeof(*b));
	channel = calloc((n > got->clip.channel_count ? n : got->clip.channel_count) + 1,
	                 sizeof(*channel));
	if (!a || !b || !channel)
		goto done;
	m = match(src, ne->rig, ne->own_rig, a, channel);
	/* the file's tracks by handle or name (a Zouna file's are by handle), else as the entry's
	 */
	k = match(got, ne->rig, 0, b, channel);
	if (k == 0 && ne->own_rig)
		k = match(got, ne->rig, 1, b, channel);
	if (m == 0) {
		note(out->report, "object_error: the entry's tracks move no node of the rig");
		rc = 0;
		goto done;
	}
	if (object_error_scale(ne->rig, a, m, &scale) < 0 ||
	    object_error_times(a, m, src->clip.duration, &times, &times_count) < 0)
		goto done;
	threshold = rq->object.object ? reduce_length_units(&rq->object.error, &scale)
	                              : ACL_THRESHOLD_CM * scale.units_per_cm;
	vv = reduce_length_units(&rq->object.vv, &scale);
	if (object_error_compare(ne->rig, a, m, b, k, times, times_count, vv, threshold, &e) < 0)
		goto done;
	figures = reduce_error_json(ne->rig, &scale, &e, threshold, vv);
	if (!figures)
		goto done;
	json_object_set_new(figures, "measured",
	                    json_string("the file as the game reads it (decoded again) against "
	                                "the entry"));
	json_object_set_new(out->report, "object_error", figures);
	rc = 0;
done:
	if (rc < 0)
		oom(err);
	free(a);
	free(b);
	free(channel);
	free(times);
	decode_result_cleanup(&dr);
	return rc;
}

void native_error_cleanup(struct native_error *ne)
{
	for (size_t s = 0; ne->samplers && ne->owned && s < ne->reduced.clip.sampler_count; s++)
		if (ne->owned[s]) {
			free(ne->samplers[s].times);
			free(ne->samplers[s].values);
		}
	free(ne->samplers);
	free(ne->owned);
	json_decref(ne->reduction);
	rig_cleanup(&ne->skeleton);
	memset(ne, 0, sizeof(*ne));
}
