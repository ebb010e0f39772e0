/* entry_json.c: an entry's typed records as JSON (entry_json.h), for the answers that show
 * them. */
#include "answers/entry_json.h"

#include "render/render.h"

json_t *entry_json_text(const char *text)
{
	return text ? json_string(text) : json_null();
}

json_t *entry_json_target(const struct catalog_target *t)
{
	json_t *o = json_object();
	char handle[11];

	json_object_set_new_nocheck(o, "schema", entry_json_text(t->target.schema));
	json_object_set_new_nocheck(o, "object", render_u64(t->target.object));
	json_object_set_new_nocheck(o, "name", entry_json_text(t->target.name));
	if (t->target.has_handle) {
		render_handle(t->target.handle, handle);
		json_object_set_new_nocheck(o, "handle", json_string(handle));
		if (t->handle_name)
			json_object_set_new_nocheck(o, "handle_name",
			                            entry_json_text(t->handle_name));
	}
	return o;
}

json_t *entry_json_summary(const struct catalog_entry *e)
{
	char handle[11];

	render_handle(e->crc32, handle);
	return json_pack("{s:I, s:o, s:o, s:o, s:s}", "id", (json_int_t)e->id, "class",
	                 entry_json_text(e->class_name), "family", entry_json_text(e->family),
	                 "name", entry_json_text(e->name), "crc32", handle);
}
