/* reduce_answer.c: reduce= on an export (include/answers/reduce_answer.h): the parameters, an
 * export source that reduces each entry as it is read (the same keys every time it is read
 * again, as a large asset is sent), and the report of each entry's reduction. */
#include "answers/reduce_answer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "core/reduce.h"
#include "formats/native.h"

#define ACL_THRESHOLD_CM 0.01 /* the share of samples under it is ACL's figure */

/* error= and vv=: "0.01cm", "0.1mm", "0.002" (rig units). */
static int parse_length(const char *name, const char *text, struct reduce_length *out,
                        struct error *err)
{
	size_t digits = strspn(text, "0123456789.eE+-");
	const char *unit = text + digits;
	char *end = NULL;
	double v = digits > 0 ? strtod(text, &end) : NAN;

	if (!end || end != unit || !(v > 0) || !isfinite(v) ||
	    (*unit && strcmp(unit, "cm") != 0 && strcmp(unit, "mm") != 0)) {
		error_set(
		    err, ERROR_BAD_PARAMETER, name, -1,
		    "%s: '%.64s' is not a length: a number above 0, followed by cm or mm (on "
		    "the rig scaled to a person of %g cm) or by nothing (the rig's own units)",
		    name, text, OBJECT_ERROR_HUMAN_CM);
		return -1;
	}
	out->in_cm = *unit != '\0';
	out->value = strcmp(unit, "mm") == 0 ? v / 10 : v;
	return 0;
}

int reduce_request_parse(struct reduce_request *rq, const char *(*arg)(void *ctx, const char *name),
                         void *ctx, struct error *err)
{
	const char *reduce = arg(ctx, "reduce"), *error = arg(ctx, "error"), *vv = arg(ctx, "vv");

	memset(rq, 0, sizeof(*rq));
	rq->error.value = ACL_THRESHOLD_CM;
	rq->error.in_cm = 1;
	rq->vv.value = OBJECT_ERROR_DEFAULT_VV;
	rq->vv.in_cm = 1;
	if (!reduce) {
		const char *stray = error ? "error" : vv ? "vv" : NULL;
		if (stray) {
			error_set(err, ERROR_BAD_PARAMETER, stray, -1,
			          "%s: is a setting of reduce=object; give reduce=object with it",
			          stray);
			return -1;
		}
		return 0;
	}
	rq->wanted = 1;
	if (strcmp(reduce, "object") == 0) {
		rq->object = 1;
		return (error && parse_length("error", error, &rq->error, err) < 0) ||
		               (vv && parse_length("vv", vv, &rq->vv, err) < 0)
		           ? -1
		           : 0;
	}
	{
		char *end = NULL;
		double v = strspn(reduce, "0123456789.eE+-") == strlen(reduce) && *reduce
		               ? strtod(reduce, &end)
		               : NAN;
		if (!end || *end || !(v > 0 && v <= NATIVE_MAX_TOLERANCE)) {
			error_set(
			    err, ERROR_BAD_PARAMETER, "reduce", -1,
			    "reduce: '%.64s' is neither object (the fewest keys across the rig "
			    "within a largest object-space error, error=0.01cm) nor a tolerance "
			    "(a number above 0 and at most %g, in each track's own units)",
			    reduce, NATIVE_MAX_TOLERANCE);
			return -1;
		}
		rq->tolerance = v;
	}
	if (error || vv) {
		error_set(err, ERROR_BAD_PARAMETER, error ? "error" : "vv", -1,
		          "%s: is a setting of reduce=object, not of reduce=%.32s (a tolerance of "
		          "each track's own)",
		          error ? "error" : "vv", reduce);
		return -1;
	}
	return 0;
}

struct reduce_source {
	struct reduce_request rq;
	json_t *reports;
};

static double rig_units(const struct reduce_length *l, const struct object_scale *scale)
{
	return l->in_cm ? l->value * scale->units_per_cm : l->value;
}

static json_t *length_json(double units, const struct object_scale *scale)
{
	return json_pack("{s:f, s:f}", "rig_units", units, "cm", units / scale->units_per_cm);
}

