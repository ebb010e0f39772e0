/* catalog_sql.c: the SQL that SQLite and PostgreSQL both run, written once.
 *
 * Placeholders are SQLite's ?N; catalog_postgres.c rewrites them as $N when it prepares a
 * statement. Where a statement must differ (locks, transactions, ids, reading a blob in
 * pieces, the order rows were stored in), a backend gives its own text in its dialect table
 * and says why there; catalog_sql() picks the dialect's text when there is one. Everything
 * here is standard SQL both accept: ON CONFLICT DO NOTHING (SQLite 3.24), NULLS FIRST (3.30),
 * RETURNING (3.35), CAST(? AS type) where PostgreSQL must know a parameter's type.
 */
#include <stddef.h>

#include "catalog_backend.h"

/* An upload's size, by its SHA-256 (the parameter named). */
#define SIZE_OF(sha256) "(SELECT size FROM blobs WHERE sha256 = " sha256 ")"

static const char *const shared_sql[ST_COUNT] = {
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT upload",
    [ST_RELEASE] = "RELEASE SAVEPOINT upload",
    [ST_ROLLBACK_TO] = "ROLLBACK TO SAVEPOINT upload",
    [ST_FIND_BY_SHA256] =
        "SELECT " SUMMARY_COLUMNS SUMMARY_FROM "WHERE r.blob_sha256 = ?1 ORDER BY r.part",
    [ST_INSERT_BLOB] = "INSERT INTO blobs (sha256, size, filename, uploaded_at, entry_count) "
                       "VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_INSERT_BLOB_CHUNK] = "INSERT INTO blob_chunks (sha256, n, bytes) VALUES (?1, ?2, ?3)",
    [ST_GET_BLOB_CHUNKS] = "SELECT bytes FROM blob_chunks WHERE sha256 = ?1 ORDER BY n",
    [ST_READ_BLOB] = "SELECT bytes FROM blob_chunks WHERE sha256 = ?1 AND n = ?2",
    [ST_BLOB_ENTRY_COUNT] = "SELECT entry_count FROM blobs WHERE sha256 = ?1",
    [ST_SET_BLOB_ENTRY_COUNT] = "UPDATE blobs SET entry_count = ?2 WHERE sha256 = ?1",
    /* an entry's size is its upload's, copied so that the list sorts by it on an index */
    [ST_INSERT_RESOURCE] = "INSERT INTO resources (" RESOURCE_COLUMNS
                           ", size) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                           "?13, ?14, ?15, ?16, " SIZE_OF("?1") ") RETURNING id",
    [ST_INSERT_TRACK] = "INSERT INTO tracks (" TRACK_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                        "?15, ?16, ?17, ?18, ?19, ?20, ?21)",
    [ST_INSERT_REF] = "INSERT INTO refs (resource_id, crc32, kind, track, key) "
                      "VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_GET_RESOURCE] =
        "SELECT " SUMMARY_COLUMNS ", r.structure, r.assumed" SUMMARY_FROM "WHERE r.id = ?1",
    [ST_GET_ENTRY_NAMES] = "SELECT id, class, family, name, crc32, filename FROM resources "
                           "WHERE id = ?1",
    /* min(): the first name in order (names.name is the key: never NULL), without a sorter
     * opened for every track */
    [ST_GET_TRACKS] = "SELECT n, name, target_schema, target_object, target_name, property, "
                      "first_element, value_type, array_size, interpolation, semantic, "
                      "key_count, time_first, time_last, kind, info, handle, (SELECT "
                      "min(n.name) FROM names n WHERE n.asobo32 = t.handle), rules "
                      "FROM tracks t WHERE resource_id = ?1 ORDER BY n",
    [ST_GET_TRACK_TARGETS] = "SELECT n, name, target_schema, target_object, target_name, "
                             "property, kind, handle, (SELECT min(n.name) FROM names n WHERE "
                             "n.asobo32 = t.handle), key_count, value_type, array_size, "
                             "interpolation FROM tracks t WHERE resource_id = ?1 ORDER BY n",
    [ST_GET_RAW] = "SELECT r.blob_sha256, b.size, r.filename" SUMMARY_FROM "WHERE r.id = ?1",
    [ST_GET_BLOB_OF] = "SELECT blob_sha256, class, family, crc32, decoder_version FROM "
                       "resources WHERE id = ?1",
    [ST_DELETE_RESOURCE] = "DELETE FROM resources WHERE id = ?1",
    [ST_DELETE_UNUSED_CHUNKS] = "DELETE FROM blob_chunks WHERE sha256 = ?1 AND NOT EXISTS "
                                "(SELECT 1 FROM resources WHERE blob_sha256 = ?1)",
    [ST_DELETE_UNUSED_BLOB] = "DELETE FROM blobs WHERE sha256 = ?1 AND NOT EXISTS "
                              "(SELECT 1 FROM resources WHERE blob_sha256 = ?1)",
    [ST_LOAD_TRACK] = "SELECT name, value_type, array_size, interpolation, semantic, "
                      "key_count, times, key_values, kind, rules FROM tracks WHERE resource_id = "
                      "?1 AND n = ?2",
    [ST_HANDLE_RESOURCES] =
        "SELECT " SUMMARY_COLUMNS SUMMARY_FROM "WHERE r.crc32 = ?1 ORDER BY r.id DESC LIMIT 1000",
    [ST_HANDLE_REFS] = "SELECT f.resource_id, f.kind, f.track, f.key, r.class, r.name "
                       "FROM refs f JOIN resources r ON r.id = f.resource_id "
                       "WHERE f.crc32 = ?1 ORDER BY f.resource_id DESC, f.track NULLS FIRST, "
                       "f.key NULLS FIRST LIMIT 1000",
    [ST_HANDLE_NAMES] = "SELECT name, asobo32 = ?1, crc32 = ?1 FROM names "
                        "WHERE asobo32 = ?1 OR crc32 = ?1 ORDER BY name LIMIT 1000",
    /* the counts the triggers keep (schema/011_large_catalogues.sql): never a count(*) */
    [ST_CLASSES] = "SELECT class, family, CAST(sum(entries) AS bigint) FROM entry_counts "
                   "GROUP BY class, family HAVING sum(entries) > 0 ORDER BY class, family",
    [ST_COUNT_KEPT] = "SELECT CAST(coalesce(sum(entries), 0) AS bigint) FROM entry_counts "
                      "WHERE (CAST(?1 AS text) IS NULL OR class = ?1) AND (CAST(?2 AS text) IS "
                      "NULL OR family = ?2)",
    [ST_ADD_NAME] = "INSERT INTO names (name, asobo32, crc32) VALUES (?1, ?2, ?3) "
                    "ON CONFLICT DO NOTHING RETURNING 1",
    [ST_NAME_BY_ASOBO32] = "SELECT name FROM names WHERE asobo32 = ?1 ORDER BY name LIMIT 1",
    [ST_NAME_BY_CRC32] = "SELECT name FROM names WHERE crc32 = ?1 ORDER BY name LIMIT 1",
    [ST_TOKEN_ADD] = "INSERT INTO tokens (name, hash, created_at) VALUES (?1, ?2, ?3)",
    [ST_TOKEN_REVOKE] = "UPDATE tokens SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS "
                        "NULL RETURNING 1",
    [ST_TOKEN_LIST] = "SELECT name, created_at, revoked_at FROM tokens ORDER BY name",
    [ST_TOKEN_ALL] = "SELECT name, hash, revoked_at IS NOT NULL FROM tokens",
    [ST_OUTDATED] = "SELECT count(*) FROM resources WHERE family = ?1 AND decoder_version < ?2",
    [ST_GET_STORED] =
        "SELECT r.part, r.family, r.class, r.decoder_version, r.crc32_source, "
        "r.structure, r.filename, r.blob_sha256, b.size" SUMMARY_FROM "WHERE r.id = ?1",
    [ST_TRACK_DIGESTS] = "SELECT n, name, target_schema, target_object, target_name, property, "
                         "first_element, value_type, array_size, interpolation, semantic, "
                         "key_count, times, key_values, kind, info, handle, rules FROM tracks "
                         "WHERE resource_id = ?1 ORDER BY n",
    [ST_DELETE_TRACKS] = "DELETE FROM tracks WHERE resource_id = ?1",
    [ST_DELETE_REFS] = "DELETE FROM refs WHERE resource_id = ?1",
    [ST_UPDATE_DECODED] = "UPDATE resources SET duration = ?2, track_count = ?3, structure = ?4, "
                          "assumed = ?5, decoder_version = ?6, crc32 = ?7, crc32_source = ?8 "
                          "WHERE id = ?1",
    [ST_STATS] = "SELECT (SELECT CAST(coalesce(sum(entries), 0) AS bigint) FROM entry_counts), "
                 "(SELECT CAST(coalesce(sum(tracks), 0) AS bigint) FROM entry_counts), "
                 "(SELECT CAST(coalesce(sum(blobs), 0) AS bigint) FROM blob_counts), "
                 "(SELECT CAST(coalesce(sum(bytes), 0) AS bigint) FROM blob_counts)",
    [ST_SELECT_IDS] = "SELECT id FROM resources WHERE (CAST(?1 AS text) IS NULL OR family = ?1) "
                      "AND (CAST(?2 AS text) IS NULL OR class = ?2) AND (CAST(?3 AS bigint) = "
                      "0 OR id = ?3) ORDER BY id",
    [ST_GENERATION] = "SELECT generation FROM catalog_state",
    [ST_BUMP_GENERATION] = "UPDATE catalog_state SET generation = generation + 1",
    [ST_COUNT_ROWS] = "SELECT (SELECT count(*) FROM blobs), (SELECT count(*) FROM resources), "
                      "(SELECT count(*) FROM tracks), (SELECT count(*) FROM refs), "
                      "(SELECT count(*) FROM names), (SELECT count(*) FROM tokens)",
    [ST_COPY_BLOB_LIST] = "SELECT sha256 FROM blobs ORDER BY sha256",
    [ST_COPY_BLOB_GET] = "SELECT sha256, size, filename, uploaded_at, entry_count "
                         "FROM blobs WHERE sha256 = ?1",
    [ST_COPY_BLOB_PUT] = "INSERT INTO blobs (sha256, size, filename, uploaded_at, entry_count) "
                         "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING RETURNING 1",
    [ST_COPY_BLOB_CHECK] = "SELECT size FROM blobs WHERE sha256 = ?1",
    [ST_COPY_RESOURCE_GET] = "SELECT id, " RESOURCE_COLUMNS " FROM resources WHERE id = ?1",
    [ST_COPY_RESOURCE_PUT] = "INSERT INTO resources (id, " RESOURCE_COLUMNS
                             ", size) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                             "?13, ?14, ?15, ?16, ?17, " SIZE_OF("?2") ")",
    [ST_COPY_RESOURCE_PUT_NEW] = "INSERT INTO resources (" RESOURCE_COLUMNS
                                 ", size) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                                 "?12, ?13, ?14, ?15, ?16, " SIZE_OF("?1") ") RETURNING id",
    [ST_COPY_RESOURCE_ID_FREE] = "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM resources WHERE "
                                 "id = ?1)",
    [ST_COPY_RESOURCE_OF_PART] = "SELECT id FROM resources WHERE blob_sha256 = ?1 AND "
                                 "part = ?2",
    [ST_COPY_TRACKS_GET] = "SELECT " TRACK_COLUMNS " FROM tracks WHERE resource_id = ?1 "
                           "ORDER BY n",
    [ST_COPY_TRACK_PUT] = "INSERT INTO tracks (" TRACK_COLUMNS
                          ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                          "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
    [ST_COPY_REF_PUT] = "INSERT INTO refs (resource_id, crc32, kind, track, key) "
                        "VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_COPY_NAMES_GET] = "SELECT name, asobo32, crc32 FROM names ORDER BY name",
    [ST_COPY_NAME_PUT] = "INSERT INTO names (name, asobo32, crc32) VALUES (?1, ?2, ?3) "
                         "ON CONFLICT DO NOTHING RETURNING 1",
    [ST_COPY_TOKENS_GET] = "SELECT name, hash, created_at, revoked_at FROM tokens ORDER BY name",
    [ST_COPY_TOKEN_PUT] = "INSERT INTO tokens (name, hash, created_at, revoked_at) "
                          "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING RETURNING 1",
    [ST_INSERT_RIG_NODE] =
        "INSERT INTO rig_nodes (" RIG_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    /* both names of a handle: a Zouna bone's is an Asobo32, any other's a CRC-32 */
    [ST_GET_RIG] = "SELECT i, source, name, handle, parent, rest, inverse_bind, (SELECT "
                   "min(n.name) FROM names n WHERE n.asobo32 = g.handle), (SELECT min(n.name) "
                   "FROM names n WHERE n.crc32 = g.handle) FROM rig_nodes g WHERE "
                   "resource_id = ?1 ORDER BY i",
    [ST_DELETE_RIG] = "DELETE FROM rig_nodes WHERE resource_id = ?1",
    [ST_COPY_RIG_GET] = "SELECT " RIG_COLUMNS " FROM rig_nodes WHERE resource_id = ?1 ORDER BY i",
    [ST_COPY_RIG_PUT] =
        "INSERT INTO rig_nodes (" RIG_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_RIG_SIZE] = "SELECT count(*) FROM rig_nodes WHERE resource_id = ?1",
    [ST_ENTRY_WEIGHT] = "SELECT length(r.structure) + length(r.assumed) + (SELECT "
                        "coalesce(sum(length(t.info) + length(t.name)), 0) FROM tracks t WHERE "
                        "t.resource_id = ?1), r.track_count, (SELECT count(*) FROM rig_nodes n "
                        "WHERE n.resource_id = ?1), (SELECT b.size FROM blobs b WHERE b.sha256 = "
                        "r.blob_sha256) FROM resources r WHERE r.id = ?1",
    [ST_VERSIONS] = "SELECT r.id, r.name, r.uploaded_by, r.uploaded_at, r.filename, "
                    "r.decoder_version, b.size, r.track_count, r.note" SUMMARY_FROM
                    "WHERE r.crc32 = ?1 AND r.class = ?2 AND r.id <> ?3 ORDER BY r.id DESC "
                    "LIMIT 100",
    [ST_INSERT_EVENT] = "INSERT INTO events (at, kind, resource_id, class, family, crc32, "
                        "decoder_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    /* the old events are those before the oldest one still in its grace period, found from
     * the oldest end: every row kept from the last trim is young, so this reads only the rows
     * that aged since, and the delete one range of ids (a test of `at` on every row kept
     * cost each commit a scan of a busy half minute's events, 20,000 rows at 1,500 uploads a
     * second) */
    [ST_TRIM_EVENTS] = "DELETE FROM events WHERE id < (SELECT CASE WHEN k.by_count < k.by_age "
                       "THEN k.by_count ELSE k.by_age END FROM (SELECT max(o.id) - ?1 + 1 AS "
                       "by_count, coalesce((SELECT y.id FROM events y WHERE y.at >= ?2 ORDER "
                       "BY y.id LIMIT 1), max(o.id) + 1) AS by_age FROM events o) k)",
    /* the entry as the list gives it, when it is still there */
    [ST_EVENTS_AFTER] = "SELECT " SUMMARY_COLUMNS ", e.id, e.at, e.kind, e.resource_id, e.class, "
                        "e.family, e.crc32, e.decoder_version FROM events e LEFT JOIN resources "
                        "r ON r.id = e.resource_id AND e.kind <> 'deleted' LEFT JOIN blobs b ON "
                        "b.sha256 = r.blob_sha256 WHERE e.id > ?1 ORDER BY e.id LIMIT ?2",
    [ST_EVENTS_NEWEST] = "SELECT coalesce(max(id), 0), coalesce(min(id), 0) FROM events",
    [ST_RIGS_BY_HANDLE] = "SELECT resource_id FROM rig_nodes WHERE handle = ?1",
    /* the exact name (schema/013_rig_lookups.sql: the index holds the entry too) */
    [ST_RIGS_BY_NAME] = "SELECT resource_id FROM rig_nodes WHERE name = ?1",
    [ST_RIGS_BY_SOURCE] = "SELECT resource_id FROM rig_nodes WHERE name IS NULL AND "
                          "handle IS NULL AND source = ?1",
};

