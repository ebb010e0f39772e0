-- 002_tracks_events_names.sql: event tracks, per-track details, and the handle a track is
-- about (a bone, a material...), so handles print with their names.
ALTER TABLE tracks ADD COLUMN kind TEXT NOT NULL DEFAULT 'curve'; -- 'curve' or 'events'
ALTER TABLE tracks ADD COLUMN info TEXT;                         -- JSON, or NULL
ALTER TABLE tracks ADD COLUMN handle INTEGER;                    -- unsigned 32-bit, or NULL
CREATE INDEX tracks_by_handle ON tracks (handle) WHERE handle IS NOT NULL;
