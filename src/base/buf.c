/* buf.c: growable buffer with a hard maximum. */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
	b->overflow = 0;
}

void buf_cleanup(struct buf *b)
{
	free(b->data);
	buf_init(b, b->max);
}

int buf_reserve(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > b->max - b->len) {
		b->overflow = 1;
		return -1;
	}
	need = b->len + extra;
	if (need <= b->cap && b->data)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > b->max / 2 ? b->max : cap * 2;
	p = realloc(b->data, cap + 1);
	if (!p)
		return -1;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *data, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* one pass when the room already there is enough (the usual case) */
	if (b->data && b->cap > b->len) {
		va_start(ap, fmt);
		n = vsnprintf(b->data + b->len, b->cap - b->len + 1, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n <= b->cap - b->len && (size_t)n <= b->max - b->len) {
			b->len += (size_t)n;
			return 0;
		}
		b->data[b->len] = '\0';
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int buf_put_uint(struct buf *b, unsigned long long v)
{
	char digits[24];
	size_t n = sizeof(digits);

	do
		digits[--n] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	return buf_append(b, digits + n, sizeof(digits) - n);
}

void text_copy(char *out, size_t size, const char *text)
{
	size_t n = strlen(text);

	if (size == 0)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(out, text, n);
	out[n] = '\0';
}

char *buf_steal(struct buf *b, size_t *len)
{
	char *p = b->data;

	if (!p) {
		p = malloc(1);
		if (p)
			p[0] = '\0';
	}
	if (len)
		*len = b->len;
	buf_init(b, b->max);
	return p;
}

size_t buf_give(const struct buf *b, size_t *given, char *out, size_t room)
{
	size_t take = *given < b->len ? b->len - *given : 0;

	if (take > room)
		take = room;
	if (take)
		memcpy(out, b->data + *given, take);
	*given += take;
	return take;
}
