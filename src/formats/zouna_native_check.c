/* zouna_native_check.c: the file native wrote, decoded again with animdex's own decoder and
 * measured track by track against the entry: a difference beyond the class's half step is a
 * bug in the encoder, answered as a 500 naming the track, never written silently. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "zouna_native.h"

/* One component of key i's value (a cubic spline's middle third). */
static double key_value(const struct sampler *s, uint32_t i, size_t j)
{
	size_t n = sampler_components(s);
	size_t at =
	    s->interp == INTERP_CUBIC_SPLINE ? (size_t)i * 3 * n + n + j : (size_t)i * n + j;

	if (value_type_scalar(s->type) == SCALAR_FLOAT)
		return ((const float *)s->values)[at];
	return ((const uint32_t *)s->values)[at];
}

/* How far one written track is from the entry's: the largest difference of a key's value, or
 * -1 when their keys differ in number or time (a bug). */
static double track_difference(const struct sampler *want, const struct sampler *got)
{
	size_t n = sampler_components(want);
	double worst = 0;

	if (want->key_count != got->key_count || sampler_components(got) != n)
		return -1;
	for (uint32_t i = 0; i < want->key_count; i++) {
		if (want->times[i] != got->times[i])
			return -1;
		for (size_t j = 0; j < n; j++) {
			double d = fabs(key_value(want, i, j) - key_value(got, i, j));
			if (d > worst)
				worst = d;
		}
	}
	return worst;
}

/* The written track of a target and property, or NULL. */
static const struct sampler *written_track(const struct resource *r, struct channel_chains *cc,
                                           const char *schema, uint32_t crc, uint64_t property,
                                           int bare)
{
	if (bare)
		return r->clip.channel_count ? &r->clip.samplers[r->clip.channels[0].sampler]
		                             : NULL;
	for (uint32_t ch = *zouna_native_chains_head(cc, crc, property); ch != NO_CHANNEL;
	     ch = cc->next[ch]) {
		const struct channel *c = &r->clip.channels[ch];
		const struct target *t = &r->clip.targets[c->target];
		if (c->property == property && strcmp(t->schema, schema) == 0 && t->object == crc)
			return &r->clip.samplers[c->sampler];
	}
	return NULL;
}

/* Decodes the file written with animdex's own decoder and measures every track the entry
 * gave against it: beyond the class's half step, a 500 naming the track (a bug, never
 * silence). Each report row gains its largest difference. */
int zouna_native_check_written(struct native_build *nb, struct native_file *out, int bare)
{
	struct upload up = {0};
	struct decode_result result;
	struct error e;
	struct channel_chains cc = {0};
	size_t row = 0;
	int rc = -1;

	up.data = out->bytes;
	up.length = out->length;
	up.family = "zouna";
	up.class_name = out->extension;
	up.endian = zouna_native_order_name(nb->out);
	decode_result_init(&result);
	error_init(&e);
	if (format_decode(&up, &result, &e) < 0 || result.count != 1) {
		error_set(nb->err, ERROR_INTERNAL, NULL, -1,
		          "native: the file written does not decode again (%s); this is a bug in "
		          "animdex's encoder",
		          e.message);
		goto done;
	}
	if (zouna_native_chains_build(&cc, result.resources[0]) < 0) {
		zouna_native_oom(nb);
		goto done;
	}
	for (size_t i = 0; i < (bare ? nb->source->clip.channel_count : nb->slice_count); i++) {
		const struct slice *s = bare ? NULL : &nb->slices[i];
		const struct sampler *want =
		    bare ? (nb->split.key_count ? &nb->split
		            : nb->reduced.key_count
		                ? &nb->reduced
		                : &nb->source->clip.samplers[nb->source->clip.channels[0].sampler])
		         : s->source;
		const struct record_layout *l = bare ? NULL : &zouna_native_layouts[s->kind];
		const struct sampler *got;
		const struct zouna_class *c =
		    bare ? nb->kf[0].keys.cls : nb->kf[s->keyframer].keys.cls;
		json_t *report = json_array_get(nb->report_tracks, row);
		double d, allowed;
		if (!want)
			continue;
		row++;
		got = written_track(result.resources[0], &cc, bare ? NULL : l->schema[s->pair],
		                    bare ? 0 : nb->records[s->kind][s->record].crc,
		                    bare ? 0 : l->property[s->pair], bare);
		d = got ? track_difference(want, got) : -1;
		allowed = (bare ? nb->kf[0].keys.compressed : nb->kf[s->keyframer].keys.compressed)
		              ? 0.5 / c->factor * 1.0001 + 1e-6
		              : 1e-6;
		if (s ? !s->changed : json_is_true(json_object_get(report, "kept"))) {
			/* its bytes are the template's, whose export the entry's track is: what the
			 * game reads differs from the entry by what the export did (a rotation made
			 * unit length), or, for an Euler rotation, is the Euler angles themselves
			 */
			if ((s && s->euler_kept) || (got && got->type != want->type) || d < 0)
				d = 0;
		} else if (d < 0 || d > allowed) {
			error_set(
			    nb->err, ERROR_INTERNAL,
			    json_string_value(json_object_get(report, "track")), -1,
			    "native: %s reads back %s (%s); this is a bug in animdex's encoder",
			    json_string_value(json_object_get(report, "track")),
			    !got    ? "missing"
			    : d < 0 ? "with other keys"
			            : "beyond half a step",
			    c->name);
			goto done;
		}
		json_object_set_new(report, "largest_difference", json_real(d));
	}
	rc = 0;
done:
	zouna_native_chains_free(&cc);
	decode_result_cleanup(&result);
	return rc;
}
