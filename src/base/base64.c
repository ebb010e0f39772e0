/* base64.c: strict base64 decoding. */
#include "base/base64.h"

#include <stdlib.h>

static int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

uint8_t *base64_decode(const char *text, size_t len, size_t *out_len, size_t *bad_at)
{
	size_t data_len = len, o = 0;
	uint32_t acc = 0;
	int bits = 0;
	uint8_t *out;

	while (data_len > 0 && text[data_len - 1] == '=' && len - data_len < 2)
		data_len--;
	if (data_len % 4 == 1 || (data_len != len && len % 4 != 0)) {
		*bad_at = len;
		return NULL;
	}
	out = malloc(data_len / 4 * 3 + 3);
	if (!out) {
		*bad_at = 0;
		return NULL;
	}
	for (size_t i = 0; i < data_len; i++) {
		int v = base64_value((unsigned char)text[i]);
		if (v < 0) {
			free(out);
			*bad_at = i;
			return NULL;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	*out_len = o;
	return out;
}

char *base64_encode(const uint8_t *data, size_t len, size_t *out_len)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = (len + 2) / 3 * 4, o = 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)data[i + 1] << 8;
		if (i + 2 < len)
			v |= data[i + 2];
		out[o++] = alphabet[(v >> 18) & 63];
		out[o++] = alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	if (out_len)
		*out_len = o;
	return out;
}
