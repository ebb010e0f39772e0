/* catalog_migrate.c: a schema migration applied step by step, and each step told on the
 * terminal when an existing catalogue is upgraded (a million entries take minutes to index).
 *
 * A migration's file is cut into steps at its lines beginning "-- step: " (the rest of such a
 * line says what the step does); a file without one is a single step. Both backends run every
 * step of every migration in one transaction of their own, so a daemon killed half way leaves
 * the catalogue as it was, and the next start begins the upgrade again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/schema.h"
#include "catalog_backend.h"

#define STEP_MARK "\n-- step: "

static double seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether text[0, length) holds SQL, not only comments and blanks (the lines before a file's
 * first step are its heading). */
static int has_sql(const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++) {
		if (text[i] == '-' && i + 1 < length && text[i + 1] == '-')
			while (i < length && text[i] != '\n')
				i++;
		else if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
			return 1;
	}
	return 0;
}

/* The end of the step that begins at `at`. */
static const char *step_end(const char *at)
{
	const char *next = strstr(at + 1, STEP_MARK);

	return next ? next + 1 : at + strlen(at);
}

static unsigned count_steps(const char *sql)
{
	unsigned n = 0;

	for (const char *at = sql; *at; at = step_end(at))
		n += has_sql(at, (size_t)(step_end(at) - at));
	return n;
}

int catalog_migrate_steps(const struct schema_migration *m, int tell,
                          int (*run)(void *ctx, const char *sql), void *ctx)
{
	unsigned steps = count_steps(m->sql), step = 0;
	const char *at = m->sql;

	for (; *at; at = step_end(at)) {
		size_t length = (size_t)(step_end(at) - at);
		const char *what = m->file;
		char *chunk, label[96];
		double began = seconds_now();
		int rc;

		if (!has_sql(at, length))
			continue;
		if (!(chunk = malloc(length + 1)))
			return -1;
		memcpy(chunk, at, length);
		chunk[length] = '\0';
		step++;
		/* the step's name: what follows its mark, to the end of the line */
		if (strncmp(chunk, STEP_MARK + 1, strlen(STEP_MARK) - 1) == 0) {
			const char *name = chunk + strlen(STEP_MARK) - 1;
			snprintf(label, sizeof(label), "%.*s", (int)strcspn(name, "\n"), name);
			what = label;
		}
		if (tell)
			fprintf(stderr,
			        "animdexd: upgrading the catalogue to schema %u, step %u of %u: "
			        "%s...\n",
			        m->version, step, steps, what);
		rc = run(ctx, chunk);
		free(chunk);
		if (rc < 0)
			return -1;
		if (tell)
			fprintf(stderr, "animdexd:   step %u of %u done in %.1f s\n", step, steps,
			        seconds_now() - began);
	}
	return 0;
}
