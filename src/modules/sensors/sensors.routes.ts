import type { TypedApp } from '../../platform/http/typed-app.js';
import { ListSensorsQuery, SensorList } from './sensors.schemas.js';

const tags = ['Sensors'];

export function sensorsRoutes(app: TypedApp): void {
  app.get(
    '/sensors',
    {
      config: { scope: 'SENSORS_READ' },
      schema: { tags, summary: 'List sensors', querystring: ListSensorsQuery, response: { 200: SensorList } },
    },
    async () => ({ object: 'list' as const, data: [], has_more: false, next_cursor: null }),
  );
}
