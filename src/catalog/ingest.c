/* ingest.c: one upload's way into the catalogue (ingest.h), the same for POST /api/resources
 * and for `animdexd import`. */
#include "catalog/ingest.h"

#include <string.h>

void ingest_init(struct ingest *in)
{
	memset(in, 0, sizeof(*in));
	decode_result_init(&in->decoded);
}

void ingest_cleanup(struct ingest *in)
{
	json_decref(in->existing);
	in->existing = NULL;
	decode_result_cleanup(&in->decoded);
}

/* Are these bytes stored with every entry they gave? 1 (in->existing kept), 0 (decode them:
 * catalog_put makes what is missing), -1 with err set. */
static int stored_whole(struct ingest *in, struct catalog *cat, struct error *err)
{
	int64_t whole;

	in->existing = catalog_find_by_sha256(cat, in->sha256, err);
	if (!in->existing)
		return -1;
	if (json_array_size(in->existing) == 0)
		return 0;
	whole = catalog_blob_entry_count(cat, in->sha256, err);
	if (whole < -1)
		return -1;
	if (whole >= 0 && json_array_size(in->existing) >= (size_t)whole)
		return 1;
	json_decref(in->existing); /* some were deleted since */
	in->existing = NULL;
	return 0;
}

enum ingest_state ingest_prepare(struct ingest *in, struct catalog *cat, struct error *err)
{
	if (cat) {
		int rc;
		sha256_hex(in->up.data, in->up.length, in->sha256);
		rc = stored_whole(in, cat, err);
		if (rc != 0)
			return rc > 0 ? INGEST_STORED : INGEST_FAILED;
	}
	if (format_decode(&in->up, &in->decoded, err) < 0)
		return INGEST_REFUSED;
	if (in->decoded.stored) {
		/* the self-contained form is kept; its hash decides what is a duplicate */
		in->up.data = in->decoded.stored;
		in->up.length = in->decoded.stored_length;
		sha256_hex(in->up.data, in->up.length, in->sha256);
	} else if (!cat) {
		sha256_hex(in->up.data, in->up.length, in->sha256);
	}
	/* made before the write lock is taken; when out of memory, catalog_put makes them */
	catalog_render_texts(&in->decoded);
	return INGEST_READY;
}

static void mark_existing(json_t *entries)
{
	size_t i;
	json_t *e;

	json_array_foreach(entries, i, e) json_object_set_new(e, "status", json_string("existing"));
}

json_t *ingest_store(struct catalog *cat, const struct ingest *in, const char *note,
                     const char *user, struct ingest_counts *counts, struct error *err)
{
	struct catalog_upload cu = {in->up.data,     in->up.length, in->sha256,
	                            in->up.filename, note,          user};
	struct catalog_put_counts put;
	json_t *entries;

	if (json_array_size(in->existing) > 0) {
		mark_existing(in->existing);
		counts->existing += json_array_size(in->existing);
		return json_incref(in->existing);
	}
	entries = catalog_put(cat, &cu, &in->decoded, &put, err);
	if (!entries)
		return NULL;
	counts->created += put.created;
	counts->existing += put.existing;
	if (put.existing > 0)
		counts->recreated += put.created;
	return entries;
}
