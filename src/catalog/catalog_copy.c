/* catalog_copy.c: animdexd copy, from any catalogue to any other (SQLite or PostgreSQL, either
 * way), written once over the backends' statements (catalog_backend.h).
 *
 * Whole rows are copied column by column, so ids, uploaded_at and uploaded_by, names and token
 * hashes arrive as they were. Everything is written in one transaction on the target: a copy
 * that fails leaves the target as it was. At the end every blob's bytes are read back from
 * the target and their SHA-256 compared with the one they are stored under, and, into an
 * empty target, every table's row count with the source's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog_internal.h"
#include "base/hash.h"

/* Binds column `col` of the source's current row as parameter `param` of the target's
 * statement; the value must stay valid until the target is stepped. */
static void bind_column(struct db_stmt *to, int param, struct db_stmt *from, int col)
{
	const void *data;
	size_t length;

	switch (db_column_type(from, col)) {
	case DB_INTEGER: db_bind_int64(to, param, db_column_int64(from, col)); break;
	case DB_REAL: db_bind_double(to, param, db_column_double(from, col)); break;
	case DB_TEXT: db_bind_text(to, param, db_column_text(from, col)); break;
	case DB_BLOB:
		data = db_column_blob(from, col, &length);
		db_bind_blob(to, param, data, length);
		break;
	default: db_bind_null(to, param); break;
	}
}

/* Copies the current row's columns [first, columns) as parameters 1...; with `resource_id`
 * non-zero, parameter 1 is that instead of column `first`. Returns the target's step. */
static int put_row(struct db *target, enum statement st, struct db_stmt *from, int first,
                   int64_t resource_id, const char *what, int64_t *returned, struct error *err)
{
	struct db_stmt *to = db_prepare(target, st, err);
	int columns = from->ops->column_count(from), rc;

	if (!to)
		return -1;
	for (int c = first; c < columns; c++)
		bind_column(to, c - first + 1, from, c);
	if (resource_id)
		db_bind_int64(to, 1, resource_id);
	rc = db_step(to, what, err);
	if (rc == 1 && returned)
		*returned = db_column_int64(to, 0);
	db_reset(to);
	return rc;
}

/* The first column of every row, as text (the blobs' sha256). */
static int list_texts(struct db *db, enum statement st, char ***texts, size_t *count,
                      struct error *err)
{
	struct db_stmt *s = db_prepare(db, st, err);
	size_t cap = 0;
	int rc;

	*texts = NULL;
	*count = 0;
	if (!s)
		return -1;
	while ((rc = db_step(s, "listing the stored bytes", err)) == 1) {
		if (*count == cap) {
			char **grown =
			    realloc(*texts, (cap = cap ? 2 * cap : 256) * sizeof(**texts));
			if (!grown)
				break;
			*texts = grown;
		}
		if (!((*texts)[*count] = strdup(db_column_text(s, 0))))
			break;
		(*count)++;
	}
	db_reset(s);
	if (rc == 1)
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return rc == 0 ? 0 : -1;
}

static void free_texts(char **texts, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(texts[i]);
	free(texts);
}

static int count_rows(struct db *db, int64_t counts[6], struct error *err)
{
	struct db_stmt *s = db_prepare(db, ST_COUNT_ROWS, err);
	int rc;

	if (!s)
		return -1;
	rc = db_step(s, "counting rows", err);
	for (int i = 0; i < 6; i++)
		counts[i] = rc == 1 ? db_column_int64(s, i) : -1;
	db_reset(s);
	return rc == 1 ? 0 : -1;
}

static const char *const table_names[6] = {"blobs", "resources", "tracks",
                                           "refs",  "names",     "tokens"};

/* A blob's chunks, in order, as they are (chunk by chunk: one chunk in memory at a time). */
static int copy_chunks(struct db *from, struct db *to, const char *sha256, struct error *err)
{
	struct db_stmt *s = db_prepare(from, ST_GET_BLOB_CHUNKS, err);
	int64_t n = 0;
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, sha256);
	while ((rc = db_step(s, "reading stored bytes", err)) == 1) {
		struct db_stmt *put = db_prepare(to, ST_INSERT_BLOB_CHUNK, err);
		if (!put) {
			rc = -1;
			break;
		}
		db_bind_text(put, 1, sha256);
		db_bind_int64(put, 2, n++);
		bind_column(put, 3, s, 0);
		rc = db_step(put, "storing bytes", err);
		db_reset(put);
		if (rc < 0)
			break;
	}
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

/* One blob, unless the target has it. */
static int copy_blob(struct db *from, struct db *to, const char *sha256, struct copy_report *report,
                     struct error *err)
{
	struct db_stmt *s = db_prepare(from, ST_COPY_BLOB_GET, err);
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, sha256);
	rc = db_step(s, "reading stored bytes", err);
	if (rc == 1) {
		/* a row back: stored; none: the target had these bytes already */
		rc = put_row(to, ST_COPY_BLOB_PUT, s, 0, 0, "storing bytes", NULL, err);
		if (rc >= 0)
			*(rc == 1 ? &report->blobs : &report->blobs_skipped) += 1;
	}
	db_reset(s);
	if (rc == 1 && copy_chunks(from, to, sha256, err) < 0)
		return -1;
	return rc < 0 ? -1 : 0;
}

