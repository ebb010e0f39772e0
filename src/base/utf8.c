/* utf8.c: UTF-8 checks: is a text valid UTF-8 (no overlong forms, surrogates or code points
 * past U+10FFFF), and a text with every byte that is not shown escaped, for messages that
 * quote what a client sent. */
#include "base/utf8.h"

#include <stdio.h>
#include <string.h>

size_t utf8_sequence(const unsigned char *s, size_t n)
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
