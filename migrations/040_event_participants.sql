-- A compact corpus, ninth step (bench/RESULTS.md): an event's entities kept once, on its row.
--
-- event_entities held a row per event and involved entity (about 4.2 an event), each with the
-- participant flag, the event's first report date and its window anchor, under three indexes:
-- about 640 bytes an event at a million. Its entities are the event row's involved_entity_ids,
-- read through their live survivors (an entity's merge or deletion rewrote the rows at once;
-- the event row follows when the refresh job recomputes the event). So:
--   - the entities by event are read from involved_entity_ids, mapped to their live survivors
--     (corpus/event-entities.ts);
--   - the participants (about 2 an event) keep a row each, for clustering's look-up by entity
--     and window anchor, and for the events by entity. Participant rows stay survivors: a
--     merge moves them, a deletion drops them, as it did event_entities' rows;
--   - the events an entity is only mentioned in are found through their reports' mention_ids
--     (a GIN index), for every id whose survivor is wanted. Not through a GIN index of the
--     event row's involved_entity_ids: an update adding an entity could not stay on its page.
--     A report's row is not updated when its event's state changes.
-- The first report date went with the non-participant rows: filters read it from the event.
CREATE TABLE event_participants (
  event_id  uuid NOT NULL,
  entity_id uuid NOT NULL,
  -- The event's window anchor (clustering.ts, windowAnchorSql), kept with its state.
  anchor    timestamptz NOT NULL
);
INSERT INTO event_participants SELECT event_id, entity_id, anchor FROM event_entities WHERE participant;
DROP TABLE event_entities;
CREATE INDEX event_participants_anchor ON event_participants (entity_id, anchor) INCLUDE (event_id);
CREATE INDEX event_participants_event ON event_participants (event_id);
CREATE INDEX reports_mentions ON reports USING gin (mention_ids) WHERE mention_ids IS NOT NULL;
-- The entities that are not their own live survivor (merged, deleted): few, read whole by the
-- search index's build, which maps every other id to itself (event-entities.ts).
CREATE INDEX entities_not_survivors ON entities (id) WHERE canonical_id <> id OR deleted_at IS NOT NULL;
