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

/* Shortest float32 text in the manner of Schubfach (Raffaello Giulietti, "The Schubfach way
 * to render doubles", 2020), for float32. A float c x 2^q reads back from every decimal of
 * its rounding interval, whose bounds are (c -+ 1/2) x 2^q (the lower one (c - 1/4) x 2^q
 * where c is a power of two and the float below is closer); the bounds are included when c
 * is even. With k = floor(log10(width)), the interval holds at least one integer multiple
 * of 10^k and at most one of 10^(k+1): the bounds and f, scaled by 10^-k and computed in
 * quarter units to one bit past the binary point (rounded to odd, which keeps every
 * comparison exact), give the candidates s = floor(f x 10^-k) and s + 1, and the multiples
 * of ten around s. A multiple of ten inside is the shortest (with its zeros removed);
 * otherwise the one of s, s + 1 inside, or, both inside, the closer to f (ties to even).
 * 10^-k is a 63-bit significand rounded up, from a table made once, exactly, with 128-bit
 * integers; k, that significand and the shift are looked up by the float's exponent bits.
 * `make check-floats` compares the result with a slow exact method for all 2^32 bit
 * patterns. */
__extension__ typedef unsigned __int128 u128;

/* What the float's exponent bits give: k, 10^-k as g x 2^(log2 - 62) with g in [2^62, 2^63)
 * rounded up, and the shift that lines the quarter units up with g's product. */
struct float_scale {
	uint64_t ten;
	int32_t k;
	int32_t shift;
};

/* by the 8 exponent bits (0, the subnormals, spaced as 1 is); the second where the float
 * below is closer (c = 2^23, exponent bits above 1) */
static struct float_scale scale_even[256], scale_lower_closer[256];

/* floor(log10(2^q)), floor(log10(3/4 x 2^q)) and floor(log2(10^e)) for |q|, |e| < 1,000 */
static int32_t floor_log10_pow2(int32_t q)
{
	return (int32_t)(((int64_t)q * 661971961083LL) >> 41);
}

static int32_t floor_log10_three_quarters_pow2(int32_t q)
{
	return (int32_t)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
}

static int32_t floor_log2_pow10(int32_t e)
{
	return (int32_t)(((int64_t)e * 913124641741LL) >> 38);
}

/* 10^e's 63-bit significand, rounded up: floor(10^e x 2^(62 - floor(log2(10^e)))) + 1, for
 * -32 <= e <= 46 (5^46 and the quotients below fit in 128 bits) */
static uint64_t ten_significand(int32_t e)
{
	int32_t bits = 62 - floor_log2_pow10(e);
	u128 five = 1, g;

	for (int32_t i = 0; i < (e < 0 ? -e : e); i++)
		five *= 5;
	if (e >= 0) {
		/* 10^e 2^bits = 5^e 2^(e + bits) */
		g = e + bits >= 0 ? five << (e + bits) : five >> -(e + bits);
	} else {
		/* 2^(bits + e) / 5^-e, bits + e up to 140: the last 20 bits a second step */
		int32_t n = bits + e, low = n > 120 ? n - 120 : 0;
		u128 top = (u128)1 << (n - low), q = top / five, r = top % five;
		g = (q << low) + (r << low) / five;
	}
	return (uint64_t)g + 1;
}

static void scale_set(struct float_scale *sc, int32_t q, int32_t k)
{
	sc->k = k;
	sc->ten = ten_significand(-k);
	sc->shift = q + floor_log2_pow10(-k) + 33;
}

/* Filled before main() (a constructor), so that no call pays for a check. */
__attribute__((constructor)) static void scale_tables(void)
{
	for (int32_t b = 0; b < 256; b++) {
		int32_t q = (b ? b : 1) - 150;
		scale_set(&scale_even[b], q, floor_log10_pow2(q));
		scale_set(&scale_lower_closer[b], q, floor_log10_three_quarters_pow2(q));
	}
}

/* (g x cp) / 2^95, rounded to odd: the lowest bit set when anything below it is */
static uint64_t round_to_odd(uint64_t g, uint64_t cp)
{
	uint64_t high = (uint64_t)(((u128)g * cp) >> 64);

	return (high >> 31) | ((high & 0x7FFFFFFFu) != 0);
}