/* An id for an entry in the target: its own when free, a new one otherwise (append). */
static int free_id(struct db *to, int64_t id, int *is_free, struct error *err)
{
	struct db_stmt *s = db_prepare(to, ST_COPY_RESOURCE_ID_FREE, err);
	int rc;

	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "looking for a free id", err);
	db_reset(s);
	*is_free = rc == 1;
	return rc < 0 ? -1 : 0;
}

/* Every row of `st` for a source entry, as rows of `put` for the target's entry. */
static int copy_children(struct db *from, struct db *to, enum statement st, enum statement put,
                         int64_t source_id, int64_t target_id, int64_t *copied, struct error *err)
{
	struct db_stmt *s = db_prepare(from, st, err);
	int rc;

	if (!s)
		return -1;
	db_bind_int64(s, 1, source_id);
	while ((rc = db_step(s, "reading an entry's rows", err)) == 1) {
		if (put_row(to, put, s, 0, target_id, "storing an entry's rows", NULL, err) < 0) {
			rc = -1;
			break;
		}
		(*copied)++;
	}
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

static int copy_entry(struct db *from, struct db *to, int64_t id, enum copy_mode mode,
                      struct copy_report *report, struct error *err)
{
	struct db_stmt *s = db_prepare(from, ST_COPY_RESOURCE_GET, err), *part;
	int64_t target_id = id;
	int rc, is_free = 1;

	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "reading an entry", err);
	if (rc <= 0) {
		db_reset(s);
		return rc; /* deleted since it was listed: nothing to copy */
	}
	if (mode == COPY_APPEND) {
		/* the same part of the same bytes is the same entry: it is there already */
		part = db_prepare(to, ST_COPY_RESOURCE_OF_PART, err);
		if (!part)
			goto fail;
		db_bind_text(part, 1, db_column_text(s, 1));
		db_bind_int64(part, 2, db_column_int64(s, 2));
		rc = db_step(part, "looking for the entry", err);
		db_reset(part);
		if (rc < 0)
			goto fail;
		if (rc == 1) {
			report->entries_skipped++;
			db_reset(s);
			return 0;
		}
		if (free_id(to, id, &is_free, err) < 0)
			goto fail;
	}
	if (is_free)
		rc = put_row(to, ST_COPY_RESOURCE_PUT, s, 0, 0, "storing an entry", NULL, err);
	else
		rc = put_row(to, ST_COPY_RESOURCE_PUT_NEW, s, 1, 0, "storing an entry", &target_id,
		             err);
	db_reset(s);
	if (rc < 0)
		return -1;
	report->entries++;
	report->entries_renumbered += !is_free;
	if (copy_children(from, to, ST_COPY_TRACKS_GET, ST_COPY_TRACK_PUT, id, target_id,
	                  &report->tracks, err) < 0 ||
	    copy_children(from, to, ST_COPY_REFS_GET, ST_COPY_REF_PUT, id, target_id, &report->refs,
	                  err) < 0 ||
	    copy_children(from, to, ST_COPY_RIG_GET, ST_COPY_RIG_PUT, id, target_id,
	                  &report->rig_nodes, err) < 0)
		return -1;
	return 0;
fail:
	db_reset(s);
	return -1;
}

/* Names and tokens: every row; those the target has already stay as they are. */
static int copy_table(struct db *from, struct db *to, enum statement get, enum statement put,
                      int64_t *copied, int64_t *skipped, struct error *err)
{
	struct db_stmt *s = db_prepare(from, get, err);
	int rc;

	if (!s)
		return -1;
	while ((rc = db_step(s, "reading names and tokens", err)) == 1) {
		int put_rc = put_row(to, put, s, 0, 0, "storing names and tokens", NULL, err);
		if (put_rc < 0) {
			rc = -1;
			break;
		}
		if (put_rc == 0 && skipped)
			(*skipped)++;
		else
			(*copied)++;
	}
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

/* The SHA-256 (hex) and length of a blob's chunks, read in order: 1, 0 when it has no
 * blob row, -1 with err set. */
static int chunks_digest(struct db *db, const char *sha256, char digest[SHA256_HEX_SIZE],
                         int64_t *size, int64_t *length, struct error *err)
{
	struct db_stmt *s = db_prepare(db, ST_COPY_BLOB_CHECK, err);
	struct sha256 h;
	uint8_t raw[SHA256_DIGEST_SIZE];
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, sha256);
	rc = db_step(s, "verifying the copied bytes", err);
	*size = rc == 1 ? db_column_int64(s, 0) : -1;
	db_reset(s);
	if (rc != 1 || !(s = db_prepare(db, ST_GET_BLOB_CHUNKS, err)))
		return rc == 1 ? -1 : rc;
	sha256_init(&h);
	*length = 0;
	db_bind_text(s, 1, sha256);
	while ((rc = db_step(s, "verifying the copied bytes", err)) == 1) {
		size_t n = 0;
		const void *bytes = db_column_blob(s, 0, &n);
		sha256_update(&h, bytes ? bytes : "", n);
		*length += (int64_t)n;
	}
	db_reset(s);
	if (rc < 0)
		return -1;
	sha256_final(&h, raw);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(digest + 2 * i, 3, "%02x", raw[i]);
	return 1;
}

