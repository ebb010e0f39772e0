/* cmd.c: what animdexd's subcommands share: their usage, and the parsing of operands, numbers
 * and sizes, each refusal naming the option, the value and the rule; files written whole. */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cmd_usage(const struct cmd_entry *entry, FILE *out)
{
	fputs("Usage: ", out);
	fputs(entry->synopsis, out);
	fputs(entry->help, out);
}

int cmd_help(const struct cmd_entry *entry)
{
	cmd_usage(entry, stdout);
	return 0;
}

void cmd_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "animdexd: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'animdexd --help'.\n");
	exit(2);
}

const char *cmd_operand(const char *text, const char *what)
{
	if (text[0] == '-' && text[1] != '\0') {
		fprintf(
		    stderr,
		    "animdexd: %s: '%s' looks like an option, not a %s (for a file of that name "
		    "write ./%s)\nTry 'animdexd --help'.\n",
		    what, text, strstr(what, "NAME") ? "name" : "path", text);
		exit(2);
	}
	return text;
}

unsigned cmd_parse_unsigned(const char *text, const char *option, unsigned min, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || end == text || text[0] == '-' || v < min || v > max) {
		fprintf(stderr, "animdexd: %s: '%s' is not a whole number from %u to %u\n", option,
		        text, min, max);
		exit(2);
	}
	return (unsigned)v;
}

size_t cmd_parse_size(const char *text, const char *option)
{
	char *end;
	unsigned long long v;
	unsigned long long unit = 1;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (*end == 'k' || *end == 'K')
		unit = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		unit = 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		unit = 1024ull * 1024 * 1024, end++;
	if (errno || *end || end == text || text[0] == '-' || v == 0 ||
	    v > (unsigned long long)SIZE_MAX / unit || v * unit > (1ull << 32)) {
		fprintf(stderr,
		        "animdexd: %s: '%s' is not a size from 1 byte to 4G (e.g. 512K, 64M)\n",
		        option, text);
		exit(2);
	}
	return (size_t)(v * unit);
}

/* The bytes of next(arg, ...) written to fd, a block at a time: 0, or -1 (errno set). */
static int write_blocks(int fd, long (*next)(void *arg, char *out, size_t room), void *arg)
{
	static char block[1 << 20];

	for (;;) {
		long got;
		errno = 0;
		got = next(arg, block, sizeof(block));
		if (got < 0)
			return -1;
		if (got == 0)
			return 0;
		for (size_t done = 0; done < (size_t)got;) {
			ssize_t n = write(fd, block + done, (size_t)got - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (n == 0)
					errno = EIO;
				return -1;
			}
			done += (size_t)n;
		}
	}
}

/* Writes into what is at path and is no regular file (a FIFO, a terminal, a device such as
 * /dev/null or /dev/full) as it is, never replacing it; a socket or a directory is refused
 * (errno EISDIR or ENOTSUP). */
static int write_into_special(const char *path, const struct stat *st,
                              long (*next)(void *arg, char *out, size_t room), void *arg)
{
	int fd, saved = 0;

	if (S_ISDIR(st->st_mode) || S_ISSOCK(st->st_mode)) {
		errno = S_ISDIR(st->st_mode) ? EISDIR : ENOTSUP;
		return -1;
	}
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_blocks(fd, next, arg) < 0)
		saved = errno ? errno : EIO;
	if (close(fd) < 0 && !saved)
		saved = errno;
	errno = saved;
	return saved ? -1 : 0;
}

/* Writes a file whole or not at all: into a new file beside it, synced, then renamed over
 * it, so that a failed or interrupted write leaves no half file (and no old one changed).
 * What is at the path and is no regular file (a FIFO, a device) is written into as it is, not
 * replaced. The bytes come from next(arg, ...) a block at a time (0 at their end, -1: failed,
 * errno set or 0). */
int cmd_write_whole_file(const char *path, long (*next)(void *arg, char *out, size_t room),
                         void *arg)
{
	size_t size = strlen(path) + 16;
	char *temporary;
	mode_t mask = umask(0);
	struct stat st;
	int fd, saved;

	umask(mask);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_into_special(path, &st, next, arg);
	temporary = malloc(size);
	if (!temporary)
		return -1;
	snprintf(temporary, size, "%s.XXXXXX", path);
	fd = mkstemp(temporary);
	if (fd < 0) {
		free(temporary);
		return -1;
	}
	if (write_blocks(fd, next, arg) < 0)
		goto fail;
	if (fchmod(fd, 0666 & ~mask) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(temporary, path) < 0)
		goto fail;
	free(temporary);
	return 0;
fail:
	saved = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(temporary);
	free(temporary);
	errno = saved;
	return -1;
}
