/* bonemap.c: a proposed map between two rigs' bones (bonemap.h): names folded by the usual
 * conventions, paired rule by rule where a key is one bone on each side, then the bones left
 * under paired parents. */
#include "core/bonemap.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "bonemap_shape.h"

/* Appends word [w, w + n) lower-cased, unless it is a side word or a prefix word. */
static void fold_word(const char *w, size_t n, int first, char *side, char *out, size_t size,
                      size_t *len)
{
	char lower[64];

	if (n >= sizeof(lower))
		n = sizeof(lower) - 1;
	for (size_t i = 0; i < n; i++)
		lower[i] = (char)tolower((unsigned char)w[i]);
	lower[n] = '\0';
	if (first && (strcmp(lower, "bip01") == 0 || strcmp(lower, "bip001") == 0 ||
	              strcmp(lower, "mixamorig") == 0))
		return;
	if (strcmp(lower, "l") == 0 || strcmp(lower, "left") == 0) {
		*side = 'l';
		return;
	}
	if (strcmp(lower, "r") == 0 || strcmp(lower, "right") == 0) {
		*side = 'r';
		return;
	}
	for (size_t i = 0; i < n && *len + 1 < size; i++)
		out[(*len)++] = lower[i];
	out[*len] = '\0';
}

/* Whether a word ends before s[i]: at a case change (a lower case letter or digit then an
 * upper case one, or the last upper case letter of a run before a lower case one). */
static int case_break(const char *s, size_t start, size_t i)
{
	unsigned char a = (unsigned char)s[i - 1], b = (unsigned char)s[i], c;

	if (i == start || !isupper(b))
		return 0;
	if (islower(a) || isdigit(a))
		return 1;
	c = (unsigned char)s[i + 1];
	return isupper(a) && islower(c);
}

void bonemap_fold(const char *name, char *out, size_t size)
{
	const char *s = name ? name : "";
	size_t len = 0, i = 0, start, end;
	char side = 0;
	int first = 1;

	if (size == 0)
		return;
	out[0] = '\0';
	while (s[i]) {
		while (s[i] && !isalnum((unsigned char)s[i]))
			i++;
		start = i;
		while (s[i] && isalnum((unsigned char)s[i]))
			i++;
		end = i;
		if (s[end] == ':' || s[end] == '|')
			continue; /* a namespace ("mixamorig:") or an armature's name ("Armature|")
			           */
		for (size_t k = start; k < end; k++)
			if (k > start && case_break(s, start, k)) {
				fold_word(s + start, k - start, first, &side, out, size, &len);
				first = 0;
				start = k;
			}
		if (end > start) {
			fold_word(s + start, end - start, first, &side, out, size, &len);
			first = 0;
		}
	}
	if (side && len + 2 < size) {
		out[len++] = '.';
		out[len++] = side;
		out[len] = '\0';
	}
}

struct keyed {
	const char *key;
	uint32_t node;
};

