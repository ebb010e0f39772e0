/* keyframer.c: a bare KeyframerFloatLinearComp_Z of N keys on standard output (make bench's
 * export of a track glTF cannot animate, kept in extras: its keys in the asset's buffer). */
#include <stdio.h>
#include <stdlib.h>

#include "zouna_writer.h"

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4000000;
	struct zkey *keys = calloc(n ? n : 1, sizeof(*keys));
	struct zbuf b;

	if (!keys)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		keys[i].time = (float)i * 0.01f;
		keys[i].v[0] = (float)((int)(i % 2000) - 1000) / 512.0f;
	}
	zbuf_init(&b, 0);
	if (zouna_write_keyframer(&b, "KeyframerFloatLinearComp_Z", 0, keys, n, ZW_DEFAULT) != 0 ||
	    fwrite(b.data, 1, b.len, stdout) != b.len)
		return 1;
	zbuf_free(&b);
	free(keys);
	return 0;
}
