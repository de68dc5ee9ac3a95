// Sensors: each with its status; a sensor's deliveries with their attempts and last error,
// redeliver for those no longer pending, and a test delivery on demand.
import type { Sensor, SensorDelivery } from '../../modules/sensors/sensors.schemas.js';
import { Csrf, Notice, page, Table, Problem, when, type Viewer } from './layout.js';

const Status = ({ ok, label }: { ok: boolean | null; label: string }) => <span class={`badge${ok === null ? '' : ok ? ' ok' : ' bad'}`}>{label}</span>;

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
          <Table columns={['Name', 'Status', 'Webhooks', 'Created']}>
            {sensors.map((sensor) => (
              <tr data-testid="sensor-row">
                <td>
                  <a href={`/console/sensors/${sensor.id}`}>{sensor.name}</a>
                </td>
                <td>
                  <Status ok={sensor.enabled} label={sensor.enabled ? 'Enabled' : 'Disabled'} />
                </td>
                <td>
                  {sensor.actions.map((action) => (
                    <div class="mono">{action.url}</div>
                  ))}
                </td>
                <td>{when(sensor.created_at)}</td>
              </tr>
            ))}
          </Table>
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

export function sensorPage({
  viewer,
  sensor,
  deliveries,
  nextAfter,
  notice,
  problem,
}: {
  viewer: Viewer;
  sensor: Sensor;
  deliveries: SensorDelivery[];
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
            <Status ok={sensor.enabled} label={sensor.enabled ? 'Enabled' : 'Disabled'} /> {sensor.description}
          </p>
          <p class="muted">
            Deliveries go to {sensor.actions.map((action) => action.url).join(', ')}. A failed delivery is retried on a schedule; redeliver sends it again at
            once with the same <code>webhook-id</code> and body, a fresh signature and a fresh retry schedule.
          </p>
          <form method="post" action={`/console/sensors/${sensor.id}/test`}>
            <Csrf token={viewer.csrf} />
            <button type="submit" data-testid="send-test-delivery">
              Send test delivery
            </button>{' '}
            <span class="muted">the latest matching event of the past 30 days, or none, to every webhook now.</span>
          </form>
        </section>
        <section class="card">
          <h2>Deliveries</h2>
          {deliveries.length === 0 ? (
            <p>No deliveries yet.</p>
          ) : (
            <Table
              columns={[
                'Created',
                'Type',
                'Status',
                { label: 'Attempts', numeric: true },
                'Last attempt',
                'Next attempt',
                { label: 'Actions', screenReaderOnly: true },
              ]}
            >
              {deliveries.map((delivery) => (
                <tr data-testid="delivery-row" data-delivery-id={delivery.id}>
                  <td>
                    {when(delivery.created_at)}
                    <div class="mono muted">{delivery.id}</div>
                  </td>
                  <td>{delivery.type}</td>
                  <td>
                    <Status ok={delivery.status === 'PENDING' ? null : delivery.status === 'SUCCEEDED'} label={delivery.status} />
                  </td>
                  <td class="num">{delivery.attempts}</td>
                  <td>
                    {when(delivery.last_attempt_at)}
                    {delivery.last_status_code !== null && <div>HTTP {delivery.last_status_code}</div>}
                    {delivery.last_error !== null && (
                      <div class="muted" data-testid="last-error">
                        {delivery.last_error}
                      </div>
                    )}
                  </td>
                  <td>{when(delivery.next_attempt_at)}</td>
                  <td>
                    {delivery.status !== 'PENDING' && (
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
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )}
          <nav class="pager" aria-label="Delivery pages">
            {nextAfter && <a href={`/console/sensors/${sensor.id}?starting_after=${nextAfter}`}>Older deliveries</a>}
          </nav>
        </section>
      </>
    ),
  });
}
