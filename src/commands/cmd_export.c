/* cmd_export.c: `animdexd export -o FILE`: catalogued entries as one glTF asset (export.c),
 * written whole or not at all; and `animdexd retarget --onto ID -o FILE`, the same with every
 * entry put on one skeleton through a bone map (retarget_answer.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cmd.h"
#include "answers/export.h"
#include "answers/retarget_answer.h"
#include "base/hash.h"

static void show_export_progress(size_t done, size_t count)
{
	fprintf(stderr, "\r%zu of %zu entries exported ", done, count);
}

/* The asset's blocks, for cmd_write_whole_file. */
struct asset_reader {
	struct export_asset *asset;
	struct catalog *cat;
	struct error err;
};

static long next_asset_block(void *arg, char *out, size_t room)
{
	struct asset_reader *r = arg;

	return export_asset_read(r->asset, r->cat, out, room, &r->err);
}

/* What the command line asks for. */
struct export_args {
	const char *db, *output, *format;
	struct export_options opt;
	struct catalog_query q;
	int64_t *chosen; /* --id, in order */
	size_t nchosen;
	int64_t skeleton; /* --skeleton: every entry on this entry's rig (0: none) */
	int quiet;
	const struct cmd_entry *command; /* export or retarget */
	struct retarget_request rq;      /* retarget: --onto, --map, --from, --mode, --root... */
};

/* Which of `names` a retarget option names; exits saying the rule otherwise. */
static int word_of(const char *text, const char *option, const char *const *names, int count,
                   const char *rule)
{
	for (int i = 0; i < count; i++)
		if (strcmp(text, names[i]) == 0)
			return i;
	cmd_usage_error("%s: '%s' is not %s", option, text, rule);
}

/* A retarget's own options (the letters parse_options gives them). */
static void retarget_option(int c, struct export_args *a)
{
	static const char *const modes[] = {"rest", "world"};
	static const char *const roots[] = {"scale", "keep", "in_place"};

	switch (c) {
	case 'O': a->rq.onto = cmd_parse_unsigned(optarg, "--onto", 1, 2147483647u); break;
	case 'M': a->rq.map = cmd_parse_unsigned(optarg, "--map", 1, 2147483647u); break;
	case 'R': a->rq.from = cmd_parse_unsigned(optarg, "--from", 1, 2147483647u); break;
	case 'e':
		a->rq.opt.mode =
		    (enum retarget_mode)word_of(optarg, "--mode", modes, 2, "rest or world");
		break;
	case 'r':
		a->rq.opt.root = (enum retarget_root)word_of(optarg, "--root", roots, 3,
		                                             "scale, keep or in_place");
		break;
	case 'g': a->rq.opt.ground = 1; break;
	default: cmd_usage_error("%s", "unknown option");
	}
}

