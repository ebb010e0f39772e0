/* cmd_native.c: `animdexd native ID -o FILE`: an entry as the game's own bytes
 * (answers/native_answer.h), with the parameters GET /api/resources/{id}/native takes,
 * written whole or not at all; the catalogue is only read. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answers/native_answer.h"
#include "catalog/catalog.h"
#include "cmd.h"

/* The options given, by the names the API's parameters have. */
struct native_args {
	const char *db, *output;
	const char *names[12], *values[12];
	size_t count;
	int summary, quiet;
};

static const char *native_arg(void *ctx, const char *name)
{
	const struct native_args *a = ctx;

	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->names[i], name) == 0)
			return a->values[i];
	return NULL;
}

static void set_arg(struct native_args *a, const char *name, const char *value)
{
	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->names[i], name) == 0) {
			a->values[i] = value;
			return;
		}
	a->names[a->count] = name;
	a->values[a->count++] = value;
}

/* The file's bytes, for cmd_write_whole_file. */
struct file_reader {
	const struct native_file *file;
	size_t given;
};

static long next_file_block(void *arg, char *out, size_t room)
{
	struct file_reader *r = arg;
	size_t n = r->file->length - r->given;

	if (n > room)
		n = room;
	memcpy(out, r->file->bytes + r->given, n);
	r->given += n;
	return (long)n;
}

static int64_t parse_options(int argc, char **argv, struct native_args *a)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"template", required_argument, NULL, 't'},
	                                        {"byte-order", required_argument, NULL, 'b'},
	                                        {"bff", required_argument, NULL, 'B'},
	                                        {"name", required_argument, NULL, 'n'},
	                                        {"promote", no_argument, NULL, 'p'},
	                                        {"reduce", required_argument, NULL, 'r'},
	                                        {"layout", required_argument, NULL, 'l'},
	                                        {"bundle", required_argument, NULL, 'u'},
	                                        {"as", required_argument, NULL, 'a'},
	                                        {"summary", no_argument, NULL, 's'},
	                                        {"output", required_argument, NULL, 'o'},
	                                        {"quiet", no_argument, NULL, 'Q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
		switch (c) {
		case 'd': a->db = cmd_operand(optarg, "--db"); break;
		case 't': set_arg(a, "template", optarg); break;
		case 'b': set_arg(a, "byte_order", optarg); break;
		case 'B': set_arg(a, "bff", optarg); break;
		case 'n': set_arg(a, "name", optarg); break;
		case 'p': set_arg(a, "promote", "1"); break;
		case 'r': set_arg(a, "reduce", optarg); break;
		case 'l': set_arg(a, "layout", optarg); break;
		case 'u': set_arg(a, "bundle", optarg); break;
		case 'a': set_arg(a, "as", optarg); break;
		case 's': a->summary = 1; break;
		case 'o': a->output = cmd_operand(optarg, "-o"); break;
		case 'Q': a->quiet = 1; break;
		case 'h': exit(cmd_help(&cmd_native_entry));
		default: cmd_usage_error("%s", "unknown option");
		}
	}
	if (optind + 1 != argc)
		cmd_usage_error("%s", "native needs one entry id (animdexd native ID -o FILE)");
	if (!a->output && !a->summary)
		cmd_usage_error("%s", "native needs -o FILE (or --summary for the report alone)");
	return cmd_parse_unsigned(argv[optind], "ID", 1, 2147483647u);
}

static int cmd_native(int argc, char **argv)
{
	struct native_args a = {.db = CMD_DEFAULT_DB};
	struct native_request rq;
	struct native_file file = {0};
	struct file_reader reader = {&file, 0};
	struct catalog *cat = NULL;
	struct error err;
	char *name = NULL;
	const char *own;
	int rc = 1;

	rq.id = parse_options(argc, argv, &a);
	if (a.output && (own = catalog_files_match(a.db, a.output)) != NULL) {
		fprintf(stderr, "animdexd: -o %s is %s (--db %s): refusing to write over it\n",
		        a.output, own, a.db);
		return 2;
	}
	error_init(&err);
	if (native_request_parse(&rq, native_arg, &a, &err) < 0) {
		fprintf(stderr, "animdexd: --%s\n", err.message);
		return 2;
	}
	cat = catalog_open_read_only(a.db, &err);
	if (!cat || native_answer_make(cat, &rq, &file, &name, &err) < 0) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		goto done;
	}
	if (a.summary) {
		char *text = json_dumps(file.report, JSON_INDENT(2));
		if (text)
			puts(text);
		free(text);
	}
	if (a.output) {
		if (cmd_write_whole_file(a.output, next_file_block, &reader) < 0) {
			fprintf(stderr, "animdexd: %s: %s (nothing written)\n", a.output,
			        strerror(errno));
			goto done;
		}
		if (!a.quiet)
			fprintf(
			    stderr, "%s: %zu bytes (%s; entry %lld on the layout of entry %lld)\n",
			    a.output, file.length, name,
			    (long long)json_integer_value(json_object_get(file.report, "entry")),
			    (long long)json_integer_value(
			        json_object_get(file.report, "template")));
	}
	rc = 0;
done:
	native_file_cleanup(&file);
	free(name);
	catalog_close(cat);
	return rc;
}

const struct cmd_entry cmd_native_entry = {
    "native",
    "animdexd native [--db PATH] [--template ID] [--byte-order little|big] [--bff 0|16]\n"
    "                       [--name NAME] [--promote] [--reduce TOLERANCE]\n"
    "                       [--layout 32|64|fuel|rat|walle] [--bundle ID|0]\n"
    "                       [--as Animation_Z]\n"
    "                       [--summary] [--quiet] ID\n"
    "                       -o|--output FILE\n",
    "Writes entry ID as the game's own bytes (a Zouna Animation_Z, bare keyframer or\n"
    "Skel_Z rest pose,\n"
    "a Burnout Vehicle Animation or Body Part Remap Data resource, a Radient clip\n"
    "document),\n"
    "laid out like --template (an entry of the game's own bytes; the entry itself\n"
    "by default): slices whose values did not change keep their bytes, changed ones\n"
    "are written in the template's classes to the nearest step. --byte-order and\n"
    "--bff: the byte order and BFF0 header (the template's by default); --name: the\n"
    "name whose CRC goes into the object header; --promote: a value a compressed\n"
    "class cannot hold takes the uncompressed class (bare keyframers); --layout:\n"
    "a Burnout Vehicle Animation's layout, 32- or 64-bit, or an Animation_Z's link\n"
    "header in a Zouna game's form (fuel: the name alone; rat, walle: the name and\n"
    "its link names); --bundle: the BND2\n"
    "bundle of entry ID (an entry read out of one; the template's by default when\n"
    "it came out of one, 0 for the resource alone) rebuilt with the file in place\n"
    "of that entry's resource, every other block byte for byte; --as Animation_Z:\n"
    "no template, an Animation_Z made new (its defaults in the report); --reduce:\n"
    "each changed track written with the fewest keys whose curve stays within\n"
    "TOLERANCE of its keys (the track's units; radians for rotations), fitted\n"
    "with tangents in a Hermite class; --summary: print the report (per track:\n"
    "class, keys, kept or written, the largest difference from the entry's\n"
    "values, and under --reduce the keys before and after).\n",
    cmd_native,
};
