/* render.c: the model as JSON (a resource's structure, what an upload would store), handles
 * and times as text. JSON as text is render_json.c's, floats render_float.c's. Below both the
 * catalogue and the HTTP layer: it knows neither. */
#include "render/render.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void render_handle(uint32_t crc32, char out[11])
{
	snprintf(out, 11, "0x%08" PRIX32, crc32);
}

void render_time_ms(int64_t ms, char out[32])
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	size_t n;

	gmtime_r(&secs, &tm);
	n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

json_t *render_u64(uint64_t v)
{
	char text[24];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(text, sizeof(text), "%" PRIu64, v);
	return json_string(text);
}

json_t *render_structure(const struct resource *res)
{
	const struct clip *clip = &res->clip;
	json_t *targets = json_array(), *samplers = json_array(), *channels = json_array();
	json_t *out;

	for (size_t i = 0; i < clip->target_count; i++) {
		const struct target *t = &clip->targets[i];
		json_array_append_new(targets,
		                      json_pack("{s:s, s:o, s:o}", "schema", t->schema, "object",
		                                render_u64(t->object), "name",
		                                t->name ? json_string(t->name) : json_null()));
	}
	for (size_t i = 0; i < clip->sampler_count; i++) {
		const struct sampler *s = &clip->samplers[i];
		json_array_append_new(
		    samplers,
		    json_pack("{s:{s:s, s:I}, s:s, s:s, s:I, s:I, s:[f, f]}", "value", "type",
		              value_type_name(s->type), "array_size", (json_int_t)s->array_size,
		              "interpolation", interpolation_name(s->interp), "semantic",
		              semantic_name(s->semantic), "keyframe_count",
		              (json_int_t)s->key_count, "value_data_size",
		              (json_int_t)s->value_bytes, "time_range", (double)s->times[0],
		              (double)s->times[s->key_count - 1]));
	}
	for (size_t i = 0; i < clip->channel_count; i++) {
		const struct channel *c = &clip->channels[i];
		json_array_append_new(
		    channels,
		    json_pack("{s:I, s:o, s:I, s:I}", "target", (json_int_t)c->target, "property",
		              render_u64(c->property), "first_array_element",
		              (json_int_t)c->first_element, "sampler", (json_int_t)c->sampler));
	}
	out = json_pack("{s:{s:o, s:f, s:o, s:o, s:o}}", "clip", "name",
	                clip->name ? json_string(clip->name) : json_null(), "duration",
	                clip->duration, "targets", targets, "samplers", samplers, "channels",
	                channels);
	if (out && res->metadata)
		json_object_set(out, "metadata", res->metadata);
	return out;
}

json_t *render_decoded(const struct resource *res)
{
	json_t *tracks = json_array();
	char handle[11];

	for (size_t i = 0; i < res->clip.channel_count; i++) {
		const struct channel *ch = &res->clip.channels[i];
		const struct target *tg = &res->clip.targets[ch->target];
		const struct sampler *s = &res->clip.samplers[ch->sampler];
		const char *prop = schema_property_name(tg->schema, ch->property);
		json_array_append_new(
		    tracks,
		    json_pack("{s:I, s:o, s:{s:s, s:o, s:o}, s:o, s:o, s:I, s:s, s:I, s:s, "
		              "s:s, s:I, s:[f, f]}",
		              "n", (json_int_t)i, "name",
		              res->track_names ? json_string(res->track_names[i]) : json_null(),
		              "target", "schema", tg->schema, "object", render_u64(tg->object),
		              "name", tg->name ? json_string(tg->name) : json_null(), "property",
		              render_u64(ch->property), "property_name",
		              prop ? json_string(prop) : json_null(), "first_array_element",
		              (json_int_t)ch->first_element, "type", value_type_name(s->type),
		              "array_size", (json_int_t)s->array_size, "interpolation",
		              interpolation_name(s->interp), "semantic", semantic_name(s->semantic),
		              "key_count", (json_int_t)s->key_count, "time_range",
		              (double)s->times[0], (double)s->times[s->key_count - 1]));
	}
	for (size_t i = 0; res->extras && i < res->clip.channel_count; i++) {
		json_t *track = json_array_get(tracks, i);
		json_object_set_new(track, "kind",
		                    json_string(res->extras[i].events ? "events" : "curve"));
		if (res->extras[i].info)
			json_object_set(track, "info", res->extras[i].info);
	}
	render_handle(res->crc32, handle);
	return json_pack("{s:s, s:s, s:o, s:s, s:I, s:s, s:o, s:O, s:o, s:o}", "family",
	                 res->family, "class", res->class_name, "name",
	                 res->name ? json_string(res->name) : json_null(), "crc32", handle,
	                 "crc32_decimal", (json_int_t)res->crc32, "crc32_source", res->crc32_source,
	                 "structure", render_structure(res), "assumed", res->assumed, "tracks",
	                 tracks, "rig", res->rig.count ? rig_json(&res->rig) : json_null());
}
