/* cmd_decode.c: `animdexd decode FILE`: what an upload of the file would store, printed as
 * JSON, without a catalogue. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "formats/format.h"
#include "import.h"
#include "render/render.h"

/* JSON on standard output, indented, floats as the API writes them. */
static void print_json(const json_t *json)
{
	size_t length;
	char *text = render_json(json, 2, &length);

	if (text)
		fwrite(text, 1, length, stdout);
	free(text);
}

static int cmd_decode(int argc, char **argv)
{
	static const struct option options[] = {
	    {"class", required_argument, NULL, 'c'},  {"family", required_argument, NULL, 'f'},
	    {"name", required_argument, NULL, 'n'},   {"crc32", required_argument, NULL, 'x'},
	    {"layout", required_argument, NULL, 'l'}, {"endian", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	struct upload up = {0};
	struct decode_result result;
	struct error err;
	uint8_t *data;
	json_t *out, *list;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'c': up.class_name = optarg; break;
		case 'f': up.family = optarg; break;
		case 'n': up.name = optarg; break;
		case 'x': up.crc32 = optarg; break;
		case 'l': up.layout = optarg; break;
		case 'e': up.endian = optarg; break;
		case 'h': return cmd_help(&cmd_decode_entry);
		default: cmd_usage_error("%s", "unknown option");
		}
	}
	if (optind != argc - 1)
		cmd_usage_error("%s", "decode takes exactly one FILE");
	up.filename = argv[optind];
	data = (uint8_t *)import_read_file(up.filename, &up.length);
	if (!data) {
		fprintf(stderr, "animdexd: %s: %s\n", up.filename, strerror(errno));
		return 1;
	}
	up.data = data;
	error_init(&err);
	decode_result_init(&result);
	if (format_decode(&up, &result, &err) < 0) {
		json_t *e = json_pack("{s:{s:s, s:s}}", "error", "code", error_code_name(err.code),
		                      "message", err.message);
		if (err.path[0])
			json_object_set_new(json_object_get(e, "error"), "path",
			                    json_string(err.path));
		if (err.offset >= 0)
			json_object_set_new(json_object_get(e, "error"), "offset",
			                    json_integer(err.offset));
		print_json(e);
		json_decref(e);
		rc = 1;
	} else {
		list = json_array();
		for (size_t i = 0; i < result.count; i++)
			json_array_append_new(list, render_decoded(result.resources[i]));
		out = json_pack("{s:o, s:O}", "resources", list, "skipped", result.skipped);
		print_json(out);
		json_decref(out);
	}
	decode_result_cleanup(&result);
	free(data);
	return rc;
}

const struct cmd_entry cmd_decode_entry = {
    "decode",
    "animdexd decode [OPTION]... FILE\n",
    "Prints what an upload of FILE would store (its entries, structure and tracks) as JSON;\n"
    "no database. The options are the upload's hints:\n"
    "  --class NAME  --family NAME  --name NAME  --crc32 HANDLE  --layout 32|64\n"
    "  --endian little|big\n",
    cmd_decode,
};
