-- 010_tracks_keys_last.sql: tracks as a table with rowids, its (resource_id, n) key an index of
-- its own, and its two arrays of keys its last columns. A WITHOUT ROWID table keeps each row in
-- its key's b-tree, and SQLite compares a search key with a whole row when the row spills onto
-- overflow pages: finding the tracks of an entry with a track of 4 million keys read that
-- track's 32 MB into memory, for its name. Now a search compares small index entries only, and
-- a row's other columns are read without walking past its keys.
CREATE TABLE tracks_new (
    resource_id   INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
    n             INTEGER NOT NULL,    -- 0-based index in the entry's track list
    name          TEXT NOT NULL,
    target_schema TEXT NOT NULL,
    target_object TEXT NOT NULL,       -- unsigned 64-bit, as decimal text
    target_name   TEXT,
    property      TEXT NOT NULL,       -- unsigned 64-bit, as decimal text
    first_element INTEGER NOT NULL,
    value_type    TEXT NOT NULL,
    array_size    INTEGER NOT NULL,
    interpolation TEXT NOT NULL,
    semantic      TEXT NOT NULL,
    key_count     INTEGER NOT NULL,
    time_first    REAL NOT NULL,
    time_last     REAL NOT NULL,
    kind          TEXT NOT NULL DEFAULT 'curve',
    info          TEXT,
    handle        INTEGER,
    rules         INTEGER NOT NULL DEFAULT 0,
    times         BLOB NOT NULL,       -- key_count f32
    key_values    BLOB NOT NULL,       -- native packed values (cubic: in, value, out per key)
    UNIQUE (resource_id, n)
);
INSERT INTO tracks_new (resource_id, n, name, target_schema, target_object, target_name,
                        property, first_element, value_type, array_size, interpolation,
                        semantic, key_count, time_first, time_last, kind, info, handle, rules,
                        times, key_values)
    SELECT resource_id, n, name, target_schema, target_object, target_name, property,
           first_element, value_type, array_size, interpolation, semantic, key_count,
           time_first, time_last, kind, info, handle, rules, times, key_values
    FROM tracks ORDER BY resource_id, n;
DROP TABLE tracks;
ALTER TABLE tracks_new RENAME TO tracks;
CREATE INDEX tracks_by_handle ON tracks (handle) WHERE handle IS NOT NULL;
