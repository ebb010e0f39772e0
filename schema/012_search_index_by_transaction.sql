-- 012_search_index_by_transaction.sql: the search index written once a transaction, not once
-- an entry. FTS5 writes what it holds to a new segment of its index at every savepoint, and
-- SQLite opens one for each statement that can fail half way inside a transaction: an insert
-- into resources whose trigger wrote the index made a segment of one entry, to be merged
-- again and again (a fifth of an upload's time in a group commit, most of an import's).
-- Now the triggers note a new or renamed entry's id in resources_text_pending, and the
-- writer indexes every id noted with one statement just before its COMMIT
-- (sqlite_step in
-- catalog_sqlite.c), in the same transaction: what is committed is always indexed.
-- A 'delete' for an entry not indexed yet would damage a contentless index, so an entry
-- removed while still noted only leaves the note.
-- step: the search index written at each commit
CREATE TABLE resources_text_pending (
    id INTEGER PRIMARY KEY
);
DROP TRIGGER resources_text_in;
DROP TRIGGER resources_text_out;
DROP TRIGGER resources_text_changed;
CREATE TRIGGER resources_text_in AFTER INSERT ON resources BEGIN
    INSERT OR IGNORE INTO resources_text_pending (id) VALUES (NEW.id);
END;
CREATE TRIGGER resources_text_out AFTER DELETE ON resources BEGIN
    INSERT INTO resources_text (resources_text, rowid, name, class, filename, note)
        SELECT 'delete', OLD.id, OLD.name, OLD.class, OLD.filename, OLD.note
        WHERE NOT EXISTS (SELECT 1 FROM resources_text_pending WHERE id = OLD.id);
    DELETE FROM resources_text_pending WHERE id = OLD.id;
END;
CREATE TRIGGER resources_text_changed AFTER UPDATE OF name, class, filename, note ON resources
WHEN NOT EXISTS (SELECT 1 FROM resources_text_pending WHERE id = OLD.id)
BEGIN
    INSERT INTO resources_text (resources_text, rowid, name, class, filename, note)
        VALUES ('delete', OLD.id, OLD.name, OLD.class, OLD.filename, OLD.note);
    INSERT INTO resources_text_pending (id) VALUES (NEW.id);
END;
