/* catalog_rig.c: an entry's rig in the catalogue (schema/007_rigs.sql): storing its nodes with
 * the entry, reading them back bit for bit with the names users gave their handles, and
 * finding the entries whose rigs have a node (by the indexes on handles, names and unnamed
 * nodes' source indices: no scan). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"

/* The rest pose as it is stored: translation, rotation, scale as ten floats. */
#define REST_FLOATS 10

int catalog_insert_rig(struct catalog *cat, int64_t id, const struct rig *rig, struct error *err)
{
	for (size_t i = 0; i < rig->count; i++) {
		const struct rig_node *n = &rig->nodes[i];
		struct db_stmt *s = db_prepare(cat->db, ST_INSERT_RIG_NODE, err);
		float rest[REST_FLOATS];
		int rc;
		if (!s)
			return -1;
		memcpy(rest, n->translation, sizeof(n->translation));
		memcpy(rest + 3, n->rotation, sizeof(n->rotation));
		memcpy(rest + 7, n->scale, sizeof(n->scale));
		db_bind_int64(s, 1, id);
		db_bind_int64(s, 2, (int64_t)i);
		db_bind_int64(s, 3, n->source);
		db_bind_text(s, 4, n->name);
		if (n->has_handle)
			db_bind_int64(s, 5, n->handle);
		db_bind_int64(s, 6, n->parent);
		db_bind_blob(s, 7, rest, sizeof(rest));
		if (n->has_inverse_bind)
			db_bind_blob(s, 8, n->inverse_bind, sizeof(n->inverse_bind));
		rc = db_step(s, "storing a rig node", err);
		db_reset(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* One row of ST_GET_RIG into node; -1 when a column is not what was stored. */
static int read_node(struct db_stmt *s, size_t expected, struct rig_node *n, int *failed)
{
	size_t rest_length = 0, bind_length = 0;
	const void *rest = db_column_blob(s, 5, &rest_length);

	if ((size_t)db_column_int64(s, 0) != expected || rest_length != REST_FLOATS * sizeof(float))
		return -1;
	n->source = (uint32_t)db_column_int64(s, 1);
	n->name = catalog_text_copy(s, 2, failed);
	n->has_handle = !db_column_is_null(s, 3);
	n->handle = n->has_handle ? (uint32_t)db_column_int64(s, 3) : 0;
	n->parent = (int32_t)db_column_int64(s, 4);
	memcpy(n->translation, rest, sizeof(n->translation));
	memcpy(n->rotation, (const float *)rest + 3, sizeof(n->rotation));
	memcpy(n->scale, (const float *)rest + 7, sizeof(n->scale));
	if (!db_column_is_null(s, 6)) {
		const void *bind = db_column_blob(s, 6, &bind_length);
		if (bind_length != sizeof(n->inverse_bind))
			return -1;
		memcpy(n->inverse_bind, bind, sizeof(n->inverse_bind));
		n->has_inverse_bind = 1;
	}
	if (n->has_handle)
		n->handle_name = catalog_text_copy(s, db_column_is_null(s, 7) ? 8 : 7, failed);
	return 0;
}

int catalog_read_rig(struct catalog *cat, int64_t id, struct rig *rig, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_GET_RIG, err);
	size_t cap = 0;
	int rc, failed = 0;

	rig_init(rig);
	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	while ((rc = db_step(s, "reading a rig", err)) == 1) {
		if (rig->count == cap) {
			struct rig_node *grown =
			    realloc(rig->nodes, (cap = cap ? 2 * cap : 64) * sizeof(*grown));
			if (!grown) {
				failed = 1;
				break;
			}
			rig->nodes = grown;
		}
		memset(&rig->nodes[rig->count], 0, sizeof(rig->nodes[0]));
		if (read_node(s, rig->count, &rig->nodes[rig->count], &failed) < 0) {
			rig->count++;
			db_reset(s);
			error_set(err, ERROR_INTERNAL, NULL, -1,
			          "catalogue: entry %lld's rig node %zu is damaged", (long long)id,
			          rig->count - 1);
			rig_cleanup(rig);
			return -1;
		}
		rig->count++;
		if (failed)
			break;
	}
	db_reset(s);
	if (failed)
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	if (rc < 0 || failed || rig_check(rig, err) < 0) {
		rig_cleanup(rig);
		return -1;
	}
	return 0;
}

int catalog_read_skeleton(struct catalog *cat, int64_t id, struct rig *rig, struct error *err)
{
	return catalog_read_rig_of(cat, id, "skeleton", rig, err);
}

int catalog_read_rig_of(struct catalog *cat, int64_t id, const char *parameter, struct rig *rig,
                        struct error *err)
{
	struct db_stmt *s;

	if (catalog_read_rig(cat, id, rig, err) < 0)
		return -1;
	if (rig->count > 0)
		return 0;
	s = db_prepare(cat->db, ST_GET_ENTRY_NAMES, err);
	if (!s)
		return -1;
	if (catalog_step_resource(s, id, "finding the skeleton", err) < 0) {
		if (err->code == ERROR_NOT_FOUND) {
			error_init(err);
			error_set(err, ERROR_BAD_PARAMETER, parameter, -1,
			          "%s: no entry has id %" PRId64, parameter, id);
		}
		return -1;
	}
	db_reset(s);
	error_set(err, ERROR_BAD_PARAMETER, parameter, -1,
	          "%s: entry %" PRId64 " has no rig (a Skel_Z, a glTF Skeleton, a BVH take or an "
	          "animation with a rig of its own has one)",
	          parameter, id);
	return -1;
}

int64_t catalog_rig_size(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_RIG_SIZE, err);
	int64_t n = -1;

	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	if (db_step(s, "counting a rig's nodes", err) == 1)
		n = db_column_int64(s, 0);
	db_reset(s);
	return n;
}

int catalog_delete_rig(struct catalog *cat, int64_t id, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_DELETE_RIG, err);
	int rc;

	if (!s)
		return -1;
	db_bind_int64(s, 1, id);
	rc = db_step(s, "deleting a rig", err);
	db_reset(s);
	return rc < 0 ? -1 : 0;
}

int catalog_rigs_with(struct catalog *cat, const struct catalog_rig_key *key, int64_t **ids,
                      size_t *count, struct error *err)
{
	enum statement st = key->kind == RIG_KEY_HANDLE ? ST_RIGS_BY_HANDLE
	                    : key->kind == RIG_KEY_NAME ? ST_RIGS_BY_NAME
	                                                : ST_RIGS_BY_SOURCE;
	struct db_stmt *s = db_prepare(cat->db, st, err);

	*ids = NULL;
	*count = 0;
	if (!s)
		return -1;
	if (key->kind == RIG_KEY_NAME)
		db_bind_text(s, 1, key->name);
	else
		db_bind_int64(s, 1, key->kind == RIG_KEY_HANDLE ? key->handle : key->source);
	return catalog_collect_ids(s, "finding rigs", ids, count, err);
}
