-- A compact corpus, fourth step (bench/RESULTS.md, "A compact corpus"): indexes read by one
-- key, holding it once. A B-tree whose entries share a key keeps that key once with the list
-- of its rows (deduplication), which a second key column or an INCLUDE rules out.
--
-- event_entities_entity covered the SQL face's entity condition (the window's first report
-- date in its key, the event and `participant` beside it), about 375 bytes an event. That
-- condition now runs only where the index in memory cannot answer (continuations check their
-- candidates by event, on the primary key). Its other readers name the entity alone: an
-- entity's merge and deletion, which rewrite its rows.
DROP INDEX event_entities_entity;
CREATE INDEX event_entities_entity ON event_entities (entity_id);

-- An event's reports are read together, by the event (its view, its facts, its clustering),
-- the cut-off applied to each row read: the receive sequence in the key ordered nothing a
-- reader used.
DROP INDEX reports_event_seq;
CREATE INDEX reports_event ON reports (event_id);

-- An article's stored report, found by its url (the outlet and the url itself are compared on
-- the row): a hash index holds a url's 4-byte hash code, not its md5 and outlet beside the key
-- (about 295 bytes an event). Any length of url fits it.
DROP INDEX reports_outlet_url;
CREATE INDEX reports_url ON reports USING hash (url) WHERE url IS NOT NULL;