static const char *height_from(enum object_height_source s)
{
	return s == HEIGHT_REST_POSE    ? "the largest side of the box around the rest pose"
	       : s == HEIGHT_FIRST_POSE ? "the largest side of the box around the first pose "
	                                  "(the rest pose puts every node in one place)"
	                                : "1 (no pose spreads the nodes apart)";
}

/* The report of one entry's reduction. */
static json_t *report_json(int64_t id, const struct reduce_request *rq, uint64_t before,
                           uint64_t after, size_t reduced, size_t kept, const struct rig *rig,
                           const struct object_scale *scale, const struct object_error_report *e,
                           double threshold, double vv)
{
	json_t *r = json_pack("{s:I, s:s, s:{s:I, s:I}, s:{s:I, s:I}}", "entry", (json_int_t)id,
	                      "reduce", rq->object ? "object" : "tolerance", "keys", "before",
	                      (json_int_t)before, "after", (json_int_t)after, "tracks", "reduced",
	                      (json_int_t)reduced, "kept", (json_int_t)kept);
	json_t *extra;

	if (!rq->object)
		json_object_set_new(r, "tolerance", json_real(rq->tolerance));
	if (!e) {
		json_object_set_new(r, "error", json_null());
		json_object_set_new(r, "notes",
		                    json_pack("[s]",
		                              "the entry is on no rig (it has none of its own "
		                              "and no skeleton= was given): its object-space "
		                              "error is not measured"));
		return r;
	}
	extra = reduce_error_json(rig, scale, e, threshold, vv);
	json_object_update(r, extra);
	json_decref(extra);
	return r;
}

json_t *reduce_error_json(const struct rig *rig, const struct object_scale *scale,
                          const struct object_error_report *e, double threshold, double vv)
{
	char label[160];
	json_t *r = json_object();

	rig_node_label(&rig->nodes[e->largest_node], label, sizeof(label));
	json_object_set_new(r, "rig",
	                    json_pack("{s:f, s:s, s:f, s:f}", "height", scale->height,
	                              "height_from", height_from(scale->source), "units_per_cm",
	                              scale->units_per_cm, "person_cm", OBJECT_ERROR_HUMAN_CM));
	json_object_set_new(r, "threshold", length_json(threshold, scale));
	json_object_set_new(r, "vv", length_json(vv, scale));
	json_object_set_new(
	    r, "error",
	    json_pack("{s:o, s:o, s:f, s:I, s:I}", "largest",
	              json_pack("{s:f, s:f, s:s, s:I, s:f}", "rig_units", e->largest, "cm",
	                        e->largest / scale->units_per_cm, "node", label, "source",
	                        (json_int_t)rig->nodes[e->largest_node].source, "time",
	                        (double)e->largest_time),
	              "p99", length_json(e->p99, scale), "share_under_threshold", e->share_under,
	              "samples", (json_int_t)e->samples, "times", (json_int_t)e->times));
	return r;
}

double reduce_length_units(const struct reduce_length *l, const struct object_scale *scale)
{
	return rig_units(l, scale);
}

/* The last key time of the entry's tracks: the clip's extent the errors are sampled over. */
static double extent_of(const struct export_entry *e)
{
	double last = 0;

	for (size_t i = 0; i < e->track_count; i++) {
		const struct sampler *s = &e->tracks[i].sampler;
		if (s->key_count && s->times[s->key_count - 1] > last)
			last = s->times[s->key_count - 1];
	}
	return last;
}

static void take_sampler(struct catalog_track *t, struct sampler *reduced)
{
	free(t->sampler.times);
	free(t->sampler.values);
	t->sampler = *reduced;
	memset(reduced, 0, sizeof(*reduced));
}

/* The entry's tracks on the rig, as object tracks (index of each in map). */
static size_t match_tracks(const struct export_entry *e, const struct rig *rig, int own_rig,
                           struct object_track *ot, size_t *map)
{
	size_t m = 0;

	for (size_t i = 0; rig->count && i < e->track_count; i++) {
		const struct catalog_target *t = &e->entry.tracks[i];
		const char *why;
		if (!t->events && object_track_match(rig, t->target, own_rig, &e->tracks[i].sampler,
		                                     &ot[m], &why) == 0)
			map[m++] = i;
	}
	return m;
}

