/* render_json.c: JSON as text, with one string escaper and one writer in two flavours:
 *
 *   answers  what the API sends: float32 reals as their shortest text ("1.9144", as samples
 *            are), indented or compact, with texts spliced in for placeholders (render.h);
 *   stored   what the catalogue stores: byte for byte what jansson's json_dumps(JSON_COMPACT)
 *            writes, as the catalogue always has, without its cost (it decodes every string
 *            character by character); refused, as jansson refuses, where a text is not UTF-8.
 *
 * A resource's structure is also written here straight from the model, without a tree
 * (render_structure_stored): byte for byte what the stored flavour writes of
 * render_structure's tree.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

enum flavour { ANSWER, STORED };

/* A string: \" \\ \n \r \t, and \u00XX for the other control bytes (answers: lower-case hex;
 * stored: \b and \f too, upper-case hex, as jansson writes them); every other byte as it is.
 * -1 when a stored string is not UTF-8 (jansson refuses to write it); answers write their
 * bytes as they are. */
static int string_text(struct buf *b, const char *s, size_t n, enum flavour fl)
{
	const char *hex = fl == STORED ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t run = 0;

	buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		char escape[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
		if (c >= 0x80 && fl == STORED) { /* checked as it goes */
			size_t len = utf8_sequence((const unsigned char *)s + i, n - i);
			if (!len)
				return -1;
			i += len;
			continue;
		}
		if (c >= 0x20 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		buf_append(b, s + run, i - run);
		run = ++i;
		switch (c) {
		case '"': escape[1] = '"', escape[2] = 0; break;
		case '\\': escape[1] = '\\', escape[2] = 0; break;
		case '\n': escape[1] = 'n', escape[2] = 0; break;
		case '\r': escape[1] = 'r', escape[2] = 0; break;
		case '\t': escape[1] = 't', escape[2] = 0; break;
		case '\b':
			if (fl == STORED)
				escape[1] = 'b', escape[2] = 0;
			break;
		case '\f':
			if (fl == STORED)
				escape[1] = 'f', escape[2] = 0;
			break;
		default: break;
		}
		buf_append(b, escape, strlen(escape));
	}
	buf_append(b, s + run, n - run);
	buf_putc(b, '"');
	return 0;
}

/* An answer's real: a float32 (every float animdex keeps) as the shortest text that reads
 * back as that float32, so that 1.9144f is "1.9144" wherever it shows; any other double as
 * the shortest of %.15g, %.16g and %.17g that reads back as it. */
static void answer_real_text(struct buf *b, double d)
{
	char text[40];
	float f = (float)d;

	if ((double)f == d) {
		buf_append(b, text, render_float(f, 0, text));
		return;
	}
	for (int p = 15; p <= 17; p++) {
		snprintf(text, sizeof(text), "%.*g", p, d);
		if (strtod(text, NULL) == d || p == 17)
			break;
	}
	if (!strpbrk(text, ".eEn"))
		strcat(text, ".0"); /* stays a real */
	buf_puts(b, text);
}

/* A real: %.17g, with ".0" when that reads as an integer, and the exponent without its '+'
 * or leading zeros. */
static void stored_real_text(struct buf *b, double d)
{
	char text[40], *start, *end;
	size_t length = (size_t)snprintf(text, sizeof(text) - 3, "%.17g", d);

	if (!strchr(text, '.') && !strchr(text, 'e')) {
		memcpy(text + length, ".0", 3);
		length += 2;
	}
	start = strchr(text, 'e');
	if (start) {
		start++;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, length + 1 - (size_t)(end - text));
			length -= (size_t)(end - start);
		}
	}
	buf_append(b, text, length);
}

/* An integer as the stored flavour writes it. */
static void stored_int_text(struct buf *b, json_int_t v)
{
	if (v >= 0)
		buf_put_uint(b, (unsigned long long)v);
	else
		buf_printf(b, "%" JSON_INTEGER_FORMAT, v);
}

static void json_indent(struct buf *b, int indent, int depth)
{
	if (!indent)
		return;
	buf_putc(b, '\n');
	for (int i = 0; i < indent * depth; i++)
		buf_putc(b, ' ');
}

/* The splice for value j, or NULL (splices sorted by address; only empty strings are looked
 * for: every placeholder is one). */
static const struct render_splice *splice_for(const struct render_splices *sp, const json_t *j)
{
	size_t lo = 0, hi = sp ? sp->count : 0;

	if (hi == 0 || json_string_length(j) != 0)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)sp->items[mid].value < (uintptr_t)j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sp->count && sp->items[lo].value == j ? &sp->items[lo] : NULL;
}

