-- 004_decoder_versions.sql: which decoder made each entry, and the sampling rules of tracks
-- whose engine evaluates otherwise than Radient (doc/formats.md 1.3). Entries stored before this
-- were made by version 1 of every decoder; `animdexd redecode` brings them up to date.
ALTER TABLE resources ADD COLUMN decoder_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE tracks ADD COLUMN rules INTEGER NOT NULL DEFAULT 0; -- model.h enum sampling_rule
CREATE INDEX resources_by_decoder ON resources (family, decoder_version);
