-- 011_large_catalogues.sql: every question the list asks answered by an index, for catalogues
-- of a million entries (doc/reference.md, "Large catalogues").
--
-- The sort keys the list offers, each with an index; SQLite's indexes end in the rowid (the
-- entry's id), so every one of them breaks ties by id as the list does. An entry's size is
-- its upload's, copied in when the entry is made (a sort on the blob's column could not use
-- an index). The expressions are the list's own (catalog_sql.c, catalog_sort_sql), so that
-- the planner matches them. Each "-- step:" line begins a step that animdexd tells on the
-- terminal as it upgrades a catalogue (catalog_migrate.c).
-- step: each entry's size, copied from its upload
ALTER TABLE resources ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
UPDATE resources SET size = (SELECT b.size FROM blobs b WHERE b.sha256 = resources.blob_sha256);
-- step: an index for each sort and filter
CREATE INDEX resources_by_size ON resources (size);
CREATE INDEX resources_by_track_count ON resources (track_count);
CREATE INDEX resources_by_duration ON resources (coalesce(duration, -1.0));
CREATE INDEX resources_by_name_key ON resources (lower(coalesce(name, '')));
CREATE INDEX resources_by_filename ON resources (filename);
CREATE INDEX resources_by_uploader ON resources (uploaded_by);

-- The counts the list's totals, /api/classes and /api/health give, kept by triggers in the
-- transaction that changes the entries, so that they are never a count(*) of the catalogue.
-- step: the counts, by class and family
CREATE TABLE entry_counts (
    class   TEXT NOT NULL,
    family  TEXT NOT NULL,
    entries INTEGER NOT NULL,
    tracks  INTEGER NOT NULL,  -- the sum of the entries' track_count
    PRIMARY KEY (class, family)
) WITHOUT ROWID;
INSERT INTO entry_counts (class, family, entries, tracks)
    SELECT class, family, count(*), sum(track_count) FROM resources GROUP BY class, family;
CREATE TABLE blob_counts (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    blobs INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
INSERT INTO blob_counts (one, blobs, bytes) SELECT 1, count(*), coalesce(sum(size), 0) FROM blobs;

CREATE TRIGGER resources_counted AFTER INSERT ON resources BEGIN
    INSERT INTO entry_counts (class, family, entries, tracks)
        VALUES (NEW.class, NEW.family, 1, NEW.track_count)
        ON CONFLICT (class, family) DO UPDATE SET entries = entries + 1,
                                                  tracks = tracks + excluded.tracks;
END;
CREATE TRIGGER resources_uncounted AFTER DELETE ON resources BEGIN
    UPDATE entry_counts SET entries = entries - 1, tracks = tracks - OLD.track_count
        WHERE class = OLD.class AND family = OLD.family;
    DELETE FROM entry_counts WHERE class = OLD.class AND family = OLD.family AND entries = 0;
END;
CREATE TRIGGER resources_recounted AFTER UPDATE OF class, family, track_count ON resources BEGIN
    UPDATE entry_counts SET entries = entries - 1, tracks = tracks - OLD.track_count
        WHERE class = OLD.class AND family = OLD.family;
    DELETE FROM entry_counts WHERE class = OLD.class AND family = OLD.family AND entries = 0;
    INSERT INTO entry_counts (class, family, entries, tracks)
        VALUES (NEW.class, NEW.family, 1, NEW.track_count)
        ON CONFLICT (class, family) DO UPDATE SET entries = entries + 1,
                                                  tracks = tracks + excluded.tracks;
END;
CREATE TRIGGER blobs_counted AFTER INSERT ON blobs BEGIN
    UPDATE blob_counts SET blobs = blobs + 1, bytes = bytes + NEW.size;
END;
CREATE TRIGGER blobs_uncounted AFTER DELETE ON blobs BEGIN
    UPDATE blob_counts SET blobs = blobs - 1, bytes = bytes - OLD.size;
END;

-- The search (q=): an FTS5 index of the trigrams of the four fields it looks in, case-folded.
-- It finds the candidates; the list keeps its LIKE on the entry's own columns, so that the
-- matches are LIKE's exactly (FTS5 folds every letter's case, LIKE only ASCII's). Contentless:
-- the text stays in resources alone, and a row leaves the index by the 'delete' command with
-- the values it went in with, which the triggers have.
-- step: the search index (every entry's name, class, file name and note)
CREATE VIRTUAL TABLE resources_text USING fts5 (
    name, class, filename, note, content = '', tokenize = 'trigram'
);
INSERT INTO resources_text (rowid, name, class, filename, note)
    SELECT id, name, class, filename, note FROM resources;
CREATE TRIGGER resources_text_in AFTER INSERT ON resources BEGIN
    INSERT INTO resources_text (rowid, name, class, filename, note)
        VALUES (NEW.id, NEW.name, NEW.class, NEW.filename, NEW.note);
END;
CREATE TRIGGER resources_text_out AFTER DELETE ON resources BEGIN
    INSERT INTO resources_text (resources_text, rowid, name, class, filename, note)
        VALUES ('delete', OLD.id, OLD.name, OLD.class, OLD.filename, OLD.note);
END;
CREATE TRIGGER resources_text_changed AFTER UPDATE OF name, class, filename, note ON resources
BEGIN
    INSERT INTO resources_text (resources_text, rowid, name, class, filename, note)
        VALUES ('delete', OLD.id, OLD.name, OLD.class, OLD.filename, OLD.note);
    INSERT INTO resources_text (rowid, name, class, filename, note)
        VALUES (NEW.id, NEW.name, NEW.class, NEW.filename, NEW.note);
END;
