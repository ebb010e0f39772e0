/* cmd_redecode.c: `animdexd redecode`: catalogued entries decoded again with today's decoders
 * (redecode.c). */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "formats/format.h"
#include "redecode.h"

static int cmd_redecode(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"family", required_argument, NULL, 'f'},
	                                        {"class", required_argument, NULL, 'c'},
	                                        {"id", required_argument, NULL, 'i'},
	                                        {"quiet", no_argument, NULL, 'q'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	struct redecode_options opt = {CMD_DEFAULT_DB, NULL, NULL, 0, 0};
	int c;

	while ((c = getopt_long(argc, argv, "hq", options, NULL)) != -1) {
		switch (c) {
		case 'd': opt.db_path = cmd_operand(optarg, "--db"); break;
		case 'f': opt.family = optarg; break;
		case 'c': opt.class_name = optarg; break;
		case 'i': opt.id = cmd_parse_unsigned(optarg, "--id", 1, 2147483647u); break;
		case 'q': opt.quiet = 1; break;
		case 'h': return cmd_help(&cmd_redecode_entry);
		default: cmd_usage_error("%s", "unknown option");
		}
	}
	if (optind < argc)
		cmd_usage_error("unexpected argument '%s'", argv[optind]);
	if (opt.family && !format_by_family(opt.family))
		cmd_usage_error("--family: '%s' is not radient, zouna, gltf or burnout",
		                opt.family);
	return redecode_run(&opt, stdout);
}

const struct cmd_entry cmd_redecode_entry = {
    "redecode",
    "animdexd redecode [--db PATH] [--family NAME] [--class NAME] [--id N] [--quiet]\n",
    "Decodes the stored bytes of catalogued entries again with today's decoders and\n"
    "replaces each entry's structure, tracks and references in place (id, name, handle,\n"
    "note and upload details stay), one transaction per entry; prints what changed. An\n"
    "entry whose bytes today's decoder refuses is left as it was and listed. Exit\n"
    "status: 0, 1 when an entry was left, 2 on errors.\n",
    cmd_redecode,
};
