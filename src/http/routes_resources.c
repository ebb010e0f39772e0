/* routes_resources.c: upload, list, get, raw download and delete of catalogue entries. */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "http/http.h"
#include "catalog/ingest.h"

#define LIST_DEFAULT_LIMIT 50
#define LIST_MAX_LIMIT     500

/* One file of an upload on its way into the catalogue. */
struct pending {
	struct ingest in;
	int gltf; /* a glTF: decoded first, with the other files as buffers */
};

/* Prefixes the error with the file's name when the request carried several files. */
static void name_the_file(struct error *err, size_t count, const char *filename, size_t index)
{
	char message[sizeof(err->message)];

	if (count < 2)
		return;
	if (filename)
		snprintf(message, sizeof(message), "file '%.80s': %.380s", filename, err->message);
	else
		snprintf(message, sizeof(message), "file %zu: %.380s", index + 1, err->message);
	memcpy(err->message, message, sizeof(message));
}

/* Decodes file i of the request into p. Returns 0, 1 when the file is to be skipped (an
 * unrelated file beside a glTF), or -1 with err set. */
static int decode_one(struct request *req, struct pending *files, size_t count, size_t i,
                      int has_gltf, json_t *skipped, struct error *err)
{
	struct pending *p = &files[i];
	struct catalog *cat = catalog_pool_get(req->pool, err);

	if (!cat)
		return -1;
	switch (ingest_prepare(&p->in, cat, err)) {
	case INGEST_READY:
	case INGEST_STORED: return 0;
	case INGEST_FAILED: return -1;
	case INGEST_REFUSED: break;
	}
	if (has_gltf && err->code == ERROR_UNSUPPORTED_FORMAT) {
		json_array_append_new(skipped,
		                      json_pack("{s:s?, s:s, s:s}", "name", p->in.up.filename,
		                                "type", "file", "reason",
		                                "no glTF of this request uses it, and no decoder "
		                                "reads it: ignored"));
		error_init(err);
		return 1;
	}
	name_the_file(err, count, p->in.up.filename, i);
	return -1;
}

/* After a COMMIT whose answer was lost with the connection: did it commit? Every file's bytes
 * with all of their entries, read on a new connection, say it did. */
static int upload_was_stored(struct catalog *cat, const struct pending *files, size_t count,
                             const unsigned char *skip)
{
	for (size_t i = 0; i < count; i++) {
		struct error err;
		json_t *stored;
		size_t n;
		if (skip[i] || json_array_size(files[i].in.existing) > 0)
			continue;
		error_init(&err);
		stored = catalog_find_by_sha256(cat, files[i].in.sha256, &err);
		n = json_array_size(stored);
		json_decref(stored);
		if (!stored || n < files[i].in.decoded.count)
			return 0;
	}
	return 1;
}

/* An upload on its way into the catalogue: decoded on the request's thread, stored by the
 * catalogue's writing thread with other uploads (catalog_pool_submit), or by the request's
 * thread itself where writes are not grouped. */
struct upload_job {
	struct deferred later; /* first: the server hands this back */
	struct catalog_job job;
	struct request *req;
	struct pending *files;
	struct upload_sibling *siblings;
	unsigned char *skip; /* files not stored: a glTF's buffers, unrelated files beside it */
	size_t count;
	json_t *resources, *skipped;
	struct ingest_counts counts;
};

static void upload_job_free(struct upload_job *u)
{
	json_decref(u->resources);
	json_decref(u->skipped);
	for (size_t i = 0; u->files && i < u->count; i++)
		ingest_cleanup(&u->files[i].in);
	free(u->files);
	free(u->siblings);
	free(u->skip);
	free(u);
}

/* The decoded files' rows, inside the caller's transaction: their entries appended to
 * u->resources (and what bundles skipped to u->skipped); -1 with err set at the first file
 * that cannot be stored (the caller rolls back). */
static int store_files(struct upload_job *u, struct catalog *cat, struct error *err)
{
	const struct request *req = u->req;
	const char *note = request_arg(req, "note"), *user = req->user[0] ? req->user : NULL;

	for (size_t i = 0; i < u->count; i++) {
		const struct ingest *in = &u->files[i].in;
		json_t *entries;

		if (u->skip[i])
			continue;
		entries = ingest_store(cat, in, note, user, &u->counts, err);
		if (!entries) {
			name_the_file(err, u->count, in->up.filename, i);
			return -1;
		}
		json_array_extend(u->resources, entries);
		json_decref(entries);
		if (in->decoded.skipped)
			json_array_extend(u->skipped, in->decoded.skipped);
	}
	return 0;
}

