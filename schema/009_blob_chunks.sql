-- 009_blob_chunks.sql: the uploaded bytes in chunks of 128 KiB, each a row of its own, in place
-- of one column of the whole upload. SQLite keeps a large value as a list of overflow pages
-- walked from its start, so that reading one block of a download near a large upload's end
-- read every page before it: a download took time in the square of its size. A chunk is
-- found by its key and read whole, so every block of a download costs the same.
-- Chunk n holds bytes [n x 131072, (n + 1) x 131072) of the upload; every chunk but the last
-- is full; an upload of 0 bytes has none. animdexd moves the bytes of an older catalogue into
-- chunks as it applies this file (one upload read at a time), then drops blobs.bytes.
CREATE TABLE blob_chunks (
    sha256 TEXT NOT NULL REFERENCES blobs(sha256),
    n      INTEGER NOT NULL,
    bytes  BLOB NOT NULL,
    PRIMARY KEY (sha256, n)
);
