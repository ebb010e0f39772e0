/* cmd_hash.c: `animdexd hash NAME...`: the handles a name hashes to. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "base/hash.h"

static int cmd_hash(int argc, char **argv)
{
	if (argc < 2) {
		cmd_usage(&cmd_hash_entry, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(&cmd_hash_entry);
	for (int i = 1; i < argc; i++) {
		size_t len = strlen(argv[i]);
		uint32_t a = hash_asobo32(argv[i], len), c = hash_crc32_lower(argv[i], len);
		printf("%s\tasobo32 0x%08X %u\tcrc32 0x%08X %u\n", argv[i], a, a, c, c);
	}
	return 0;
}

const struct cmd_entry cmd_hash_entry = {
    "hash",
    "animdexd hash NAME...\n",
    "Prints, for each name: Asobo32 (Zouna names and classes) and the CRC-32 of\n"
    "the lower-cased name (Burnout resource IDs), in hex and unsigned decimal.\n",
    cmd_hash,
};
