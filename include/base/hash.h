/* hash.h: the name hashes of the game engines, and SHA-256 for deduplicating uploads.
 *
 * Asobo32 (Zouna, doc/formats.md 1.6): MSB-first table of polynomial 0x04C11DB7 indexed by
 * (byte ^ h) & 0xFF, h shifted right, start 0, no final xor, bytes ASCII-lowercased.
 * Burnout resource IDs (doc/formats.md 2.4): zlib's CRC-32 of the lower-cased name.
 */
#ifndef ANIMDEX_HASH_H
#define ANIMDEX_HASH_H

#include <stddef.h>
#include <stdint.h>

uint32_t hash_asobo32(const char *name, size_t len);
uint32_t hash_crc32_lower(const char *name, size_t len);

/* Parses a handle written as hex ("0x1A2B3C4D") or decimal, signed or unsigned. */
int hash_parse_handle(const char *text, uint32_t *out);

/* The handle a bone's name names, as native and compare match a name to a Zouna handle: a
 * "0x1234ABCD" written in it, else the name hashed whole (Asobo32). 1 for a written handle,
 * 0 for a hash, -1 for an empty name. */
int hash_named_handle(const char *name, uint32_t *out);

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE    65 /* 64 hex digits and a NUL */

struct sha256 {
	uint32_t state[8]; /* running hash */
	uint64_t bytes;    /* message length so far */
	uint8_t block[64]; /* the pending partial block */
	size_t block_len;  /* bytes used in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE]);
/* One-shot: the lower-case hex digest of (data, len). */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_SIZE]);

#endif
