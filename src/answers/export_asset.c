/* export_asset.c: the asset as it is sent: its JSON text (a .glb's chunks, or a .gltf's text
 * around the buffer's data URI) and buffer 0, held while small, else made again from the
 * catalogue accessor by accessor, from each accessor's recipe, as the connection takes it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "export_internal.h"

/* The data URI's place in a .gltf's text while it is made: the buffer is written there as
 * it is sent. (Entries' names come before the buffers in the text: the last one is it.) */
#define BUFFER_PLACE "animdex-buffer-0-goes-here-5f0c2a"

/* The asset as it is sent: its text before the buffer (for a .glb with the chunk headers),
 * buffer 0 (held, or made again entry by entry), and its text after the buffer (a .gltf's). */
struct export_asset {
	uint8_t glb_header[20]; /* a .glb's header and JSON chunk header, before head */
	size_t glb_header_at;
	char *text; /* the asset's JSON text: head and tail are parts of it */
	const char *head, *tail;
	size_t head_length, tail_length, head_at, tail_at;
	uint64_t length;               /* of the whole asset */
	uint64_t bin_length;           /* of buffer 0, padded to 4 */
	uint64_t bin_at;               /* buffer 0's bytes given so far */
	int base64;                    /* buffer 0 goes out as base64 (a .gltf's data URI) */
	struct buf held;               /* buffer 0 when it was held */
	int made_again;                /* ... or made again, from the catalogue, as it is sent */
	struct export_recipe *recipes; /* then: each accessor's, in buffer order */
	size_t recipe_count, next;
	struct exporter *scratch; /* for the conversions' options (its notes are not kept) */
	/* the track being sent: its keys as the asset has them */
	int64_t track_entry;
	unsigned track_n;
	float *times, *values;
	struct catalog_track kept; /* a track kept in extras: its keys as stored */
	size_t key_count, values_bytes;
	const void *piece; /* the accessor being sent: its bytes, and how many are given */
	size_t piece_length, piece_at;
	char *encoded; /* base64: text made, not given yet */
	size_t encoded_length, encoded_at;
	struct export_source source; /* the exporter's, when entries are not the catalogue's */
	struct export_entry made;    /* the entry of the track being sent, made through it */
};

void export_asset_free(struct export_asset *a)
{
	if (!a)
		return;
	free(a->text);
	buf_cleanup(&a->held);
	free(a->recipes);
	exporter_free(a->scratch);
	free(a->times);
	free(a->values);
	catalog_track_cleanup(&a->kept);
	free(a->encoded);
	export_entry_cleanup(&a->made);
	if (a->source.free)
		a->source.free(a->source.ctx);
	free(a);
}

uint64_t export_asset_length(const struct export_asset *a)
{
	return a->length;
}

size_t export_asset_memory(const struct export_asset *a)
{
	size_t largest = 0;

	/* made again, a track's keys are held while its accessors are sent: its times and values,
	 * at most twice the largest accessor */
	for (size_t i = 0; a->made_again && i < a->recipe_count; i++)
		if (a->recipes[i].bytes > largest)
			largest = a->recipes[i].bytes;
	return a->head_length + a->tail_length + 8 + a->held.cap +
	       a->recipe_count * sizeof(*a->recipes) + 2 * largest;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
	p[3] = (uint8_t)(v >> 24);
}

/* A .glb: the 12-byte header and the JSON chunk's header, then the text padded with spaces
 * and the BIN chunk's header (appended to the text), then the buffer. */
static int glb_parts(struct export_asset *a, char *text, size_t text_length)
{
	size_t json_length = (text_length + 3) & ~(size_t)3;
	char *grown;

	a->head_length = json_length + (a->bin_length ? 8 : 0);
	a->length = 20 + a->head_length + a->bin_length;
	if (a->length > UINT32_MAX || !(grown = realloc(text, json_length + 8)))
		return -1;
	a->text = grown;
	a->head = grown;
	memset(grown + text_length, ' ', json_length - text_length);
	if (a->bin_length) {
		put32((uint8_t *)grown + json_length, (uint32_t)a->bin_length);
		put32((uint8_t *)grown + json_length + 4, GLB_CHUNK_BIN);
	}
	memcpy(a->glb_header, "glTF", 4);
	put32(a->glb_header + 4, 2);
	put32(a->glb_header + 8, (uint32_t)a->length);
	put32(a->glb_header + 12, (uint32_t)json_length);
	put32(a->glb_header + 16, GLB_CHUNK_JSON);
	return 0;
}

