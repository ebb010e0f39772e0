/* export_read.c: the entries of an export read ahead by a second thread with a catalogue of
 * its own, handed over in order (handoff.h), at most READ_AHEAD entries and READ_AHEAD_BYTES of
 * keys ahead, so that reading and making the asset overlap. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "base/handoff.h"

/* Entries read ahead by a second thread, handed over in order (handoff.h). */
#define READ_AHEAD       64
#define READ_AHEAD_BYTES (64u * 1024 * 1024) /* keys read ahead, at most (but always one) */
#define READ_RUN         1000                /* entries read in one read transaction */
#define GIVE_BACK_MAX    (256u * 1024)       /* entries larger are freed where they are */
struct read_ahead {
	const struct export_source *source;
	const char *db;
	const int64_t *ids;
	size_t count;
	struct handoff queue;
	struct error err; /* why the reader stopped early, once the queue is closed */
};

static void export_entry_free(void *e)
{
	if (e)
		export_entry_cleanup(e);
	free(e);
}

static void *read_ahead_main(void *arg)
{
	struct read_ahead *ra = arg;
	struct catalog *cat = catalog_open_read_only(ra->db, &ra->err);

	for (size_t i = 0; cat && i < ra->count; i++) {
		void *done[HANDOFF_SLOTS];
		size_t n = handoff_take_back(&ra->queue, done);
		struct export_entry *e;
		for (size_t k = 0; k < n; k++)
			export_entry_free(done[k]);
		/* READ_RUN entries a read transaction: one start instead of three */
		if (i % READ_RUN == 0) {
			catalog_rollback(cat);
			if (catalog_begin_read(cat, &ra->err) < 0)
				break;
		}
		e = malloc(sizeof(*e));
		if (!e) {
			error_set(&ra->err, ERROR_INTERNAL, NULL, -1, "out of memory");
			break;
		}
		if (export_entry_read_for(ra->source, cat, ra->ids[i], 0, e, &ra->err) < 0) {
			free(e);
			break;
		}
		if (handoff_put(&ra->queue, e, e->bytes) < 0) { /* the writer gave up */
			export_entry_free(e);
			break;
		}
	}
	if (cat)
		catalog_rollback(cat); /* it only read */
	catalog_close(cat);
	handoff_close(&ra->queue);
	return NULL;
}

int exporter_add_all(struct exporter *ex, const char *db, struct catalog *cat, const int64_t *ids,
                     size_t count, void (*progress)(size_t done, size_t count), struct error *err)
{
	struct read_ahead ra = {.source = &ex->entry_source, .db = db, .ids = ids, .count = count};
	struct export_entry *e;
	void *done[HANDOFF_SLOTS];
	pthread_t reader;
	size_t added = 0, n;
	int rc = 0;

	error_init(&ra.err);
	handoff_init(&ra.queue, READ_AHEAD, READ_AHEAD_BYTES);
	if (count < 2 || pthread_create(&reader, NULL, read_ahead_main, &ra) != 0) {
		handoff_destroy(&ra.queue);
		for (size_t i = 0; i < count; i++) {
			if (exporter_add(ex, cat, ids[i], err) < 0)
				return -1;
			if (progress)
				progress(i + 1, count);
		}
		return 0;
	}
	while (rc == 0 && added < count) {
		if (!(e = handoff_take(&ra.queue))) { /* the reader could go no further */
			*err = ra.err;
			rc = -1;
			break;
		}
		rc = exporter_add_entry(ex, e, err);
		/* back to the reader to be freed; a large one is freed here */
		if (e->bytes > GIVE_BACK_MAX || handoff_give_back(&ra.queue, e) < 0)
			export_entry_free(e);
		added++;
		if (rc == 0 && progress)
			progress(added, count);
	}
	handoff_cancel(&ra.queue);
	pthread_join(reader, NULL);
	while ((e = handoff_take(&ra.queue)))
		export_entry_free(e);
	n = handoff_take_back(&ra.queue, done);
	for (size_t k = 0; k < n; k++)
		export_entry_free(done[k]);
	handoff_destroy(&ra.queue);
	return rc;
}
