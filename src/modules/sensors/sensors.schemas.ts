import { Type } from '@sinclair/typebox';
import { ListEnvelope, ListQuery, Uuid } from '../../platform/http/schema-kit.js';

// The sensor resource arrives with the sensors feature; until then the list is always empty.
export const Sensor = Type.Object({ object: Type.Literal('sensor'), id: Uuid }, { $id: 'Sensor', additionalProperties: true });

export const ListSensorsQuery = ListQuery;
export const SensorList = ListEnvelope(Sensor);
