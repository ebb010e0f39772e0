-- 005_large_catalogues.sql: every question the list asks answered by an index, as SQLite's
-- schema/011_large_catalogues.sql says: the sort keys indexed with the id that breaks ties,
-- an entry's size copied from its upload, counts kept by triggers, and the search by a pg_trgm
-- index (PostgreSQL's contrib, in Debian's postgresql package).
-- step: each entry's size, copied from its upload
ALTER TABLE resources ADD COLUMN size bigint NOT NULL DEFAULT 0;
UPDATE resources r SET size = b.size FROM blobs b WHERE b.sha256 = r.blob_sha256;
-- step: an index for each sort and filter
CREATE INDEX resources_by_size ON resources (size, id);
CREATE INDEX resources_by_track_count ON resources (track_count, id);
CREATE INDEX resources_by_duration ON resources ((coalesce(duration, -1.0)), id);
CREATE INDEX resources_by_name_key ON resources ((lower(coalesce(name, '') COLLATE "C")), id);
CREATE INDEX resources_by_uploaded_at ON resources (uploaded_at, id);
CREATE INDEX resources_by_filename ON resources (filename, id);
CREATE INDEX resources_by_uploader ON resources (uploaded_by, id);

-- step: the counts, by class and family
-- The counts, kept by triggers in the transaction that changes the entries. Each session adds
-- to a row of its own (its process id modulo 16), so that daemons and imports writing at once
-- do not queue on one row's lock; a count is the sum of its slots.
CREATE TABLE entry_counts (
    class   text COLLATE "C" NOT NULL,
    family  text COLLATE "C" NOT NULL,
    slot    integer NOT NULL,
    entries bigint NOT NULL,
    tracks  bigint NOT NULL,
    PRIMARY KEY (class, family, slot)
);
INSERT INTO entry_counts (class, family, slot, entries, tracks)
    SELECT class, family, 0, count(*), sum(track_count) FROM resources GROUP BY class, family;
CREATE TABLE blob_counts (
    slot  integer PRIMARY KEY,
    blobs bigint NOT NULL,
    bytes bigint NOT NULL
);
INSERT INTO blob_counts (slot, blobs, bytes) SELECT 0, count(*), coalesce(sum(size), 0) FROM blobs;

CREATE FUNCTION animdex_count_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO entry_counts AS c (class, family, slot, entries, tracks)
            VALUES (OLD.class, OLD.family, pg_backend_pid() % 16, -1, -OLD.track_count)
            ON CONFLICT (class, family, slot) DO UPDATE
            SET entries = c.entries - 1, tracks = c.tracks - OLD.track_count;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO entry_counts AS c (class, family, slot, entries, tracks)
            VALUES (NEW.class, NEW.family, pg_backend_pid() % 16, 1, NEW.track_count)
            ON CONFLICT (class, family, slot) DO UPDATE
            SET entries = c.entries + 1, tracks = c.tracks + NEW.track_count;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER resources_counted AFTER INSERT OR DELETE OR UPDATE OF class, family, track_count
    ON resources FOR EACH ROW EXECUTE FUNCTION animdex_count_entries();

CREATE FUNCTION animdex_count_blobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO blob_counts AS c (slot, blobs, bytes)
            VALUES (pg_backend_pid() % 16, 1, NEW.size)
            ON CONFLICT (slot) DO UPDATE SET blobs = c.blobs + 1, bytes = c.bytes + NEW.size;
    ELSE
        INSERT INTO blob_counts AS c (slot, blobs, bytes)
            VALUES (pg_backend_pid() % 16, -1, -OLD.size)
            ON CONFLICT (slot) DO UPDATE SET blobs = c.blobs - 1, bytes = c.bytes - OLD.size;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER blobs_counted AFTER INSERT OR DELETE ON blobs
    FOR EACH ROW EXECUTE FUNCTION animdex_count_blobs();

-- step: the search index (every entry's name, class, file name and note)
-- The search (q=): the four fields it looks in, case-folded as the list folds them (ASCII
-- letters, under COLLATE "C") and joined by a character no query holds, in a pg_trgm GIN
-- index. It finds the candidates; the list keeps its LIKE on each field, so that the matches
-- are the same as without the index.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE FUNCTION animdex_search_text(name text, class text, filename text, note text)
    RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower((coalesce(name, '') || chr(1) || class || chr(1) || coalesce(filename, '') ||
                  chr(1) || coalesce(note, '')) COLLATE "C");
CREATE INDEX resources_text ON resources
    USING gin (animdex_search_text(name, class, filename, note) gin_trgm_ops);
