-- 007_rigs.sql: the rig an entry carries (doc/formats.md 1.7, 4.1): the nodes its tracks move,
-- or a skeleton's bones, one row each in the rig's order. The rest pose is kept as the f32 bits
-- the decoder made (ten little-endian floats: translation x y z, rotation x y z w, scale x y z),
-- so that a rig reads back bit for bit; the inverse bind matrix likewise (16 floats,
-- column-major). Handles and names are indexed: "which skeleton fits" looks nodes up by them.
CREATE TABLE rig_nodes (
    resource_id  INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
    i            INTEGER NOT NULL,   -- the node's index in the rig
    source       INTEGER NOT NULL,   -- its index in the source: glTF node, Skel_Z bone
    name         TEXT,
    handle       INTEGER,            -- unsigned 32-bit, or NULL
    parent       INTEGER NOT NULL,   -- the parent's index in the rig, or -1
    rest         BLOB NOT NULL,      -- 10 f32
    inverse_bind BLOB,               -- 16 f32, or NULL
    PRIMARY KEY (resource_id, i)
);
CREATE INDEX rig_nodes_by_handle ON rig_nodes (handle) WHERE handle IS NOT NULL;
CREATE INDEX rig_nodes_by_name ON rig_nodes (lower(name)) WHERE name IS NOT NULL;
CREATE INDEX rig_nodes_unnamed ON rig_nodes (source) WHERE name IS NULL;