static int keyed_order(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* The nodes whose key is set, sorted by key. */
static struct keyed *sorted_keys(char *const *keys, size_t count, size_t *n)
{
	struct keyed *k = malloc((count + 1) * sizeof(*k));

	*n = 0;
	if (!k)
		return NULL;
	for (size_t i = 0; i < count; i++)
		if (keys[i] && keys[i][0])
			k[(*n)++] = (struct keyed){keys[i], (uint32_t)i};
	qsort(k, *n, sizeof(*k), keyed_order);
	return k;
}

/* The one node of the key in sorted[n], or -1 when none or several have it. */
static int32_t only_one(const struct keyed *sorted, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(sorted[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(sorted[lo].key, key) != 0)
		return -1;
	if (lo + 1 < n && strcmp(sorted[lo + 1].key, key) == 0)
		return -1;
	return (int32_t)sorted[lo].node;
}

struct proposal {
	struct bonemap *map;
	const char **how;   /* per target */
	double *confidence; /* per target */
	size_t from_count, to_count;
};

static void pair(struct proposal *p, uint32_t from, uint32_t to, const char *how, double conf)
{
	p->map->of_target[to] = (int32_t)from;
	p->map->of_source[from] = (int32_t)to;
	p->how[to] = how;
	p->confidence[to] = conf;
}

/* Pairs the unpaired bones whose key is one bone on each side. -1 when out of memory. */
static int pair_by_key(struct proposal *p, char *const *from_keys, char *const *to_keys,
                       const char *how, double conf)
{
	size_t nf, nt;
	struct keyed *f = sorted_keys(from_keys, p->from_count, &nf),
	             *t = sorted_keys(to_keys, p->to_count, &nt);

	if (!f || !t) {
		free(f);
		free(t);
		return -1;
	}
	for (size_t i = 0; i < p->to_count; i++) {
		int32_t s;
		if (p->map->of_target[i] >= 0 || !to_keys[i] || !to_keys[i][0] ||
		    only_one(t, nt, to_keys[i]) < 0)
			continue;
		s = only_one(f, nf, to_keys[i]);
		if (s >= 0 && p->map->of_source[s] < 0)
			pair(p, (uint32_t)s, (uint32_t)i, how, conf);
	}
	free(f);
	free(t);
	return 0;
}

static void free_keys(char **keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

enum key_kind { KEY_HANDLE, KEY_HASHED, KEY_NAME, KEY_FOLDED, KEY_NUMBER, KEY_SYNONYM };

/* The word one convention uses for a bone another names otherwise (a folded name without its
 * side): a thigh is an upper leg, a knee joint turns the lower leg, and so on. */
static const char *synonym(const char *base, int sided)
{
	static const char *const words[][2] = {
	    {"thigh", "upleg"},  {"upperleg", "upleg"},    {"calf", "leg"},
	    {"shin", "leg"},     {"lowerleg", "leg"},      {"knee", "leg"},
	    {"ankle", "foot"},   {"toes", "toebase"},      {"toe", "toebase"},
	    {"upperarm", "arm"}, {"lowerarm", "forearm"},  {"elbow", "forearm"},
	    {"wrist", "hand"},   {"clavicle", "shoulder"}, {"collar", "shoulder"},
	    {"pelvis", "hips"},
	};

	if (strcmp(base, "hip") == 0)
		return sided ? "upleg" : "hips"; /* LeftHip is a leg's joint, Hip the pelvis */
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(base, words[i][0]) == 0)
			return words[i][1];
	return base;
}

/* A folded name's base (before its side) made the key of a kind, the side put back: without
 * its trailing number ("spine1.l" -> "spine.l", "arm.l" as it is), or another convention's word
 * for it ("thigh.l" -> "upleg.l"). -1 when nothing is left (a name that is only a number). */
static int base_key(char *text, size_t size, enum key_kind kind)
{
	char *dot = strrchr(text, '.'), suffix[3] = "";
	const char *word;
	size_t d;

	if (dot) {
		snprintf(suffix, sizeof(suffix), "%s", dot);
		*dot = '\0';
	}
	if (kind == KEY_NUMBER) {
		for (d = strlen(text); d > 0 && isdigit((unsigned char)text[d - 1]); d--)
			;
		if (d == 0)
			return -1;
		text[d] = '\0';
	} else if ((word = synonym(text, dot != NULL)) != text) {
		snprintf(text, size, "%s", word);
	}
	strncat(text, suffix, size - strlen(text) - 1);
	return 0;
}

/* Each node's key of a kind (NULL where it has none). */
static char **rig_keys(const struct rig *rig, enum key_kind kind)
{
	char **keys = calloc(rig->count + 1, sizeof(char *));
	char text[BONEMAP_FOLDED_SIZE];

	if (!keys)
		return NULL;
	for (size_t i = 0; i < rig->count; i++) {
		const struct rig_node *n = &rig->nodes[i];
		const char *name = n->name ? n->name : n->handle_name; /* POST /api/names' */
		if (kind == KEY_HANDLE || (kind == KEY_HASHED && n->has_handle)) {
			if (!n->has_handle)
				continue;
			snprintf(text, sizeof(text), "%08x", (unsigned)n->handle);
		} else if (!name) {
			continue;
		} else if (kind == KEY_HASHED) { /* the hash a Zouna rig would give the name */
			snprintf(text, sizeof(text), "%08x",
			         (unsigned)hash_asobo32(name, strlen(name)));
		} else if (kind == KEY_NAME) {
			snprintf(text, sizeof(text), "%s", name);
		} else {
			bonemap_fold(name, text, sizeof(text));
			if ((kind == KEY_NUMBER || kind == KEY_SYNONYM) &&
			    base_key(text, sizeof(text), kind) < 0)
				continue;
		}
		if (!(keys[i] = strdup(text))) {
			free_keys(keys, rig->count);
			return NULL;
		}
	}
	return keys;
}

/* Children lists: first[n] and next[n], -1 ending them; roots listed under index count. */
static int children(const struct rig *rig, int32_t **first, int32_t **next)
{
	*first = malloc((rig->count + 1) * sizeof(int32_t));
	*next = malloc((rig->count + 1) * sizeof(int32_t));
	if (!*first || !*next)
		return -1;
	for (size_t i = 0; i <= rig->count; i++)
		(*first)[i] = (*next)[i] = -1;
	for (size_t k = rig->count; k-- > 0;) {
		int32_t parent = rig->nodes[k].parent;
		size_t slot = parent < 0 ? rig->count : (size_t)parent;
		(*next)[k] = (*first)[slot];
		(*first)[slot] = (int32_t)k;
	}
	return 0;
}

/* The only unpaired child of `slot` (a node, or count for the roots), -1 when none or several;
 * of_side: the side's pairing. */
static int32_t only_unpaired(const int32_t *first, const int32_t *next, size_t slot,
                             const int32_t *of_side)
{
	int32_t found = -1;

	for (int32_t c = first[slot]; c >= 0; c = next[c])
		if (of_side[c] < 0) {
			if (found >= 0)
				return -1;
			found = c;
		}
	return found;
}

/* Bones left under paired parents (or the roots left), one a side: paired down the tree
 * until nothing more pairs. -1 when out of memory. */
static int pair_by_structure(struct proposal *p, const struct rig *from, const struct rig *to)
{
	int32_t *ff = NULL, *fn = NULL, *tf = NULL, *tn = NULL;
	int rc = -1, paired = 1;

	if (children(from, &ff, &fn) < 0 || children(to, &tf, &tn) < 0)
		goto done;
	while (paired) {
		paired = 0;
		for (size_t slot = 0; slot <= to->count; slot++) {
			size_t source_slot;
			int32_t t, s;
			if (slot < to->count && p->map->of_target[slot] < 0)
				continue;
			source_slot =
			    slot < to->count ? (size_t)p->map->of_target[slot] : from->count;
			t = only_unpaired(tf, tn, slot, p->map->of_target);
			s = only_unpaired(ff, fn, source_slot, p->map->of_source);
			if (t >= 0 && s >= 0) {
				pair(p, (uint32_t)s, (uint32_t)t, "structure", 0.5);
				paired = 1;
			}
		}
	}
	rc = 0;
done:
	free(ff);
	free(fn);
	free(tf);
	free(tn);
	return rc;
}

static int has_handles(const struct rig *rig)
{
	for (size_t i = 0; i < rig->count; i++)
		if (rig->nodes[i].has_handle)
			return 1;
	return 0;
}

static void pair_if_free(struct proposal *p, int32_t s, int32_t t)
{
	if (s >= 0 && t >= 0 && p->map->of_source[s] < 0 && p->map->of_target[t] < 0)
		pair(p, (uint32_t)s, (uint32_t)t, "shape", 0.4);
}

/* The bones of chain k: each source bone onto the target bone nearest its place along the
 * chain, the ends onto the ends (a shorter chain leaves the longer one's bones between). */
static void pair_chain(struct proposal *p, const struct bonemap_chains *cf,
                       const struct bonemap_chains *ct, int k)
{
	size_t n = cf->length[k], m = ct->length[k];

	for (size_t i = 0; i < n && m > 0; i++) {
		size_t best = 0;
		for (size_t j = 1; j < m; j++)
			if (fabs(ct->along[k][j] - cf->along[k][i]) <
			    fabs(ct->along[k][best] - cf->along[k][i]))
				best = j;
		if (i == 0)
			best = 0;
		else if (i == n - 1)
			best = m - 1;
		pair_if_free(p, cf->bones[k][i], ct->bones[k][best]);
	}
}

/* The cosine between the rest directions in which two bones reach from their parents (the
 * averages of their subtrees, bonemap_shape_rest; nf, nt the rigs' counts). */
static double direction_cosine(const double *pf, size_t nf, uint32_t s, const double *pt, size_t nt,
                               uint32_t t, int32_t ps, int32_t pt_parent)
{
	double a[3], b[3], la = 0, lb = 0, d = 0;

	for (int c = 0; c < 3; c++) {
		a[c] = pf[(nf + s) * 3 + c] - pf[(size_t)ps * 3 + c];
		b[c] = pt[(nt + t) * 3 + c] - pt[(size_t)pt_parent * 3 + c];
		la += a[c] * a[c];
		lb += b[c] * b[c];
		d += a[c] * b[c];
	}
	return la > 0 && lb > 0 ? d / sqrt(la * lb) : -2;
}

/* Under each pair, children left unpaired in like numbers on both sides (a hand's fingers):
 * each target child onto the source child whose rest direction from the parent is nearest,
 * down the tree until nothing more pairs. */
static void pair_children_by_direction(struct proposal *p, const struct rig *from,
                                       const struct rig *to, const double *pf, const double *pt)
{
	int paired = 1;

	for (int round = 0; paired && round < 64; round++) {
		paired = 0;
		for (size_t t = 0; t < to->count; t++) {
			int32_t parent = to->nodes[t].parent, ps, best = -1;
			double best_cos = 0.5; /* within 60 degrees */
			if (p->map->of_target[t] >= 0 || parent < 0 ||
			    (ps = p->map->of_target[parent]) < 0)
				continue;
			for (size_t s = 0; s < from->count; s++) {
				double c;
				if (from->nodes[s].parent != ps || p->map->of_source[s] >= 0)
					continue;
				c = direction_cosine(pf, from->count, (uint32_t)s, pt, to->count,
				                     (uint32_t)t, ps, parent);
				if (c > best_cos) {
					best_cos = c;
					best = (int32_t)s;
				}
			}
			if (best >= 0) {
				pair(p, (uint32_t)best, (uint32_t)t, "shape", 0.4);
				paired = 1;
			}
		}
	}
}

/* Bones no name pairs, by the rigs' shapes (bonemap_shape.h): the hips, then each chain, then
 * the children under pairs by their directions. -1 when out of memory. */
static int pair_by_shape(struct proposal *p, const struct rig *from, const struct rig *to)
{
	struct bonemap_chains cf, ct;
	int rc = -1;

	memset(&ct, 0, sizeof(ct));
	if (bonemap_shape_chains(from, &cf) < 0)
		return -1;
	if (bonemap_shape_chains(to, &ct) == 0) {
		double *pf = bonemap_shape_rest(from), *pt = bonemap_shape_rest(to);
		if (cf.hips >= 0 && ct.hips >= 0) {
			pair_if_free(p, cf.hips, ct.hips);
			for (int k = 0; k < CHAIN_COUNT; k++)
				pair_chain(p, &cf, &ct, k);
		}
		if (pf && pt)
			pair_children_by_direction(p, from, to, pf, pt);
		rc = pf && pt ? 0 : -1;
		free(pf);
		free(pt);
	}
	bonemap_shape_cleanup(&cf);
	bonemap_shape_cleanup(&ct);
	return rc;
}

int bonemap_propose(const struct rig *from, const struct rig *to, struct bonemap *out)
{
	static const struct {
		enum key_kind kind;
		const char *how;
		double confidence;
	} rules[] = {{KEY_HANDLE, "handle", 1.0}, {KEY_HASHED, "hashed", 1.0},
	             {KEY_NAME, "name", 1.0},     {KEY_FOLDED, "folded", 0.9},
	             {KEY_NUMBER, "number", 0.7}, {KEY_SYNONYM, "synonym", 0.6}};
	struct proposal p = {out, NULL, NULL, from->count, to->count};
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->of_target = malloc((to->count + 1) * sizeof(int32_t));
	out->of_source = malloc((from->count + 1) * sizeof(int32_t));
	p.how = calloc(to->count + 1, sizeof(char *));
	p.confidence = calloc(to->count + 1, sizeof(double));
	if (!out->of_target || !out->of_source || !p.how || !p.confidence)
		goto done;
	for (size_t i = 0; i < to->count; i++)
		out->of_target[i] = -1;
	for (size_t i = 0; i < from->count; i++)
		out->of_source[i] = -1;
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		char **fk, **tk;
		int failed;
		/* names hashed against handles only between a rig of handles and one of names */
		if (rules[r].kind == KEY_HASHED && has_handles(from) == has_handles(to))
			continue;
		fk = rig_keys(from, rules[r].kind);
		tk = rig_keys(to, rules[r].kind);
		failed =
		    !fk || !tk || pair_by_key(&p, fk, tk, rules[r].how, rules[r].confidence) < 0;
		free_keys(fk, from->count);
		free_keys(tk, to->count);
		if (failed)
			goto done;
	}
	/* the structure, then the shapes for what it leaves, then the structure again under the
	 * bones the shapes paired (fingers under hands) */
	if (pair_by_structure(&p, from, to) < 0 || pair_by_shape(&p, from, to) < 0 ||
	    pair_by_structure(&p, from, to) < 0)
		goto done;
	out->pairs = malloc((to->count + 1) * sizeof(*out->pairs));
	if (!out->pairs)
		goto done;
	for (size_t i = 0; i < to->count; i++)
		if (out->of_target[i] >= 0)
			out->pairs[out->pair_count++] = (struct bonemap_pair){
			    (uint32_t)out->of_target[i], (uint32_t)i, p.how[i], p.confidence[i]};
	rc = 0;
done:
	free(p.how);
	free(p.confidence);
	if (rc < 0)
		bonemap_cleanup(out);
	return rc;
}

/* The node of a rig a stored map's name names, or -1. */
static int32_t named_node(const struct rig *rig, const char *name)
{
	char label[300];

	for (size_t i = 0; i < rig->count; i++) {
		if (rig->nodes[i].name && strcmp(rig->nodes[i].name, name) == 0)
			return (int32_t)i;
	}
	for (size_t i = 0; i < rig->count; i++) {
		rig_node_label(&rig->nodes[i], label, sizeof(label));
		if (strcmp(label, name) == 0)
			return (int32_t)i;
	}
	return -1;
}

int bonemap_from_pairs(const struct rig *from, const struct rig *to, const char *const *names,
                       size_t count, struct bonemap *out, unsigned char *found)
{
	memset(out, 0, sizeof(*out));
	out->of_target = malloc((to->count + 1) * sizeof(int32_t));
	out->of_source = malloc((from->count + 1) * sizeof(int32_t));
	out->pairs = malloc((count + 1) * sizeof(*out->pairs));
	if (!out->of_target || !out->of_source || !out->pairs) {
		bonemap_cleanup(out);
		return -1;
	}
	for (size_t i = 0; i < to->count; i++)
		out->of_target[i] = -1;
	for (size_t i = 0; i < from->count; i++)
		out->of_source[i] = -1;
	for (size_t k = 0; k < count; k++) {
		int32_t s = named_node(from, names[2 * k]), t = named_node(to, names[2 * k + 1]);
		found[k] = s >= 0 && t >= 0 && out->of_source[s] < 0 && out->of_target[t] < 0;
		if (!found[k])
			continue;
		out->of_source[s] = t;
		out->of_target[t] = s;
		out->pairs[out->pair_count++] =
		    (struct bonemap_pair){(uint32_t)s, (uint32_t)t, "map", 1.0};
	}
	return 0;
}

void bonemap_cleanup(struct bonemap *map)
{
	free(map->pairs);
	free(map->of_target);
	free(map->of_source);
	memset(map, 0, sizeof(*map));
}