/* The command line into a (defaults set by the caller); exits on --help and on a refusal. */
static void parse_options(int argc, char **argv, struct export_args *a)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"id", required_argument, NULL, 'i'},
	                                        {"class", required_argument, NULL, 'c'},
	                                        {"family", required_argument, NULL, 'f'},
	                                        {"name", required_argument, NULL, 'n'},
	                                        {"crc32", required_argument, NULL, 'x'},
	                                        {"q", required_argument, NULL, 'q'},
	                                        {"format", required_argument, NULL, 'F'},
	                                        {"bake", required_argument, NULL, 'b'},
	                                        {"output", required_argument, NULL, 'o'},
	                                        {"quiet", no_argument, NULL, 'Q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {"max-entries", required_argument, NULL, 'm'},
	                                        {"skeleton", required_argument, NULL, 's'},
	                                        {"onto", required_argument, NULL, 'O'},
	                                        {"map", required_argument, NULL, 'M'},
	                                        {"from", required_argument, NULL, 'R'},
	                                        {"mode", required_argument, NULL, 'e'},
	                                        {"root", required_argument, NULL, 'r'},
	                                        {"ground", no_argument, NULL, 'g'},
	                                        {NULL, 0, NULL, 0}};
	const int retarget = a->command == &cmd_retarget_entry;
	int c;

	while ((c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
		switch (c) {
		case 'd': a->db = cmd_operand(optarg, "--db"); break;
		case 'i': {
			int64_t *grown = realloc(a->chosen, (a->nchosen + 1) * sizeof(*a->chosen));
			if (!grown) {
				fprintf(stderr, "animdexd: out of memory\n");
				exit(1);
			}
			a->chosen = grown;
			a->chosen[a->nchosen++] =
			    cmd_parse_unsigned(optarg, "--id", 1, 2147483647u);
			break;
		}
		case 'c': a->q.class_name = optarg; break;
		case 'f': a->q.family = optarg; break;
		case 'n': a->q.name = optarg; break;
		case 'x':
			if (hash_parse_handle(optarg, &a->q.crc32) < 0)
				cmd_usage_error(
				    "--crc32: '%s' is not a handle (hex 0x1A2B3C4D or decimal)",
				    optarg);
			a->q.has_crc32 = 1;
			break;
		case 'q': a->q.q = optarg; break;
		case 'F': a->format = optarg; break;
		case 'b':
			if (export_parse_bake_rate(optarg, &a->opt.bake_rate) < 0)
				cmd_usage_error(
				    "--bake: '%s' is not a number of samples a second above 0 "
				    "and at most 1000, in decimal digits (30, 29.97)",
				    optarg);
			break;
		case 'o': a->output = cmd_operand(optarg, "-o"); break;
		case 'm':
			a->opt.max_entries =
			    cmd_parse_unsigned(optarg, "--max-entries", 1, 10000000);
			break;
		case 's':
			if (retarget)
				cmd_usage_error("%s", "retarget puts every entry on --onto ID, not "
				                      "--skeleton");
			a->skeleton = cmd_parse_unsigned(optarg, "--skeleton", 1, 2147483647u);
			break;
		case 'Q': a->quiet = 1; break;
		case 'h': exit(cmd_help(a->command));
		default:
			if (!retarget || c == '?')
				cmd_usage_error("%s", "unknown option");
			retarget_option(c, a);
		}
	}
	if (retarget && !a->rq.onto)
		cmd_usage_error("%s",
		                "retarget needs --onto ID, the entry whose rig takes the motion");
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
	if (!a->output)
		cmd_usage_error("%s needs -o FILE", a->command->name);
	if (strcmp(a->format, "glb") != 0 && strcmp(a->format, "gltf") != 0)
		cmd_usage_error("--format: '%s' is not glb or gltf", a->format);
	a->opt.glb = strcmp(a->format, "glb") == 0;
}