/* Tracks a and b (m of them) as they are written: each Euler rotation baked into unit
 * quaternions as the export bakes it (b's keys in baked), the rest as they are. */
static int as_written(const struct reduce_request *rq, const struct object_track *a, size_t m,
                      struct object_track *b, struct sampler *baked)
{
	for (size_t j = 0; j < m; j++) {
		b[j] = a[j];
		if (!a[j].euler)
			continue;
		if (export_track_sampler(a[j].keys, 1, a[j].euler, rq->bake_rate, &baked[j]) < 0)
			return -1;
		b[j].keys = &baked[j];
		b[j].euler = 0;
	}
	return 0;
}

/* reduce=object: the m tracks on the rig (ot, the entry's tracks map[j]) reduced as they are
 * written. An Euler rotation is reduced once baked into quaternions, and measured against that
 * bake: it equals the entry's keys at every key, and between keys it turns the short way, as
 * the asset plays (the entry's own Euler angles, interpolated angle by angle, go the long way
 * round where an angle wraps from 179 to -179 degrees); its target becomes a node rotation. */
static int reduce_on_rig(const struct reduce_request *rq, struct export_entry *e,
                         const struct rig *rig, const struct object_track *ot, const size_t *map,
                         size_t m, double threshold, double vv, double duration,
                         struct object_error_report *report, size_t *reduced)
{
	struct object_track *written = calloc(m + 1, sizeof(*written));
	struct sampler *baked = calloc(m + 1, sizeof(*baked)), *out = calloc(m + 1, sizeof(*out));
	struct reduce_object_options opt = {threshold, vv, duration, REDUCE_LINEAR};
	struct reduce_object_result r;
	int rc = -1;

	if (!written || !baked || !out || as_written(rq, ot, m, written, baked) < 0 ||
	    reduce_object(rig, written, m, &opt, out, &r) < 0)
		goto done;
	*report = r.error;
	for (size_t j = 0; j < m; j++) {
		struct catalog_target *t = &e->entry.tracks[map[j]];
		*reduced += out[j].key_count < ot[j].keys->key_count;
		if (ot[j].euler) { /* written as the node rotation it was baked into */
			t->target.schema = SCHEMA_NODE;
			t->target.property = NODE_ROTATION;
			t->type = VALUE_FLOAT4;
		}
		t->interp = out[j].interp;
		t->key_count = out[j].key_count;
		take_sampler(&e->tracks[map[j]], &out[j]);
	}
	rc = 0;
done:
	for (size_t j = 0; j <= m; j++) {
		if (baked) {
			free(baked[j].times);
			free(baked[j].values);
		}
		if (out) {
			free(out[j].times);
			free(out[j].values);
		}
	}
	free(written);
	free(baked);
	free(out);
	return rc;
}

