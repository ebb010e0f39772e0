-- 004_blob_chunks.sql: the uploaded bytes in chunks of 128 KiB, a row each, as SQLite's
-- schema/009_blob_chunks.sql says: a download reads each block by its key, at the same cost
-- wherever it is in the upload. Chunks are stored without compression (most uploads are
-- compressed or packed floats already), so that PostgreSQL reads a chunk without
-- decompressing anything before it. Older bytes are moved here, then blobs.bytes is dropped.
CREATE TABLE blob_chunks (
    sha256 text COLLATE "C" NOT NULL REFERENCES blobs(sha256),
    n      integer NOT NULL,
    bytes  bytea NOT NULL,
    PRIMARY KEY (sha256, n)
);
ALTER TABLE blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
INSERT INTO blob_chunks (sha256, n, bytes)
    SELECT b.sha256, c.n, substring(b.bytes FROM c.n * 131072 + 1 FOR 131072)
    FROM blobs b, generate_series(0, ((b.size + 131071) / 131072 - 1)::integer) AS c(n);
ALTER TABLE blobs DROP COLUMN bytes;
