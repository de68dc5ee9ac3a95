-- Console users (decisions.md, "Web console"; operations.md): people who sign in to the web
-- console of one account. Passwords are scrypt hashes; sessions are rows referenced by a
-- cookie holding a random token, of which only a hash is stored.

CREATE TABLE console_users (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  email         text NOT NULL,
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL
);
-- Emails are unique, compared case-insensitively.
CREATE UNIQUE INDEX console_users_email ON console_users (lower(email));

CREATE TABLE console_sessions (
  id           uuid PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
  token_hash   bytea NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);