/* A .gltf's text around its data URI: the buffer, in base64, goes between. */
static int gltf_parts(struct export_asset *a, char *text, size_t text_length)
{
	const char *place = text + text_length;

	a->text = text;
	a->glb_header_at = sizeof(a->glb_header); /* none */
	if (a->bin_length) {
		place = NULL;
		for (const char *p = text; (p = strstr(p, BUFFER_PLACE)) != NULL; p++)
			place = p;
		if (!place)
			return -1;
	}
	a->head = text;
	a->head_length = (size_t)(place - text);
	a->tail_length = text_length - a->head_length - (a->bin_length ? strlen(BUFFER_PLACE) : 0);
	a->tail = text + text_length - a->tail_length;
	a->base64 = 1;
	a->length = a->head_length + 4 * ((a->bin_length + 2) / 3) + a->tail_length;
	return 0;
}

/* The accessors' or views' text (list, "[" and its items) closed and put in the document under
 * key, as a splice; nothing when there are none. */
static int list_as_text(struct exporter *ex, const char *key, struct buf *list, size_t count)
{
	json_t *placeholder;
	struct render_splice *item;

	if (!count)
		return 0;
	if (buf_putc(list, ']') < 0 || list->overflow ||
	    (ex->kept.count == ex->kept.cap && export_grow_splices(&ex->kept) < 0) ||
	    !(placeholder = json_string("")))
		return -1;
	item = &ex->kept.items[ex->kept.count++];
	item->value = placeholder;
	item->text = buf_steal(list, &item->length);
	return json_object_set_new(ex->doc, key, placeholder);
}

struct export_asset *exporter_finish(struct exporter *ex, json_t **summary, struct error *err)
{
	struct export_asset *a = calloc(1, sizeof(*a));
	char *text = NULL;
	size_t text_length = 0;

	*summary = NULL;
	if (!a) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	export_describe_asset(ex);
	if (export_put_bin(ex, NULL, 0, 1) < 0) { /* the buffer ends on a multiple of 4 */
		export_too_large(ex, err);
		goto fail;
	}
	a->bin_length = ex->bin_length;
	if (ex->bin_length) {
		json_t *buffer = json_pack("{s:I}", "byteLength", (json_int_t)ex->bin_length);
		if (!ex->opt.glb)
			json_object_set_new(
			    buffer, "uri",
			    json_string("data:application/octet-stream;base64," BUFFER_PLACE));
		json_object_set_new(ex->doc, "buffers", json_pack("[o]", buffer));
	}
	export_drop_if_empty(ex->doc, "animations");
	if (list_as_text(ex, "accessors", &ex->accessors, ex->accessor_count) < 0 ||
	    list_as_text(ex, "bufferViews", &ex->views, ex->view_count) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	export_drop_if_empty(ex->doc, "meshes");
	export_drop_if_empty(ex->doc, "skins");
	export_drop_if_empty(ex->doc, "nodes");
	if (!json_object_get(ex->doc, "nodes")) {
		json_object_del(ex->doc, "scenes");
		json_object_del(ex->doc, "scene");
	}
	text = render_json_spliced(ex->doc, &ex->kept, &text_length);
	for (size_t i = 0; i < ex->kept.count; i++) { /* in the text now */
		free((char *)ex->kept.items[i].text);
		ex->kept.items[i].text = NULL;
	}
	if (!text || (ex->opt.glb ? glb_parts(a, text, text_length)
	                          : gltf_parts(a, text, text_length)) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	text = NULL; /* the asset's */
	if (ex->holding) {
		a->held = ex->bin; /* taken over */
		buf_init(&ex->bin, 0);
	} else if (a->bin_length && !ex->opt.plan_only) {
		a->made_again = 1;
		a->recipes = ex->recipes; /* taken over */
		a->recipe_count = ex->recipe_count;
		ex->recipes = NULL;
		ex->recipe_count = ex->recipe_cap = 0;
		a->scratch = exporter_create(&ex->opt);
		a->source =
		    ex->entry_source; /* taken over: the entries are made again through it */
		memset(&ex->entry_source, 0, sizeof(ex->entry_source));
		if (!a->scratch) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			goto fail;
		}
	}
	*summary = json_pack("{s:I, s:I, s:I, s:I, s:O, s:O}", "entries", (json_int_t)ex->entries,
	                     "animations", (json_int_t)ex->animations, "nodes",
	                     (json_int_t)ex->node_count, "channels", (json_int_t)ex->channels,
	                     "in_extras", ex->summary_extras, "notes", ex->notes);
	return a;
fail:
	if (text != a->text) /* not yet the asset's (a .glb's realloc failed: still ours) */
		free(text);
	export_asset_free(a);
	return NULL;
}

/* Track r->track of entry r->entry as the export read it: from the catalogue, or made again
 * through the exporter's source (the entry kept while its tracks are sent). */
static int read_track(struct export_asset *a, struct catalog *cat, const struct export_recipe *r,
                      struct catalog_track *t, struct error *err)
{
	if (!a->source.read)
		return catalog_read_track(cat, r->entry, r->track, t, err);
	if (a->made.id != r->entry || !a->made.tracks) {
		export_entry_cleanup(&a->made);
		if (export_entry_read_for(&a->source, cat, r->entry, 0, &a->made, err) < 0)
			return -1;
	}
	if (r->track >= a->made.track_count) {
		error_set(err, ERROR_INTERNAL, NULL, -1,
		          "export: entry %" PRId64 " changed while the asset was sent", r->entry);
		return -1;
	}
	*t = a->made.tracks[r->track];
	t->borrowed = 1; /* the made entry's */
	return 0;
}

/* The bytes of accessor r made again: a track read again and converted as the first time
 * (kept while the next accessor is the same track's values), or a morph mesh's triangle. */
static int make_piece(struct export_asset *a, const struct export_recipe *r, struct catalog *cat,
                      struct error *err)
{
	static const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	static const float still[9] = {0};
	struct catalog_track t;
	int made;

