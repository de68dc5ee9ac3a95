// Operator API: the clock and background work (operations.md, "Background work and time").
import { Type } from '@sinclair/typebox';
import { isManualClock, type Clock } from '../../platform/clock.js';
import { storableInstant } from '../../platform/instants.js';
import { StrictObject, Timestamp } from '../../platform/http/schema-kit.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import type { JobQueue } from '../../platform/jobs.js';
import { ProblemError } from '../../platform/problems.js';
import { feature } from '../../platform/http/feature.js';

const ops = { access: 'ops' as const };
const tags = ['Operator: time and background work'];

const ClockView = Type.Object(
  { object: Type.Literal('clock'), now: Timestamp, mode: Type.Union([Type.Literal('system'), Type.Literal('manual')]) },
  { $id: 'Clock' },
);
const SetClockBody = StrictObject({
  now: Type.Optional(Timestamp),
  advance_seconds: Type.Optional(Type.Number({ minimum: -10 * 365 * 86_400, maximum: 10 * 365 * 86_400 })),
});

// Every timestamp the API writes is RFC 3339, four-digit years: a clock outside them would
// store rows that no answer could show.
function refuseOutsideRange(instantMs: number, pointer: string): void {
  if (storableInstant(new Date(instantMs))) return;
  throw new ProblemError('validation-failed', 'The clock must stay within years 1 to 9999 (0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z).', {
    errors: [{ pointer, detail: 'would put the clock outside years 1 to 9999' }],
  });
}

export function opsRoutes(app: TypedApp, deps: { clock: Clock; jobs: JobQueue; drain: () => Promise<void> }): void {
  const { clock, jobs } = deps;
  const view = () => ({ object: 'clock' as const, now: clock.now().toISOString(), mode: clock.mode });

  app.get('/clock', { config: ops, schema: { operationId: 'opsGetClock', summary: 'Read the clock', tags, response: { 200: ClockView } } }, async () => view());

  app.post(
    '/clock',
    { config: ops, schema: { operationId: 'opsSetClock', summary: 'Set or advance the test clock', tags, body: SetClockBody, response: { 200: ClockView } } },
    async (request) => {
      if (!isManualClock(clock)) throw new ProblemError('not-found', 'The clock is settable only with EVMON_TEST_CLOCK=1.');
      const { now, advance_seconds: advance } = request.body ?? {};
      // The new time is worked out and checked whole before the clock moves, so a refused
      // request leaves it where it was.
      let target = clock.nowMs();
      if (now !== undefined) {
        target = new Date(now).getTime();
        // The date-time format admits forms (leap seconds, hour-only offsets) that Date cannot read.
        if (Number.isNaN(target)) {
          throw new ProblemError('validation-failed', 'The clock needs a timestamp like 2026-11-22T06:23:42.123Z.', {
            errors: [{ pointer: '/now', detail: 'is not a readable timestamp' }],
          });
        }
        refuseOutsideRange(target, '/now');
      }
      if (advance !== undefined) {
        target += Math.round(advance * 1000);
        refuseOutsideRange(target, '/advance_seconds');
      }
      clock.set(new Date(target));
      return view();
    },
  );

  app.post(
    '/drain',
    {
      config: ops,
      schema: {
        operationId: 'opsDrain',
        summary: 'Run background work until none is due',
        tags,
        response: { 200: Type.Object({ object: Type.Literal('drain'), jobs: Type.Record(Type.String(), Type.Integer()) }) },
      },
    },
    async () => {
      await deps.drain();
      return { object: 'drain' as const, jobs: await jobs.counts() };
    },
  );
}

export const opsFeature = (deps: { clock: Clock; jobs: JobQueue; drain: () => Promise<void> }) => feature({ ops: (app) => opsRoutes(app, deps) });
