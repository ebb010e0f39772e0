/* cmd.h: animdexd's subcommands, one entry each in main.c's table (as tmux lists its
 * cmd_entry's in cmd_table), and what their option parsing shares (cmd.c).
 *
 * An entry's synopsis and help are its usage, written once: `animdexd --help` prints every
 * entry's, `animdexd NAME --help` its own.
 */
#ifndef ANIMDEX_CMD_H
#define ANIMDEX_CMD_H

#include <stddef.h>
#include <stdio.h>

struct cmd_entry {
	const char *name;                   /* "export"; NULL for the default command (serve) */
	const char *synopsis;               /* "animdexd export [--db PATH] ...\n", lines */
	const char *help;                   /* what it does and its options, lines */
	int (*exec)(int argc, char **argv); /* argv[0] is the command's name */
};

extern const struct cmd_entry cmd_serve_entry, cmd_decode_entry, cmd_hash_entry, cmd_token_entry,
    cmd_copy_entry, cmd_import_entry, cmd_redecode_entry, cmd_export_entry, cmd_retarget_entry,
    cmd_native_entry;

#define CMD_DEFAULT_DB          "./animdex.db"
#define CMD_DEFAULT_MAX_UPLOAD  (64u * 1024 * 1024)
#define CMD_DEFAULT_MAX_SAMPLES 1000000u
#define CMD_DEFAULT_MAX_ENTRIES 1000u

/* Prints the entry's usage ("Usage: ", the synopsis, then the help) on out. */
void cmd_usage(const struct cmd_entry *entry, FILE *out);
/* cmd_usage on standard output (--help); returns 0. */
int cmd_help(const struct cmd_entry *entry);
/* Prints "animdexd: ", the message and a hint to --help on standard error, and exits with
 * status 2. */
void cmd_usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* A path or a name given on the command line (`what` says which: "--db", "token NAME"): a
 * word that starts with '-' is an option forgotten or misplaced, never a file to create;
 * exits with status 2. */
const char *cmd_operand(const char *text, const char *what);
/* A whole number from min to max, or exits with status 2 naming the option. */
unsigned cmd_parse_unsigned(const char *text, const char *option, unsigned min, unsigned max);
/* A size such as 512K or 64M, from 1 byte to 4G, or exits with status 2 naming the option. */
size_t cmd_parse_size(const char *text, const char *option);
/* Writes a file whole or not at all: into a new file beside it, synced, then renamed over
 * it, so that a failed or interrupted write leaves no half file (and no old one changed).
 * The bytes come from next(arg, ...) a block at a time (0 at their end, -1: failed, errno
 * set or 0). 0, or -1 with errno set. */
int cmd_write_whole_file(const char *path, long (*next)(void *arg, char *out, size_t room),
                         void *arg);

#endif