	if (r->part == PART_TRIANGLE || r->part == PART_STILL) {
		a->piece = r->part == PART_TRIANGLE ? (const void *)triangle : (const void *)still;
	} else if (r->part == PART_KEPT_TIMES || r->part == PART_KEPT_VALUES) {
		/* a kept track's keys as stored: read once for its times and values */
		if (r->part == PART_KEPT_TIMES || a->kept.resource_id != r->entry ||
		    a->kept.n != r->track || !a->kept.sampler.times) {
			catalog_track_cleanup(&a->kept);
			if (catalog_read_track(cat, r->entry, r->track, &a->kept, err) < 0)
				return -1;
		}
		if (r->bytes != (r->part == PART_KEPT_TIMES
		                     ? (size_t)a->kept.sampler.key_count * sizeof(float)
		                     : a->kept.sampler.value_bytes)) {
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "export: track %u of entry %" PRId64
			          " changed while the asset was sent",
			          r->track, r->entry);
			return -1;
		}
		a->piece = r->part == PART_KEPT_TIMES ? (const void *)a->kept.sampler.times
		                                      : a->kept.sampler.values;
		if (r->part == PART_KEPT_VALUES) { /* its times are sent: only its values held */
			free(a->kept.sampler.times);
			a->kept.sampler.times = NULL;
		}
	} else if (r->part == PART_BIND) {
		struct rig rig;
		size_t bytes = 0;
		free(a->times);
		free(a->values);
		a->times = a->values = NULL;
		if (catalog_read_rig(cat, r->entry, &rig, err) < 0)
			return -1;
		made = export_bind_matrices(&rig, &a->values, &bytes);
		rig_cleanup(&rig);
		if (made < 0) {
			error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
			return -1;
		}
		if (bytes != r->bytes) {
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "export: entry %" PRId64
			          "'s rig changed while the asset was sent",
			          r->entry);
			return -1;
		}
		a->piece = a->values;
	} else {
		if (!a->times || a->track_entry != r->entry || a->track_n != r->track ||
		    r->part == PART_TIMES) {
			free(a->times);
			free(a->values);
			a->times = a->values = NULL;
			if (read_track(a, cat, r, &t, err) < 0)
				return -1;
			made = r->euler ? export_bake_euler(a->scratch, &t.sampler, r->euler,
			                                    r->entry, r->track, &a->times,
			                                    &a->values, &a->key_count)
			                : export_gltf_keys(a->scratch, &t.sampler,
			                                   (enum channel_path)r->path, &a->times,
			                                   &a->values, &a->key_count);
			a->values_bytes = a->key_count * sizeof(float) *
			                  (r->euler ? 4
			                            : sampler_components(&t.sampler) *
			                                  (made == INTERP_CUBIC_SPLINE ? 3 : 1));
			catalog_track_cleanup(&t);
			if (made < 0) {
				error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
				return -1;
			}
			a->track_entry = r->entry;
			a->track_n = r->track;
		}
		if (r->part == PART_TIMES ? r->bytes != a->key_count * sizeof(float)
		                          : r->bytes > a->values_bytes) {
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "export: track %u of entry %" PRId64
			          " changed while the asset was "
			          "sent",
			          r->track, r->entry);
			return -1;
		}
		a->piece = r->part == PART_TIMES ? (const void *)a->times : (const void *)a->values;
	}
	a->piece_length = r->bytes;
	a->piece_at = 0;
	return 0;
}

/* Up to `room` bytes of buffer 0 from where the asset is: the count, 0 at its end. Made
 * again, each accessor's bytes follow its padding; a track that no longer gives the bytes it
 * gave (changed or deleted meanwhile) fails the read. */
