/* format.h: the table of decoders and how an upload finds its decoder.
 *
 * Detection order: an explicit class= or family=; then magic bytes; then the file name's
 * extension; then each decoder's structural probe. The best-matching decoder decodes; when it
 * refuses, its error is the answer. When no decoder matches, the answer is 415 with what was
 * tried and why each refused.
 *
 * Adding a format: one file in src/formats/, one line in the table in format.c.
 */
#ifndef ANIMDEX_FORMAT_H
#define ANIMDEX_FORMAT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "core/model.h"

/* Another file of the same request (a glTF's .bin buffers). */
struct upload_sibling {
	const char *filename;
	const uint8_t *data;
	size_t length;
	int used; /* set by a decoder that read it */
};

/* An upload as the decoders see it; nothing in it is trusted. */
struct upload {
	const uint8_t *data; /* the bytes; not owned */
	size_t length;
	const char *filename;            /* as given by the client, or NULL */
	const char *class_name;          /* class=, or NULL */
	const char *family;              /* family=, or NULL */
	const char *name;                /* name=, or NULL */
	const char *crc32;               /* crc32= as text, or NULL */
	const char *layout;              /* layout=, or NULL */
	const char *endian;              /* endian=, or NULL */
	size_t max_inflate;              /* the most bytes a compressed container may inflate to
	                                  * (0: the default upload limit) */
	size_t max_entries;              /* the most entries the upload may give (0: any) */
	struct upload_sibling *siblings; /* the request's other files */
	size_t sibling_count;
};

/* How strongly a decoder claims an upload. */
enum format_match {
	MATCH_NONE = 0,
	MATCH_PROBE,     /* its structure looks right */
	MATCH_EXTENSION, /* the file name's extension */
	MATCH_MAGIC,     /* the leading bytes */
	MATCH_CONTENT,   /* the parsed content says what it is (a glTF's "asset") */
	MATCH_EXPLICIT,  /* class= or family= names it */
};

struct decode_result {
	struct resource **resources; /* count entries, owned */
	size_t count;
	json_t *skipped; /* array of {"name", "type", "reason"}; owned */
	uint8_t *stored; /* bytes to keep instead of the upload (a glTF with its
	                  * external buffers embedded), or NULL; owned */
	size_t stored_length;
	struct stored_texts *texts; /* catalog_render_texts: made ahead, one a resource; or
	                             * NULL; owned */
};

/* What the catalogue stores of a decoded resource as JSON text. */
struct stored_texts {
	char *structure, *assumed;
	char **track_infos; /* one a channel: its extra info, or NULL */
	size_t track_count;
};

struct format {
	const char *family;      /* "radient" ... */
	const char *description; /* one line for --help and 415 answers */
	/* Raised whenever the decoder reads some bytes differently than before; every entry
	 * records the version that made it, so `animdexd redecode` knows what is outdated. */
	unsigned version;
	/* How well this decoder claims the upload; writes why not into `why` when MATCH_NONE. */
	enum format_match (*match)(const struct upload *up, char *why, size_t why_size);
	/* Appends one or more resources to `out`; on failure sets err and returns -1. */
	int (*decode)(const struct upload *up, struct decode_result *out, struct error *err);
};

void decode_result_init(struct decode_result *result);
void decode_result_cleanup(struct decode_result *result);
void stored_texts_cleanup(struct stored_texts *t);
/* Fails with a clear 413 when one more entry would pass the upload's max_entries. Decoders
 * that give many entries ask before decoding each, so that the work stays bounded too. */
int format_room_for_entry(const struct upload *up, const struct decode_result *result,
                          struct error *err);
/* Takes ownership of res, also on failure. */
int decode_result_add(struct decode_result *result, struct resource *res);

/* A JSON document may start with a UTF-8 byte order mark: the decoders see the upload
 * without it (a view of the same bytes). */
struct upload format_without_bom(const struct upload *up);

/* The decoder that would take the upload, or NULL. */
const struct format *format_detect(const struct upload *up);

/* Finds the decoder, decodes, and fills in name and handle defaults. */
int format_decode(const struct upload *up, struct decode_result *out, struct error *err);

/* The file name's extension without the dot, or "" */
const char *format_extension(const char *filename);
/* Case-insensitive: does the file name end with ".<ext>"? */
int format_has_extension(const char *filename, const char *ext);

const struct format *const *format_table(size_t *count);
/* The decoder of a family, or NULL. */
const struct format *format_by_family(const char *family);

/* The decoders. */
extern const struct format format_radient;
extern const struct format format_zouna;
extern const struct format format_gltf;
extern const struct format format_burnout;
extern const struct format format_bvh;
extern const struct format format_bonemap;

#endif
