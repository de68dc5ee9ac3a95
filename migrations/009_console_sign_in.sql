-- The web console (decisions.md, "Web console"): when each API key was last used, for the
-- key list, and the failed sign-ins per email that slow and then refuse further attempts.

-- Written at most once a minute per key and process (the key cache's reads), so "last used"
-- is accurate to about a minute without a write per request.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- One row per email (lower case) that recently failed to sign in; keyed by the email typed,
-- whether or not a user has it, so the throttle reads the same for unknown emails.
CREATE TABLE console_sign_in_failures (
  email_key       text PRIMARY KEY,
  failures        integer NOT NULL,
  last_failure_at timestamptz NOT NULL,
  locked_until    timestamptz
);
