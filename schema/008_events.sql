-- 008_events.sql: what happened to the catalogue, one row an event, in the order the changes
-- were committed, for GET /api/events (doc/reference.md, "Live catalogue"): an entry created
-- (an upload, an import, a copy into a daemon's catalogue does not count), deleted, or decoded
-- again by a newer decoder. An event keeps the class, family and handle its entry had, so that
-- a deleted entry's event can still be filtered. Only the newest events are kept (the writer
-- trims the table in the same transaction); ids are never reused (AUTOINCREMENT), so that a
-- client's Last-Event-ID always means the same event.
CREATE TABLE events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    at              INTEGER NOT NULL, -- milliseconds since 1970
    kind            TEXT NOT NULL,    -- 'created', 'deleted' or 'redecoded'
    resource_id     INTEGER NOT NULL, -- no foreign key: a deleted entry's events stay
    class           TEXT NOT NULL,
    family          TEXT NOT NULL,
    crc32           INTEGER NOT NULL,
    decoder_version INTEGER NOT NULL
);
