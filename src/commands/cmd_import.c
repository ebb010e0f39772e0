/* cmd_import.c: `animdexd import PATH...`: files and folders straight into the catalogue
 * (import.c), without the server. */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "import.h"

static int cmd_import(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"class", required_argument, NULL, 'c'},
	                                        {"family", required_argument, NULL, 'f'},
	                                        {"max-upload", required_argument, NULL, 'm'},
	                                        {"max-entries", required_argument, NULL, 'e'},
	                                        {"quiet", no_argument, NULL, 'q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	struct import_options opt = {CMD_DEFAULT_DB,          NULL, NULL, CMD_DEFAULT_MAX_UPLOAD,
	                             CMD_DEFAULT_MAX_ENTRIES, 0};
	int c;

	while ((c = getopt_long(argc, argv, "hq", options, NULL)) != -1) {
		switch (c) {
		case 'd': opt.db_path = cmd_operand(optarg, "--db"); break;
		case 'c': opt.class_name = optarg; break;
		case 'f': opt.family = optarg; break;
		case 'm': opt.max_inflate = cmd_parse_size(optarg, "--max-upload"); break;
		case 'e':
			opt.max_entries = cmd_parse_unsigned(optarg, "--max-entries", 1, 1000000);
			break;
		case 'q': opt.quiet = 1; break;
		case 'h': return cmd_help(&cmd_import_entry);
		default: cmd_usage_error("%s", "unknown option");
		}
	}
	if (optind >= argc)
		cmd_usage_error("%s", "import needs at least one PATH");
	return import_paths(&opt, argv + optind, argc - optind);
}

const struct cmd_entry cmd_import_entry = {
    "import",
    "animdexd import [--db PATH] [--class NAME] [--family NAME] [--quiet] PATH...\n"
    "                       [--max-upload SIZE] [--max-entries N]\n",
    "Imports files and folders (recursively, each folder once) into the catalogue in\n"
    "batched transactions. --max-upload bounds what a compressed container may inflate\n"
    "to (64M), --max-entries the entries one file may give (1000).\n",
    cmd_import,
};
