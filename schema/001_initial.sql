-- 001_initial.sql: the catalogue.
-- Applied once, in a transaction; PRAGMA user_version records the last file applied.

-- The uploaded bytes, kept once per distinct content so an entry can be downloaded and
-- decoded again after a decoder improves.
CREATE TABLE blobs (
    sha256      TEXT PRIMARY KEY,      -- lower-case hex of the bytes
    size        INTEGER NOT NULL,
    bytes       BLOB NOT NULL,
    filename    TEXT,                  -- as the first uploader named it
    uploaded_at INTEGER NOT NULL       -- Unix time in milliseconds
);

-- One catalogue entry: one decoded resource. A bundle or a multi-animation file gives several
-- entries over one blob, told apart by `part`.
CREATE TABLE resources (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    blob_sha256  TEXT NOT NULL REFERENCES blobs(sha256),
    part         INTEGER NOT NULL DEFAULT 0,
    family       TEXT NOT NULL,
    class        TEXT NOT NULL,
    name         TEXT,
    crc32        INTEGER NOT NULL,     -- the handle, unsigned 32-bit
    crc32_source TEXT NOT NULL,        -- where the handle came from
    filename     TEXT,
    note         TEXT,
    uploaded_by  TEXT,
    uploaded_at  INTEGER NOT NULL,     -- Unix time in milliseconds
    duration     REAL,
    track_count  INTEGER NOT NULL,
    structure    TEXT NOT NULL,        -- JSON: the decoded structure
    assumed      TEXT NOT NULL DEFAULT '[]',  -- JSON array of notes
    UNIQUE (blob_sha256, part)
);
CREATE INDEX resources_by_class ON resources (class, id);
CREATE INDEX resources_by_family ON resources (family, id);
CREATE INDEX resources_by_crc32 ON resources (crc32, id);
CREATE INDEX resources_by_name ON resources (name COLLATE NOCASE, id);
CREATE INDEX resources_by_uploaded_at ON resources (uploaded_at);

-- One row per track, with its keys as packed little-endian arrays so that sampling a track
-- reads exactly one row.
CREATE TABLE tracks (
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
    times         BLOB NOT NULL,       -- key_count f32
    key_values    BLOB NOT NULL,       -- native packed values (cubic: in, value, out per key)
    PRIMARY KEY (resource_id, n)
) WITHOUT ROWID;

-- Handles that an entry's data refers to (handle keys, message receivers, imports...).
CREATE TABLE refs (
    resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
    crc32       INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    track       INTEGER,
    key         INTEGER
);
CREATE INDEX refs_by_crc32 ON refs (crc32);
CREATE INDEX refs_by_resource ON refs (resource_id);

-- Names whose hashes are known, so that handles print with names.
CREATE TABLE names (
    name    TEXT PRIMARY KEY,
    asobo32 INTEGER NOT NULL,
    crc32   INTEGER NOT NULL
);
CREATE INDEX names_by_asobo32 ON names (asobo32);
CREATE INDEX names_by_crc32 ON names (crc32);