/* Reads every blob back from the target and checks its bytes against its SHA-256. */
static int verify_blobs(struct db *to, char **shas, size_t count, struct copy_report *report,
                        struct error *err)
{
	for (size_t i = 0; i < count; i++) {
		char digest[SHA256_HEX_SIZE];
		int64_t size, length;
		int rc = chunks_digest(to, shas[i], digest, &size, &length, err);

		if (rc == 1)
			rc = strcmp(digest, shas[i]) == 0 && length == size ? 1 : 2;
		if (rc < 0)
			return -1;
		if (rc != 1) {
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "copy: the bytes %s %s in the target", shas[i],
			          rc == 0 ? "are missing" : "differ from their SHA-256");
			return -1;
		}
		report->bytes_verified++;
	}
	return 0;
}

int catalog_copy(struct catalog *source, struct catalog *target, enum copy_mode mode,
                 void (*progress)(int64_t done, int64_t total, void *arg), void *arg,
                 struct copy_report *report, struct error *err)
{
	struct db *from = catalog_db(source), *to = catalog_db(target);
	int64_t before[6], after[6], counts[6], *ids = NULL;
	char **shas = NULL;
	size_t nshas = 0, nids = 0;
	int rc = -1;

	memset(report, 0, sizeof(*report));
	if (count_rows(to, before, err) < 0)
		return -1;
	if (mode == COPY_INTO_EMPTY && (before[0] || before[1] || before[4] || before[5])) {
		error_set(err, ERROR_CONFLICT, "to", -1,
		          "copy: the target already holds %" PRId64 " entries, %" PRId64
		          " names and %" PRId64 " tokens; give --append to add to it (an id "
		          "taken there gets a new one)",
		          before[1], before[4], before[5]);
		return -1;
	}
	if (list_texts(from, ST_COPY_BLOB_LIST, &shas, &nshas, err) < 0 ||
	    catalog_select_ids(source, NULL, NULL, 0, &ids, &nids, err) < 0)
		goto done;
	{
		struct db_stmt *s = db_prepare(to, ST_BEGIN, err);
		if (!s || db_step(s, "starting the copy", err) < 0)
			goto done;
		db_reset(s);
	}
	for (size_t i = 0; i < nshas; i++)
		if (copy_blob(from, to, shas[i], report, err) < 0)
			goto rollback;
	for (size_t i = 0; i < nids; i++) {
		if (copy_entry(from, to, ids[i], mode, report, err) < 0)
			goto rollback;
		if (progress && (i % 64 == 63 || i + 1 == nids))
			progress((int64_t)i + 1, (int64_t)nids, arg);
	}
	if (copy_table(from, to, ST_COPY_NAMES_GET, ST_COPY_NAME_PUT, &report->names, NULL, err) <
	        0 ||
	    copy_table(from, to, ST_COPY_TOKENS_GET, ST_COPY_TOKEN_PUT, &report->tokens,
	               &report->tokens_skipped, err) < 0)
		goto rollback;
	{
		struct db_stmt *s = db_prepare(to, ST_COPY_FINISH, err);
		if (!s || db_step(s, "continuing ids", err) < 0)
			goto rollback;
		db_reset(s);
		s = db_prepare(to, ST_COMMIT, err);
		if (!s || db_step(s, "committing the copy", err) < 0)
			goto rollback;
		db_reset(s);
	}
	if (verify_blobs(to, shas, nshas, report, err) < 0)
		goto done;
	if (mode == COPY_INTO_EMPTY) {
		if (count_rows(from, counts, err) < 0 || count_rows(to, after, err) < 0)
			goto done;
		for (int t = 0; t < 6; t++)
			if (counts[t] != after[t]) {
				error_set(err, ERROR_INTERNAL, NULL, -1,
				          "copy: the target has %" PRId64 " rows of %s, the source "
				          "%" PRId64 " (was the source written to meanwhile?)",
				          after[t], table_names[t], counts[t]);
				goto done;
			}
	}
	rc = 0;
	goto done;
rollback:
	if (to->ops->in_transaction(to)) {
		struct db_stmt *s = db_prepare(to, ST_ROLLBACK, NULL);
		if (s) {
			db_step(s, "rolling back", NULL);
			db_reset(s);
		}
	}
done:
	free_texts(shas, nshas);
	free(ids);
	return rc;
}