/* 201 with the entries when any was created, 200 when all were there, or the error. */
static void upload_answer(struct upload_job *u, struct response *resp, const struct error *err)
{
	if (err) {
		response_error(resp, err);
		return;
	}
	route_link_entries(u->resources);
	response_json(resp, u->counts.created > 0 ? 201 : 200,
	              json_pack("{s:O, s:O}", "resources", u->resources, "skipped", u->skipped));
}

/* Stores the upload in a transaction of its own on the pool's writing connection, all files
 * or none; -1 with err set when nothing was stored. */
static int store_alone(struct upload_job *u, struct error *err)
{
	struct catalog *writer = catalog_pool_writer(u->req->pool, err);
	int rc = -1;

	if (!writer)
		return -1;
	if (catalog_begin(writer, err) == 0) {
		if (store_files(u, writer, err) < 0)
			catalog_rollback(writer);
		else if (catalog_commit(writer, err) == 0 ||
		         (err->code == ERROR_UNAVAILABLE &&
		          upload_was_stored(writer, u->files, u->count, u->skip)))
			rc = 0;
	}
	catalog_pool_release_writer(u->req->pool, writer);
	return rc;
}

static struct upload_job *job_upload(struct catalog_job *job)
{
	return (struct upload_job *)((char *)job - offsetof(struct upload_job, job));
}

static int upload_store(struct catalog_job *job, struct catalog *cat, struct error *err)
{
	return store_files(job_upload(job), cat, err);
}

static void upload_done(struct catalog_job *job, const struct error *err)
{
	struct upload_job *u = job_upload(job);
	upload_answer(u, &u->later.answer, err);
	deferred_answer(&u->later);
}

/* The connection is suspended: the upload goes to the writing thread, or, when writes are no
 * longer grouped (the server is stopping), is stored here. */
static void upload_start(struct deferred *later)
{
	struct upload_job *u = (struct upload_job *)later;
	struct error err;

	if (catalog_pool_submit(u->req->pool, &u->job) == 0)
		return;
	error_init(&err);
	upload_answer(u, &later->answer, store_alone(u, &err) < 0 ? &err : NULL);
	deferred_answer(later);
}

static void upload_release(struct deferred *later)
{
	upload_job_free((struct upload_job *)later);
}

void route_upload(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct upload_job *u;
	struct pending *files;
	struct upload_sibling *siblings;
	size_t count = req->file_count;
	int has_gltf = 0;
	struct error err;

	error_init(&err);
	if (!cat)
		return;
	if (count == 0) {
		error_set(&err, ERROR_BAD_PARAMETER, "file", -1,
		          "file: no file in the request; send multipart/form-data with a 'file' "
		          "part (curl -F file=@clip.json), or the bytes as the body with "
		          "?filename=");
		response_error(resp, &err);
		return;
	}
	u = calloc(1, sizeof(*u));
	if (!u || !(u->files = calloc(count, sizeof(*u->files))) ||
	    !(u->siblings = calloc(count, sizeof(*u->siblings))) || !(u->skip = calloc(count, 1)) ||
	    !(u->resources = json_array()) || !(u->skipped = json_array())) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	u->req = req;
	u->count = count;
	files = u->files;
	siblings = u->siblings;
	for (size_t i = 0; i < count; i++) {
		struct upload *up = &files[i].in.up;
		const struct upload_file *f = &req->files[i];

		ingest_init(&files[i].in);
		up->data = (const uint8_t *)f->data.data;
		up->length = f->data.len;
		up->filename = f->filename ? f->filename : request_arg(req, "filename");
		up->class_name = request_arg(req, "class");
		up->family = request_arg(req, "family");
		up->name = request_arg(req, "name");
		up->crc32 = request_arg(req, "crc32");
		up->layout = request_arg(req, "layout");
		up->endian = request_arg(req, "endian");
		up->max_inflate = req->config->max_upload;
		up->max_entries = req->config->max_entries;
		up->siblings = siblings;
		up->sibling_count = count;
		siblings[i] = (struct upload_sibling){up->filename, up->data, up->length, 0};
		if (up->length == 0) {
			error_set(&err, ERROR_MALFORMED, "file", -1, "file: the upload is empty");
			name_the_file(&err, count, up->filename, i);
			goto fail;
		}
	}
	/* Decode everything first (glTF files first: they claim their .bin files), so that a
	 * request with one bad file stores nothing. */
	for (size_t i = 0; i < count; i++) {
		files[i].gltf = format_detect(&files[i].in.up) == &format_gltf;
		if (!files[i].gltf)
			continue;
		has_gltf = 1;
		if (decode_one(req, files, count, i, 1, u->skipped, &err) < 0)
			goto fail;
	}
	for (size_t i = 0; i < count; i++) {
		int rc;
		if (files[i].gltf)
			continue;
		if (siblings[i].used) {
			u->skip[i] = 1; /* a glTF's buffer: stored inside it */
			continue;
		}
		rc = decode_one(req, files, count, i, has_gltf, u->skipped, &err);
		if (rc < 0)
			goto fail;
		u->skip[i] = rc == 1;
	}
	/* stored by the catalogue's writing thread, grouped with other uploads, while this
	 * thread serves other connections; or here, where writes are not grouped */
	if (catalog_pool_groups_writes(req->pool)) {
		u->job.store = upload_store;
		u->job.done = upload_done;
		u->later.start = upload_start;
		u->later.release = upload_release;
		resp->deferred = &u->later;
		return;
	}
	upload_answer(u, resp, store_alone(u, &err) < 0 ? &err : NULL);
	upload_job_free(u);
	return;
fail:
	response_error(resp, &err);
	if (u)
		upload_job_free(u);
}

