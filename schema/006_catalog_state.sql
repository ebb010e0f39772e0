-- 006_catalog_state.sql: the catalogue's generation, bumped in the transaction of every delete
-- and redecode, so that every process holding tracks in its cache (a daemon beside an
-- `animdexd redecode`, or several daemons on one PostgreSQL) notices within a fraction of a
-- second and drops them.
CREATE TABLE catalog_state (
    generation INTEGER NOT NULL
);
INSERT INTO catalog_state (generation) VALUES (0);
