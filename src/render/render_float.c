/* render_float.c: float32 as decimal text: the shortest text that reads back as the same
 * float32 (Schubfach, below), or rounded to a number of significant digits. Every float
 * animdex writes, in answers, CSV and stored texts, is written here. */
#include "render/render.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
