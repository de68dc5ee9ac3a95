-- GET /v1/sensors/{id}/deliveries?type=…: a sensor's test, merge and update deliveries found
-- without reading past its matches (a busy sensor has thousands). Matches, the bulk of the
-- table, are left out, so the index costs nothing on the delivery path that writes most.
CREATE INDEX sensor_deliveries_rare_types ON sensor_deliveries (sensor_id, type, id) WHERE type <> 'event.matched';