static int parse_positive(const char *text, long long max, long long *out)
{
	uint64_t v;

	if (route_decimal(text, (uint64_t)max, &v) < 0 || v < 1)
		return -1;
	*out = (long long)v;
	return 0;
}

/* ?sort=FIELD&order=asc|desc: by id, newest first, unless said; by another field, ascending
 * unless said. */
static int list_order(struct request *req, struct catalog_query *q, struct error *err)
{
	const char *sort = request_arg(req, "sort"), *order = request_arg(req, "order");

	q->sort = CATALOG_SORT_ID;
	if (sort && *sort) {
		int found = -1;
		for (int i = 0; i < CATALOG_SORTS && found < 0; i++)
			if (strcmp(sort, catalog_sort_names[i]) == 0)
				found = i;
		if (found < 0) {
			error_set(
			    err, ERROR_BAD_PARAMETER, "sort", -1,
			    "sort: '%.60s' is not a field the list sorts by (id, class, name, "
			    "family, crc32, track_count, duration, size, uploaded_at)",
			    sort);
			return -1;
		}
		q->sort = (enum catalog_sort)found;
	}
	q->ascending = q->sort != CATALOG_SORT_ID;
	if (order && *order) {
		if (strcmp(order, "asc") != 0 && strcmp(order, "desc") != 0) {
			error_set(err, ERROR_BAD_PARAMETER, "order", -1,
			          "order: '%.60s' is not asc or desc", order);
			return -1;
		}
		q->ascending = strcmp(order, "asc") == 0;
	}
	return 0;
}

void route_list(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct catalog_query q = {0};
	const char *limit = request_arg(req, "limit"), *cursor = request_arg(req, "cursor");
	const char *crc = request_arg(req, "crc32");
	long long v;
	struct error err;
	json_t *out;

	error_init(&err);
	if (!cat)
		return;
	q.class_name = request_arg(req, "class");
	q.family = request_arg(req, "family");
	q.name = request_arg(req, "name");
	q.q = request_arg(req, "q");
	q.filename = request_arg(req, "filename");
	q.uploaded_by = request_arg(req, "uploaded_by");
	q.limit = LIST_DEFAULT_LIMIT;
	if (q.class_name && !*q.class_name)
		q.class_name = NULL;
	if (q.family && !*q.family)
		q.family = NULL;
	if (q.name && !*q.name)
		q.name = NULL;
	if (q.q && !*q.q)
		q.q = NULL;
	if (q.filename && !*q.filename)
		q.filename = NULL;
	if (q.uploaded_by && !*q.uploaded_by)
		q.uploaded_by = NULL;
	if (limit) {
		if (parse_positive(limit, LIST_MAX_LIMIT, &v) < 0) {
			error_set(&err, ERROR_BAD_PARAMETER, "limit", -1,
			          "limit: '%s' is not a whole number from 1 to %d", limit,
			          LIST_MAX_LIMIT);
			goto fail;
		}
		q.limit = (unsigned)v;
	}
	if (list_order(req, &q, &err) < 0)
		goto fail;
	q.cursor = cursor && *cursor ? cursor : NULL;
	if (crc && *crc) {
		if (hash_parse_handle(crc, &q.crc32) < 0) {
			error_set(&err, ERROR_BAD_PARAMETER, "crc32", -1,
			          "crc32: '%s' is not a handle; write it in hex (0x1A2B3C4D) or "
			          "decimal (signed or unsigned 32-bit)",
			          crc);
			goto fail;
		}
		q.has_crc32 = 1;
	}
	out = catalog_list(cat, &q, &err);
	if (!out)
		goto fail;
	route_link_entries(json_object_get(out, "resources"));
	response_json(resp, 200, out);
	return;
fail:
	response_error(resp, &err);
}

