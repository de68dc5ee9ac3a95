-- A compact corpus, tenth step (bench/RESULTS.md): the participants' anchor index keeps its key
-- alone.
--
-- It covered event_id (INCLUDE) so that clustering's look-up by entity and window read no
-- participant row: 159 bytes an event at a million, where the key alone takes about 105. The
-- look-ups read each candidate's event row next in any case (its type, whether it is live),
-- and a table being loaded has no visibility map to spare them the heap, so the covering
-- column saved little where it was meant to: the participant's row is read beside the event's.
DROP INDEX event_participants_anchor;
CREATE INDEX event_participants_anchor ON event_participants (entity_id, anchor);
