/* radient_native.c: an entry written back as a Radient clip document (formats/native.h,
 * doc/formats.md 3).
 *
 * The template, a clip document as it was uploaded, gives the document: its name, targets,
 * samplers, channels and whatever fields animdex does not read, in their order. Each of its
 * channels takes the entry's track of the same target (schema and name, else schema and
 * object), property and first array element. A track equal to the template's sampler (or to
 * what animdex's glTF export writes for it) keeps its sampler as written; a changed one writes
 * its times, values and interpolation into its sampler, or into a new sampler when the old one
 * also serves a channel that did not change. A track the template has no channel for is added,
 * with a target of its own when no target of the document is its. When nothing changed the file
 * is the template's bytes; otherwise the document is written anew (a target, sampler or channel
 * a line; each float as the shortest decimal that reads back as it) and decoded again, every
 * channel compared with what it was meant to hold.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "core/reduce.h"
#include "formats/format.h"
#include "formats/native.h"

struct radient_build {
	const struct resource *source, *tmpl;
	const struct native_options *opt;
	json_t *doc, *report;
	unsigned char *source_used;      /* per source channel */
	const struct sampler **intended; /* per channel of the document written */
	struct sampler *reduced;         /* per source channel: its reduced keys, or zeroes */
	size_t channel_count;            /* of the document written */
	int changed;
	struct error *err;
};

