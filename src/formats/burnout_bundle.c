/* burnout_bundle.c: Burnout Paradise BND2 bundles (doc/formats.md 2.3): the Vehicle Animation
 * and Body Part Remap Data resources of a bundle, each inflated and decoded by burnout.c, named
 * from the bundle's debug XML, with the resources they import as references; every other
 * resource listed as skipped. And the way back: a resource's own bytes taken out of its bundle
 * (a template for burnout_native.c), and the bundle rebuilt with one resource replaced, every
 * other block byte for byte (doc/formats.md 2.5).
 *
 * BND2: "bnd2", u32 version (2), u32 platform (1 little-endian; 2, 3 big), u32 debugDataOffset,
 * u32 entryCount, u32 entriesOffset, u32 dataOffset[3], u32 flags (1 zlib, 8 debug XML), 8
 * padding; entries of 0x40 bytes: u64 id, u64 importsHash, u32 uncompressedSize[3] (low 28
 * bits), u32 compressedSize[3], u32 offset[3], u32 importsOffset, u32 typeId, u16 importCount,
 * u8 flags, u8 streamIndex. Imports: 0x10 bytes each (u64 id, u32 offset, u32 padding).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "burnout.h"
#include "formats/reader.h"
#include "writer.h"

struct bundle_entry {
	uint64_t id;
	uint32_t uncompressed[3], compressed[3], offset[3];
	uint32_t imports_offset, type;
	uint16_t import_count;
};

/* The bytes of block 0 of an entry, inflated when the bundle is compressed. */
static uint8_t *entry_block(const uint8_t *data, size_t length, uint32_t data_offset, int zlib,
                            const struct bundle_entry *e, size_t index, size_t max,
                            size_t *out_length, struct error *err)
{
	size_t size = e->uncompressed[0] & 0x0FFFFFFFu;
	size_t stored = zlib ? e->compressed[0] : size;
	uint64_t start = (uint64_t)data_offset + e->offset[0];
	uint8_t *out;
	char path[48];

	snprintf(path, sizeof(path), "entries[%zu]", index);
	if (start > length || stored > length - start) {
		error_set(err, ERROR_INVALID, path, (long long)start,
		          "%s: its block (%zu bytes at 0x%" PRIx64 ") lies outside the %zu-byte "
		          "bundle",
		          path, stored, start, length);
		return NULL;
	}
	if (size > max) {
		error_set(err, ERROR_TOO_LARGE, path, -1,
		          "%s: declares %zu uncompressed bytes, more than the upload limit of %zu",
		          path, size, max);
		return NULL;
	}
	out = malloc(size + 1);
	if (!out) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return NULL;
	}
	if (!zlib) {
		memcpy(out, data + start, size);
	} else {
		z_stream z;
		int rc;
		memset(&z, 0, sizeof(z));
		if (inflateInit(&z) != Z_OK) {
			free(out);
			error_set(err, ERROR_INTERNAL, NULL, -1, "zlib cannot start");
			return NULL;
		}
		z.next_in = (Bytef *)(data + start);
		z.avail_in = (uInt)stored;
		z.next_out = out;
		z.avail_out = (uInt)size; /* inflation stops at the declared size */
		rc = inflate(&z, Z_FINISH);
		inflateEnd(&z);
		if (rc != Z_STREAM_END || z.total_out != size) {
			free(out);
			error_set(err, ERROR_INVALID, path, (long long)start,
			          "%s: its zlib stream %s (declared %zu bytes)", path,
			          rc == Z_DATA_ERROR  ? "is corrupt"
			          : rc == Z_BUF_ERROR ? "inflates past its declared size, or is cut"
			                              : "does not end where declared",
			          size);
			return NULL;
		}
	}
	*out_length = size;
	return out;
}

/* The names of the debug XML, <Resource id="81beea6f" type="..." name="..."/>, read once
 * into a table sorted by id, so that naming n entries costs O(xml + n log n), not O(xml n). */
