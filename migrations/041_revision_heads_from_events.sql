-- A compact corpus, ninth step (bench/RESULTS.md): an event's revision head keeps the state its
-- latest revision left only while the event's row differs from it.
--
-- The head held that state in full (sentence, happened_at, report dates, entity ids, counts),
-- about 370 bytes an event, for the next revision's `from` values. Between transactions it is
-- what the event's row holds: every change of the row records its revision in the same
-- transaction (event-changes.ts), and the state is the row's columns but for the counts, which
-- the reports give. So the head keeps its number and the counts; the row's columns are kept
-- aside (was_*, `changed`) by a trigger when an update changes them, as they were, until the
-- transaction's revision is recorded and clears them (event-revisions.store.ts).
-- A head whose state is not known (the revision 1 given to events stored before revisions were
-- kept, migration 024) has no counts.
CREATE TABLE event_revision_heads_041 (
  event_id                 uuid PRIMARY KEY,
  revision                 integer NOT NULL,
  matched_report_count     integer,
  distinct_outlet_count    integer,
  independent_source_count integer,
  -- Whether the event's row changed since the latest revision: was_* then hold its columns as
  -- that revision left them.
  changed                  boolean NOT NULL DEFAULT false,
  was_sentence             text,
  was_happened_at          text,
  was_first_report_date    timestamptz,
  was_last_report_date     timestamptz,
  was_entity_ids           uuid[]
) WITH (fillfactor = 85);

-- Heads whose state differs from their event's row (none, between transactions, unless the
-- state was written from views the row does not hold) keep theirs aside.
INSERT INTO event_revision_heads_041
SELECT h.event_id, h.revision,
       CASE WHEN h.entity_ids IS NOT NULL THEN h.matched_report_count END,
       CASE WHEN h.entity_ids IS NOT NULL THEN h.distinct_outlet_count END,
       CASE WHEN h.entity_ids IS NOT NULL THEN h.independent_source_count END,
       d.differs,
       CASE WHEN d.differs THEN h.sentence END, CASE WHEN d.differs THEN h.happened_at END,
       CASE WHEN d.differs THEN h.first_report_date END, CASE WHEN d.differs THEN h.last_report_date END,
       CASE WHEN d.differs THEN h.entity_ids END
  FROM event_revision_heads h
  LEFT JOIN events e ON e.id = h.event_id
 CROSS JOIN LATERAL (
   SELECT h.entity_ids IS NOT NULL
          AND (e.id IS NULL OR (h.sentence, h.happened_at, h.first_report_date, h.last_report_date, h.entity_ids)
                               IS DISTINCT FROM (e.sentence, e.happened_at, e.first_report_date, e.last_report_date, e.involved_entity_ids)) AS differs
 ) d;
DROP TABLE event_revision_heads;
ALTER TABLE event_revision_heads_041 RENAME TO event_revision_heads;
ALTER INDEX event_revision_heads_041_pkey RENAME TO event_revision_heads_pkey;

-- An update that changes the columns a revision compares keeps them aside, as they were, once
-- per revision: later updates in the transaction leave the first one's. An event without a head
-- (made in this transaction, its first revision not recorded yet) keeps nothing.
CREATE FUNCTION event_revision_state_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE event_revision_heads
     SET changed = true, was_sentence = OLD.sentence, was_happened_at = OLD.happened_at, was_first_report_date = OLD.first_report_date,
         was_last_report_date = OLD.last_report_date, was_entity_ids = OLD.involved_entity_ids
   WHERE event_id = OLD.id AND NOT changed;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_revision_state AFTER UPDATE ON events FOR EACH ROW
  WHEN ((OLD.sentence, OLD.happened_at, OLD.first_report_date, OLD.last_report_date, OLD.involved_entity_ids)
        IS DISTINCT FROM (NEW.sentence, NEW.happened_at, NEW.first_report_date, NEW.last_report_date, NEW.involved_entity_ids))
  EXECUTE FUNCTION event_revision_state_kept();