/* The shortest decimal that reads back as the float of these bits (sign bit clear; any
 * value, though only a finite non-zero one gives a meaningful answer). Without a branch on
 * the digits: which candidate wins depends on them, and a mispredicted branch costs more
 * than computing all of them. */
static struct float_decimal shortest_decimal(uint32_t bits)
{
	uint32_t mantissa = bits & 0x7FFFFFu, biased = bits >> 23;
	uint64_t c = biased ? mantissa | 1u << 23 : mantissa;
	uint64_t lower_closer = mantissa == 0 && biased > 1;
	const struct float_scale *sc =
	    lower_closer ? &scale_lower_closer[biased] : &scale_even[biased];
	uint64_t out = c & 1, cb = c << 2; /* out: the bounds are excluded */
	uint64_t vb = round_to_odd(sc->ten, cb << sc->shift);
	uint64_t vbl = round_to_odd(sc->ten, (cb - 2 + lower_closer) << sc->shift);
	uint64_t vbr = round_to_odd(sc->ten, (cb + 2) << sc->shift);
	uint64_t s = vb >> 2, t = s + 1, sp10 = s / 10 * 10, tp10 = sp10 + 10;
	uint64_t sp10_in = vbl + out <= sp10 << 2, tp10_in = (tp10 << 2) + out <= vbr;
	uint64_t s_in = vbl + out <= s << 2, t_in = (t << 2) + out <= vbr;
	uint64_t s_closer = vb + (s & 1) < 4 * s + 3; /* below s + 1/2, or on it with s even */
	uint64_t one_in = s_in ^ t_in;
	uint64_t longer = t - ((one_in & s_in) | (~one_in & s_closer & 1));
	uint64_t shorter = tp10 - 10 * sp10_in;
	struct float_decimal d;

	d.digits = (uint32_t)(longer + ((0 - (sp10_in ^ tp10_in)) & (shorter - longer)));
	d.exponent = sc->k;
	return d;
}

void render_float_decimals(const float *v, size_t n, struct float_decimal *out)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t bits;
		memcpy(&bits, &v[i], sizeof(bits));
		out[i] = shortest_decimal(bits & 0x7FFFFFFFu);
	}
}

/* The text of a decimal is made in a register: its nine digits (leading zeros included),
 * eight of them at once without division (each step splits every lane of the word in two:
 * by 10^4, 10^2, then 10, with multiply-and-shift quotients exact below those bounds), and
 * stored in wide pieces: out must hold 32 bytes, of which those past the text are scratch. */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* The eight digits of x < 10^8 as characters, the first in the lowest byte. */
static uint64_t eight_digits(uint32_t x)
{
	uint64_t v = x / 10000u | (uint64_t)(x % 10000u) << 32;    /* 2 lanes of 4 digits */
	uint64_t q = ((v * 10486u) >> 20) & 0x0000007F0000007Full; /* lane / 100 */

	v = q | (v - 100u * q) << 16;                   /* 4 lanes of 2 digits */
	q = ((v * 103u) >> 10) & 0x000F000F000F000Full; /* lane / 10 */
	v = q | (v - 10u * q) << 8;                     /* 8 lanes of 1 digit */
	return v + 0x3030303030303030ull;
}

/* Stores the 16 characters of s (the first in the lowest byte) at out. */
static void put_chars(char *out, u128 s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out, &s, sizeof(s));
#else
	for (int i = 0; i < 16; i++)
		out[i] = (char)(uint8_t)(s >> (8 * i));
#endif
}

/* The count of decimal digits of d > 0, without a branch: from its bit length (log10(2) is
 * about 1233 / 4096), less one where d is below the power of ten that length suggests. */
static int decimal_digits(uint32_t d)
{
	static const uint32_t powers[10] = {1,      10,      100,      1000,      10000,
	                                    100000, 1000000, 10000000, 100000000, 1000000000};
	int guess = (int)(((uint32_t)(32 - __builtin_clz(d)) * 1233u) >> 12);

	return guess + 1 - (d < powers[guess]);
}