/* How a tree is written: its flavour, indentation (answers only) and splices (answers
 * only, or NULL). */
struct style {
	enum flavour flavour;
	int indent;
	const struct render_splices *splices;
};
static const struct style stored_style = {STORED, 0, NULL};

/* -1 when the stored flavour meets a text that is not UTF-8. */
static int value_text(struct buf *b, const json_t *j, const struct style *st, int depth)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *value;
		int first = 1;
		buf_putc(b, '{');
		json_object_foreach((json_t *)j, key, value)
		{
			if (!first)
				buf_putc(b, ',');
			first = 0;
			json_indent(b, st->indent, depth + 1);
			if (string_text(b, key, strlen(key), st->flavour) < 0)
				return -1;
			buf_puts(b, st->indent ? ": " : ":");
			if (value_text(b, value, st, depth + 1) < 0)
				return -1;
		}
		if (!first)
			json_indent(b, st->indent, depth);
		buf_putc(b, '}');
		return 0;
	}
	case JSON_ARRAY:
		buf_putc(b, '[');
		for (size_t i = 0; i < json_array_size(j); i++) {
			if (i)
				buf_putc(b, ',');
			json_indent(b, st->indent, depth + 1);
			if (value_text(b, json_array_get(j, i), st, depth + 1) < 0)
				return -1;
		}
		if (json_array_size(j))
			json_indent(b, st->indent, depth);
		buf_putc(b, ']');
		return 0;
	case JSON_STRING: {
		const struct render_splice *splice = splice_for(st->splices, j);
		if (splice) {
			buf_append(b, splice->text, splice->length);
			return 0;
		}
		return string_text(b, json_string_value(j), json_string_length(j), st->flavour);
	}
	case JSON_INTEGER: stored_int_text(b, json_integer_value(j)); return 0;
	case JSON_REAL:
		if (st->flavour == STORED)
			stored_real_text(b, json_real_value(j));
		else
			answer_real_text(b, json_real_value(j));
		return 0;
	case JSON_TRUE: buf_puts(b, "true"); return 0;
	case JSON_FALSE: buf_puts(b, "false"); return 0;
	default: buf_puts(b, "null"); return 0;
	}
}

int render_json_append(struct buf *b, const json_t *json, int indent)
{
	const struct style st = {ANSWER, indent, NULL};

	value_text(b, json, &st, 0);
	return b->overflow ? -1 : 0;
}

static int splice_order(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct render_splice *)a)->value,
	          y = (uintptr_t)((const struct render_splice *)b)->value;
	return x < y ? -1 : x > y;
}

char *render_json_spliced(const json_t *json, struct render_splices *sp, size_t *length)
{
	const struct style st = {ANSWER, 0, sp};
	struct buf b;

	if (sp->count > 1)
		qsort(sp->items, sp->count, sizeof(*sp->items), splice_order);
	buf_init(&b, (size_t)1 << 31);
	value_text(&b, json, &st, 0);
	if (buf_putc(&b, '\n') < 0 || b.overflow) {
		buf_cleanup(&b);
		return NULL;
	}
	return buf_steal(&b, length);
}

char *render_json(const json_t *json, int indent, size_t *length)
{
	struct buf b;

	buf_init(&b, (size_t)1 << 31);
	if (!json || render_json_append(&b, json, indent) < 0 || buf_putc(&b, '\n') < 0) {
		buf_cleanup(&b);
		return NULL;
	}
	return buf_steal(&b, length);
}

void render_string_append(struct buf *b, const char *text)
{
	if (!text || !utf8_valid(text, strlen(text)))
		buf_puts(b, "null");
	else
		string_text(b, text, strlen(text), ANSWER);
}

char *render_json_stored(const json_t *json)
{
	struct buf b;
	char *text, *fitted;
	size_t length;

	if (!json_is_object(json) && !json_is_array(json))
		return NULL; /* json_dumps writes only these */
	buf_init(&b, (size_t)1 << 31);
	buf_reserve(&b, 2048); /* a typical structure in one allocation */
	if (value_text(&b, json, &stored_style, 0) < 0 || b.overflow) {
		buf_cleanup(&b);
		return NULL;
	}
	text = buf_steal(&b, &length);
	/* a resource keeps one of these a track until it is stored: no 2 KB for 100 bytes */
	fitted = realloc(text, length + 1);
	return fitted ? fitted : text;
}

