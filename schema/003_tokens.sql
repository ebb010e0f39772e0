-- 003_tokens.sql: write tokens. Only a SHA-256 of each token is kept; the token itself is
-- shown once, when it is made.
CREATE TABLE tokens (
    name       TEXT PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,  -- lower-case hex SHA-256 of the token
    created_at INTEGER NOT NULL,      -- Unix time in milliseconds
    revoked_at INTEGER                -- NULL while the token is valid
);
