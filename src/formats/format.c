/* format.c: the decoder table, detection, and the defaults every decoded entry gets. */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/hash.h"

static const struct format *const formats[] = {
    &format_radient, &format_zouna, &format_gltf, &format_burnout, &format_bvh, &format_bonemap,
};

const struct format *const *format_table(size_t *count)
{
	*count = sizeof(formats) / sizeof(formats[0]);
	return formats;
}

const struct format *format_by_family(const char *family)
{
	for (size_t i = 0; family && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i]->family, family) == 0)
			return formats[i];
	return NULL;
}

void decode_result_init(struct decode_result *result)
{
	result->stored = NULL;
	result->stored_length = 0;
	result->resources = NULL;
	result->count = 0;
	result->skipped = json_array();
	result->texts = NULL;
}

void stored_texts_cleanup(struct stored_texts *t)
{
	for (size_t i = 0; t->track_infos && i < t->track_count; i++)
		free(t->track_infos[i]);
	free(t->track_infos);
	free(t->structure);
	free(t->assumed);
	memset(t, 0, sizeof(*t));
}

void decode_result_cleanup(struct decode_result *result)
{
	for (size_t i = 0; result->texts && i < result->count; i++)
		stored_texts_cleanup(&result->texts[i]);
	free(result->texts);
	result->texts = NULL;
	for (size_t i = 0; i < result->count; i++)
		resource_free(result->resources[i]);
	free(result->resources);
	json_decref(result->skipped);
	free(result->stored);
	result->stored = NULL;
	result->stored_length = 0;
	result->resources = NULL;
	result->count = 0;
	result->skipped = NULL;
}

int decode_result_add(struct decode_result *result, struct resource *res)
{
	struct resource **list;

	if (!res)
		return -1;
	list = realloc(result->resources, (result->count + 1) * sizeof(*list));
	if (!list) {
		resource_free(res);
		return -1;
	}
	result->resources = list;
	list[result->count++] = res;
	return 0;
}

int format_room_for_entry(const struct upload *up, const struct decode_result *result,
                          struct error *err)
{
	if (!up->max_entries || result->count < up->max_entries)
		return 0;
	error_set(err, ERROR_TOO_LARGE, NULL, -1,
	          "the upload gives more than %zu entries, the most one upload may create "
	          "(--max-entries); nothing was stored: split it, or raise the limit",
	          up->max_entries);
	return -1;
}

const char *format_extension(const char *filename)
{
	const char *dot, *slash;

	if (!filename)
		return "";
	slash = strrchr(filename, '/');
	dot = strrchr(slash ? slash : filename, '.');
	return dot ? dot + 1 : "";
}

int format_has_extension(const char *filename, const char *ext)
{
	return strcasecmp(format_extension(filename), ext) == 0;
}

/* The file name without folders and without its extension, or NULL when nothing is left. */
static char *format_stem(const char *filename)
{
	const char *base, *slash, *dot;
	size_t n;
	char *out;

	if (!filename)
		return NULL;
	slash = strrchr(filename, '/');
	base = slash ? slash + 1 : filename;
	dot = strrchr(base, '.');
	n = dot ? (size_t)(dot - base) : strlen(base);
	if (n == 0)
		return NULL;
	out = malloc(n + 1);
	if (out) {
		memcpy(out, base, n);
		out[n] = '\0';
	}
	return out;
}

/* Names, handles and their sources that every entry gets unless its decoder set them. */
static int format_apply_defaults(const struct upload *up, struct resource *res, int only,
                                 struct error *err)
{
	uint32_t crc;

	/* name= and crc32= name one entry, not every resource of a bundle or every animation
	 * of a glTF file; those take their handles from their own names */
	if (only && up->name && *up->name) {
		free(res->name);
		res->name = strdup(up->name);
		if (!res->name)
			goto oom;
	}
	if (only && !res->name && !res->crc32_source[0])
		res->name = format_stem(up->filename);
	if (only && up->crc32) {
		if (hash_parse_handle(up->crc32, &crc) < 0) {
			error_set(err, ERROR_BAD_PARAMETER, "crc32", -1,
			          "crc32: '%s' is not a handle; write it in hex (0x1A2B3C4D) or "
			          "decimal (signed or unsigned 32-bit)",
			          up->crc32);
			return -1;
		}
		res->crc32 = crc;
		snprintf(res->crc32_source, sizeof(res->crc32_source), "crc32=");
	} else if (!res->crc32_source[0]) {
		const char *name = res->name ? res->name : "";
		if (strcmp(res->family, "zouna") == 0)
			res->crc32 = hash_asobo32(name, strlen(name));
		else
			res->crc32 = hash_crc32_lower(name, strlen(name));
		snprintf(res->crc32_source, sizeof(res->crc32_source), "name");
	}
	if (resource_name_tracks(res) < 0)
		goto oom;
	return 0;
oom:
	error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
	return -1;
}

struct upload format_without_bom(const struct upload *up)
{
	struct upload view = *up;

	if (up->length >= 3 && memcmp(up->data, "\xEF\xBB\xBF", 3) == 0) {
		size_t i = 3;
		while (i < up->length && strchr(" \t\r\n", up->data[i]))
			i++;
		if (i < up->length && (up->data[i] == '{' || up->data[i] == '[')) {
			view.data += 3;
			view.length -= 3;
		}
	}
	return view;
}

const struct format *format_detect(const struct upload *given)
{
	struct upload view = format_without_bom(given);
	const struct upload *up = &view;
	const struct format *best = NULL;
	enum format_match best_match = MATCH_NONE;
	char why[200];

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		enum format_match m = formats[i]->match(up, why, sizeof(why));
		if (m > best_match) {
			best_match = m;
			best = formats[i];
		}
	}
	return best;
}

int format_decode(const struct upload *given, struct decode_result *out, struct error *err)
{
	struct upload view = format_without_bom(given);
	const struct upload *up = &view;
	const struct format *best = NULL;
	enum format_match best_match = MATCH_NONE;
	char why[sizeof(formats) / sizeof(formats[0])][200];
	size_t count = sizeof(formats) / sizeof(formats[0]);
	struct buf tried;

	for (size_t i = 0; i < count; i++) {
		enum format_match m;
		why[i][0] = '\0';
		m = formats[i]->match(up, why[i], sizeof(why[i]));
		if (m > best_match) {
			best_match = m;
			best = formats[i];
		}
	}
	if (!best) {
		buf_init(&tried, 4096);
		buf_puts(&tried, "no decoder accepts this upload; tried ");
		for (size_t i = 0; i < count; i++)
			buf_printf(&tried, "%s%s (%s)", i ? ", " : "", formats[i]->family,
			           why[i][0] ? why[i] : "did not match");
		error_set(err, ERROR_UNSUPPORTED_FORMAT, NULL, -1, "%s",
		          tried.data ? tried.data : "no decoder accepts this upload");
		buf_cleanup(&tried);
		return -1;
	}
	if (best->decode(up, out, err) < 0) {
		if (!error_is_set(err))
			error_set(err, ERROR_INTERNAL, NULL, -1, "%s decoder failed", best->family);
		return -1;
	}
	if (up->max_entries && out->count > up->max_entries) {
		struct decode_result fewer = {.count = up->max_entries};
		return format_room_for_entry(up, &fewer, err);
	}
	for (size_t i = 0; i < out->count; i++) {
		out->resources[i]->decoder_version = best->version;
		if (format_apply_defaults(up, out->resources[i], out->count == 1, err) < 0)
			return -1;
	}
	return 0;
}
