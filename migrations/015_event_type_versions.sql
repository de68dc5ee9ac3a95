-- Every ingest reads its event type and the type's roles; each process keeps them in memory
-- (src/modules/corpus/event-type-cache.ts) and reads them again when `version` moved. The
-- version moves with every change to the type or its roles, in the transaction that makes
-- the change, whatever makes it (triggers, so no writer can forget); an ingest reads it in
-- its first statement, so it never uses roles older than what had committed when it began.
ALTER TABLE event_types ADD COLUMN version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION event_type_version_moves() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$;
CREATE TRIGGER event_types_version BEFORE UPDATE ON event_types FOR EACH ROW EXECUTE FUNCTION event_type_version_moves();

-- A role added, changed or removed moves its type's version (through the trigger above).
CREATE FUNCTION event_type_role_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE event_types SET version = version WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.event_type_id ELSE NEW.event_type_id END;
  RETURN NULL;
END $$;
CREATE TRIGGER event_type_roles_version AFTER INSERT OR UPDATE OR DELETE ON event_type_roles FOR EACH ROW EXECUTE FUNCTION event_type_role_changed();

-- The version of its type an event's state was last computed with: a report added to an
-- event whose type changed since recomputes the event whole (the template or the role order
-- may differ); only a report added under the same version may update the state in place.
-- Null (events loaded in bulk, or before this column) counts as changed.
ALTER TABLE events ADD COLUMN type_version bigint;
