/* catalog_names.c: the names users give handles (POST /api/names), and a handle's name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "catalog_internal.h"
#include "base/hash.h"
#include "render/render.h"

#define NAME_MAX_LENGTH 1024
#define NAMES_LISTED    1000

/* Where the first control character of a line is (a byte below 0x20 other than a tab, or
 * DEL), or `len` when it has none. */
static size_t control_at(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return i;
	}
	return len;
}

json_t *catalog_add_names(struct catalog *cat, const char *text, size_t length, struct error *err)
{
	json_int_t added = 0, known = 0;
	json_t *listed = json_array();
	size_t line = 0;

	if (catalog_exec(cat, ST_BEGIN, "starting a transaction", err) < 0) {
		json_decref(listed);
		return NULL;
	}
	for (size_t pos = 0; pos < length;) {
		const char *start = text + pos, *nl = memchr(start, '\n', length - pos);
		size_t len = nl ? (size_t)(nl - start) : length - pos;
		struct db_stmt *s;
		char handle[2][11];
		int rc;

		pos += len + (nl != NULL);
		line++;
		while (len > 0 &&
		       (start[len - 1] == '\r' || start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		while (len > 0 && (*start == ' ' || *start == '\t'))
			start++, len--;
		if (len == 0 || *start == '#')
			continue;
		if (len > NAME_MAX_LENGTH || memchr(start, '\0', len) || !utf8_valid(start, len)) {
			error_set(err, ERROR_BAD_PARAMETER, "names", (long long)(start - text),
			          "names: line %zu is %s; a name is UTF-8 text of at most %d bytes",
			          line, len > NAME_MAX_LENGTH ? "too long" : "not UTF-8 text",
			          NAME_MAX_LENGTH);
			goto fail;
		}
		size_t control = control_at(start, len);
		if (control < len) {
			error_set(
			    err, ERROR_BAD_PARAMETER, "names", (long long)(start + control - text),
			    "names: line %zu holds the control character 0x%02X at its byte %zu; a "
			    "name is text without control characters (a binary file is not a name "
			    "list)",
			    line, (unsigned char)start[control], control + 1);
			goto fail;
		}
		s = db_prepare(cat->db, ST_ADD_NAME, err);
		if (!s)
			goto fail;
		uint32_t a = hash_asobo32(start, len), c = hash_crc32_lower(start, len);
		db_bind_text_n(s, 1, start, len);
		db_bind_int64(s, 2, a);
		db_bind_int64(s, 3, c);
		rc = db_step(s, "storing a name", err); /* a row when it is new */
		db_reset(s);
		if (rc < 0)
			goto fail;
		if (rc == 1)
			added++;
		else
			known++;
		if (json_array_size(listed) < NAMES_LISTED) {
			render_handle(a, handle[0]);
			render_handle(c, handle[1]);
			json_array_append_new(listed,
			                      json_pack("{s:s%, s:s, s:s}", "name", start, len,
			                                "asobo32", handle[0], "crc32", handle[1]));
		}
	}
	if (catalog_exec(cat, ST_COMMIT, "committing the names", err) < 0)
		goto fail;
	return json_pack("{s:I, s:I, s:o}", "added", added, "known", known, "names", listed);
fail:
	json_decref(listed);
	catalog_rollback(cat);
	return NULL;
}

int catalog_handle_name(struct catalog *cat, uint32_t handle, int asobo32, char *out, size_t size)
{
	struct db_stmt *s =
	    db_prepare(cat->db, asobo32 ? ST_NAME_BY_ASOBO32 : ST_NAME_BY_CRC32, NULL);
	int found = -1;

	if (!s)
		return -1;
	db_bind_int64(s, 1, handle);
	if (db_step(s, "reading a name", NULL) == 1) {
		snprintf(out, size, "%s", db_column_text(s, 0));
		found = 0;
	}
	db_reset(s);
	return found;
}
