-- A compact corpus (bench/RESULTS.md, "A compact corpus, fifth step"): an event's entity rows
-- found by the event alone.
--
-- The primary key (event_id, entity_id) held every row's two ids, unique, so none could share
-- an entry: about 240 bytes an event at 100,000 events and 330 at a million, where updates
-- that moved rows (none HOT: the window anchor is indexed) split its pages. Its readers name
-- the event and read all its rows (about four); an index of the event alone keeps the event's
-- id once with the list of its rows (B-tree deduplication), under 60 bytes an event.
--
-- An event's rows stay one per entity without the key: every writer of them holds the event's
-- row locked (ingest and the refresh job lock the events they write; an entity's merge or
-- deletion locks the events naming it, eventsStore.lockEvents) and adds only the entities it
-- reads as missing (events.store.ts, reference.store.ts).
ALTER TABLE event_entities DROP CONSTRAINT event_entities_pkey;
CREATE INDEX event_entities_event ON event_entities (event_id);
