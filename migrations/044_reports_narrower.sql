-- A compact corpus, tenth step (bench/RESULTS.md): a report's row drops two columns that other
-- columns say.
--
-- event_type_id: every report joins an event of its own type (clustering, an incident_id, a
-- copy's event: each checks the type, new-report.ts), and events merge only into events of their
-- type (events.service.ts), so it said what its event's row says, and nothing read it. The
-- statement that adds a report to an event now checks the two agree (events.store.ts).
--
-- created_at: the time the report was stored, read only to order an event's reports that share
-- a report date, before their ids. The ids (UUIDv7, drawn as reports are stored) order them as
-- the event's state does (event-state.ts).
--
-- 24 bytes a report, about 70 an event, and a foreign key checked at every insert.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM reports r JOIN events e ON e.id = r.event_id WHERE r.event_type_id <> e.event_type_id) THEN
    RAISE EXCEPTION 'a report''s event type differs from its event''s';
  END IF;
END $$;
ALTER TABLE reports DROP COLUMN event_type_id;
ALTER TABLE reports DROP COLUMN created_at;
-- A dropped column keeps its bytes in every row until the row is written again (migration 042):
-- the table is written again, in its order.
ALTER TABLE reports ALTER COLUMN headline TYPE text USING headline || '';