const char *const catalog_sort_names[CATALOG_SORTS] = {
    [CATALOG_SORT_ID] = "id",
    [CATALOG_SORT_CLASS] = "class",
    [CATALOG_SORT_NAME] = "name",
    [CATALOG_SORT_FAMILY] = "family",
    [CATALOG_SORT_CRC32] = "crc32",
    [CATALOG_SORT_TRACK_COUNT] = "track_count",
    [CATALOG_SORT_DURATION] = "duration",
    [CATALOG_SORT_SIZE] = "size",
    [CATALOG_SORT_UPLOADED_AT] = "uploaded_at",
};

const struct sort_sql catalog_sort_sql[CATALOG_SORTS] = {
    [CATALOG_SORT_ID] = {"r.id", "r.id", SORT_INT, "bigint"},
    [CATALOG_SORT_CLASS] = {"r.class", "r.class", SORT_TEXT, "text"},
    [CATALOG_SORT_NAME] = {"lower(coalesce(r.name, ''))",
                           "lower(coalesce(r.name, '') COLLATE \"C\")", SORT_TEXT, "text"},
    [CATALOG_SORT_FAMILY] = {"r.family", "r.family", SORT_TEXT, "text"},
    [CATALOG_SORT_CRC32] = {"r.crc32", "r.crc32", SORT_INT, "bigint"},
    [CATALOG_SORT_TRACK_COUNT] = {"r.track_count", "r.track_count", SORT_INT, "bigint"},
    [CATALOG_SORT_DURATION] = {"coalesce(r.duration, -1.0)", "coalesce(r.duration, -1.0)",
                               SORT_REAL, "double precision"},
    [CATALOG_SORT_SIZE] = {"r.size", "r.size", SORT_INT, "bigint"},
    [CATALOG_SORT_UPLOADED_AT] = {"r.uploaded_at", "r.uploaded_at", SORT_INT, "bigint"},
};

const char *catalog_sql(const char *const dialect[ST_COUNT], enum statement st)
{
	if ((unsigned)st >= ST_COUNT)
		return NULL;
	return dialect[st] ? dialect[st] : shared_sql[st];
}
