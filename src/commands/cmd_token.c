/* cmd_token.c: `animdexd token add|list|revoke`: the catalogue's write tokens. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cmd.h"
#include "base/hash.h"
#include "render/render.h"

/* animdexd token add NAME | list | revoke NAME [--db PATH] */
static int cmd_token(int argc, char **argv)
{
	static const struct option options[] = {{"db", required_argument, NULL, 'd'},
	                                        {"help", no_argument, NULL, 'h'},
	                                        {NULL, 0, NULL, 0}};
	const char *db = CMD_DEFAULT_DB, *verb, *name = NULL;
	struct catalog *cat;
	struct error err;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'd')
			db = cmd_operand(optarg, "--db");
		else if (opt == 'h')
			return cmd_help(&cmd_token_entry);
		else
			cmd_usage_error("%s", "unknown option");
	}
	if (optind >= argc)
		cmd_usage_error("%s", "token needs add, list or revoke");
	verb = argv[optind++];
	if (strcmp(verb, "list") != 0) {
		if (optind != argc - 1)
			cmd_usage_error("token %s needs a NAME", verb);
		name = cmd_operand(argv[optind], "token NAME");
		if (strlen(name) > 64 || !*name ||
		    strspn(name,
		           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-") !=
		        strlen(name))
			cmd_usage_error("a token NAME is 1 to 64 letters, digits, '.', '_', '@' or "
			                "'-', not '%s'",
			                name);
	}
	error_init(&err);
	cat = catalog_open(db, &err);
	if (!cat) {
		fprintf(stderr, "animdexd: %s\n", err.message);
		return 1;
	}
	if (strcmp(verb, "add") == 0) {
		unsigned char random[32];
		char token[4 + 64 + 1], hash[SHA256_HEX_SIZE];
		FILE *f = fopen("/dev/urandom", "rb");
		if (!f || fread(random, 1, sizeof(random), f) != sizeof(random)) {
			fprintf(stderr, "animdexd: cannot read /dev/urandom\n");
			if (f)
				fclose(f);
			catalog_close(cat);
			return 1;
		}
		fclose(f);
		memcpy(token, "adx_", 4);
		for (size_t i = 0; i < sizeof(random); i++)
			snprintf(token + 4 + 2 * i, 3, "%02x", random[i]);
		sha256_hex(token, strlen(token), hash);
		if (catalog_token_add(cat, name, hash, &err) < 0) {
			fprintf(stderr, "animdexd: %s\n", err.message);
			rc = 1;
		} else {
			printf("%s\n", token);
			fprintf(stderr,
			        "animdexd: token '%s' made; it is shown only this once. Send it as "
			        "'Authorization: Bearer TOKEN'.\n",
			        name);
		}
	} else if (strcmp(verb, "revoke") == 0) {
		if (catalog_token_revoke(cat, name, &err) < 0) {
			fprintf(stderr, "animdexd: %s\n", err.message);
			rc = 1;
		} else {
			fprintf(stderr, "animdexd: token '%s' revoked\n", name);
		}
	} else if (strcmp(verb, "list") == 0) {
		struct catalog_token_row *rows;
		size_t count;
		if (catalog_token_list(cat, &rows, &count, &err) < 0) {
			fprintf(stderr, "animdexd: %s\n", err.message);
			rc = 1;
		}
		for (size_t i = 0; rc == 0 && i < count; i++) {
			char created[32], revoked[32];
			render_time_ms(rows[i].created_at, created);
			render_time_ms(rows[i].revoked_at, revoked);
			printf("%s\tcreated %s\t%s%s\n", rows[i].name ? rows[i].name : "", created,
			       rows[i].revoked ? "revoked " : "valid",
			       rows[i].revoked ? revoked : "");
		}
		catalog_token_rows_free(rows, count);
	} else {
		cmd_usage_error("token has no verb '%s' (add, list, revoke)", verb);
	}
	catalog_close(cat);
	return rc;
}

const struct cmd_entry cmd_token_entry = {
    "token",
    "animdexd token add|list|revoke [NAME] [--db PATH]\n",
    "add prints a new write token once (only its SHA-256 is stored); list shows every\n"
    "token with when it was made and revoked; revoke NAME ends one.\n",
    cmd_token,
};
