-- 013_rig_lookups.sql: the indexes that find which rigs hold a node (the ranking of
-- GET /api/resources/{id}/skeletons) hold the entry each node belongs to, so that a lookup
-- reads the index alone. Those of 007_rigs.sql held the node's row id only: every match read
-- its row from the table (the rest pose and inverse bind matrix beside it, a page a row at a
-- large catalogue), and a name common to 10,000 rigs cost 10,000 reads of pages. A name is
-- looked up as it is written (the exact name, as the lookup always matched), no longer through
-- lower(name) then the name: reading 70,000 rows of the index that way cost 3 times as much.
-- The unnamed nodes' index holds only the nodes without a handle, those it is asked for; it
-- carries their name and handle (always NULL) since SQLite reads the lookup's `name IS NULL
-- AND handle IS NULL` from the index's columns, not from its WHERE.
-- step: the rig nodes' indexes, each with the entry a node belongs to
DROP INDEX rig_nodes_by_handle;
DROP INDEX rig_nodes_by_name;
DROP INDEX rig_nodes_unnamed;
CREATE INDEX rig_nodes_by_handle ON rig_nodes (handle, resource_id) WHERE handle IS NOT NULL;
CREATE INDEX rig_nodes_by_name ON rig_nodes (name, resource_id) WHERE name IS NOT NULL;
CREATE INDEX rig_nodes_unnamed ON rig_nodes (source, resource_id, name, handle)
    WHERE name IS NULL AND handle IS NULL;