struct debug_name {
	uint32_t id;
	const char *name; /* into the XML; not NUL-terminated */
	size_t length;
};

struct debug_names {
	int read; /* the XML has been read into list */
	struct debug_name *list;
	size_t count;
};

static int debug_id_order(const void *a, const void *b)
{
	const struct debug_name *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* By id, then by position in the XML, so that the first name of an id comes first. */
static int debug_name_order(const void *a, const void *b)
{
	const struct debug_name *x = a, *y = b;
	int by_id = debug_id_order(a, b);
	return by_id ? by_id : (x->name < y->name ? -1 : x->name > y->name);
}

static int is_hex8(const char *p)
{
	for (int i = 0; i < 8; i++)
		if (!isxdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

/* One pass over the tags; the first name given for an id wins. */
static void debug_names_read(const char *xml, size_t length, struct debug_names *names)
{
	const char *p = xml, *end = xml + length;
	size_t cap = 0;

	names->read = 1;
	names->list = NULL;
	names->count = 0;
	while (p < end) {
		const char *tag = memchr(p, '<', (size_t)(end - p)), *close, *idp = NULL,
		           *namep = NULL, *q;
		if (!tag)
			break;
		close = memchr(tag, '>', (size_t)(end - tag));
		if (!close)
			break;
		for (q = tag; q + 5 < close; q++) {
			if (!idp && memcmp(q, " id=\"", 5) == 0)
				idp = q + 5;
			if (!namep && q + 7 < close && memcmp(q, " name=\"", 7) == 0)
				namep = q + 7;
		}
		p = close + 1;
		if (!idp || !namep || close - idp <= 8 || idp[8] != '"' || !is_hex8(idp))
			continue;
		q = memchr(namep, '"', (size_t)(close - namep));
		if (!q)
			continue;
		if (names->count == cap) {
			void *grown =
			    realloc(names->list, (cap = cap ? 2 * cap : 64) * sizeof(*names->list));
			if (!grown)
				break;
			names->list = grown;
		}
		{
			char hex[9];
			memcpy(hex, idp, 8);
			hex[8] = '\0';
			names->list[names->count++] = (struct debug_name){
			    (uint32_t)strtoul(hex, NULL, 16), namep, (size_t)(q - namep)};
		}
	}
	if (names->count > 1)
		qsort(names->list, names->count, sizeof(*names->list), debug_name_order);
}

/* The name the bundle's debug XML gives an id (malloc'd), or NULL; the XML is read on the
 * first call. */
static char *debug_name(struct debug_names *names, const char *xml, size_t length, uint64_t id)
{
	struct debug_name key = {(uint32_t)id, NULL, 0};
	const struct debug_name *found;
	char *name;

	if (!xml)
		return NULL;
	if (!names->read)
		debug_names_read(xml, length, names);
	if (!names->count)
		return NULL;
	found = bsearch(&key, names->list, names->count, sizeof(*names->list), debug_id_order);
	if (!found)
		return NULL;
	while (found > names->list && found[-1].id == found->id)
		found--;
	name = malloc(found->length + 1);
	if (name) {
		memcpy(name, found->name, found->length);
		name[found->length] = '\0';
	}
	return name;
}

/* A bnd2 bundle's header. */
struct bundle_header {
	enum byte_order order; /* version 2 in either byte order decides it */
	uint32_t version, platform, debug_offset, entry_count, entries_offset, data_offset[3];
	uint32_t flags;
	const char *xml; /* the debug data (resource names), or NULL */
	size_t xml_length;
};

static int read_bundle_header(const struct upload *up, struct bundle_header *h, struct reader *r,
                              struct error *err)
{
	h->order = BYTE_ORDER_LITTLE;
	reader_init(r, up->data, up->length, BYTE_ORDER_LITTLE, err);
	reader_skip(r, 4, "magic");
	h->version = reader_u32(r, "version");
	if (h->version != 2) {
		h->order = BYTE_ORDER_BIG;
		reader_init(r, up->data, up->length, h->order, err);
		reader_skip(r, 4, "magic");
		h->version = reader_u32(r, "version");
	}
	h->platform = reader_u32(r, "platform");
	h->debug_offset = reader_u32(r, "debugDataOffset");
	h->entry_count = reader_u32(r, "entryCount");
	h->entries_offset = reader_u32(r, "entriesOffset");
	for (int i = 0; i < 3; i++)
		h->data_offset[i] = reader_u32(r, "dataOffset");
	h->flags = reader_u32(r, "flags");
	if (reader_failed(r))
		return -1;
	if (h->version != 2) {
		error_set(err, ERROR_UNSUPPORTED_FORMAT, "version", 4,
		          "version: this bnd2 bundle is not version 2 in either byte order");
		return -1;
	}
	if (reader_seek(r, h->entries_offset, "entriesOffset") < 0 ||
	    reader_check_count(r, h->entry_count, 0x40, "entryCount") < 0)
		return -1;
	h->xml = NULL;
	h->xml_length = 0;
	if ((h->flags & 8) && h->debug_offset < up->length) {
		h->xml = (const char *)up->data + h->debug_offset;
		h->xml_length = up->length - h->debug_offset;
	}
	return 0;
}

/* Entry i's record (0x40 bytes). */
static int read_bundle_entry(struct reader *r, const struct bundle_header *h, uint32_t i,
                             struct bundle_entry *e)
{
	reader_seek(r, (size_t)h->entries_offset + (size_t)i * 0x40, "entries");
	e->id = reader_u64(r, "entries");
	reader_u64(r, "entries"); /* imports hash */
	for (int k = 0; k < 3; k++)
		e->uncompressed[k] = reader_u32(r, "entries");
	for (int k = 0; k < 3; k++)
		e->compressed[k] = reader_u32(r, "entries");
	for (int k = 0; k < 3; k++)
		e->offset[k] = reader_u32(r, "entries");
	e->imports_offset = reader_u32(r, "entries");
	e->type = reader_u32(r, "entries");
	e->import_count = reader_u16(r, "entries");
	return reader_failed(r) ? -1 : 0;
}

/* The imports at the end of an entry's primary block: references of res. */
static int read_imports(const uint8_t *block, size_t block_length, enum byte_order order,
                        const struct bundle_entry *e, struct resource *res, struct error *err)
{
	struct reader ir;

	reader_init(&ir, block, block_length, order, err);
	if (reader_seek(&ir, e->imports_offset, "importsOffset") < 0 ||
	    reader_check_count(&ir, e->import_count, 16, "imports") < 0)
		return -1;
	for (uint16_t k = 0; k < e->import_count; k++) {
		uint64_t id = reader_u64(&ir, "imports");
		reader_u64(&ir, "imports");
		resource_add_reference(res, (uint32_t)id, "import", -1, k);
	}
	return 0;
}

/* Entry i, one of the types animdex reads: its block inflated and decoded, its imports and
 * name, into out. -1 with err set (naming the entry). */
static int decode_bundle_entry(const struct upload *up, const struct bundle_header *h,
                               const struct bundle_entry *e, uint32_t i, size_t max,
                               struct debug_names *names, struct decode_result *out,
                               struct error *err)
{
	struct resource *res;
	uint8_t *block;
	size_t block_length, resource_length;
	char idtext[24];

	snprintf(idtext, sizeof(idtext), "0x%08" PRIX64, e->id & 0xFFFFFFFFu);
	block = entry_block(up->data, up->length, h->data_offset[0], h->flags & 1, e, i, max,
	                    &block_length, err);
	if (!block)
		return -1;
	if (e->import_count && e->imports_offset > block_length) {
		error_set(err, ERROR_INVALID, "importsOffset", -1,
		          "entries[%" PRIu32 "]: importsOffset 0x%" PRIX32
		          " is past its %zu-byte block",
		          i, e->imports_offset, block_length);
		free(block);
		return -1;
	}
	/* the resource ends where its imports begin */
	resource_length = e->import_count ? e->imports_offset : block_length;
	res = e->type == TYPE_VEHICLE_ANIMATION
	          ? burnout_vehicle_animation(block, resource_length, up->layout, err)
	          : burnout_body_part_remap(block, resource_length, err);
	if (!res) {
		char message[sizeof(err->message)];
		snprintf(message, sizeof(message), "entries[%" PRIu32 "] (%s): %.400s", i, idtext,
		         err->message);
		memcpy(err->message, message, sizeof(message));
		free(block);
		return -1;
	}
	if (e->import_count && read_imports(block, block_length, h->order, e, res, err) < 0) {
		free(block);
		resource_free(res);
		return -1;
	}
	free(block);
	res->crc32 = (uint32_t)e->id;
	snprintf(res->crc32_source, sizeof(res->crc32_source), "bundle entry");
	res->name = debug_name(names, h->xml, h->xml_length, e->id);
	json_object_set_new(res->metadata, "bundle",
	                    json_pack("{s:I, s:s, s:i, s:b, s:I}", "entry", (json_int_t)i,
	                              "resource_id", idtext, "platform", (int)h->platform,
	                              "compressed", (h->flags & 1) != 0, "import_count",
	                              (json_int_t)e->import_count));
	if (decode_result_add(out, res) < 0) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* An entry of a type animdex does not read, listed in out->skipped with its name. */
static void skip_bundle_entry(const struct bundle_header *h, const struct bundle_entry *e,
                              struct debug_names *names, struct decode_result *out)
{
	char idtext[24], type[16], *name = debug_name(names, h->xml, h->xml_length, e->id);

	snprintf(idtext, sizeof(idtext), "0x%08" PRIX64, e->id & 0xFFFFFFFFu);
	snprintf(type, sizeof(type), "0x%05" PRIX32, e->type);
	json_array_append_new(out->skipped,
	                      json_pack("{s:s, s:s, s:s, s:s}", "name", name ? name : idtext, "id",
	                                idtext, "type", type, "reason",
	                                "animdex reads Vehicle Animation (0x10023) and Body "
	                                "Part Remap Data (0x10024) resources"));
	free(name);
}

static int decode_bundle_named(const struct upload *up, struct decode_result *out,
                               struct debug_names *names, struct error *err)
{
	struct bundle_header h;
	struct reader r;
	size_t max = up->max_inflate ? up->max_inflate : DEFAULT_MAX_INFLATE, inflated = 0;

	if (read_bundle_header(up, &h, &r, err) < 0)
		return -1;
	for (uint32_t i = 0; i < h.entry_count; i++) {
		struct bundle_entry e;
		if (read_bundle_entry(&r, &h, i, &e) < 0)
			return -1;
		if (e.type != TYPE_VEHICLE_ANIMATION && e.type != TYPE_BODY_PART_REMAP) {
			skip_bundle_entry(&h, &e, names, out);
			continue;
		}
		if (format_room_for_entry(up, out, err) < 0)
			return -1;
		inflated += e.uncompressed[0] & 0x0FFFFFFFu;
		if (inflated > max) {
			error_set(err, ERROR_TOO_LARGE, "entries", -1,
			          "the bundle's resources declare more than the upload limit of "
			          "%zu bytes uncompressed",
			          max);
			return -1;
		}
		if (decode_bundle_entry(up, &h, &e, i, max, names, out, err) < 0)
			return -1;
	}
	if (out->count == 0) {
		error_set(err, ERROR_UNSUPPORTED_FORMAT, NULL, -1,
		          "the bundle holds no Vehicle Animation (0x10023) or Body Part Remap Data "
		          "(0x10024) resource among its %" PRIu32 " resources",
		          h.entry_count);
		return -1;
	}
	return 0;
}

int burnout_bundle_decode(const struct upload *up, struct decode_result *out, struct error *err)
{
	struct debug_names names = {0};
	int rc = decode_bundle_named(up, out, &names, err);

	free(names.list);
	return rc;
}

/* The entry of a resource ID (its low 32 bits), or -1 with err set (none, or two). */
static long find_entry(struct reader *r, const struct bundle_header *h, uint32_t id,
                       struct bundle_entry *e, struct error *err)
{
	struct bundle_entry other;
	long found = -1;

	for (uint32_t i = 0; i < h->entry_count; i++) {
		if (read_bundle_entry(r, h, i, found < 0 ? e : &other) < 0)
			return -1;
		if ((uint32_t)(found < 0 ? e : &other)->id != id)
			continue;
		if (found >= 0) {
			error_set(err, ERROR_INVALID, "bundle", -1,
			          "bundle: entries[%ld] and entries[%" PRIu32
			          "] both have resource "
			          "ID 0x%08" PRIX32 "; which one to replace is not clear",
			          found, i, id);
			return -1;
		}
		found = (long)i;
	}
	if (found < 0)
		error_set(err, ERROR_INVALID, "bundle", -1,
		          "bundle: no entry of the bundle has resource ID 0x%08" PRIX32, id);
	return found;
}

/* Whether [at, at + n) meets [start, end). */
static int overlaps(uint64_t at, uint64_t n, uint64_t start, uint64_t end)
{
	return n > 0 && at < end && start < at + n;
}

/* A block replaced must be the only thing in its bytes: no other entry's block, no header,
 * entry table, debug data or data region starting inside it. 0, or -1 with err set. */
static int block_stands_alone(struct reader *r, const struct bundle_header *h, long k,
                              uint64_t start, uint64_t end, struct error *err)
{
	struct bundle_entry o;

	if (overlaps(0, 0x30, start, end) ||
	    overlaps(h->entries_offset, (uint64_t)h->entry_count * 0x40, start, end) ||
	    (h->xml && h->debug_offset > start && h->debug_offset < end) ||
	    (h->data_offset[1] > start && h->data_offset[1] < end) ||
	    (h->data_offset[2] > start && h->data_offset[2] < end)) {
		error_set(err, ERROR_INVALID, "bundle", -1,
		          "bundle: entries[%ld]'s block (0x%" PRIX64 " to 0x%" PRIX64 ") holds the "
		          "bundle's header, entry table, debug data or another data region; it "
		          "cannot be replaced alone",
		          k, start, end);
		return -1;
	}
	for (uint32_t i = 0; i < h->entry_count; i++) {
		uint64_t at;
		if (read_bundle_entry(r, h, i, &o) < 0)
			return -1;
		at = (uint64_t)h->data_offset[0] + o.offset[0];
		if ((long)i != k &&
		    overlaps(at,
		             (h->flags & 1) ? o.compressed[0] : (o.uncompressed[0] & 0x0FFFFFFFu),
		             start, end)) {
			error_set(err, ERROR_INVALID, "bundle", -1,
			          "bundle: entries[%ld]'s block and entries[%" PRIu32
			          "]'s share bytes "
			          "(at 0x%" PRIX64 "); one cannot be replaced without the other",
			          k, i, at);
			return -1;
		}
	}
	return 0;
}

int burnout_bundle_resource(const struct upload *up, uint32_t id, uint8_t **bytes, size_t *length,
                            struct error *err)
{
	struct bundle_header h;
	struct bundle_entry e;
	struct reader r;
	size_t max = up->max_inflate ? up->max_inflate : DEFAULT_MAX_INFLATE, block_length;
	long i;

	if (read_bundle_header(up, &h, &r, err) < 0 || (i = find_entry(&r, &h, id, &e, err)) < 0)
		return -1;
	*bytes = entry_block(up->data, up->length, h.data_offset[0], h.flags & 1, &e, (size_t)i,
	                     max, &block_length, err);
	if (!*bytes)
		return -1;
	*length =
	    e.import_count && e.imports_offset <= block_length ? e.imports_offset : block_length;
	return 0;
}

/* A block deflated as a new zlib stream (the other entries keep their own). */
static uint8_t *deflate_block(const uint8_t *block, size_t length, size_t *stored)
{
	uLongf n = compressBound((uLong)length);
	uint8_t *out = malloc(n);

	if (!out || compress2(out, &n, block, (uLong)length, Z_BEST_COMPRESSION) != Z_OK) {
		free(out);
		return NULL;
	}
	*stored = n;
	return out;
}

/* The largest alignment any entry's blocks ask (at least 128), or 0 with err set. */
static size_t largest_alignment(struct reader *r, const struct bundle_header *h)
{
	struct bundle_entry other;
	size_t align = 128;

	for (uint32_t i = 0; i < h->entry_count; i++) {
		if (read_bundle_entry(r, h, i, &other) < 0)
			return 0;
		for (int b = 0; b < 3; b++) {
			unsigned shift = other.uncompressed[b] >> 28;
			if (shift < 31 && ((size_t)1 << shift) > align)
				align = (size_t)1 << shift;
		}
	}
	return align;
}

/* The bundle as it was, its zlib streams untouched (the resource did not change). */
static int bundle_as_it_was(const struct upload *up, const struct bundle_header *h, long k,
                            struct burnout_bundle_rebuilt *out, struct error *err)
{
	out->bytes = malloc(up->length + 1);
	if (!out->bytes) {
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	memcpy(out->bytes, up->data, up->length);
	out->length = up->length;
	out->entry = (unsigned)k;
	out->compressed = (h->flags & 1) != 0;
	return 0;
}

/* The entry's new block as the bundle stores it: the resource, then the old block's bytes
 * after it (its imports), deflated when the bundle is. NULL with err set. */
static uint8_t *stored_block(const struct bundle_header *h, const uint8_t *bytes, size_t length,
                             const uint8_t *block, size_t block_length, size_t resource_length,
                             size_t *new_length, size_t *new_stored, struct error *err)
{
	uint8_t *fresh, *stored;

	*new_length = length + (block_length - resource_length);
	fresh = malloc(*new_length + 1);
	if (!fresh || *new_length > 0x0FFFFFFFu) {
		error_set(err, fresh ? ERROR_TOO_LARGE : ERROR_INTERNAL, "bundle", -1,
		          fresh ? "bundle: the new block is past 256 MiB" : "out of memory");
		free(fresh);
		return NULL;
	}
	memcpy(fresh, bytes, length);
	memcpy(fresh + length, block + resource_length, block_length - resource_length);
	if (!(h->flags & 1)) {
		*new_stored = *new_length;
		return fresh;
	}
	stored = deflate_block(fresh, *new_length, new_stored);
	free(fresh);
	if (!stored)
		error_set(err, ERROR_INTERNAL, NULL, -1, "zlib cannot compress the new block");
	return stored;
}

/* Where the entry's block went, and what moved after it. */
struct block_move {
	long entry;
	uint64_t old_end;
	int64_t delta;
	size_t block_length, new_length, new_stored;
};

/* What pointed past the old block points past the new one: the header's offsets, the later
 * entries' blocks, and the entry's own sizes. -1 with err set. */
static int move_pointers(uint8_t *file, struct reader *r, const struct bundle_header *h,
                         const struct bundle_entry *e, const struct block_move *m)
{
	struct bundle_entry other;
#define MOVED(v) ((uint64_t)(v) >= m->old_end ? (uint32_t)((int64_t)(v) + m->delta) : (uint32_t)(v))
	uint32_t entries_at = MOVED(h->entries_offset);

	writer_put_u32(file + 12, MOVED(h->debug_offset), h->order);
	writer_put_u32(file + 20, entries_at, h->order);
	for (int b = 1; b < 3; b++) /* block 0's region starts at or before this block */
		writer_put_u32(file + 24 + 4 * b, MOVED(h->data_offset[b]), h->order);
#undef MOVED
	for (uint32_t i = 0; i < h->entry_count; i++) {
		uint8_t *rec = file + entries_at + (size_t)i * 0x40;
		if (read_bundle_entry(r, h, i, &other) < 0)
			return -1;
		if ((long)i == m->entry) {
			writer_put_u32(rec + 16,
			               (uint32_t)m->new_length | (e->uncompressed[0] & 0xF0000000u),
			               h->order);
			if (h->flags & 1)
				writer_put_u32(rec + 28, (uint32_t)m->new_stored, h->order);
			if (e->import_count)
				writer_put_u32(
				    rec + 52,
				    (uint32_t)(e->imports_offset + m->new_length - m->block_length),
				    h->order);
		} else if ((uint64_t)h->data_offset[0] + other.offset[0] >= m->old_end) {
			writer_put_u32(rec + 40, (uint32_t)((int64_t)other.offset[0] + m->delta),
			               h->order);
		}
	}
	return 0;
}

int burnout_bundle_replace(const struct upload *up, uint32_t id, const uint8_t *bytes,
                           size_t length, struct burnout_bundle_rebuilt *out, struct error *err)
{
	struct bundle_header h;
	struct bundle_entry e;
	struct block_move m = {0};
	struct reader r;
	size_t max = up->max_inflate ? up->max_inflate : DEFAULT_MAX_INFLATE;
	size_t resource_length, old_stored, align;
	uint8_t *block, *stored, *file;
	uint64_t start, new_end, total;

	memset(out, 0, sizeof(*out));
	if (read_bundle_header(up, &h, &r, err) < 0 ||
	    (m.entry = find_entry(&r, &h, id, &e, err)) < 0)
		return -1;
	block = entry_block(up->data, up->length, h.data_offset[0], h.flags & 1, &e,
	                    (size_t)m.entry, max, &m.block_length, err);
	if (!block)
		return -1;
	resource_length = e.import_count && e.imports_offset <= m.block_length ? e.imports_offset
	                                                                       : m.block_length;
	if (length == resource_length && memcmp(bytes, block, length) == 0) {
		free(block);
		return bundle_as_it_was(up, &h, m.entry, out, err);
	}
	stored = stored_block(&h, bytes, length, block, m.block_length, resource_length,
	                      &m.new_length, &m.new_stored, err);
	free(block);
	if (!stored)
		return -1;
	/* everything after the old block moves by a multiple of the largest alignment any entry
	 * asks, so every later block keeps its alignment */
	old_stored = (h.flags & 1) ? e.compressed[0] : (e.uncompressed[0] & 0x0FFFFFFFu);
	start = (uint64_t)h.data_offset[0] + e.offset[0];
	m.old_end = start + old_stored;
	new_end = start + m.new_stored;
	if ((align = largest_alignment(&r, &h)) == 0 || m.old_end > up->length ||
	    block_stands_alone(&r, &h, m.entry, start, m.old_end, err) < 0) {
		free(stored);
		if (align && m.old_end > up->length)
			error_set(err, ERROR_INVALID, "bundle", -1,
			          "bundle: the entry's block lies outside");
		return -1;
	}
	if (new_end >= m.old_end)
		m.delta = (int64_t)(((new_end - m.old_end) + align - 1) / align * align);
	else
		m.delta = -(int64_t)((m.old_end - new_end) / align * align);
	total = (uint64_t)((int64_t)up->length + m.delta);
	file = calloc(total + 1, 1);
	if (!file || total > ((uint64_t)1 << 32)) {
		free(file);
		free(stored);
		error_set(err, ERROR_INTERNAL, NULL, -1, "out of memory");
		return -1;
	}
	memcpy(file, up->data, start);
	memcpy(file + start, stored, m.new_stored);
	memcpy(file + (uint64_t)((int64_t)m.old_end + m.delta), up->data + m.old_end,
	       up->length - m.old_end);
	free(stored);
	if (move_pointers(file, &r, &h, &e, &m) < 0) {
		free(file);
		return -1;
	}
	out->bytes = file;
	out->length = (size_t)total;
	out->entry = (unsigned)m.entry;
	out->compressed = (h.flags & 1) != 0;
	out->moved = m.delta;
	return 0;
}
