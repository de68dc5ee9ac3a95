-- A compact corpus, ninth step (bench/RESULTS.md): an event's revision head keeps its number
-- and counts; the rest of the state its latest revision left is the event's row.
--
-- The head held that state in full (sentence, happened_at, report dates, entity ids, counts),
-- about 370 bytes an event, for the next revision's `from` values. Between transactions it is
-- what the event's row holds: every change of the row records its revision in the same
-- transaction (event-changes.ts), and the state is the row's columns but for the counts, which
-- the reports give. So the head keeps its number and the counts, and a trigger keeps the row's
-- columns aside, as they were, in event_revision_states_kept when an update changes them, until
-- the transaction's revision is recorded and deletes them (event-revisions.store.ts). Kept
-- apart from the head, so the head's row keeps its width and its updates stay on their page.
-- A head whose state is not known (the revision 1 given to events stored before revisions were
-- kept, migration 024) has no counts.
CREATE TABLE event_revision_heads_041 (
  event_id                 uuid NOT NULL,
  revision                 integer NOT NULL,
  matched_report_count     integer,
  distinct_outlet_count    integer,
  independent_source_count integer
) WITH (fillfactor = 85);

-- An event's row's columns as its latest revision left them, while the row differs (within the
-- transaction that changed it).
CREATE TABLE event_revision_states_kept (
  event_id          uuid PRIMARY KEY,
  sentence          text,
  happened_at       text,
  first_report_date timestamptz NOT NULL,
  last_report_date  timestamptz NOT NULL,
  entity_ids        uuid[] NOT NULL
);

INSERT INTO event_revision_heads_041
SELECT h.event_id, h.revision,
       CASE WHEN h.entity_ids IS NOT NULL THEN h.matched_report_count END,
       CASE WHEN h.entity_ids IS NOT NULL THEN h.distinct_outlet_count END,
       CASE WHEN h.entity_ids IS NOT NULL THEN h.independent_source_count END
  FROM event_revision_heads h;
-- Heads whose state differs from their event's row (none, between transactions, unless the
-- state was written from views the row does not hold) keep theirs aside.
INSERT INTO event_revision_states_kept
SELECT h.event_id, h.sentence, h.happened_at, h.first_report_date, h.last_report_date, h.entity_ids
  FROM event_revision_heads h
  LEFT JOIN events e ON e.id = h.event_id
 WHERE h.entity_ids IS NOT NULL
   AND (e.id IS NULL OR (h.sentence, h.happened_at, h.first_report_date, h.last_report_date, h.entity_ids)
                        IS DISTINCT FROM (e.sentence, e.happened_at, e.first_report_date, e.last_report_date, e.involved_entity_ids));
DROP TABLE event_revision_heads;
ALTER TABLE event_revision_heads_041 RENAME TO event_revision_heads;
-- The key built once the rows are in: sorted, its pages full (built row by row, in the old
-- table's order, it took twice the room).
ALTER TABLE event_revision_heads ADD CONSTRAINT event_revision_heads_pkey PRIMARY KEY (event_id);

-- An update that changes the columns a revision compares keeps them aside, as they were, once
-- per revision: later updates in the transaction leave the first one's. An event without a head
-- (made in this transaction, its first revision not recorded yet) keeps nothing.
CREATE FUNCTION event_revision_state_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_revision_states_kept
  SELECT OLD.id, OLD.sentence, OLD.happened_at, OLD.first_report_date, OLD.last_report_date, OLD.involved_entity_ids
   WHERE EXISTS (SELECT 1 FROM event_revision_heads h WHERE h.event_id = OLD.id)
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_revision_state AFTER UPDATE ON events FOR EACH ROW
  WHEN ((OLD.sentence, OLD.happened_at, OLD.first_report_date, OLD.last_report_date, OLD.involved_entity_ids)
        IS DISTINCT FROM (NEW.sentence, NEW.happened_at, NEW.first_report_date, NEW.last_report_date, NEW.involved_entity_ids))
  EXECUTE FUNCTION event_revision_state_kept();
