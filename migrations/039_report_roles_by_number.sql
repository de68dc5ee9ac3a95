-- A compact corpus, seventh step (bench/RESULTS.md): a report names the roles of its values by
-- a number instead of the role's uuid.
--
-- A report's role_ids held a 16-byte uuid per value (about 2.9 a report): 67 bytes a report
-- with the array's header. Each role now has a number of its own (an identity: never reused,
-- never changed, unique across event types, so a number alone names a role), and the report
-- keeps those in role_numbers, 4 bytes each: about 35 bytes a report, 100 an event. The reads
-- join the numbers back to the roles (a table of a few hundred rows).
ALTER TABLE event_type_roles ADD COLUMN number integer GENERATED ALWAYS AS IDENTITY;
ALTER TABLE event_type_roles ADD CONSTRAINT event_type_roles_number UNIQUE (number);

-- The views read the column whose type changes: made again below.
DROP VIEW event_role_values;
DROP VIEW report_roles;

-- The type change writes the table again in its order (the range indexes of received_at and
-- received_seq rely on it), leaving no old versions behind.
CREATE FUNCTION migration_039_role_numbers(ids uuid[]) RETURNS integer[] LANGUAGE sql STABLE AS $$
  SELECT array_agg(role.number ORDER BY x.n)
    FROM unnest(ids) WITH ORDINALITY AS x(id, n) LEFT JOIN event_type_roles role ON role.id = x.id
$$;
ALTER TABLE reports ALTER COLUMN role_ids TYPE integer[] USING migration_039_role_numbers(role_ids);
ALTER TABLE reports RENAME COLUMN role_ids TO role_numbers;
DROP FUNCTION migration_039_role_numbers(uuid[]);
-- Every role a report names is an event type's (roles are never deleted, only marked removed).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM reports WHERE array_position(role_numbers, NULL) IS NOT NULL) THEN
    RAISE EXCEPTION 'a report names a role that is no event type''s';
  END IF;
END $$;

-- As migration 033 made it, the role read from its number.
CREATE VIEW report_roles AS
SELECT r.id AS report_id, rr.position::integer AS position, role.id AS role_id, rr.entity_id, rr.date_value, rr.amount_value, rr.amount_unit, rr.text_value
  FROM reports r
 CROSS JOIN LATERAL unnest(r.role_numbers, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units, r.role_texts)
       WITH ORDINALITY AS rr(role_number, entity_id, date_value, amount_value, amount_unit, text_value, position)
  JOIN event_type_roles role ON role.number = rr.role_number;

-- As migration 037 made it, the role read from its number.
CREATE VIEW event_role_values AS
SELECT r.event_id, role.id AS role_id, r.source_kind, r.received_seq AS seq, e.first_report_date, live.id AS entity_id,
       rr.date_value, rr.amount_value,
       translate(COALESCE(rr.amount_unit, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS amount_unit
  FROM reports r
 CROSS JOIN LATERAL (SELECT e.first_report_date FROM events e
                      WHERE e.id = r.event_id AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL OFFSET 0) AS e
 CROSS JOIN LATERAL unnest(r.role_numbers, r.role_entity_ids, r.role_dates, r.role_amounts, r.role_units) AS rr(role_number, entity_id, date_value, amount_value, amount_unit)
  JOIN event_type_roles role ON role.number = rr.role_number
  LEFT JOIN LATERAL (SELECT live.id FROM entities ent JOIN entities live ON live.id = ent.canonical_id AND live.deleted_at IS NULL
                      WHERE ent.id = rr.entity_id OFFSET 0) AS live ON true
 WHERE rr.entity_id IS NOT NULL OR rr.date_value IS NOT NULL OR rr.amount_value IS NOT NULL;