static long read_buffer(struct export_asset *a, struct catalog *cat, uint8_t *out, size_t room,
                        struct error *err)
{
	size_t n = 0;

	if (!a->made_again && !a->held.data && a->bin_length) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "export: a planned asset has no bytes");
		return -1;
	}
	while (n < room && a->bin_at < a->bin_length) {
		size_t take;
		if (!a->made_again) {
			take = (size_t)(a->bin_length - a->bin_at);
			take = take < room - n ? take : room - n;
			memcpy(out + n, a->held.data + a->bin_at, take);
		} else if (a->piece && a->piece_at < a->piece_length) {
			take = a->piece_length - a->piece_at;
			take = take < room - n ? take : room - n;
			memcpy(out + n, (const uint8_t *)a->piece + a->piece_at, take);
			a->piece_at += take;
		} else {
			/* zeros up to the next accessor, or to the buffer's end */
			uint64_t upto =
			    a->next < a->recipe_count ? a->recipes[a->next].offset : a->bin_length;
			if (a->bin_at < upto) {
				take = (size_t)(upto - a->bin_at);
				take = take < room - n ? take : room - n;
				memset(out + n, 0, take);
			} else if (a->next < a->recipe_count) {
				if (make_piece(a, &a->recipes[a->next++], cat, err) < 0)
					return -1;
				continue;
			} else {
				break;
			}
		}
		n += take;
		a->bin_at += take;
	}
	return (long)n;
}

/* The next base64 text of buffer 0, in runs of whole groups of three bytes. */
static int encode_next(struct export_asset *a, struct catalog *cat, struct error *err)
{
	uint8_t raw[48 * 1024];
	long got = read_buffer(a, cat, raw, sizeof(raw), err);

	free(a->encoded);
	a->encoded = NULL;
	a->encoded_length = a->encoded_at = 0;
	if (got < 0)
		return -1;
	if (got > 0 && !(a->encoded = base64_encode(raw, (size_t)got, &a->encoded_length))) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* The next bytes of one of the asset's parts (from[*at...length)) into out; how many. */
static size_t give(const void *from, size_t length, size_t *at, char *out, size_t room)
{
	size_t take = length - *at < room ? length - *at : room;

	memcpy(out, (const char *)from + *at, take);
	*at += take;
	return take;
}

long export_asset_read(struct export_asset *a, struct catalog *cat, char *out, size_t room,
                       struct error *err)
{
	size_t n = 0;

	while (n < room) {
		size_t take;
		if (a->glb_header_at < sizeof(a->glb_header)) {
			take = give(a->glb_header, sizeof(a->glb_header), &a->glb_header_at,
			            out + n, room - n);
		} else if (a->head_at < a->head_length) {
			take = give(a->head, a->head_length, &a->head_at, out + n, room - n);
		} else if (a->bin_at < a->bin_length && !a->base64) {
			long got = read_buffer(a, cat, (uint8_t *)out + n, room - n, err);
			if (got < 0)
				return -1;
			take = (size_t)got;
		} else if (a->base64 &&
		           (a->encoded_at < a->encoded_length || a->bin_at < a->bin_length)) {
			if (a->encoded_at == a->encoded_length) {
				if (encode_next(a, cat, err) < 0)
					return -1;
				continue;
			}
			take =
			    give(a->encoded, a->encoded_length, &a->encoded_at, out + n, room - n);
		} else if (a->tail_at < a->tail_length) {
			take = give(a->tail, a->tail_length, &a->tail_at, out + n, room - n);
		} else {
			break;
		}
		n += take;
	}
	return (long)n;
}

int export_parse_bake_rate(const char *text, double *rate)
{
	size_t whole = strspn(text, "0123456789"), fraction = 0;
	double v;

	/* digits, and a decimal point with digits after it: no sign, space, hex or exponent */
	if (whole == 0)
		return -1;
	if (text[whole] == '.') {
		fraction = strspn(text + whole + 1, "0123456789");
		if (fraction == 0)
			return -1;
		fraction++;
	}
	if (text[whole + fraction] != '\0' || whole + fraction > 32)
		return -1;
	v = strtod(text, NULL);
	if (!(v > 0) || v > 1000)
		return -1;
	*rate = v;
	return 0;
}

void export_file_name(const char *name, int glb, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = name ? name : ""; *p && n + 6 < size && n < 120; p++) {
		unsigned char c = (unsigned char)*p;
		out[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                   (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
		               ? (char)c
		               : '_';
	}
	if (n == 0)
		n = (size_t)snprintf(out, size, "animdex-export");
	snprintf(out + n, size - n, "%s", glb ? ".glb" : ".gltf");
}