static int oom(struct error *err)
{
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

static int same_name(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Whether two targets are one: the same schema, and the same name where both have one, else
 * the same object. */
static int same_target(const struct target *a, const struct target *b)
{
	if (strcmp(a->schema, b->schema) != 0)
		return 0;
	return a->name && b->name ? strcmp(a->name, b->name) == 0 : a->object == b->object;
}

/* The entry's unused channel for the template's channel c, or -1. */
static long find_source(struct radient_build *rb, const struct channel *c)
{
	const struct clip *src = &rb->source->clip;
	const struct target *t = &rb->tmpl->clip.targets[c->target];

	for (size_t i = 0; i < src->channel_count; i++) {
		const struct channel *s = &src->channels[i];
		if (!rb->source_used[i] && s->property == c->property &&
		    s->first_element == c->first_element &&
		    same_target(&src->targets[s->target], t))
			return (long)i;
	}
	return -1;
}

/* Whether the entry's track is the template's sampler: as decoded, or as the export writes it. */
static int unchanged(struct radient_build *rb, const struct sampler *tmpl,
                     const struct sampler *source)
{
	struct sampler out;
	int same;

	if (sampler_equal(tmpl, source))
		return 1;
	if (!rb->opt->exported ||
	    rb->opt->exported(rb->opt->exported_ctx, tmpl,
	                      tmpl->semantic == SEMANTIC_NORMALIZED_QUATERNION, 0, &out) < 0)
		return 0;
	same = out.key_count > 0 && sampler_equal(&out, source);
	free(out.times);
	free(out.values);
	return same;
}

/* A 32-bit float as the shortest decimal that reads back as it (0.1, not 0.100000001): the
 * double nearest that decimal, which 9 significant digits print as it. */
static json_t *float_json(float f)
{
	char text[32];

	for (int digits = 6; digits < 9; digits++) {
		double d;
		snprintf(text, sizeof(text), "%.*g", digits, (double)f);
		d = strtod(text, NULL);
		if ((float)d == f)
			return json_real(d);
	}
	return json_real((double)f);
}

/* A sampler's times and values as the document writes them. */
static json_t *times_json(const struct sampler *s)
{
	json_t *a = json_array();

	for (uint32_t k = 0; a && k < s->key_count; k++)
		if (json_array_append_new(a, float_json(s->times[k])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *values_json(const struct sampler *s)
{
	enum scalar_kind kind = value_type_scalar(s->type);
	size_t size = value_type_component_size(s->type), n = size ? s->value_bytes / size : 0;
	const uint8_t *p = s->values;
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++, p += size) {
		json_t *v;
		if (kind == SCALAR_FLOAT) {
			float f;
			memcpy(&f, p, sizeof(f));
			v = float_json(f);
		} else if (kind == SCALAR_BOOL) {
			v = json_integer(*p ? 1 : 0);
		} else if (kind == SCALAR_INT) {
			int32_t x;
			memcpy(&x, p, sizeof(x));
			v = json_integer(x);
		} else {
			uint32_t x;
			memcpy(&x, p, sizeof(x));
			v = json_integer((json_int_t)x);
		}
		if (json_array_append_new(a, v) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Sets keys' interpolation, times and values in a sampler's JSON object. */
static int set_keys(json_t *sj, const struct sampler *s)
{
	json_object_del(sj, "values_base64");
	return json_object_set_new(sj, "interpolation",
	                           json_string(interpolation_name(s->interp))) |
	       json_object_set_new(sj, "times", times_json(s)) |
	       json_object_set_new(sj, "values", values_json(s));
}

static json_t *sampler_json(const struct sampler *s)
{
	json_t *sj = json_pack("{s:{s:s, s:I}, s:s}", "value", "type", value_type_name(s->type),
	                       "array_size", (json_int_t)s->array_size, "semantic",
	                       semantic_name(s->semantic));

	if (sj && set_keys(sj, s) < 0) {
		json_decref(sj);
		return NULL;
	}
	return sj;
}

/* The keys written for the entry's channel ch: its own, or reduced (reduce=). */
static const char *track_name(const struct resource *res, size_t n);

/* s, the keys of the entry's track ch, as a clip document's sampler can hold them (its times
 * finite, at or after 0 and each after the one before, as the decoder reads them); else NULL
 * with a 422 naming the track and the key. */
static const struct sampler *holdable(struct radient_build *rb, size_t ch, const struct sampler *s)
{
	for (uint32_t k = 0; k < s->key_count; k++) {
		const char *rule = !isfinite(s->times[k]) ? "is not finite"
		                   : s->times[k] < 0      ? "is before 0"
		                   : k > 0 && !(s->times[k] > s->times[k - 1])
		                       ? "is not after the key before it"
		                       : NULL;
		if (rule) {
			error_set(
			    rb->err, ERROR_TIME_NOT_INCREASING, track_name(rb->source, ch), -1,
			    "%s: key %" PRIu32 "'s time %.9g %s; a Radient clip's sampler times "
			    "start at 0 and increase (two keys at one time, such as two messages, "
			    "cannot be one Radient track)",
			    track_name(rb->source, ch), k, (double)s->times[k], rule);
			return NULL;
		}
	}
	return s;
}

static const struct sampler *written_keys(struct radient_build *rb, size_t ch, int hermite,
                                          json_t *row)
{
	const struct sampler *s = &rb->source->clip.samplers[rb->source->clip.channels[ch].sampler];
	struct reduce_result r;

	if (!(rb->opt->reduce > 0) || !reduce_applies(s))
		return holdable(rb, ch, s);
	if (reduce_sampler(s, rb->opt->reduce, hermite ? REDUCE_HERMITE : REDUCE_LINEAR,
	                   &rb->reduced[ch], &r) < 0) {
		oom(rb->err);
		return NULL;
	}
	json_object_set_new(row, "reduced",
	                    json_pack("{s:I, s:I, s:f, s:f}", "keys_before",
	                              (json_int_t)r.keys_before, "keys_after",
	                              (json_int_t)r.keys_after, "largest_error", r.largest_error,
	                              "tolerance", rb->opt->reduce));
	if (r.largest_error > rb->opt->reduce)
		json_object_set_new(json_object_get(row, "reduced"), "note",
		                    json_string(NATIVE_TOLERANCE_BELOW_FLOAT32));
	return holdable(rb, ch, &rb->reduced[ch]);
}

static const char *track_name(const struct resource *res, size_t n)
{
	return res->track_names && res->track_names[n] ? res->track_names[n] : "(unnamed)";
}

/* The template's channel c: kept, or written from the entry's track. */
static int plan_channel(struct radient_build *rb, size_t c, const size_t *users)
{
	const struct channel *ch = &rb->tmpl->clip.channels[c];
	const struct sampler *ts = &rb->tmpl->clip.samplers[ch->sampler], *ws, *ss;
	json_t *samplers = json_object_get(rb->doc, "samplers"), *copy, *row;
	long i = find_source(rb, ch);

	rb->intended[c] = ts;
	if (i < 0)
		return json_array_append_new(json_object_get(rb->report, "kept_from_template"),
		                             json_string(track_name(rb->tmpl, c)));
	rb->source_used[i] = 1;
	ss = &rb->source->clip.samplers[rb->source->clip.channels[i].sampler];
	if (ss->type != ts->type || ss->array_size != ts->array_size) {
		error_set(rb->err, ERROR_INVALID, "template", -1,
		          "the entry's track %ld (%s) holds %s[%" PRIu32 "] values; the template's "
		          "channel %zu for it holds %s[%" PRIu32 "]",
		          i, track_name(rb->source, (size_t)i), value_type_name(ss->type),
		          ss->array_size, c, value_type_name(ts->type), ts->array_size);
		return -1;
	}
	row = json_pack("{s:s, s:s, s:I}", "track", track_name(rb->source, (size_t)i), "class",
	                value_type_name(ts->type), "keys", (json_int_t)ss->key_count);
	if (!row || json_array_append_new(json_object_get(rb->report, "tracks"), row) < 0)
		return oom(rb->err);
	if (unchanged(rb, ts, ss)) {
		json_object_set_new(row, "kept", json_true());
		return 0;
	}
	ws = written_keys(rb, (size_t)i, ts->interp == INTERP_CUBIC_SPLINE, row);
	if (!ws)
		return -1;
	json_object_set_new(row, "kept", json_false());
	json_object_set_new(row, "written", json_integer((json_int_t)ws->key_count));
	json_object_set_new(row, "largest_difference", json_real(0));
	copy = json_deep_copy(json_array_get(samplers, ch->sampler));
	if (!copy || set_keys(copy, ws) < 0) {
		json_decref(copy);
		return oom(rb->err);
	}
	if (users[ch->sampler] == 1) {
		json_array_set_new(samplers, ch->sampler, copy);
	} else { /* shared with another channel: a sampler of its own */
		json_array_append_new(samplers, copy);
		json_object_set_new(json_array_get(json_object_get(rb->doc, "channels"), c),
		                    "sampler",
		                    json_integer((json_int_t)json_array_size(samplers) - 1));
	}
	rb->intended[c] = ws;
	rb->changed = 1;
	return 0;
}

/* A u64 as clip documents write one: a number, or a decimal string beyond 2^63 - 1. */
static json_t *u64_json(uint64_t v)
{
	char text[24];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(text, sizeof(text), "%" PRIu64, v);
	return json_string(text);
}

static uint64_t json_u64(const json_t *j)
{
	return json_is_string(j) ? strtoull(json_string_value(j), NULL, 10)
	                         : (uint64_t)json_integer_value(j);
}

/* The document's target for the entry's target t: one that is the same, else a new one (its
 * object, or one past the largest of its schema when another target has it). */
static long target_for(struct radient_build *rb, const struct target *t)
{
	json_t *targets = json_object_get(rb->doc, "targets");
	const struct clip *tc = &rb->tmpl->clip;
	uint64_t object = t->object, largest = 0;
	int taken = 0;

	for (size_t i = 0; i < tc->target_count; i++)
		if (same_target(&tc->targets[i], t))
			return (long)i;
	for (size_t i = tc->target_count; i < json_array_size(targets); i++) {
		json_t *j = json_array_get(targets, i);
		const char *name = json_string_value(json_object_get(j, "name"));
		if (strcmp(json_string_value(json_object_get(j, "schema")), t->schema) == 0 &&
		    (name && t->name ? same_name(name, t->name)
		                     : json_u64(json_object_get(j, "object")) == t->object))
			return (long)i;
	}
	for (size_t i = 0; i < json_array_size(targets); i++) {
		json_t *j = json_array_get(targets, i);
		uint64_t o = json_u64(json_object_get(j, "object"));
		if (strcmp(json_string_value(json_object_get(j, "schema")), t->schema) != 0)
			continue;
		taken |= o == object;
		if (o > largest)
			largest = o;
	}
	if (taken)
		object = largest + 1;
	if (object == UINT64_MAX) { /* 2^64 - 1 is no object */
		error_set(rb->err, ERROR_INVALID, "template", -1,
		          "no object number is free in the template for the entry's target '%s'",
		          t->name ? t->name : "(unnamed)");
		return -1;
	}
	if (json_array_append_new(targets, json_pack("{s:s, s:o}", "schema", t->schema, "object",
	                                             u64_json(object))) < 0)
		return oom(rb->err);
	if (t->name)
		json_object_set_new(json_array_get(targets, json_array_size(targets) - 1), "name",
		                    json_string(t->name));
	return (long)json_array_size(targets) - 1;
}

/* The entry's channel ch, which the template has no channel for: added. */
static int add_channel(struct radient_build *rb, size_t ch)
{
	const struct channel *c = &rb->source->clip.channels[ch];
	const struct sampler *ss = &rb->source->clip.samplers[c->sampler], *ws;
	json_t *samplers = json_object_get(rb->doc, "samplers"), *row;
	long t = target_for(rb, &rb->source->clip.targets[c->target]);

	if (t < 0)
		return -1;
	row = json_pack("{s:s, s:s, s:I, s:b, s:b}", "track", track_name(rb->source, ch), "class",
	                value_type_name(ss->type), "keys", (json_int_t)ss->key_count, "kept", 0,
	                "added", 1);
	if (!row || json_array_append_new(json_object_get(rb->report, "tracks"), row) < 0)
		return oom(rb->err);
	ws = written_keys(rb, ch, ss->interp == INTERP_CUBIC_SPLINE, row);
	if (!ws)
		return -1;
	json_object_set_new(row, "written", json_integer((json_int_t)ws->key_count));
	if (json_array_append_new(samplers, sampler_json(ws)) < 0 ||
	    json_array_append_new(json_object_get(rb->doc, "channels"),
	                          json_pack("{s:I, s:o, s:I, s:I}", "target", (json_int_t)t,
	                                    "property", u64_json(c->property),
	                                    "first_array_element", (json_int_t)c->first_element,
	                                    "sampler", (json_int_t)json_array_size(samplers) - 1)) <
	        0)
		return oom(rb->err);
	rb->intended[rb->channel_count++] = ws;
	rb->changed = 1;
	return 0;
}

/* The smallest number of 9 significant digits not below d: a duration written so that no key
 * falls outside it. */
static double duration_up(double d)
{
	char text[48];
	double v;

	snprintf(text, sizeof(text), "%.8e", d);
	v = strtod(text, NULL);
	if (v < d)
		v += pow(10, atoi(strchr(text, 'e') + 1) - 8);
	return v;
}

/* The document as text: each target, sampler and channel on a line of its own, as clip
 * documents are written by hand; numbers in 9 significant digits. NULL when out of memory. */
static char *document_text(const json_t *doc, size_t *length)
{
	static const size_t flags = JSON_ENCODE_ANY | JSON_REAL_PRECISION(9);
	const char *key;
	json_t *value;
	struct buf b;
	int first = 1;

	buf_init(&b, NATIVE_MAX_BYTES);
	buf_putc(&b, '{');
	json_object_foreach((json_t *)doc, key, value)
	{
		json_t *name = json_string(key);
		char *text = json_dumps(name, flags);
		int list = json_is_array(value) &&
		           (strcmp(key, "targets") == 0 || strcmp(key, "samplers") == 0 ||
		            strcmp(key, "channels") == 0);
		buf_printf(&b, "%s\n %s: ", first ? "" : ",", text ? text : "\"\"");
		free(text);
		json_decref(name);
		first = 0;
		if (!list || json_array_size(value) == 0) {
			text = json_dumps(value, flags);
			buf_puts(&b, text ? text : "null");
			b.overflow |= !text;
			free(text);
			continue;
		}
		buf_putc(&b, '[');
		for (size_t i = 0; i < json_array_size(value); i++) {
			text = json_dumps(json_array_get(value, i), flags);
			buf_printf(&b, "%s\n  %s", i ? "," : "", text ? text : "null");
			b.overflow |= !text;
			free(text);
		}
		buf_putc(&b, ']');
	}
	buf_puts(&b, "\n}\n");
	if (b.overflow) {
		buf_cleanup(&b);
		return NULL;
	}
	return buf_steal(&b, length);
}

/* The document written, decoded again: every channel holds what it was meant to. */
static int check_written(struct radient_build *rb, const uint8_t *bytes, size_t length)
{
	struct upload up = {0};
	struct decode_result again;
	struct error e;
	const char *differs = NULL;

	up.data = bytes;
	up.length = length;
	up.family = "radient";
	error_init(&e);
	decode_result_init(&again);
	if (format_decode(&up, &again, &e) < 0 || again.count != 1)
		differs = e.message[0] ? e.message : "it does not read as one clip";
	for (size_t c = 0; !differs && c < rb->channel_count; c++) {
		const struct clip *clip = &again.resources[0]->clip;
		if (c >= clip->channel_count ||
		    !sampler_equal(&clip->samplers[clip->channels[c].sampler], rb->intended[c]))
			differs = "a channel reads back otherwise";
	}
	if (differs)
		error_set(rb->err, ERROR_INTERNAL, "template", -1,
		          "native: the clip document written does not read back as it should "
		          "(%.200s); this is a bug in animdex's encoder",
		          differs);
	decode_result_cleanup(&again);
	return differs ? -1 : 0;
}

static int refuse_options(const struct native_options *opt, struct error *err)
{
	const char *p = native_binary_option(opt);

	if (!p)
		return 0;
	error_set(err, ERROR_BAD_PARAMETER, p, -1,
	          "%s: a Radient clip is a JSON document, with no byte order, layout, BFF0 or "
	          "object header and no compressed classes",
	          p);
	return -1;
}

/* A clip document names its targets: two of the entry's targets of one schema and one name
 * would be one target of a document written anew. 422 naming both. */
static int refuse_twin_targets(const struct resource *source, struct error *err)
{
	const struct clip *c = &source->clip;

	for (size_t i = 0; i < c->target_count; i++)
		for (size_t j = i + 1; j < c->target_count; j++)
			if (c->targets[i].name && c->targets[j].name &&
			    strcmp(c->targets[i].schema, c->targets[j].schema) == 0 &&
			    strcmp(c->targets[i].name, c->targets[j].name) == 0) {
				error_set(
				    err, ERROR_DUPLICATE_TARGET, "targets", -1,
				    "targets[%zu] and targets[%zu] are both named '%s' (objects "
				    "%" PRIu64 " and %" PRIu64 "): a clip document's targets are "
				    "matched by name, so the template cannot tell them apart; "
				    "give each its own name",
				    i, j, c->targets[i].name, c->targets[i].object,
				    c->targets[j].object);
				return -1;
			}
	return 0;
}

static int build(struct radient_build *rb, const struct upload *tmpl, struct native_file *out)
{
	const struct clip *tc = &rb->tmpl->clip, *sc = &rb->source->clip;
	size_t *users = calloc(tc->sampler_count + 1, sizeof(*users));
	char *text;
	int rc = -1;

	if (!users)
		return oom(rb->err);
	for (size_t c = 0; c < tc->channel_count; c++)
		users[tc->channels[c].sampler]++;
	rb->channel_count = tc->channel_count;
	for (size_t c = 0; c < tc->channel_count; c++)
		if (plan_channel(rb, c, users) < 0)
			goto done;
	for (size_t ch = 0; ch < sc->channel_count; ch++)
		if (!rb->source_used[ch] && add_channel(rb, ch) < 0)
			goto done;
	if (sc->duration > tc->duration)
		rb->changed = 1;
	/* a document written anew must tell the entry's targets apart (its own kept as it is) */
	if (rb->changed && refuse_twin_targets(rb->source, rb->err) < 0)
		goto done;
	if (rb->changed) /* written so that no key falls outside it once read as 32 bits */
		json_object_set_new(
		    rb->doc, "duration",
		    json_real(
		        duration_up(sc->duration > tc->duration ? sc->duration : tc->duration)));
	if (!rb->changed) { /* every channel kept: the template's bytes */
		out->bytes = malloc(tmpl->length + 1);
		if (!out->bytes) {
			oom(rb->err);
			goto done;
		}
		memcpy(out->bytes, tmpl->data, tmpl->length);
		out->length = tmpl->length;
		rc = 0;
		goto done;
	}
	text = document_text(rb->doc, &out->length);
	if (!text) {
		oom(rb->err);
		goto done;
	}
	out->bytes = (uint8_t *)text;
	rc = check_written(rb, out->bytes, out->length);
done:
	free(users);
	return rc;
}

int native_radient(const struct upload *tmpl, const struct resource *source,
                   const struct native_options *opt, struct native_file *out, struct error *err)
{
	struct radient_build rb = {0};
	struct decode_result decoded;
	struct upload up = *tmpl, bare;
	size_t room;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (refuse_options(opt, err) < 0)
		return -1;
	up.family = "radient";
	decode_result_init(&decoded);
	if (format_decode(&up, &decoded, err) < 0) {
		decode_result_cleanup(&decoded);
		return -1;
	}
	rb.source = source;
	rb.tmpl = decoded.resources[0];
	rb.opt = opt;
	rb.err = err;
	bare = format_without_bom(tmpl);
	rb.doc = json_loadb((const char *)bare.data, bare.length, 0, NULL);
	for (int i = 0; rb.doc && i < 3; i++) { /* an empty clip may leave its lists out */
		static const char *const lists[] = {"targets", "samplers", "channels"};
		if (!json_is_array(json_object_get(rb.doc, lists[i])))
			json_object_set_new(rb.doc, lists[i], json_array());
	}
	rb.report = json_pack("{s:s, s:[], s:[], s:[]}", "container", "RadientAnimationClip",
	                      "tracks", "kept_from_template", "notes");
	room = rb.tmpl->clip.channel_count + source->clip.channel_count + 1;
	rb.source_used = calloc(source->clip.channel_count + 1, 1);
	rb.intended = calloc(room, sizeof(*rb.intended));
	rb.reduced = calloc(source->clip.channel_count + 1, sizeof(*rb.reduced));
	if (!rb.doc || !json_is_array(json_object_get(rb.doc, "samplers")) || !rb.report ||
	    !rb.source_used || !rb.intended || !rb.reduced) {
		if (rb.doc || !rb.report)
			oom(err);
		else
			error_set(err, ERROR_INVALID, "template", -1,
			          "template: its clip document does not read as JSON again");
	} else if (build(&rb, tmpl, out) == 0) {
		out->extension = "json";
		out->report = json_incref(rb.report);
		rc = 0;
	} else {
		native_file_cleanup(out);
	}
	for (size_t i = 0; rb.reduced && i < source->clip.channel_count; i++) {
		free(rb.reduced[i].times);
		free(rb.reduced[i].values);
	}
	free(rb.reduced);
	free(rb.intended);
	free(rb.source_used);
	json_decref(rb.report);
	json_decref(rb.doc);
	decode_result_cleanup(&decoded);
	return rc;
}