/* export and retarget: the command line of `command`, then the asset written whole. */
static int export_run(int argc, char **argv, const struct cmd_entry *command)
{
	struct export_args a = {.db = CMD_DEFAULT_DB,
	                        .format = "glb",
	                        .opt = {.glb = 1,
	                                .bake_rate = EXPORT_DEFAULT_BAKE_RATE,
	                                .max_entries = EXPORT_DEFAULT_MAX_ENTRIES},
	                        .command = command};
	const char *db, *output;
	int64_t *ids = NULL;
	size_t count = 0;
	struct exporter *ex = NULL;
	struct catalog *cat = NULL;
	struct error err;
	json_t *summary = NULL;
	struct asset_reader reader = {0};
	int rc = 1, quiet, tty = isatty(2);
	const char *own;

	parse_options(argc, argv, &a);
	db = a.db;
	output = a.output;
	quiet = a.quiet;
	if ((own = catalog_files_match(db, output)) != NULL) {
		fprintf(stderr, "animdexd: -o %s is %s (--db %s): refusing to write over it\n",
		        output, own, db);
		free(a.chosen);
		return 2;
	}
	error_init(&err);
	cat = catalog_open_read_only(db, &err); /* an export changes nothing */
	if (!cat)
		goto fail;
	if (a.nchosen) {
		ids = a.chosen, count = a.nchosen, a.chosen = NULL;
	} else if (catalog_select_matching(cat, &a.q, a.opt.max_entries, &ids, &count, &err) < 0) {
		goto fail;
	}
	ex = exporter_create(&a.opt);
	if (!ex) {
		error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
		goto fail;
	}
	if (a.rq.onto) { /* retarget: every entry made on --onto's rig */
		struct export_source source;
		a.skeleton = a.rq.onto;
		if (retarget_export_source(&a.rq, &source) < 0) {
			error_set(&err, ERROR_INTERNAL, NULL, -1, "out of memory");
			goto fail;
		}
		exporter_set_source(ex, &source);
	}
	if (a.skeleton && exporter_set_skeleton(ex, cat, a.skeleton, &err) < 0)
		goto fail;
	for (size_t i = 0; i < count / 2; i++) { /* oldest first */
		int64_t id = ids[i];
		ids[i] = ids[count - 1 - i];
		ids[count - 1 - i] = id;
	}
	if (exporter_add_all(ex, db, cat, ids, count, tty && !quiet ? show_export_progress : NULL,
	                     &err) < 0)
		goto fail;
	reader.asset = exporter_finish(ex, &summary, &err);
	if (!reader.asset)
		goto fail;
	exporter_free(ex); /* the asset holds what it needs */
	ex = NULL;
	reader.cat = cat;
	error_init(&reader.err);
	if (cmd_write_whole_file(output, next_asset_block, &reader) < 0) {
		fprintf(stderr, "animdexd: %s: %s (nothing written)\n", output,
		        error_is_set(&reader.err) ? reader.err.message : strerror(errno));
		goto done;
	}
	if (!quiet)
		fprintf(
		    stderr,
		    "%s%s: %zu entries, %lld animations, %lld channels, %zu tracks kept in extras, "
		    "%zu bytes\n",
		    tty ? "\r" : "", output, count,
		    (long long)json_integer_value(json_object_get(summary, "animations")),
		    (long long)json_integer_value(json_object_get(summary, "channels")),
		    json_array_size(json_object_get(summary, "in_extras")),
		    (size_t)export_asset_length(reader.asset));
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "%sanimdexd: %s\n", tty ? "\r" : "", err.message);
done:
	export_asset_free(reader.asset);
	json_decref(summary);
	exporter_free(ex);
	catalog_close(cat);
	free(ids);
	free(a.chosen);
	return rc;
}

static int cmd_export(int argc, char **argv)
{
	return export_run(argc, argv, &cmd_export_entry);
}

static int cmd_retarget(int argc, char **argv)
{
	return export_run(argc, argv, &cmd_retarget_entry);
}

const struct cmd_entry cmd_retarget_entry = {
    "retarget",
    "animdexd retarget [--db PATH] --onto ID [--map ID] [--from ID] [--mode rest|world]\n"
    "                       [--root scale|keep|in_place] [--ground] [--id N]... [--class NAME]\n"
    "                       [--family NAME] [--name NAME] [--crc32 HANDLE] [--q TEXT]\n"
    "                       [--format glb|gltf] [--bake N] [--max-entries N] [--quiet]\n"
    "                       -o|--output FILE\n",
    "Writes catalogued entries retargeted onto one rig as one glTF 2.0 asset, one\n"
    "animation an entry, on --onto's node tree (the entries chosen as export chooses\n"
    "them). --map: a BoneMap entry (else the proposed map); --from: the rig of clips\n"
    "without one; --mode rest (the rest poses matched, each key rewritten) or world\n"
    "(world rotations copied); --root scale (the hips' travel by the ratio of hip\n"
    "heights), keep or in_place; --ground: the lowest foot on the ground where the\n"
    "source's is. Each entry is retargeted as it is written: memory stays that of one.\n",
    cmd_retarget,
};

const struct cmd_entry cmd_export_entry = {
    "export",
    "animdexd export [--db PATH] [--id N]... [--class NAME] [--family NAME]\n"
    "                       [--name NAME] [--crc32 HANDLE] [--q TEXT] [--format glb|gltf]\n"
    "                       [--bake N] [--max-entries N] [--skeleton ID] [--quiet]\n"
    "                       -o|--output FILE\n",
    "Writes catalogued entries as one glTF 2.0 asset, one animation an entry: the\n"
    "entries given with --id, or those the filters select (every entry without\n"
    "either). --bake: samples a second for Euler rotations (30); --max-entries: the\n"
    "most entries the asset may hold (1000); --skeleton: put every entry on that\n"
    "entry's rig, one node tree for all (tracks it has no node for are kept in\n"
    "extras).\n",
    cmd_export,
};
