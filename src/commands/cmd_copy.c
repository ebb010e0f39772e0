/* cmd_copy.c: `animdexd copy FROM TO`: a whole catalogue into another (catalog_copy.c), from
 * SQLite to PostgreSQL or back. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cmd.h"

static void copy_progress(int64_t done, int64_t total, void *arg)
{
	(void)arg;
	fprintf(stderr, "\ranimdexd: copied %lld of %lld entries", (long long)done,
	        (long long)total);
	if (done == total)
		fputc('\n', stderr);
}

/* animdexd copy [--append] [--quiet] FROM TO */
static int cmd_copy(int argc, char **argv)
{
	static const struct option options[] = {{"append", no_argument, NULL, 'a'},
	                                        {"quiet", no_argument, NULL, 'q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	enum copy_mode mode = COPY_INTO_EMPTY;
	struct catalog *from = NULL, *to = NULL;
	struct copy_report report;
	struct error err;
	char shown[2][512];
	int quiet = 0, c, rc = 1;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'a': mode = COPY_APPEND; break;
		case 'q': quiet = 1; break;
		case 'h': return cmd_help(&cmd_copy_entry);
		default: return 2;
		}
	}
	if (argc - optind != 2)
		cmd_usage_error("copy takes two catalogues, FROM and TO%s",
		                argc - optind < 2 ? ": one is missing" : ", and no more");
	cmd_operand(argv[optind], "copy FROM");
	cmd_operand(argv[optind + 1], "copy TO");
	catalog_display_name(argv[optind], shown[0], sizeof(shown[0]));
	catalog_display_name(argv[optind + 1], shown[1], sizeof(shown[1]));
	if (strcmp(argv[optind], argv[optind + 1]) == 0)
		cmd_usage_error("copy: FROM and TO are the same catalogue (%s)", shown[0]);
	{
		const char *own = catalog_files_match(argv[optind], argv[optind + 1]);
		const char *theirs = catalog_files_match(argv[optind + 1], argv[optind]);
		if (own || theirs) {
			/* e.g. "TO src.db-wal is the catalogue's write-ahead log of src.db" */
			fprintf(stderr,
			        "animdexd: copy: %s %s is %s of %s: refusing to copy a catalogue "
			        "onto itself\n",
			        own ? "TO" : "FROM", own ? shown[1] : shown[0], own ? own : theirs,
			        own ? shown[0] : shown[1]);
			return 2;
		}
	}
	error_init(&err);
	from = catalog_open_read_only(argv[optind], &err); /* the source is only read */
	if (from)
		to = catalog_open(argv[optind + 1], &err);
	if (!from || !to) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		goto done;
	}
	if (catalog_copy(from, to, mode, !quiet && isatty(2) ? copy_progress : NULL, NULL, &report,
	                 &err) < 0) {
		fprintf(stderr, "\nanimdexd: %s; %s is unchanged\n", err.message, shown[1]);
		goto done;
	}
	if (!quiet)
		fprintf(stderr,
		        "animdexd: copied %lld entries (%lld skipped, %lld renumbered), %lld "
		        "blobs (%lld there already), %lld tracks, %lld references, %lld rig nodes, "
		        "%lld names "
		        "(%lld there already), %lld tokens (%lld skipped) from %s to %s; %lld "
		        "blobs verified by SHA-256\n",
		        (long long)report.entries, (long long)report.entries_skipped,
		        (long long)report.entries_renumbered, (long long)report.blobs,
		        (long long)report.blobs_skipped, (long long)report.tracks,
		        (long long)report.refs, (long long)report.rig_nodes,
		        (long long)report.names, (long long)report.names_skipped,
		        (long long)report.tokens, (long long)report.tokens_skipped, shown[0],
		        shown[1], (long long)report.bytes_verified);
	rc = 0;
done:
	catalog_close(from);
	catalog_close(to);
	return rc;
}

const struct cmd_entry cmd_copy_entry = {
    "copy",
    "animdexd copy [--append] [--quiet] FROM TO\n",
    "Copies every entry with its bytes, tracks and references, every name and\n"
    "token hash, from the catalogue FROM to the catalogue TO (each a SQLite file\n"
    "or a PostgreSQL connection string), keeping ids, uploaded_at and\n"
    "uploaded_by, in one transaction; then checks every SHA-256 and the counts.\n"
    "TO must be empty, unless --append: entries it has already (same bytes and\n"
    "part) are skipped, an id taken there gets a new one, names and tokens it\n"
    "has stay as they are.\n",
    cmd_copy,
};