static int reduce_entry(struct reduce_source *rs, int64_t id, struct export_entry *e,
                        const struct rig *rig, struct error *err)
{
	const struct reduce_request *rq = &rs->rq;
	size_t n = e->track_count, m, reduced = 0;
	struct object_track *ot = calloc(n + 1, sizeof(*ot));
	size_t *map = calloc(n + 1, sizeof(*map));
	struct sampler *out = calloc(n + 1, sizeof(*out));
	const struct sampler **changed = calloc(n + 1, sizeof(*changed));
	struct object_scale scale = {1, HEIGHT_UNIT, 1};
	struct object_error_report report = {0};
	uint64_t before = 0, after = 0;
	double threshold = 0, vv = 0, duration = extent_of(e);
	int rc = -1;

	if (!ot || !map || !out || !changed)
		goto oom;
	m = match_tracks(e, rig, rs->rq.skeleton == 0, ot, map);
	if (rq->object && m == 0) {
		error_set(err, ERROR_INVALID, "reduce", -1,
		          "reduce: object measures the error where the rig's nodes go, and entry "
		          "%lld moves no node of %s; give skeleton=ID, a rig its tracks move, or "
		          "reduce=TOLERANCE",
		          (long long)id, rig->count ? "the rig" : "a rig (it has none of its own)");
		goto done;
	}
	if (m > 0 && object_error_scale(rig, ot, m, &scale) < 0)
		goto oom;
	threshold = rig_units(&rq->error, &scale);
	vv = rig_units(&rq->vv, &scale);
	for (size_t i = 0; i < n; i++)
		before += e->tracks[i].sampler.key_count;
	if (rq->object) {
		if (reduce_on_rig(rq, e, rig, ot, map, m, threshold, vv, duration, &report,
		                  &reduced) < 0)
			goto oom;
	} else {
		for (size_t i = 0; i < n; i++) {
			struct reduce_result r;
			if (e->entry.tracks[i].events || !reduce_applies(&e->tracks[i].sampler))
				continue;
			if (reduce_sampler(&e->tracks[i].sampler, rq->tolerance, REDUCE_LINEAR,
			                   &out[i], &r) < 0)
				goto oom;
			reduced += r.keys_after < r.keys_before;
		}
		/* measured before the tracks are replaced: the original is what they are read
		 * against */
		for (size_t j = 0; j < m; j++)
			changed[j] = out[map[j]].times ? &out[map[j]] : NULL;
		if (m > 0) {
			float *times = NULL;
			size_t times_count = 0;
			threshold = ACL_THRESHOLD_CM * scale.units_per_cm;
			if (object_error_times(ot, m, duration, &times, &times_count) < 0 ||
			    object_error_measure(rig, ot, changed, m, times, times_count, vv,
			                         threshold, &report) < 0) {
				free(times);
				goto oom;
			}
			free(times);
		}
		for (size_t i = 0; i < n; i++)
			if (out[i].times)
				take_sampler(&e->tracks[i], &out[i]);
	}
	e->bytes = 0;
	for (size_t i = 0; i < n; i++) {
		after += e->tracks[i].sampler.key_count;
		e->bytes += (size_t)e->tracks[i].sampler.key_count * sizeof(float) +
		            e->tracks[i].sampler.value_bytes;
	}
	if (rs->reports) {
		size_t k = 0;
		while (k < json_array_size(rs->reports) &&
		       json_integer_value(
		           json_object_get(json_array_get(rs->reports, k), "entry")) != id)
			k++;
		if (k == json_array_size(rs->reports))
			json_array_append_new(rs->reports,
			                      report_json(id, rq, before, after, reduced,
			                                  n - reduced, rig, &scale,
			                                  m > 0 ? &report : NULL, threshold, vv));
	}
	rc = 0;
	goto done;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
done:
	for (size_t i = 0; out && i < n; i++) {
		free(out[i].times);
		free(out[i].values);
	}
	free(out);
	free(ot);
	free(map);
	free(changed);
	return rc;
}

static int read_reduced(void *ctx, struct catalog *cat, int64_t id, struct export_entry *out,
                        struct error *err)
{
	struct reduce_source *rs = ctx;
	struct rig skeleton;
	int rc;

	if (export_entry_read(cat, id, 0, out, err) < 0)
		return -1;
	if (!rs->rq.skeleton)
		return reduce_entry(rs, id, out, &out->rig, err);
	rig_init(&skeleton);
	rc = catalog_read_skeleton(cat, rs->rq.skeleton, &skeleton, err) < 0
	         ? -1
	         : reduce_entry(rs, id, out, &skeleton, err);
	rig_cleanup(&skeleton);
	return rc;
}

static void free_source(void *ctx)
{
	struct reduce_source *rs = ctx;

	json_decref(rs->reports);
	free(rs);
}

int reduce_export_source(const struct reduce_request *rq, json_t *reports,
                         struct export_source *out)
{
	struct reduce_source *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return -1;
	rs->rq = *rq;
	rs->reports = json_incref(reports);
	out->read = read_reduced;
	out->free = free_source;
	out->ctx = rs;
	return 0;
}

void reduce_report_line(const json_t *report, char *out, size_t size)
{
	const json_t *keys = json_object_get(report, "keys");
	const json_t *largest = json_object_get(json_object_get(report, "error"), "largest");
	int n = snprintf(out, size, "%lld -> %lld keys",
	                 (long long)json_integer_value(json_object_get(keys, "before")),
	                 (long long)json_integer_value(json_object_get(keys, "after")));

	if (largest && n > 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, "; largest error %.4g cm at %s",
		         json_real_value(json_object_get(largest, "cm")),
		         json_string_value(json_object_get(largest, "node")));
}
