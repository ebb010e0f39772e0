/* hash.c: Asobo32, lower-cased zlib CRC-32, handle parsing, SHA-256 (FIPS 180-4). */
#include "base/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t asobo32_table[256];
static int asobo32_ready;

/* The table is a pure function of the polynomial; building it twice is harmless, so two
 * threads racing here write identical values. */
static void asobo32_build(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;
		for (int k = 0; k < 8; k++)
			c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
		asobo32_table[i] = c;
	}
	__atomic_store_n(&asobo32_ready, 1, __ATOMIC_RELEASE);
}

static unsigned char ascii_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

uint32_t hash_asobo32(const char *name, size_t len)
{
	uint32_t h = 0;

	if (!__atomic_load_n(&asobo32_ready, __ATOMIC_ACQUIRE))
		asobo32_build();
	for (size_t i = 0; i < len; i++) {
		unsigned char c = ascii_lower((unsigned char)name[i]);
		h = (h >> 8) ^ asobo32_table[(c ^ h) & 0xFFu];
	}
	return h;
}

uint32_t hash_crc32_lower(const char *name, size_t len)
{
	unsigned char chunk[256];
	uLong crc = crc32(0L, Z_NULL, 0);

	while (len > 0) {
		size_t n = len < sizeof(chunk) ? len : sizeof(chunk);
		for (size_t i = 0; i < n; i++)
			chunk[i] = ascii_lower((unsigned char)name[i]);
		crc = crc32(crc, chunk, (uInt)n);
		name += n;
		len -= n;
	}
	return (uint32_t)crc;
}

int hash_named_handle(const char *name, uint32_t *out)
{
	const char *hex;

	if (!name || !*name)
		return -1;
	hex = strstr(name, "0x");
	if (hex && strspn(hex + 2, "0123456789abcdefABCDEF") == 8) {
		char digits[11];
		memcpy(digits, hex, 10);
		digits[10] = '\0';
		return hash_parse_handle(digits, out) < 0 ? -1 : 1;
	}
	*out = hash_asobo32(name, strlen(name));
	return 0;
}

int hash_parse_handle(const char *text, uint32_t *out)
{
	char *end;

	if (!text || !*text)
		return -1;
	errno = 0;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		unsigned long long v;
		if (!text[2] || strchr(text + 2, '-') || strchr(text + 2, '+') ||
		    strchr(text + 2, ' '))
			return -1;
		v = strtoull(text + 2, &end, 16);
		if (errno || *end || v > 0xFFFFFFFFull)
			return -1;
		*out = (uint32_t)v;
		return 0;
	} else {
		long long v = strtoll(text, &end, 10);
		if (errno || *end || end == text || v < INT32_MIN || v > (long long)UINT32_MAX)
			return -1;
		*out = (uint32_t)v;
		return 0;
	}
}

/* SHA-256 */

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->state[0], b = s->state[1], c = s->state[2], d = s->state[3];
	e = s->state[4], f = s->state[5], g = s->state[6], h = s->state[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) +
		              sha256_k[i] + w[i];
		uint32_t t2 =
		    (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	s->state[0] += a, s->state[1] += b, s->state[2] += c, s->state[3] += d;
	s->state[4] += e, s->state[5] += f, s->state[6] += g, s->state[7] += h;
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->state, iv, sizeof(iv));
	s->bytes = 0;
	s->block_len = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->bytes += len;
	if (s->block_len) {
		size_t n = 64 - s->block_len < len ? 64 - s->block_len : len;
		memcpy(s->block + s->block_len, p, n);
		s->block_len += n, p += n, len -= n;
		if (s->block_len < 64)
			return;
		sha256_block(s, s->block);
		s->block_len = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha256_block(s, p);
	memcpy(s->block, p, len);
	s->block_len = len;
}

void sha256_final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE])
{
	uint64_t bits = s->bytes * 8;
	uint8_t pad[72] = {0x80};
	size_t padlen = (s->block_len < 56 ? 56 : 120) - s->block_len;

	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, padlen + 8);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(s->state[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
		digest[4 * i + 3] = (uint8_t)s->state[i];
	}
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}
