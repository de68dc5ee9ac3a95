// Sensors: each with its status; a sensor's deliveries per day, its deliveries with their
// attempts and last error, redeliver for those no longer pending, and a test delivery on demand.
import type { ReferenceNames } from '../../modules/corpus/reference.service.js';
import type { Sensor, SensorDelivery } from '../../modules/sensors/sensors.schemas.js';
import { ClauseWords } from './clause-words.js';
import { DayChart } from './day-chart.js';
import { Csrf, Notice, page, Problem, Url, when, type Viewer } from './layout.js';
import { Status } from './status.js';
import { Table, type Column } from './table.js';

const SwitchStatus = ({ sensor }: { sensor: Sensor }) => <Status status={sensor.enabled ? 'ENABLED' : 'DISABLED'} />;

const sensorColumns: Column<Sensor>[] = [
  { label: 'Name', cell: (sensor) => <a href={`/console/sensors/${sensor.id}`}>{sensor.name}</a> },
  { label: 'Status', cell: (sensor) => <SwitchStatus sensor={sensor} /> },
  { label: 'Updates', cell: (sensor) => (sensor.deliver_updates ? 'Delivered' : 'Off') },
  {
    label: 'Webhooks',
    cell: (sensor) =>
      sensor.actions.map((action) => (
        <div>
          <Url url={action.url} />
        </div>
      )),
  },
  { label: 'Created', cell: (sensor) => when(sensor.created_at) },
];

export function sensorsPage({ viewer, sensors, nextAfter }: { viewer: Viewer; sensors: Sensor[]; nextAfter: string | null }): string {
  return page({
    title: 'Sensors',
    section: '/console/sensors',
    viewer,
    children: (
      <section class="card">
        {sensors.length === 0 ? (
          <p>
            No sensors yet. Sensors are created through the API (<code>POST /v1/sensors</code>).
          </p>
        ) : (
          <Table columns={sensorColumns} rows={sensors} rowAttributes={() => ({ 'data-testid': 'sensor-row' })} />
        )}
        {nextAfter && (
          <nav class="pager" aria-label="Sensor pages">
            <a href={`/console/sensors?starting_after=${nextAfter}`}>More sensors</a>
          </nav>
        )}
      </section>
    ),
  });
}

/** Deliveries that succeeded and failed on each of the last days. */
export interface DeliveryOutcomes {
  days: string[];
  succeeded: number[];
  failed: number[];
}

/** What a delivery log row shows: an update also names the fields it changed. */
export type LoggedDelivery = SensorDelivery & { changed_fields: string[] | null };

/** The changed fields of an update, in the words of the sensor page. */
const FIELD_WORDS: Record<string, string> = {
  sentence: 'sentence',
  happened_at: 'when it happened',
  first_report_date: 'first report date',
  last_report_date: 'last report date',
  matched_report_count: 'reports',
  distinct_outlet_count: 'outlets',
  independent_source_count: 'independent sources',
  involved_entities: 'entities',
};

const deliveryColumns = (viewer: Viewer, sensor: Sensor): Column<LoggedDelivery>[] => [
  {
    label: 'Created',
    cell: (delivery) => (
      <>
        {when(delivery.created_at)}
        <div class="muted">
          <code>webhook-id</code> <span class="mono">{delivery.id}</span>
        </div>
      </>
    ),
  },
  {
    label: 'Type',
    cell: (delivery) => (
      <>
        {delivery.type}
        {delivery.changed_fields && (
          <div class="muted" data-testid="changed-fields">
            Changed:{' '}
            {delivery.changed_fields.length === 0 ? 'an event merged in' : delivery.changed_fields.map((field) => FIELD_WORDS[field] ?? field).join(', ')}
          </div>
        )}
      </>
    ),
  },
  { label: 'Status', cell: (delivery) => <Status status={delivery.status} /> },
  { label: 'Attempts', numeric: true, cell: (delivery) => delivery.attempts },
  {
    label: 'Last attempt',
    cell: (delivery) => (
      <>
        {when(delivery.last_attempt_at)}
        {delivery.last_status_code !== null && <div>HTTP {delivery.last_status_code}</div>}
        {delivery.last_error !== null && (
          <div class="muted" data-testid="last-error">
            {delivery.last_error}
          </div>
        )}
      </>
    ),
  },
  { label: 'Next attempt', cell: (delivery) => when(delivery.next_attempt_at) },
  {
    label: 'Actions',
    screenReaderOnly: true,
    cell: (delivery) =>
      delivery.status !== 'PENDING' && (
        <form
          method="post"
          action={`/console/sensors/${sensor.id}/deliveries/${delivery.id}/redeliver`}
          data-confirm="Send this delivery again now, with a fresh retry schedule?"
        >
          <Csrf token={viewer.csrf} />
          <button type="submit" class="quiet" data-testid="redeliver">
            Redeliver
          </button>
        </form>
      ),
  },
];

