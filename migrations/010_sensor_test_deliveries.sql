-- Test deliveries (decisions.md, 2026-11-25: `POST /v1/sensors/{id}/test`): a `sensor.test`
-- delivery carries the latest matching event, or none, and any number of them may be made
-- for one sensor and event. So `event_id` may be null for that kind alone, and the "once per
-- (sensor, event, kind), ever" rule keeps to the kinds that matching makes.

ALTER TABLE sensor_deliveries ALTER COLUMN event_id DROP NOT NULL;

ALTER TABLE sensor_deliveries DROP CONSTRAINT sensor_deliveries_type_check;
ALTER TABLE sensor_deliveries ADD CONSTRAINT sensor_deliveries_type_check CHECK (type IN ('event.matched', 'event.merged', 'sensor.test'));
ALTER TABLE sensor_deliveries ADD CONSTRAINT sensor_deliveries_event_check CHECK (event_id IS NOT NULL OR type = 'sensor.test');

ALTER TABLE sensor_deliveries DROP CONSTRAINT sensor_deliveries_sensor_id_event_id_type_key;
CREATE UNIQUE INDEX sensor_deliveries_once ON sensor_deliveries (sensor_id, event_id, type) WHERE type <> 'sensor.test';
