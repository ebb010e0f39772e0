/* utf8.h: UTF-8 checks (utf8.c). */
#ifndef ANIMDEX_UTF8_H
#define ANIMDEX_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (n >= 1 bytes left), or 0 when it is not one. */
size_t utf8_sequence(const unsigned char *s, size_t n);
/* Is this valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF)? */
int utf8_valid(const char *text, size_t length);
/* Copies text with every byte that is not part of valid UTF-8 written as \xFF; returns the
 * length (cut short, on a whole character, when out is too small). */
size_t utf8_escape(const char *text, char *out, size_t size);

#endif
