/* buf.h: a growable byte buffer that must be given a maximum.
 *
 * Every append fails (returns -1, changes nothing) rather than growing past `max`, so code
 * that accumulates request bodies or responses cannot be made to allocate without bound.
 */
#ifndef ANIMDEX_BUF_H
#define ANIMDEX_BUF_H

#include <stddef.h>
#include <string.h>

struct buf {
	char *data;   /* NUL-terminated when non-NULL, so text can be used as a string */
	size_t len;   /* bytes used, excluding the terminator */
	size_t cap;   /* bytes allocated, excluding the terminator */
	size_t max;   /* the most len may ever reach */
	int overflow; /* set when an append was refused for exceeding max */
};

void buf_init(struct buf *b, size_t max);
void buf_cleanup(struct buf *b);
int buf_reserve(struct buf *b, size_t extra);
int buf_append(struct buf *b, const void *data, size_t n);
/* Inline, so that the length of a literal is known when compiled. */
static inline int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An unsigned number in decimal (no printf on hot paths). */
int buf_put_uint(struct buf *b, unsigned long long v);
/* Copies text into out[size], cut short (on a byte) when it does not fit; always ends it. */
void text_copy(char *out, size_t size, const char *text);
/* Copies into out[room] what of the buffer is not given yet (from *given on), advancing
 * *given: how many bytes, 0 when all was given. For answers made a piece at a time into a
 * buffer and sent as the connection takes them. */
size_t buf_give(const struct buf *b, size_t *given, char *out, size_t room);
/* Hands the data to the caller (free() it) and leaves the buffer empty. */
char *buf_steal(struct buf *b, size_t *len);

#endif
