// Every status word the console shows, in one style (sentence case, in words), whatever the API
// calls it: a sensor's switch, a beat's status, a delivery's outcome. The API's own values
// (ACTIVE, SUCCEEDED…) are the contract and stay as they are there.
type Tone = 'ok' | 'bad' | 'neutral';

const STATUSES = {
  ENABLED: { label: 'Enabled', tone: 'ok' },
  DISABLED: { label: 'Disabled', tone: 'neutral' },
  ACTIVE: { label: 'Active', tone: 'ok' },
  PAUSED_SPEND_CAP: { label: 'Paused (spend cap)', tone: 'bad' },
  PENDING: { label: 'Pending', tone: 'neutral' },
  SUCCEEDED: { label: 'Succeeded', tone: 'ok' },
  FAILED: { label: 'Failed', tone: 'bad' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

export type StatusName = keyof typeof STATUSES;

export const statusLabel = (status: StatusName): string => STATUSES[status].label;

export function Status({ status }: { status: StatusName }) {
  const { label, tone } = STATUSES[status];
  return <span class={tone === 'neutral' ? 'badge' : `badge ${tone}`}>{label}</span>;
}
