-- 003_events.sql: the catalogue's events, as SQLite's schema/008_events.sql says. Several
-- daemons and imports write here at once: a writer takes the events' advisory lock before its
-- first event and holds it to its commit (catalog_events.c), so that ids are handed out in the
-- order the transactions commit and a reader that has seen id N has seen every event before it.
CREATE TABLE events (
    id              bigserial PRIMARY KEY,
    at              bigint NOT NULL,
    kind            text NOT NULL,
    resource_id     bigint NOT NULL,
    class           text NOT NULL,
    family          text NOT NULL,
    crc32           bigint NOT NULL,
    decoder_version integer NOT NULL
);
