-- Clustering looks for events of a report's type that share a participant and whose window
-- anchor (happened_on, else the first report date) lies within CLUSTER_WINDOW_DAYS of the
-- report's. Driven from the entity index alone, an entity named in many events (a country,
-- say) had every one of its events read and checked per lookup, a cost that grew with the
-- corpus. Each participant row now carries its event's anchor, kept with the event's state,
-- and this index reads only the events around the report's anchor.
ALTER TABLE event_entities ADD COLUMN anchor timestamptz;
UPDATE event_entities ee SET anchor = COALESCE(e.happened_on::timestamp AT TIME ZONE 'UTC', e.first_report_date)
  FROM events e WHERE e.id = ee.event_id;
ALTER TABLE event_entities ALTER COLUMN anchor SET NOT NULL;
CREATE INDEX event_entities_participant_anchor ON event_entities (entity_id, anchor) INCLUDE (event_id) WHERE participant;
