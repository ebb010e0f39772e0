/* zouna_native_plan.c: which of a template's slices keep their bytes and which are written
 * from the entry: each record's slice is the track the decoder makes of it; the entry's track
 * of the same target and property replaces it unless it is what the export writes of it. The
 * entry's tracks no slice took become new slices at their keyframers' ends. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zouna_native.h"

/* Whether a source channel's target and property are (schema, crc, property). */
static int source_matches(const struct resource *src, size_t ch, const char *schema, uint32_t crc,
                          uint64_t property)
{
	const struct channel *c = &src->clip.channels[ch];
	const struct target *t = &src->clip.targets[c->target];
	uint32_t named;

	return c->property == property && strcmp(t->schema, schema) == 0 &&
	       zouna_native_chains_target_crc(src, t, &named) == 0 && named == crc;
}

static int add_slice(struct native_build *nb, const struct slice *s)
{
	if (nb->slice_count == nb->slice_cap) {
		size_t cap = nb->slice_cap ? nb->slice_cap * 2 : 64;
		struct slice *p = realloc(nb->slices, cap * sizeof(*p));
		if (!p)
			return zouna_native_oom(nb);
		nb->slices = p;
		nb->slice_cap = cap;
	}
	nb->slices[nb->slice_count++] = *s;
	return 0;
}

/* Finds the source channel of a target not yet matched (the n-th of equal ones). */
static long find_source(struct native_build *nb, const char *schema, uint32_t crc,
                        uint64_t property)
{
	uint32_t *link = zouna_native_chains_head(&nb->sources, crc, property);

	while (*link != NO_CHANNEL) {
		uint32_t ch = *link;
		if (nb->source_used[ch]) {
			*link = nb->sources.next[ch]; /* matched: never a candidate again */
			continue;
		}
		if (source_matches(nb->source, ch, schema, crc, property))
			return (long)ch;
		link = &nb->sources.next[ch];
	}
	return -1;
}

/* A record's track as the decoder names it: "bone 0x1234ABCD rotation". */
static void track_name(char *out, size_t size, const struct record_layout *l, uint32_t crc,
                       unsigned pair)
{
	const char *what = schema_property_name(l->schema[pair], l->property[pair]);

	snprintf(out, size, "%s 0x%08" PRIX32 " %s", l->target_prefix, crc,
	         what ? what : l->pair_name[pair]);
}

/* Whether the source track is what the export writes for the template's track. */
int zouna_native_plan_equals_export(struct native_build *nb, const struct sampler *tmpl,
                                    int rotation, int euler, const struct sampler *source)
{
	struct sampler out;
	int same;

	if (!nb->opt->exported ||
	    nb->opt->exported(nb->opt->exported_ctx, tmpl, rotation, euler, &out) < 0)
		return 0;
	same = out.key_count > 0 && sampler_equal(&out, source);
	free(out.times);
	free(out.values);
	return same;
}

/* Decides, for one slice of the template, whether its bytes are kept: the entry's track of
 * its target and property equals the template's, as the decoder or the export gives it. An
 * Euler rotation (bezierRot) also matches the entry's rotation that equals its export's
 * baking (a glTF round trip). */
static int plan_slice(struct native_build *nb, struct slice *s, const char *schema,
                      uint64_t property, uint32_t crc, int is_track)
{
	struct native_keyframer *kf = &nb->kf[s->keyframer];
	struct resource *scratch;
	struct track_target tt = {schema, crc, NULL, property, 1, crc};
	const struct sampler *tmpl;
	/* property numbers are per schema: Zouna's Euler rotation is 2, as a node's rotation */
	int euler = strcmp(schema, SCHEMA_ZOUNA) == 0 && property == ZOUNA_EULER_ROTATION;
	int rotation = strcmp(schema, SCHEMA_NODE) == 0 && property == NODE_ROTATION, made;
	long ch;

	if (s->count == 0)
		return 0; /* no keys: the record's pair is written as it was */
	if (!is_track)
		return add_slice(nb, s); /* not a track the decoder makes: its keys kept */
	scratch = resource_create("zouna", "Animation_Z");
	if (!scratch)
		return zouna_native_oom(nb);
	made = zouna_add_track(scratch, NULL, &kf->keys, s->start, s->count, &tt,
	                       zouna_animation_keyframers[s->keyframer].field, nb->err);
	if (made < 0) { /* the template's own slice is no track: rewritten when the entry has one */
		error_init(nb->err);
		resource_free(scratch);
		scratch = NULL;
	}
	tmpl = scratch ? &scratch->clip.samplers[0] : NULL;
	ch = find_source(nb, schema, crc, property);
	if (ch < 0 && euler && tmpl) {
		ch = find_source(nb, SCHEMA_NODE, crc, NODE_ROTATION);
		if (ch >= 0 &&
		    !zouna_native_plan_equals_export(
		        nb, tmpl, 0, 1,
		        &nb->source->clip.samplers[nb->source->clip.channels[ch].sampler]))
			ch = -1; /* an edited rotation: a rot slice of its own (plan_new_slices) */
	}
	if (ch < 0) {
		json_array_append_new(nb->kept, json_string(s->track));
		resource_free(scratch);
		return add_slice(nb, s);
	}
	nb->source_used[ch] = 1;
	s->source = &nb->source->clip.samplers[nb->source->clip.channels[ch].sampler];
	if (nb->source->track_names && nb->source->track_names[ch])
		snprintf(s->track, sizeof(s->track), "%s", nb->source->track_names[ch]);
	s->changed =
	    !tmpl || !(sampler_equal(tmpl, s->source) ||
	               zouna_native_plan_equals_export(nb, tmpl, rotation, euler, s->source));
	s->euler_kept = euler && !s->changed && s->source->type == VALUE_FLOAT4;
	resource_free(scratch);
	return add_slice(nb, s);
}