size_t render_float_text(float f, struct float_decimal dec, char *out)
{
	uint32_t bits, high, d = dec.digits;
	uint64_t low, zeros;
	int lead, n, e10;
	u128 sig;
	char *o = out;

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
	/* d < 10^9 as nine characters, leading zeros and all; the significant ones from the
	 * first that is not a zero to the last (the zeros at the end found from the word) */
	high = d / 100000000u;
	low = eight_digits(d - high * 100000000u);
	zeros = low ^ 0x3030303030303030ull;
	lead = 9 - decimal_digits(d);
	n = 9 - lead - (zeros ? __builtin_clzll(zeros) / 8 : 8);
	e10 = dec.exponent + 8 - lead; /* of the first digit */
	sig = ((u128)low << 8 | (uint8_t)('0' + high)) >> (8 * lead);
	memcpy(&bits, &f, sizeof(bits));
	*o = '-';
	o += bits >> 31;
	/* written like %g does, without its trailing zeros */
	if (e10 >= -5 && e10 < 0) { /* 0.000ddd */
		memcpy(o, "0.000000", 8);
		o += 1 - e10;
		put_chars(o, sig);
		o += n;
	} else if (e10 >= 0 && e10 + 1 >= n && e10 < 9) { /* ddd000 */
		put_chars(o, sig);
		memcpy(o + n, "00000000", 8);
		o += e10 + 1;
	} else if (e10 >= 0 && e10 < 9) { /* ddd.ddd */
		put_chars(o, sig);
		o[e10 + 1] = '.';
		put_chars(o + e10 + 2, sig >> (8 * (e10 + 1)));
		o += n + 1;
	} else { /* d.ddde-dd */
		int e = e10 < 0 ? -e10 : e10;
		*o++ = (char)(uint8_t)sig;
		if (n > 1) {
			*o++ = '.';
			put_chars(o, sig >> 8);
			o += n - 1;
		}
		*o++ = 'e';
		*o = '-';
		o += e10 < 0;
		if (e >= 10) {
			memcpy(o, digit_pairs + 2 * e, 2);
			o += 2;
		} else {
			*o++ = (char)('0' + e);
		}
	}
	*o = '\0';
	return (size_t)(o - out);
}

size_t render_float(float f, int digits, char *out)
{
	struct float_decimal dec;

	if (digits >= 1 && digits <= 9 && isfinite(f) && f != 0.0f)
		return tidy_exponent(out, (size_t)snprintf(out, 32, "%.*g", digits, (double)f));
	render_float_decimals(&f, 1, &dec);
	return render_float_text(f, dec, out);
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

void render_string_append(struct buf *b, const char *text)
{
	if (!text || !utf8_valid(text, strlen(text)))
		buf_puts(b, "null");
	else
		json_string_text(b, text, strlen(text));
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

static void json_value_text(struct buf *b, const json_t *j, int indent, int depth,
                            const struct render_splices *sp)
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
			json_value_text(b, value, indent, depth + 1, sp);
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
			json_value_text(b, json_array_get(j, i), indent, depth + 1, sp);
		}
		if (json_array_size(j))
			json_indent(b, indent, depth);
		buf_putc(b, ']');
		break;
	case JSON_STRING: {
		const struct render_splice *splice = splice_for(sp, j);
		if (splice)
			buf_append(b, splice->text, splice->length);
		else
			json_string_text(b, json_string_value(j), json_string_length(j));
		break;
	}
	case JSON_INTEGER: buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(j)); break;
	case JSON_REAL: json_real_text(b, json_real_value(j)); break;
	case JSON_TRUE: buf_puts(b, "true"); break;
	case JSON_FALSE: buf_puts(b, "false"); break;
	default: buf_puts(b, "null");
	}
}

