/* base64.h: RFC 4648 base64 decoding of untrusted text (padding optional, no whitespace). */
#ifndef ANIMDEX_BASE64_H
#define ANIMDEX_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Decodes (text, len) into a new buffer the caller frees. Returns NULL on a character outside
 * the alphabet or a bad length, with *bad_at set to the offending character's offset. */
uint8_t *base64_decode(const char *text, size_t len, size_t *out_len, size_t *bad_at);

/* Encodes with padding into a new NUL-terminated string the caller frees. */
char *base64_encode(const uint8_t *data, size_t len, size_t *out_len);

#endif