/* What render_u64 makes, stored. */
static void stored_u64_text(struct buf *b, uint64_t v)
{
	char text[24];

	if (v <= (uint64_t)INT64_MAX) {
		buf_put_uint(b, v);
		return;
	}
	string_text(b, text, (size_t)snprintf(text, sizeof(text), "%" PRIu64, v), STORED);
}

/* A C string, or null for NULL, stored; -1 when it is not UTF-8. */
static int stored_cstring_text(struct buf *b, const char *s)
{
	if (!s) {
		buf_puts(b, "null");
		return 0;
	}
	return string_text(b, s, strlen(s), STORED);
}

/* render_structure's tree as it is stored, key for key in its order; -1 where jansson would
 * have refused a value (text that is not UTF-8, a real that is not finite): render_structure
 * drops such a target or sampler, or gives no tree at all, and its own way is then taken. */
static int structure_text(struct buf *b, const struct resource *res)
{
	const struct clip *clip = &res->clip;

	if (!isfinite(clip->duration))
		return -1;
	buf_puts(b, "{\"clip\":{\"name\":");
	if (stored_cstring_text(b, clip->name) < 0)
		return -1;
	buf_puts(b, ",\"duration\":");
	stored_real_text(b, clip->duration);
	buf_puts(b, ",\"targets\":[");
	for (size_t i = 0; i < clip->target_count; i++) {
		const struct target *t = &clip->targets[i];
		buf_puts(b, i ? ",{\"schema\":" : "{\"schema\":");
		if (stored_cstring_text(b, t->schema) < 0)
			return -1;
		buf_puts(b, ",\"object\":");
		stored_u64_text(b, t->object);
		buf_puts(b, ",\"name\":");
		if (stored_cstring_text(b, t->name) < 0)
			return -1;
		buf_putc(b, '}');
	}
	buf_puts(b, "],\"samplers\":[");
	for (size_t i = 0; i < clip->sampler_count; i++) {
		const struct sampler *s = &clip->samplers[i];
		const char *type = value_type_name(s->type),
		           *interp = interpolation_name(s->interp);
		const char *semantic = semantic_name(s->semantic);
		double first = (double)s->times[0], last = (double)s->times[s->key_count - 1];
		if (!type || !interp || !semantic || !isfinite(first) || !isfinite(last))
			return -1;
		buf_puts(b, i ? ",{\"value\":{\"type\":" : "{\"value\":{\"type\":");
		stored_cstring_text(b, type);
		buf_puts(b, ",\"array_size\":");
		stored_int_text(b, (json_int_t)s->array_size);
		buf_puts(b, "},\"interpolation\":");
		stored_cstring_text(b, interp);
		buf_puts(b, ",\"semantic\":");
		stored_cstring_text(b, semantic);
		buf_puts(b, ",\"keyframe_count\":");
		stored_int_text(b, (json_int_t)s->key_count);
		buf_puts(b, ",\"value_data_size\":");
		stored_int_text(b, (json_int_t)s->value_bytes);
		buf_puts(b, ",\"time_range\":[");
		stored_real_text(b, first);
		buf_putc(b, ',');
		stored_real_text(b, last);
		buf_puts(b, "]}");
	}
	buf_puts(b, "],\"channels\":[");
	for (size_t i = 0; i < clip->channel_count; i++) {
		const struct channel *c = &clip->channels[i];
		buf_puts(b, i ? ",{\"target\":" : "{\"target\":");
		stored_int_text(b, (json_int_t)c->target);
		buf_puts(b, ",\"property\":");
		stored_u64_text(b, c->property);
		buf_puts(b, ",\"first_array_element\":");
		stored_int_text(b, (json_int_t)c->first_element);
		buf_puts(b, ",\"sampler\":");
		stored_int_text(b, (json_int_t)c->sampler);
		buf_putc(b, '}');
	}
	buf_puts(b, "]}");
	if (res->metadata) {
		buf_puts(b, ",\"metadata\":");
		if (value_text(b, res->metadata, &stored_style, 0) < 0)
			return -1;
	}
	buf_putc(b, '}');
	return 0;
}

char *render_structure_stored(const struct resource *res)
{
	struct buf b;
	json_t *tree;
	char *text;

	buf_init(&b, (size_t)1 << 31);
	buf_reserve(&b, 2048);
	if (structure_text(&b, res) == 0 && !b.overflow)
		return buf_steal(&b, NULL);
	buf_cleanup(&b);
	tree = render_structure(res);
	text = tree ? render_json_stored(tree) : NULL;
	json_decref(tree);
	return text;
}
