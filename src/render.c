/* render.c: the model as JSON, JSON as text, handles and times as text, and float32
 * formatting. Below both the catalogue and the HTTP layer: it knows neither. */
#include "render.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "1e+38" -> "1e38", "1e-07" -> "1e-7": the fast path's style. */
static size_t tidy_exponent(char *out, size_t n)
{
	char *e = strchr(out, 'e'), *digits;
	size_t keep;

	if (!e)
		return n;
	digits = e + 1;
	if (*digits == '+')
		memmove(digits, digits + 1, strlen(digits));
	else if (*digits == '-')
		digits++;
	keep = strspn(digits, "0");
	if (keep && digits[keep])
		memmove(digits, digits + keep, strlen(digits + keep) + 1);
	return strlen(out);
}

/* The slow exact path: the shortest %.Ng that reads back as f. */
static size_t render_float_slow(float f, char *out)
{
	int n;

	for (int p = 1; p < 9; p++) {
		n = snprintf(out, 32, "%.*g", p, (double)f);
		if (strtof(out, NULL) == f)
			return tidy_exponent(out, (size_t)n);
	}
	n = snprintf(out, 32, "%.9g", (double)f);
	return tidy_exponent(out, (size_t)n);
}

static const double powers_of_ten[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                         1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                         1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* digits x 10^k as a double, from exact powers of ten (one rounding), or NAN out of range. */
static double scale_by_ten(double digits, int k)
{
	if (k >= 0)
		return k <= 22 ? digits * powers_of_ten[k] : NAN;
	return -k <= 22 ? digits / powers_of_ten[-k] : NAN;
}

/* Does the decimal value v (a double within 2^-52 of the true decimal, or equal to it when
 * `exact`) round to f, with no doubt? False when v is too near a midpoint between floats to
 * tell in double. An exact tie rounds to the float whose last mantissa bit is 0. */
static int rounds_to(double v, float f, int exact)
{
	float g = (float)v;
	double up, down, guard;
	uint32_t bits;

	if (g != f)
		return 0;
	up = ((double)g + (double)nextafterf(g, INFINITY)) / 2;
	down = ((double)g + (double)nextafterf(g, -INFINITY)) / 2;
	if (exact && (v == up || v == down)) {
		memcpy(&bits, &g, sizeof(bits));
		return (bits & 1) == 0;
	}
	guard = fabs(v) * 0x1p-50;
	return fabs(v - up) > guard && fabs(v - down) > guard;
}

/* Writes `d` (p significant digits, trailing zeros dropped) times 10^e10 like %g does. */
static size_t write_decimal(int negative, uint64_t d, int p, int e10, char *out)
{
	char digits[24];
	size_t n = 0, o = 0;

	while (p > 1 && d % 10 == 0)
		d /= 10, p--;
	for (int i = p - 1; i >= 0; i--, d /= 10)
		digits[i] = (char)('0' + d % 10);
	n = (size_t)p;
	if (negative)
		out[o++] = '-';
	if (e10 >= -5 && e10 < 9) {
		if (e10 < 0) {
			out[o++] = '0';
			out[o++] = '.';
			for (int i = -1; i > e10; i--)
				out[o++] = '0';
			memcpy(out + o, digits, n);
			o += n;
		} else if ((size_t)e10 + 1 >= n) {
			memcpy(out + o, digits, n);
			o += n;
			for (size_t i = n; i < (size_t)e10 + 1; i++)
				out[o++] = '0';
		} else {
			memcpy(out + o, digits, (size_t)e10 + 1);
			o += (size_t)e10 + 1;
			out[o++] = '.';
			memcpy(out + o, digits + e10 + 1, n - (size_t)e10 - 1);
			o += n - (size_t)e10 - 1;
		}
	} else {
		out[o++] = digits[0];
		if (n > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, n - 1);
			o += n - 1;
		}
		o += (size_t)snprintf(out + o, 8, "e%d", e10);
	}
	out[o] = '\0';
	return o;
}

