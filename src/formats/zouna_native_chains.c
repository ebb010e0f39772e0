/* zouna_native_chains.c: a resource's channels by the crc their target names and their
 * property, so that matching tracks of a template with thousands of records is linear: each
 * bucket a chain through next[], in channel order. */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "zouna_native.h"

/* The crc a source track's target names: a Zouna entry's object is its handle; elsewhere
 * the target's name, as "0x1234ABCD" somewhere in it or hashed (Asobo32) whole. */
int zouna_native_chains_target_crc(const struct resource *src, const struct target *t,
                                   uint32_t *crc)
{
	if (strcmp(src->family, "zouna") == 0) {
		*crc = (uint32_t)t->object;
		return t->object <= UINT32_MAX ? 0 : -1;
	}
	return hash_named_handle(t->name, crc) < 0 ? -1 : 0;
}

static uint32_t chains_bucket(const struct channel_chains *cc, uint32_t crc, uint64_t property)
{
	uint64_t h = ((uint64_t)crc * 0x9E3779B97F4A7C15u) ^ (property * 0xC2B2AE3D27D4EB4Fu);
	return (uint32_t)(h >> 32) & cc->mask;
}

/* Chains every channel of r whose target names a crc under its (crc, property). */
int zouna_native_chains_build(struct channel_chains *cc, const struct resource *r)
{
	size_t n = r->clip.channel_count, buckets = 16;

	while (buckets < 2 * n)
		buckets *= 2;
	cc->mask = (uint32_t)(buckets - 1);
	cc->head = malloc(buckets * sizeof(*cc->head));
	cc->next = malloc((n + 1) * sizeof(*cc->next));
	if (!cc->head || !cc->next || n >= NO_CHANNEL)
		return -1;
	memset(cc->head, 0xFF, buckets * sizeof(*cc->head));
	for (size_t ch = n; ch-- > 0;) {
		const struct channel *c = &r->clip.channels[ch];
		uint32_t crc, b;
		cc->next[ch] = NO_CHANNEL;
		if (zouna_native_chains_target_crc(r, &r->clip.targets[c->target], &crc) < 0)
			continue;
		b = chains_bucket(cc, crc, c->property);
		cc->next[ch] = cc->head[b];
		cc->head[b] = (uint32_t)ch;
	}
	return 0;
}

void zouna_native_chains_free(struct channel_chains *cc)
{
	free(cc->head);
	free(cc->next);
}

uint32_t *zouna_native_chains_head(struct channel_chains *cc, uint32_t crc, uint64_t property)
{
	return &cc->head[chains_bucket(cc, crc, property)];
}
