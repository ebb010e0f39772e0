-- 005_blob_entry_counts.sql: how many entries the bytes gave when they were stored, so that
-- uploading a bundle again after one of its entries was deleted recreates what is missing
-- without decoding the bytes when nothing is. NULL (stored before this): decode to find out.
ALTER TABLE blobs ADD COLUMN entry_count INTEGER;
