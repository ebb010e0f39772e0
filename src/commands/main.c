/* main.c: animdexd's command table and dispatch: `animdexd NAME ...` runs the entry NAME
 * (cmd_NAME.c); without one, the daemon (cmd_serve.c). --help prints every entry's usage. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* In the order --help lists them. */
static const struct cmd_entry *const cmd_table[] = {
    &cmd_serve_entry,    &cmd_decode_entry, &cmd_hash_entry,     &cmd_token_entry,
    &cmd_copy_entry,     &cmd_import_entry, &cmd_redecode_entry, &cmd_export_entry,
    &cmd_retarget_entry, &cmd_native_entry,
};
#define CMD_COUNT (sizeof(cmd_table) / sizeof(cmd_table[0]))

static int help_all(void)
{
	fputs("Usage: ", stdout);
	for (size_t i = 0; i < CMD_COUNT; i++) {
		fputs(i ? "       " : "", stdout);
		fputs(cmd_table[i]->synopsis, stdout);
	}
	fputs("\nAn HTTP/JSON catalogue of game animation resources.\n", stdout);
	for (size_t i = 0; i < CMD_COUNT; i++) {
		printf("\n%s:\n", cmd_table[i]->name ? cmd_table[i]->name : "serve");
		fputs(cmd_table[i]->help, stdout);
	}
	fputs("\n  -h, --help             this text (after a command: that command's)\n"
	      "  -V, --version          the version\n",
	      stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
		printf("animdexd %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return help_all();
	for (size_t i = 0; argc > 1 && i < CMD_COUNT; i++)
		if (cmd_table[i]->name && strcmp(argv[1], cmd_table[i]->name) == 0)
			return cmd_table[i]->exec(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return cmd_serve_entry.exec(argc - 1, argv + 1);
	return cmd_serve_entry.exec(argc, argv);
}
