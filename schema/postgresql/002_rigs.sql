-- 002_rigs.sql: the rig an entry carries, as SQLite's schema/007_rigs.sql says: one row per
-- node in the rig's order, the rest pose and inverse bind matrix as the f32 bits the decoder
-- made, handles and names indexed for "which skeleton fits".
CREATE TABLE rig_nodes (
    resource_id  bigint NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
    i            integer NOT NULL,
    source       bigint NOT NULL,
    name         text COLLATE "C",
    handle       bigint,
    parent       integer NOT NULL,
    rest         bytea NOT NULL,
    inverse_bind bytea,
    PRIMARY KEY (resource_id, i)
);
CREATE INDEX rig_nodes_by_handle ON rig_nodes (handle) WHERE handle IS NOT NULL;
CREATE INDEX rig_nodes_by_name ON rig_nodes (lower(name)) WHERE name IS NOT NULL;
CREATE INDEX rig_nodes_unnamed ON rig_nodes (source) WHERE name IS NULL;
