-- 006_rig_lookups.sql: the indexes that find which rigs hold a node hold the entry each node
-- belongs to, as SQLite's schema/013_rig_lookups.sql says, so that the ranking of skeletons
-- is answered by index-only scans.
-- step: the rig nodes' indexes, each with the entry a node belongs to
DROP INDEX rig_nodes_by_handle;
DROP INDEX rig_nodes_by_name;
DROP INDEX rig_nodes_unnamed;
CREATE INDEX rig_nodes_by_handle ON rig_nodes (handle, resource_id) WHERE handle IS NOT NULL;
CREATE INDEX rig_nodes_by_name ON rig_nodes (name, resource_id) WHERE name IS NOT NULL;
CREATE INDEX rig_nodes_unnamed ON rig_nodes (source, resource_id)
    WHERE name IS NULL AND handle IS NULL;