export function sensorPage({
  viewer,
  sensor,
  names,
  outcomes,
  deliveries,
  nextAfter,
  notice,
  problem,
}: {
  viewer: Viewer;
  sensor: Sensor;
  /** The names of what its filter names (reference.names). */
  names: ReferenceNames;
  outcomes: DeliveryOutcomes;
  deliveries: LoggedDelivery[];
  nextAfter: string | null;
  notice: string | null;
  problem: string | null;
}): string {
  return page({
    title: `Sensor: ${sensor.name}`,
    section: '/console/sensors',
    viewer,
    children: (
      <>
        <p>
          <a href="/console/sensors">All sensors</a>
        </p>
        <Notice message={notice} />
        <Problem message={problem} />
        <section class="card">
          <p>
            <SwitchStatus sensor={sensor} /> {sensor.description}
          </p>
          <h2>Watches</h2>
          <div data-testid="sensor-filter">
            <ClauseWords clause={sensor.filter} names={names} />
          </div>
          <p class="muted">
            Deliveries go to{' '}
            {sensor.actions.map((action, i) => (
              <>
                {i > 0 && ', '}
                <Url url={action.url} />
              </>
            ))}
            . A failed delivery is retried on a schedule; redeliver sends it again at once with the same <code>webhook-id</code> and body, a fresh signature and
            a fresh retry schedule.
          </p>
          <form method="post" action={`/console/sensors/${sensor.id}/updates/${sensor.deliver_updates ? 'off' : 'on'}`} class="spaced">
            <Csrf token={viewer.csrf} />
            <button type="submit" class="quiet" data-testid="toggle-updates">
              {sensor.deliver_updates ? 'Stop updates' : 'Deliver updates'}
            </button>{' '}
            <span class="muted" data-testid="updates-state">
              {sensor.deliver_updates
                ? 'Updates are delivered: events delivered in the past 30 days get event.updated as they change, at most one per event per 10 minutes.'
                : 'Updates are off: each event is delivered once, when it first matches.'}
            </span>
          </form>
          <form method="post" action={`/console/sensors/${sensor.id}/test`}>
            <Csrf token={viewer.csrf} />
            <button type="submit" data-testid="send-test-delivery">
              Send test delivery
            </button>{' '}
            <span class="muted">Sends every webhook, now, the latest matching event of the past 30 days (or none when there is none).</span>
          </form>
        </section>
        <section class="card">
          <h2>Deliveries per day</h2>
          <DayChart
            title="Deliveries per day, by outcome"
            days={outcomes.days}
            series={[
              { label: 'succeeded', tone: 'ok', values: outcomes.succeeded },
              { label: 'failed', tone: 'bad', values: outcomes.failed },
            ]}
          />
        </section>
        <section class="card">
          <h2>Deliveries</h2>
          {deliveries.length === 0 ? (
            <p>No deliveries yet.</p>
          ) : (
            <Table
              columns={deliveryColumns(viewer, sensor)}
              rows={deliveries}
              rowAttributes={(delivery) => ({ 'data-testid': 'delivery-row', 'data-delivery-id': delivery.id })}
            />
          )}
          <nav class="pager" aria-label="Delivery pages">
            {nextAfter && <a href={`/console/sensors/${sensor.id}?starting_after=${nextAfter}`}>Older deliveries</a>}
          </nav>
        </section>
      </>
    ),
  });
}
