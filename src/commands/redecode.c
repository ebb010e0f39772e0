/* redecode.c: `animdexd redecode`: the stored bytes of catalogued entries decoded again with
 * today's decoders, each entry replaced in place (catalog_replace_decoded) in its own
 * transaction.
 *
 * An entry is decoded as its first upload was, as far as the catalogue recorded it: its
 * family (and, where the class chose the decoder, its class), the byte order or layout its
 * structure shows, its file name. Of the resources the bytes give, the one at the entry's
 * part is its new decoding. Whatever today's decoder refuses is left as it was.
 */
#include "redecode.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "formats/format.h"

struct redecode_totals {
	size_t entries, changed, unchanged, refused;
	unsigned long tracks_added, tracks_removed, tracks_changed;
};

/* Decodes one entry again and stores the result. 0: done; 1: refused (reason in err). */
static int redecode_entry(struct catalog *cat, int64_t id, struct catalog_changes *changes,
                          struct error *err)
{
	struct catalog_stored st;
	struct decode_result result;
	const struct resource *res;
	int rc = 1;

	if (catalog_get_stored(cat, id, &st, err) < 0)
		return -1;
	decode_result_init(&result);
	res = catalog_stored_decode(&st, &result, err);
	if (res)
		rc = catalog_replace_decoded(cat, id, res, changes, err) < 0 ? -1 : 0;
	decode_result_cleanup(&result);
	catalog_stored_cleanup(&st);
	return rc;
}

int redecode_run(const struct redecode_options *opt, FILE *out)
{
	struct redecode_totals t = {0};
	struct catalog *cat;
	struct error err;
	int64_t *ids = NULL;
	size_t count = 0;
	int tty = isatty(2) && !opt->quiet, rc = 0;

	error_init(&err);
	cat = catalog_open(opt->db_path, &err);
	if (!cat || catalog_select_ids(cat, opt->family, opt->class_name, opt->id, &ids, &count,
	                               &err) < 0) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		catalog_close(cat);
		return 2;
	}
	if (opt->id && count == 0) {
		fprintf(stderr, "animdexd: no entry has id %" PRId64 "%s\n", opt->id,
		        opt->family || opt->class_name ? " among those the filters select" : "");
		catalog_close(cat);
		return 2;
	}
	for (size_t i = 0; i < count; i++) {
		struct catalog_changes changes;
		int r;
		error_init(&err);
		r = redecode_entry(cat, ids[i], &changes, &err);
		t.entries++;
		if (r < 0) {
			/* the catalogue itself failed: stop, nothing of this entry changed */
			fprintf(stderr, "%sanimdexd: entry %" PRId64 ": %s\n", tty ? "\r" : "",
			        ids[i], err.message);
			rc = 2;
			break;
		}
		if (r > 0) {
			t.refused++;
			rc = 1;
			fprintf(out, "%sentry %" PRId64 " left as it was: %s\n",
			        tty ? "\r\033[K" : "", ids[i], err.message);
		} else if (changes.changed) {
			t.changed++;
			t.tracks_added += changes.tracks_added;
			t.tracks_removed += changes.tracks_removed;
			t.tracks_changed += changes.tracks_changed;
			if (!opt->quiet)
				fprintf(out,
				        "%sentry %" PRId64
				        " changed: %u tracks added, %u removed, %u "
				        "changed%s%s%s\n",
				        tty ? "\r\033[K" : "", ids[i], changes.tracks_added,
				        changes.tracks_removed, changes.tracks_changed,
				        changes.structure ? "; structure changed" : "",
				        changes.rig ? "; rig changed" : "",
				        changes.handle ? "; handle set from its name" : "");
		} else {
			t.unchanged++;
		}
		if (tty)
			fprintf(
			    stderr,
			    "\r%zu of %zu entries redecoded: %zu changed, %zu left as they were ",
			    i + 1, count, t.changed, t.refused);
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	fprintf(out,
	        "%zu entries redecoded: %zu changed (%lu tracks added, %lu removed, %lu changed), "
	        "%zu unchanged, %zu left as they were (today's decoder refuses their bytes)\n",
	        t.entries, t.changed, t.tracks_added, t.tracks_removed, t.tracks_changed,
	        t.unchanged, t.refused);
	free(ids);
	catalog_close(cat);
	return rc;
}
