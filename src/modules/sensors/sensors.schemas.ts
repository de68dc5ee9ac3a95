// Sensors (v1 document: Sensor resource, Sensors endpoints, 2026-08-14 changelog; decisions.md:
// "Sensors", "Webhook deliveries"). One schema per operation.
import { Type, type Static, type TNull, type TOptional, type TSchema, type TUnion } from '@sinclair/typebox';
import { ListEnvelope, ListQuery, Nullable, StrictObject, StringEnum, Text, Timestamp, Uuid } from '../../platform/http/schema-kit.js';
import { savedFilterFields } from '../filters/filter.schemas.js';

const filterFields = savedFilterFields(100);

const optional = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, Type.Optional(schema)])) as { [K in keyof T]: TOptional<T[K]> };
const optionalNullable = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, Type.Optional(Nullable(schema))])) as {
    [K in keyof T]: TOptional<TUnion<[T[K], TNull]>>;
  };

const FILTER_DESCRIPTION =
  'Names an event type, or at least one entity, entity list or outlet. The earlier names `incident_template_id` and ' +
  '`involved_entity_canonical_ids` are refused (validation-failed naming the field).';

/** The 2026-08-14 renames: an old name is refused with a pointer to its new one (read by validation.ts). */
const RENAMED = { 'x-renamed': { incident_template_id: 'event_type_id', involved_entity_canonical_ids: 'involved_entity_ids' } };

/** The filter as sent on create: omitted fields take their defaults. */
export const SensorFilterInput = StrictObject(optional(filterFields), { description: FILTER_DESCRIPTION, ...RENAMED });
/** The filter as read back: every field, defaults filled in. */
export const SensorFilter = Type.Object(filterFields, { $id: 'SensorFilter' });
export type SensorFilter = Static<typeof SensorFilter>;

const WebhookUrl = Text({ minLength: 1, maxLength: 2048, description: 'An `https:` URL. It must resolve to a public address when delivered to.' });
export const ActionInput = StrictObject({ type: Type.Literal('webhook'), url: WebhookUrl });
export const Action = Type.Object({ id: Uuid, type: Type.Literal('webhook'), url: Type.String() }, { $id: 'SensorAction' });
const Actions = Type.Array(ActionInput, { minItems: 1, maxItems: 5, description: '1 to 5 webhooks; each delivery goes to every one.' });

const Name = Text({ minLength: 1, maxLength: 120 });
const DeliverUpdates = Type.Boolean({
  description:
    'Also send `event.updated` as an event delivered in the past 30 days changes (outlets, independent sources, sentence, happened_at, ' +
    'first report date, entities, or a merge into it): at most one per event per 10 minutes. Default false.',
});
const Description = Nullable(Text({ maxLength: 2000 }));

export const CreateSensorBody = StrictObject({
  name: Name,
  description: Type.Optional(Description),
  filter: SensorFilterInput,
  actions: Actions,
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  deliver_updates: Type.Optional(DeliverUpdates),
});
export type CreateSensorBody = Static<typeof CreateSensorBody>;

/** JSON Merge Patch (RFC 7396): members present replace, `null` resets a filter field to its default, arrays replace whole. */
export const PatchSensorBody = StrictObject(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    filter: Type.Optional(StrictObject(optionalNullable(filterFields), { description: FILTER_DESCRIPTION, ...RENAMED })),
    actions: Type.Optional(Actions),
    deliver_updates: Type.Optional(Nullable(DeliverUpdates)),
  },
  { description: 'JSON Merge Patch over `name`, `description`, `filter`, `actions` and `deliver_updates`.' },
);
export type PatchSensorBody = Static<typeof PatchSensorBody>;

export const Sensor = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('sensor'),
    name: Type.String(),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    deliver_updates: Type.Boolean({ description: 'Whether events it delivered get `event.updated` deliveries as they change.' }),
    filter: SensorFilter,
    actions: Type.Array(Action),
    created_at: Timestamp,
    updated_at: Timestamp,
    signing_secret: Type.Optional(
      Type.String({ description: '`whsec_` and base64 of 32 bytes. Only in the response that creates the sensor or rotates its secret; never in a replay.' }),
    ),
  },
  { $id: 'Sensor' },
);
export type Sensor = Static<typeof Sensor>;

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export const DELIVERY_TYPES = ['event.matched', 'event.merged', 'event.updated', 'sensor.test'] as const;
export const SensorDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Also the `webhook-id` header, stable across retries.' }),
    object: Type.Literal('sensor_delivery'),
    type: StringEnum(DELIVERY_TYPES, { description: '`sensor.test` for a delivery made by `POST /v1/sensors/{id}/test`.' }),
    event_id: Nullable(Type.String({ format: 'uuid', description: 'The event the delivery carries; null for a test delivery that carries none.' })),
    status: StringEnum(DELIVERY_STATUSES, {
      description: 'PENDING while any webhook awaits an attempt; then FAILED if any webhook failed for good, else SUCCEEDED.',
    }),
    attempts: Type.Integer({ description: "Attempts made, over all the sensor's webhooks." }),
    last_status_code: Nullable(Type.Integer({ description: 'HTTP status of the latest attempt; null when it got no response.' })),
    last_error: Nullable(Type.String({ description: 'Why the latest attempt failed (not a 2xx, timeout, refused address); null after a success.' })),
    last_attempt_at: Nullable(Timestamp),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'SensorDelivery' },
);
export type SensorDelivery = Static<typeof SensorDelivery>;

export const ListSensorsQuery = ListQuery;
export const ListSensorDeliveriesQuery = StrictObject({
  ...ListQuery.properties,
  type: Type.Optional(StringEnum(DELIVERY_TYPES, { description: 'Only deliveries of this type, e.g. `sensor.test` to find a test delivery among many.' })),
});
export type ListSensorDeliveriesQuery = Static<typeof ListSensorDeliveriesQuery>;
export const SensorList = ListEnvelope(Sensor);
export const DeliveryList = ListEnvelope(SensorDelivery);