int render_json_append(struct buf *b, const json_t *json, int indent)
{
	json_value_text(b, json, indent, 0, NULL);
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
	struct buf b;

	if (sp->count > 1)
		qsort(sp->items, sp->count, sizeof(*sp->items), splice_order);
	buf_init(&b, (size_t)1 << 31);
	json_value_text(&b, json, 0, 0, sp);
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

/* Stored texts: what jansson's json_dumps(JSON_COMPACT) writes, byte for byte (the
 * catalogue has always stored that), without its cost (it decodes every string character by
 * character). */

/* A string: \" \\ \b \f \n \r \t, \u00XX (upper case) for the other control characters,
 * everything else as it is; -1 when it is not UTF-8 (jansson refuses to write it). */
static size_t utf8_sequence(const unsigned char *s, size_t n);

static int stored_string_text(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t run = 0;

	buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		char escape[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
		if (c >= 0x80) { /* checked as it goes: jansson refuses what is not UTF-8 */
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
		case '\b': escape[1] = 'b', escape[2] = 0; break;
		case '\f': escape[1] = 'f', escape[2] = 0; break;
		case '\n': escape[1] = 'n', escape[2] = 0; break;
		case '\r': escape[1] = 'r', escape[2] = 0; break;
		case '\t': escape[1] = 't', escape[2] = 0; break;
		default: break;
		}
		buf_append(b, escape, strlen(escape));
	}
	buf_append(b, s + run, n - run);
	buf_putc(b, '"');
	return 0;
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

static int stored_value_text(struct buf *b, const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *value;
		char sep = '{';
		json_object_foreach((json_t *)j, key, value)
		{
			buf_putc(b, sep);
			sep = ',';
			if (stored_string_text(b, key, strlen(key)) < 0)
				return -1;
			buf_putc(b, ':');
			if (stored_value_text(b, value) < 0)
				return -1;
		}
		if (sep == '{')
			buf_putc(b, '{');
		buf_putc(b, '}');
		return 0;
	}
	case JSON_ARRAY:
		buf_putc(b, '[');
		for (size_t i = 0; i < json_array_size(j); i++) {
			if (i)
				buf_putc(b, ',');
			if (stored_value_text(b, json_array_get(j, i)) < 0)
				return -1;
		}
		buf_putc(b, ']');
		return 0;
	case JSON_STRING: return stored_string_text(b, json_string_value(j), json_string_length(j));
	case JSON_INTEGER: {
		json_int_t v = json_integer_value(j);
		if (v >= 0)
			buf_put_uint(b, (unsigned long long)v);
		else
			buf_printf(b, "%" JSON_INTEGER_FORMAT, v);
		return 0;
	}
	case JSON_REAL: stored_real_text(b, json_real_value(j)); return 0;
	case JSON_TRUE: buf_puts(b, "true"); return 0;
	case JSON_FALSE: buf_puts(b, "false"); return 0;
	default: buf_puts(b, "null"); return 0;
	}
}

char *render_json_stored(const json_t *json)
{
	struct buf b;

	if (!json_is_object(json) && !json_is_array(json))
		return NULL; /* json_dumps writes only these */
	buf_init(&b, (size_t)1 << 31);
	buf_reserve(&b, 2048); /* a typical structure in one allocation */
	if (stored_value_text(&b, json) < 0 || b.overflow) {
		buf_cleanup(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
}

/* An integer as stored_value_text writes a JSON_INTEGER. */
static void stored_int_text(struct buf *b, json_int_t v)
{
	if (v >= 0)
		buf_put_uint(b, (unsigned long long)v);
	else
		buf_printf(b, "%" JSON_INTEGER_FORMAT, v);
}

/* What render_u64 makes, stored. */
static void stored_u64_text(struct buf *b, uint64_t v)
{
	char text[24];

	if (v <= (uint64_t)INT64_MAX) {
		buf_put_uint(b, v);
		return;
	}
	stored_string_text(b, text, (size_t)snprintf(text, sizeof(text), "%" PRIu64, v));
}

/* A C string, or null for NULL, stored; -1 when it is not UTF-8. */
static int stored_cstring_text(struct buf *b, const char *s)
{
	if (!s) {
		buf_puts(b, "null");
		return 0;
	}
	return stored_string_text(b, s, strlen(s));
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
		if (stored_value_text(b, res->metadata) < 0)
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
