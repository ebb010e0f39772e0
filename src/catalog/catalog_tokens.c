/* catalog_tokens.c: upload tokens: added, revoked, listed and checked (only SHA-256 digests are
 * stored). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "base/hash.h"

int catalog_token_add(struct catalog *cat, const char *name, const char *token_sha256,
                      struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_ADD, err);
	struct error failure;
	int rc;

	if (!s)
		return -1;
	error_init(&failure);
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, token_sha256);
	db_bind_int64(s, 3, catalog_now_ms());
	rc = db_step(s, "storing a token", &failure);
	db_reset(s);
	if (rc >= 0)
		return 0;
	if (failure.code == ERROR_CONFLICT)
		error_set(
		    err, ERROR_CONFLICT, "name", -1,
		    "name: a token named '%s' already exists (revoked tokens keep their name)",
		    name);
	else
		error_set(err, failure.code, NULL, -1, "%s", failure.message);
	return -1;
}

int catalog_token_revoke(struct catalog *cat, const char *name, struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_REVOKE, err);
	int rc;

	if (!s)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_int64(s, 2, catalog_now_ms());
	rc = db_step(s, "revoking a token", err); /* a row when one was revoked */
	db_reset(s);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		error_set(err, ERROR_NOT_FOUND, "name", -1, "name: no valid token is named '%s'",
		          name);
		return -1;
	}
	return 0;
}

int catalog_token_list(struct catalog *cat, struct catalog_token_row **rows, size_t *count,
                       struct error *err)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_LIST, err);
	size_t cap = 0;
	int rc, failed = 0;

	*rows = NULL;
	*count = 0;
	if (!s)
		return -1;
	while ((rc = db_step(s, "listing tokens", err)) == 1) {
		struct catalog_token_row *row;
		if (*count == cap) {
			struct catalog_token_row *grown =
			    realloc(*rows, (cap = cap ? 2 * cap : 8) * sizeof(*grown));
			if (!grown) {
				failed = 1;
				break;
			}
			*rows = grown;
		}
		row = &(*rows)[(*count)++];
		row->name = catalog_text_copy(s, 0, &failed);
		row->created_at = db_column_int64(s, 1);
		row->revoked = !db_column_is_null(s, 2);
		row->revoked_at = row->revoked ? db_column_int64(s, 2) : 0;
		if (failed)
			break;
	}
	db_reset(s);
	if (failed)
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	if (failed || rc < 0) {
		catalog_token_rows_free(*rows, *count);
		*rows = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}

void catalog_token_rows_free(struct catalog_token_row *rows, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(rows[i].name);
	free(rows);
}

int catalog_token_count(struct catalog *cat)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_ALL, NULL);
	int n = 0, rc;

	if (!s)
		return -1;
	while ((rc = db_step(s, "counting tokens", NULL)) == 1)
		n += !db_column_int64(s, 2);
	db_reset(s);
	return rc < 0 ? -1 : n;
}

enum token_check catalog_token_check(struct catalog *cat, const char *token, char *name,
                                     size_t name_size)
{
	struct db_stmt *s = db_prepare(cat->db, ST_TOKEN_ALL, NULL);
	enum token_check result = TOKEN_NONE_EXIST;
	char given[SHA256_HEX_SIZE];
	int rc;

	if (!s)
		return TOKEN_UNKNOWN; /* fail closed */
	if (token)
		sha256_hex(token, strlen(token), given);
	while ((rc = db_step(s, "checking a token", NULL)) == 1) {
		const char *hash = db_column_text(s, 1);
		unsigned char diff = 0;
		if (result == TOKEN_NONE_EXIST)
			result = token ? TOKEN_WRONG : TOKEN_MISSING;
		if (!token || !hash || strlen(hash) != SHA256_HEX_SIZE - 1)
			continue;
		/* constant time: every byte is compared, whatever differs */
		for (size_t i = 0; i < SHA256_HEX_SIZE - 1; i++)
			diff |= (unsigned char)(hash[i] ^ given[i]);
		if (diff == 0) {
			result = db_column_int64(s, 2) ? TOKEN_REVOKED : TOKEN_VALID;
			snprintf(name, name_size, "%s", db_column_text(s, 0));
		}
	}
	db_reset(s);
	return rc < 0 ? TOKEN_UNKNOWN : result; /* fail closed */
}