size_t render_float(float f, int digits, char *out)
{
	double x;
	int e10;

	if (!isfinite(f)) {
		memcpy(out, "null", 5);
		return 4;
	}
	if (f == 0.0f) {
		/* keep the sign of -0 out of JSON: both read back as 0 */
		out[0] = '0';
		out[1] = '\0';
		return 1;
	}
	if (digits >= 1 && digits <= 9)
		return tidy_exponent(out, (size_t)snprintf(out, 32, "%.*g", digits, (double)f));
	/* The shortest decimal that reads back as f: for p = 1..9 significant digits, round in
	 * double and keep the first candidate that provably rounds to f. Values out of the
	 * exact powers' range, or too near a midpoint, take the slow exact path. */
	x = fabs((double)f);
	{
		int e2;
		frexp(x, &e2);
		/* 10^e10 <= x < 10^(e10 + 1); the estimate from the binary exponent is at most one
		 * too low */
		e10 = (int)floor((e2 - 1) * 0.30102999566398120);
		if (x >=
		    (e10 + 1 >= -22 && e10 + 1 <= 22 ? scale_by_ten(1, e10 + 1) : pow(10, e10 + 1)))
			e10++;
	}
	for (int p = 1; p <= 9; p++) {
		int k = e10 - p + 1;
		double scaled = k >= 0 ? (k <= 22 ? x / powers_of_ten[k] : NAN)
		                       : (-k <= 22 ? x * powers_of_ten[-k] : NAN);
		double lo, hi;
		if (!isfinite(scaled))
			return render_float_slow(f, out);
		lo = floor(scaled);
		hi = lo + 1;
		/* the nearer neighbour first; both when the other is as near */
		double first = scaled - lo <= hi - scaled ? lo : hi, second = first == lo ? hi : lo;
		for (int pick = 0; pick < 2; pick++) {
			double d = pick ? second : first, v;
			if (pick && fabs((scaled - lo) - 0.5) > 1e-6)
				break;
			v = scale_by_ten(d, k);
			if (!isfinite(v))
				return render_float_slow(f, out);
			if (rounds_to(v, (float)x, k >= 0 && v < 0x1p53)) {
				int p10 = p;
				while (p10 < 17 && d >= powers_of_ten[p10])
					p10++; /* a carry, or an exponent estimated one too low */
				return write_decimal(f < 0, (uint64_t)d, p10, k + p10 - 1, out);
			}
		}
	}
	return render_float_slow(f, out);
}

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
	return json_pack(
	    "{s:s, s:s, s:o, s:s, s:I, s:s, s:o, s:O, s:o}", "family", res->family, "class",
	    res->class_name, "name", res->name ? json_string(res->name) : json_null(), "crc32",
	    handle, "crc32_decimal", (json_int_t)res->crc32, "crc32_source", res->crc32_source,
	    "structure", render_structure(res), "assumed", res->assumed, "tracks", tracks);
}

/* Reals: a float32 (every float animdex keeps) as the shortest text that reads back as that
 * float32, so that 1.9144f is "1.9144" wherever it shows; any other double as the shortest
 * of %.15g, %.16g and %.17g that reads back as it. */
static void json_real_text(struct buf *b, double d)
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

static void json_string_text(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;

	buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_append(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': buf_puts(b, "\\\""); break;
		case '\\': buf_puts(b, "\\\\"); break;
		case '\n': buf_puts(b, "\\n"); break;
		case '\r': buf_puts(b, "\\r"); break;
		case '\t': buf_puts(b, "\\t"); break;
		default: {
			char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
			buf_puts(b, u);
		}
		}
	}
	buf_append(b, s + run, n - run);
	buf_putc(b, '"');
}

static void json_indent(struct buf *b, int indent, int depth)
{
	if (!indent)
		return;
	buf_putc(b, '\n');
	for (int i = 0; i < indent * depth; i++)
		buf_putc(b, ' ');
}

static void json_value_text(struct buf *b, const json_t *j, int indent, int depth)
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
			json_indent(b, indent, depth + 1);
			json_string_text(b, key, strlen(key));
			buf_puts(b, indent ? ": " : ":");
			json_value_text(b, value, indent, depth + 1);
		}
		if (!first)
			json_indent(b, indent, depth);
		buf_putc(b, '}');
		break;
	}
	case JSON_ARRAY:
		buf_putc(b, '[');
		for (size_t i = 0; i < json_array_size(j); i++) {
			if (i)
				buf_putc(b, ',');
			json_indent(b, indent, depth + 1);
			json_value_text(b, json_array_get(j, i), indent, depth + 1);
		}
		if (json_array_size(j))
			json_indent(b, indent, depth);
		buf_putc(b, ']');
		break;
	case JSON_STRING: json_string_text(b, json_string_value(j), json_string_length(j)); break;
	case JSON_INTEGER: buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(j)); break;
	case JSON_REAL: json_real_text(b, json_real_value(j)); break;
	case JSON_TRUE: buf_puts(b, "true"); break;
	case JSON_FALSE: buf_puts(b, "false"); break;
	default: buf_puts(b, "null");
	}
}

int render_json_append(struct buf *b, const json_t *json, int indent)
{
	json_value_text(b, json, indent, 0);
	return b->overflow ? -1 : 0;
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

/* UTF-8 */

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not one. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

int utf8_valid(const char *text, size_t length)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0; i < length;) {
		size_t n = utf8_sequence(s + i, length - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

size_t utf8_escape(const char *text, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text), o = 0;

	if (!size)
		return 0;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence(s + i, len - i);
		if (n) {
			if (o + n >= size)
				break;
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			if (o + 4 >= size)
				break;
			snprintf(out + o, 5, "\\x%02X", s[i]);
			o += 4;
			i++;
		}
	}
	out[o] = '\0';
	return o;
}
