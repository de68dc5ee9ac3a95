-- Beats: saved clause sets whose matches are recorded as charged entries (v1 document, Beat,
-- Clause, Beat entry; decisions.md, "Beats", "Credits and billing").

CREATE TABLE beats (
  id                 uuid PRIMARY KEY,
  account_id         uuid NOT NULL REFERENCES accounts (id),
  name               text NOT NULL,
  description        text,
  -- [{id, ...every clause field, defaults filled in}], in list order.
  clauses            jsonb NOT NULL,
  enabled            boolean NOT NULL,
  -- Paused by the spend cap (status PAUSED_SPEND_CAP while enabled). A pause that a month
  -- boundary has ended is still stored as paused until the next write: readers apply the
  -- rollover themselves (beat-state.ts), so nothing has to run at 00:00 UTC on the 1st.
  paused             boolean NOT NULL DEFAULT false,
  spend_cap_credits  bigint NOT NULL CHECK (spend_cap_credits >= 0),
  -- The UTC month (its first instant) that spent_this_month and entries_this_month count.
  counters_month     timestamptz NOT NULL,
  spent_this_month   bigint NOT NULL DEFAULT 0,
  entries_this_month integer NOT NULL DEFAULT 0,
  last_entry_at      timestamptz,
  -- [{from, until}] spend-cap pauses, oldest first; the last one's until is null while paused.
  gaps               jsonb NOT NULL DEFAULT '[]',
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX beats_account ON beats (account_id, id);

-- One entry per (beat, event), ever. Every insert happens under the owning account's row lock
-- (and its beat's), so within a beat `seq` order is commit order: a poll position "after seq N"
-- neither misses nor repeats an entry, however many share a millisecond.
CREATE TABLE beat_entries (
  seq                    bigint GENERATED ALWAYS AS IDENTITY,
  id                     uuid PRIMARY KEY,
  beat_id                uuid NOT NULL REFERENCES beats (id) ON DELETE CASCADE,
  event_id               uuid NOT NULL REFERENCES events (id),
  matched_clause_id      uuid NOT NULL,
  occurred_at            timestamptz NOT NULL,
  added_at               timestamptz NOT NULL,
  backfilled             boolean NOT NULL,
  carried_from_event_id  uuid,
  superseded_by_event_id uuid,
  UNIQUE (beat_id, event_id)
);
CREATE INDEX beat_entries_poll ON beat_entries (beat_id, seq);
CREATE INDEX beat_entries_occurred ON beat_entries (beat_id, occurred_at, seq);
CREATE INDEX beat_entries_added ON beat_entries (beat_id, added_at, seq);
CREATE INDEX beat_entries_event ON beat_entries (event_id);

INSERT INTO filter_versions VALUES ('beats', 0);

-- The "event changed" hand-off now gives each subscriber a job of its own
-- (corpus.event-changed:<subscriber>). Changes still waiting are handed to sensors, the only
-- subscriber there was; beats begin with the changes made from now on (and their backfill).
INSERT INTO jobs (kind, payload, status, run_at, attempts, max_attempts, created_at)
SELECT 'corpus.event-changed:sensors', payload, 'pending', run_at, 0, max_attempts, created_at
  FROM jobs WHERE kind = 'corpus.event-changed' AND status IN ('pending', 'running');
DELETE FROM jobs WHERE kind = 'corpus.event-changed' AND status IN ('pending', 'running');