void route_get(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	int64_t id;
	json_t *entry;

	struct catalog_weight weight;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	/* counted before it is made: the tree of an entry of 100,000 tracks is hundreds of MB */
	if (catalog_entry_weight(cat, id, &weight, &err) < 0 ||
	    request_reserve(req, catalog_weight_tree_bytes(&weight), "the entry's answer", &err) <
	        0) {
		response_error(resp, &err);
		return;
	}
	entry = catalog_get(cat, id, &err);
	route_link_entry(entry);
	response_result(resp, entry, &err);
}

/* attachment; filename="..." with anything but plain printable ASCII replaced, and, when
 * the name is not plain ASCII, filename*=UTF-8''... with the name itself (RFC 6266, 8187). */
static char *content_disposition(const char *filename, int64_t id)
{
	static const char hex[] = "0123456789ABCDEF";
	char name[200], exact[600], *out;
	size_t n = 0, e = 0;
	int plain = 1;

	if (filename) {
		const char *base = strrchr(filename, '/');
		base = base ? base + 1 : filename;
		for (; *base && n < sizeof(name) - 1 && e + 3 < sizeof(exact); base++) {
			unsigned char c = (unsigned char)*base;
			int ascii = c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
			plain &= ascii;
			name[n++] = ascii ? (char)c : '_';
			/* attr-char of RFC 8187: letters, digits and !#$&+-.^_`|~ as they are */
			if (isalnum(c) || strchr("!#$&+-.^_`|~", c)) {
				exact[e++] = (char)c;
			} else {
				exact[e++] = '%';
				exact[e++] = hex[c >> 4];
				exact[e++] = hex[c & 15];
			}
		}
	}
	name[n] = '\0';
	exact[e] = '\0';
	if (n == 0)
		snprintf(name, sizeof(name), "resource-%" PRId64 ".bin", id);
	out = malloc(strlen(name) + strlen(exact) + 64);
	if (out && (plain || n == 0))
		sprintf(out, "attachment; filename=\"%s\"", name);
	else if (out)
		sprintf(out, "attachment; filename=\"%s\"; filename*=UTF-8''%s", name, exact);
	return out;
}

/* A raw download, streamed: each block is read from the catalogue as it is sent (on the
 * connection's thread, with that thread's connection), so a client that reads slowly holds a
 * block, not the upload. */
struct raw_stream {
	struct catalog_pool *pool;
	char sha256[65];
	int64_t size, sent;
};

static long raw_fill(void *state, char *out, size_t room)
{
	struct raw_stream *rs = state;
	struct catalog *cat;
	struct error err;
	long n;

	if (rs->sent >= rs->size)
		return 0;
	error_init(&err);
	cat = catalog_pool_get(rs->pool, &err);
	n = cat ? catalog_raw_read(cat, rs->sha256, rs->sent, out, room, &err) : -1;
	if (n <= 0) {
		/* the length is promised: a short body must end the connection */
		fprintf(stderr,
		        "animdexd: a raw download of %s stopped after %lld of %lld bytes: %s\n",
		        rs->sha256, (long long)rs->sent, (long long)rs->size,
		        n == 0 ? "the bytes ended early" : err.message);
		return -1;
	}
	rs->sent += n;
	return n;
}

void route_raw(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	struct catalog_raw raw;
	struct raw_stream *rs;
	int64_t id;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (catalog_raw_open(cat, id, &raw, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	rs = calloc(1, sizeof(*rs));
	if (!rs) {
		free(raw.filename);
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		response_error(resp, &err);
		return;
	}
	rs->pool = req->pool;
	memcpy(rs->sha256, raw.sha256, sizeof(rs->sha256));
	rs->size = raw.size;
	{
		struct response_stream stream = {raw_fill,           free, rs, sizeof(*rs),
		                                 (uint64_t)raw.size, 0};
		response_stream(resp, 200, "application/octet-stream", &stream);
	}
	resp->disposition = content_disposition(raw.filename, id);
	free(raw.filename);
}

void route_delete(struct request *req, struct response *resp)
{
	struct catalog *cat = route_catalog(req, resp);
	struct error err;
	int64_t id;

	error_init(&err);
	if (!cat || route_id(req, resp, &id) < 0)
		return;
	if (catalog_delete(cat, id, &err) < 0) {
		response_error(resp, &err);
		return;
	}
	response_json(resp, 200, json_pack("{s:I}", "deleted", (json_int_t)id));
}