/* Every record's slices, in record order. */
int zouna_native_plan_template(struct native_build *nb)
{
	for (int kind = 0; kind < REC_KINDS; kind++) {
		const struct record_layout *l = &zouna_native_layouts[kind];
		for (size_t i = 0; i < nb->record_count[kind]; i++) {
			const struct record *rec = &nb->records[kind][i];
			for (unsigned p = 0; p < l->pair_count; p++) {
				struct slice s = {0};
				int is_track;
				s.keyframer = l->keyframer[p];
				s.start = rec->pairs[p][0];
				s.count = rec->pairs[p][1];
				s.kind = kind;
				s.record = i;
				s.pair = p;
				track_name(s.track, sizeof(s.track), l, rec->crc, p);
				is_track = !(kind == REC_NODE && p == 2 && rec->pairs[1][1] > 0);
				if ((uint64_t)s.start + s.count > nb->kf[s.keyframer].keys.count) {
					/* the decoder reads no track there (a bezierRot slice
					 * beside rot keys): the pair is written as it was */
					if (!is_track)
						continue;
					error_set(nb->err, ERROR_INDEX_OUT_OF_RANGE, l->field, -1,
					          "template: %s[%zu].%s: keys [%" PRIu32
					          ", %" PRIu64 ") are outside its keyframer",
					          l->field, i, l->pair_name[p], s.start,
					          (uint64_t)s.start + s.count);
					return -1;
				}
				/* a bone uses rot when it has rot keys, else bezierRot */
				if (plan_slice(nb, &s, l->schema[p], l->property[p], rec->crc,
				               is_track) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* Where a source property goes in an Animation_Z: record kind and pair; -1 when nowhere. */
static int place_property(const char *schema, uint64_t property, int *kind, unsigned *pair)
{
	for (int k = 0; k < REC_KINDS; k++)
		for (unsigned p = 0; p < zouna_native_layouts[k].pair_count; p++)
			if (zouna_native_layouts[k].property[p] == property &&
			    strcmp(zouna_native_layouts[k].schema[p], schema) == 0) {
				*kind = k;
				*pair = p;
				return 0;
			}
	return -1;
}

/* The entry's tracks the template has no slice for: new slices at their keyframers' ends,
 * in a record of their target (added when the template has none). */
int zouna_native_plan_new(struct native_build *nb)
{
	const struct resource *src = nb->source;

	for (size_t ch = 0; ch < src->clip.channel_count; ch++) {
		const struct channel *c = &src->clip.channels[ch];
		const struct target *t = &src->clip.targets[c->target];
		struct slice s = {0};
		uint32_t crc;
		int kind;
		unsigned pair;
		size_t i;
		if (nb->source_used[ch])
			continue;
		if (place_property(t->schema, c->property, &kind, &pair) < 0 ||
		    zouna_native_chains_target_crc(src, t, &crc) < 0) {
			error_set(
			    nb->err, ERROR_INVALID, src->track_names ? src->track_names[ch] : NULL,
			    -1,
			    "track %zu (%s): an Animation_Z has no place for it (its keyframers "
			    "hold bone translation, rotation, Euler rotation, scale and "
			    "messages, material, mesh and morph values, each target named by a "
			    "handle or a name)",
			    ch,
			    src->track_names && src->track_names[ch] ? src->track_names[ch]
			                                             : "unnamed");
			return -1;
		}
		for (i = 0; i < nb->record_count[kind]; i++)
			if (nb->records[kind][i].crc == crc)
				break;
		if (i == nb->record_count[kind]) {
			struct record *p = realloc(nb->records[kind], (i + 1) * sizeof(*p));
			if (!p)
				return zouna_native_oom(nb);
			nb->records[kind] = p;
			memset(&p[i], 0, sizeof(p[i]));
			p[i].crc = crc;
			p[i].id = 0xFFFF; /* the engine sets it from the name's CRC when it loads */
			nb->record_count[kind]++;
		} else if (nb->records[kind][i].pairs[pair][1] != 0) {
			error_set(nb->err, ERROR_INVALID,
			          src->track_names ? src->track_names[ch] : NULL, -1,
			          "track %zu: a second track for %s 0x%08" PRIX32
			          " %s; the template's "
			          "record holds one",
			          ch, zouna_native_layouts[kind].target_prefix, crc,
			          zouna_native_layouts[kind].pair_name[pair]);
			return -1;
		}
		s.keyframer = zouna_native_layouts[kind].keyframer[pair];
		s.kind = kind;
		s.record = i;
		s.pair = pair;
		s.start = nb->kf[s.keyframer].keys.count; /* after every key */
		s.source = &src->clip.samplers[c->sampler];
		s.changed = 1;
		if (src->track_names && src->track_names[ch])
			snprintf(s.track, sizeof(s.track), "%s", src->track_names[ch]);
		else
			track_name(s.track, sizeof(s.track), &zouna_native_layouts[kind], crc,
			           pair);
		nb->source_used[ch] = 1;
		if (add_slice(nb, &s) < 0)
			return -1;
	}
	return 0;
}
