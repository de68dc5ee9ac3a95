// Bulk ingest is ingest (issue: corpus loading, point 2): the same random articles, loaded one
// by one with POST /ops/v1/articles into one copy of a corpus and in bulk batches of random
// size with POST /ops/v1/articles/bulk into another, with entity and event merges and
// deletions between batches, give the same corpus: the same answer per line, the same events
// holding the same reports, the same event state, the same search index rows, the same
// receive order, and the same changes handed to subscribers.
//
// The two copies live in one database under two event types with the same roles and
// template (clustering never crosses types), sharing outlets and entities, so an entity merge
// or deletion hits both at once; an event merge or deletion is made in both, on corresponding
// events. Urls differ by a prefix per copy (an article is identified by outlet and url,
// whatever its type). Events correspond through the line whose article opened them, reports
// through the line that stored them.
//
// Report dates tie on purpose (one story from several outlets at one instant). Where the
// rules say "the earliest report" or "the event first reported most recently", a tie goes by
// id, and ids follow creation order: a loader gives the same answers only if it creates
// reports and events in the order of the lines, as the single call meets them.
//
// Seeded: the seed is printed, and EVMON_TEST_SEED repeats a run. EVMON_TEST_ARTICLES draws
// more lines than the 200 a suite run can afford (for a longer search by hand).
import assert from 'node:assert/strict';
import { eventRevisionsStore } from '../../src/modules/corpus/event-revisions.store.js';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { EventChange } from '../../src/modules/corpus/event-changes.js';
import { testCorpus, type TestCorpus } from '../helpers/corpus.js';
import { typeSnapshot, type CopyNames, type Snapshot } from '../helpers/corpus-snapshot.js';
import { bearer, type HttpResponse } from '../helpers/http.js';
import { seeded } from '../helpers/mixed-load.js';
import { ARTICLE_ROLES, ARTICLE_TEMPLATE, articleGenerator, type ArticleCopy, type ArticleWorld, renderLine } from '../helpers/random-articles.js';
import { isolatedDatabase, OPS_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const SEED = Number(process.env.EVMON_TEST_SEED ?? Date.now() % 100_000);
const ARTICLES = Number(process.env.EVMON_TEST_ARTICLES ?? 200);
// Receive times over 24 days; the clock starts before the last of them, so a few reports are
// not counted yet when their event is read.
const START = Date.parse('2026-11-01T00:00:00.000Z');
const DAYS = 24;
const NOW = '2026-11-24T12:00:00.000Z';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

interface Copy extends ArticleCopy, CopyNames {
  eventKey: Map<string, string>;
  reportLine: Map<string, number>;
  /** A line's answer in names both copies share; a 201 names its report (and a new event) first. */
  outcome(line: number, status: number, body: any): unknown;
}

function corpusCopy(type: { id: string; code_name: string }, urlPrefix: string, wordSuffix: string): Copy {
  const eventKey = new Map<string, string>();
  const eventIds = new Map<string, string>();
  const reportLine = new Map<string, number>();
  const text = (value: string) =>
    value
      .replaceAll(urlPrefix, '')
      .replaceAll(type.id, 'TYPE')
      .replaceAll(type.code_name, 'TYPE_CODE')
      .replace(UUID, (id) => eventKey.get(id) ?? id);
  return {
    typeId: type.id,
    urlPrefix,
    wordSuffix,
    eventKey,
    reportLine,
    eventId: (key) => eventIds.get(key),
    text,
    outcome(line, status, body) {
      if (status === 201) {
        reportLine.set(body.id, line);
        if (!eventKey.has(body.incident_id)) {
          eventKey.set(body.incident_id, `e${line}`);
          eventIds.set(`e${line}`, body.incident_id);
        }
      }
      if (status === 201 || status === 200) {
        const copyOf = body.copy_of_report_id === null ? null : (reportLine.get(body.copy_of_report_id) ?? `unknown ${body.copy_of_report_id}`);
        return {
          status,
          report: reportLine.get(body.id) ?? `unknown ${body.id}`,
          event: eventKey.get(body.incident_id) ?? `unknown ${body.incident_id}`,
          copy_of: copyOf,
        };
      }
      const { request_id: _, ...rest } = body ?? {};
      return { status, body: JSON.parse(text(JSON.stringify(rest))) };
    },
  };
}

/** Fails with both values and the seed when they differ. */
function same(label: string, oneByOne: unknown, inBulk: unknown): void {
  if (!isDeepStrictEqual(oneByOne, inBulk)) {
    assert.fail(`seed ${SEED}, ${label} differs:\n  one by one: ${JSON.stringify(oneByOne)}\n  in bulk:    ${JSON.stringify(inBulk)}`);
  }
}

function sameSnapshots(label: string, oneByOne: Snapshot, inBulk: Snapshot): void {
  for (const table of Object.keys(oneByOne)) {
    const keys = [...new Set([...Object.keys(oneByOne[table]!), ...Object.keys(inBulk[table]!)])].sort();
    for (const key of keys) same(`${label}: ${table} ${key}`, oneByOne[table]![key], inBulk[table]![key]);
  }
}

const byLine = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1));

/** The fields a revision records (the search-event fields that can change), sorted. */
const REVISION_FIELDS = [
  'distinct_outlet_count',
  'first_report_date',
  'happened_at',
  'independent_source_count',
  'involved_entities',
  'last_report_date',
  'matched_report_count',
  'sentence',
];

describe('bulk ingest equivalence', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  before(async () => {
    // A schema of its own on PostgreSQL: the hand-off jobs compared are this server's alone.
    database = await isolatedDatabase();
    server = await startServer(database.env);
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: NOW });
  });
  after(async () => {
    await server.close();
    await database.drop();
  });

  it('when the same articles are ingested one by one and in bulk batches, with entity and event changes between batches, then the two corpora are the same', async (t) => {
    t.diagnostic(`seed ${SEED} (EVMON_TEST_SEED repeats it)`);
    const random = seeded(SEED);
    const int = (n: number) => Math.floor(random() * n);
    const chance = (p: number) => random() < p;
    const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
    const db = server.runtime.db;

    const one = corpusCopy(await corpus.eventType(ARTICLE_ROLES, ARTICLE_TEMPLATE), 'https://one.news.example', '');
    const bulk = corpusCopy(await corpus.eventType(ARTICLE_ROLES, ARTICLE_TEMPLATE), 'https://bulk.news.example', 'q');
    const world: ArticleWorld = { outlets: [], pools: { buyer: [], seller: [], mentioned: [] } };
    for (let i = 0; i < 4; i++) (world.outlets as string[]).push(await corpus.outlet());
    for (const [pool, size] of [
      ['buyer', 5],
      ['seller', 6],
      ['mentioned', 4],
    ] as const) {
      for (let i = 0; i < size; i++) world.pools[pool].push(await corpus.entity());
    }
    const articles = articleGenerator(random, world, START, DAYS);

    // The changes handed to subscribers since the last look, per copy: a set of (subscriber,
    // change, event), since the bulk path publishes a touched event once per batch where the
    // single path publishes it once per report.
    let lastJob = 0;
    const published = async () => {
      const rows = await db.query<{ id: string | number; kind: string; payload: EventChange }>('SELECT id, kind, payload FROM jobs WHERE id > $1 ORDER BY id', [
        lastJob,
      ]);
      lastJob = Number(rows.at(-1)?.id ?? lastJob);
      const sets = new Map<Copy | null, Set<string>>([
        [one, new Set()],
        [bulk, new Set()],
        [null, new Set()],
      ]);
      // A bulk request's `reports-added` names many events: each reads as the single path's
      // `report-added` of that event (the same news for a subscriber: the event gained reports).
      type Seen = { kind: string; payload: { kind: string; eventId: string; mergedIntoEventId?: string } };
      const changes = rows
        .filter((row) => row.kind.startsWith('corpus.event-changed:'))
        .flatMap(({ kind, payload }): Seen[] =>
          payload.kind === 'reports-added'
            ? payload.eventIds.map((eventId) => ({ kind, payload: { kind: 'report-added', eventId } }))
            : [
                {
                  kind,
                  payload: {
                    kind: payload.kind,
                    eventId: payload.eventId,
                    ...(payload.kind === 'merged' ? { mergedIntoEventId: payload.mergedIntoEventId } : {}),
                  },
                },
              ],
        );
      for (const { kind, payload } of changes) {
        const copy = [one, bulk].find((c) => c.eventKey.has(payload.eventId)) ?? null;
        const into = payload.mergedIntoEventId ? ` into ${copy?.eventKey.get(payload.mergedIntoEventId) ?? payload.mergedIntoEventId}` : '';
        sets.get(copy)!.add(`${kind.split(':')[1]} ${payload.kind} ${copy?.eventKey.get(payload.eventId) ?? payload.eventId}${into}`);
      }
      assert.deepEqual([...sets.get(null)!], [], 'every change published is of an event of one copy');
      return { one: [...sets.get(one)!].sort(), bulk: [...sets.get(bulk)!].sort() };
    };
    const snapshots = async () => ({ one: await typeSnapshot(db, one.typeId, one), bulk: await typeSnapshot(db, bulk.typeId, bulk) });
    const ops = (method: string, path: string, body?: unknown) => corpus.ops(method, path, body);
    const answer = (copy: Copy, response: HttpResponse) => {
      const { request_id: _, ...body } = response.json ?? {};
      return { status: response.status, body: JSON.parse(copy.text(JSON.stringify(body))) };
    };

    // What the run went through, printed at the end: a seed that tried little shows.
    const tally = new Map<string, number>();
    const count = (what: string) => tally.set(what, (tally.get(what) ?? 0) + 1);

    let line = 0;
    for (let batch = 1; line < ARTICLES; batch++) {
      const size = Math.min(ARTICLES - line, chance(0.2) ? 1 + int(3) : 5 + int(40));
      // Events from earlier batches, which a line may name by incident_id.
      const known = [...one.eventKey.values()].sort(byLine);
      const lines = Array.from({ length: size }, () => articles.next(known));
      const first = line + 1;
      line += size;

      const oneByOne: unknown[] = [];
      for (const [i, drawn] of lines.entries()) {
        const response = await server.http.request('POST', '/ops/v1/articles', {
          headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/json' },
          rawBody: renderLine(drawn, one, bulk),
        });
        oneByOne.push(one.outcome(first + i, response.status, response.json));
      }

      // The same lines in one request, a blank line here and there (it gets no result).
      const body: string[] = [];
      const lineOfBodyLine = new Map<number, number>();
      for (const [i, drawn] of lines.entries()) {
        if (chance(0.05)) body.push('');
        body.push(renderLine(drawn, bulk, one));
        lineOfBodyLine.set(body.length, first + i);
      }
      const response = await server.http.request('POST', '/ops/v1/articles/bulk', {
        headers: { ...bearer(OPS_TOKEN), 'content-type': 'application/x-ndjson' },
        rawBody: body.join('\n'),
      });
      assert.equal(response.status, 200, response.text);
      const results: any[] = response.json.results;
      same(
        `batch ${batch}: the lines answered`,
        [...lineOfBodyLine.keys()],
        results.map((r) => r.line),
      );
      const inBulk = results.map((r) => bulk.outcome(lineOfBodyLine.get(r.line)!, r.status, r.status === 400 ? r.problem : r));
      for (const [i, drawn] of lines.entries()) {
        same(`batch ${batch}, line ${first + i} ${renderLine(drawn, one, bulk)}`, oneByOne[i], inBulk[i]);
        const { status, report, copy_of } = oneByOne[i] as { status: number; report?: number; copy_of?: number | null };
        count(status === 200 && report! >= first ? '200 (same batch)' : String(status));
        if (status === 201 && copy_of !== null) count(copy_of! >= first ? 'copy (of the same batch)' : 'copy');
      }
      const counts = (outcomes: unknown[]) => [201, 200, 400].map((status) => outcomes.filter((o) => (o as { status: number }).status === status).length);
      same(`batch ${batch}: accepted, existing, refused`, counts(oneByOne), [response.json.accepted, response.json.existing, response.json.refused]);

      const changes = await published();
      same(`batch ${batch}: changes published`, changes.one, changes.bulk);
      const state = await snapshots();
      sameSnapshots(`after batch ${batch}`, state.one, state.bulk);

      // Between batches: entity changes (shared, so both copies at once) and event changes
      // (made in each copy on its corresponding events), then the background refreshes.
      const entities = [...world.pools.buyer, ...world.pools.seller, ...world.pools.mentioned];
      if (chance(0.3)) {
        const merged = await ops('POST', `/entities/${pick(entities)}/merge`, { into_entity_id: pick(entities) });
        assert.ok([200, 400, 404, 409].includes(merged.status), merged.text);
        count(`entity merge ${merged.status}`);
      }
      if (chance(0.2)) {
        const deleted = await ops('DELETE', `/entities/${pick(entities)}`);
        assert.ok([204, 404, 409].includes(deleted.status), deleted.text);
        count(`entity deletion ${deleted.status}`);
      }
      if (chance(0.4)) world.pools[pick(['buyer', 'seller', 'mentioned'] as const)].push(await corpus.entity());
      // The entity changes' refreshes (one background job over both copies' events) finish
      // before the event changes: run between one copy's event merge and the other's, a
      // refresh would find the event merged in one copy and live in the other.
      await server.ops.post('/drain');
      const live = (
        await db.query<{ id: string }>('SELECT id FROM events WHERE event_type_id = $1 AND merged_into_event_id IS NULL AND deleted_at IS NULL', [one.typeId])
      )
        .map((row) => one.eventKey.get(row.id)!)
        .sort(byLine);
      const every = [...one.eventKey.values()].sort(byLine);
      const someEvent = () => (chance(0.85) && live.length > 0 ? pick(live) : pick(every));
      for (let i = chance(0.5) ? 1 + int(3) : 0; i > 0 && every.length > 1; i--) {
        const [from, into] = [someEvent(), someEvent()];
        const merges = [];
        for (const copy of [one, bulk]) {
          merges.push(answer(copy, await ops('POST', `/events/${copy.eventId(from)}/merge`, { into_event_id: copy.eventId(into) })));
        }
        same(`after batch ${batch}: merging event ${from} into ${into}`, merges[0], merges[1]);
        count(`event merge ${merges[0]!.status}`);
      }
      if (chance(0.25) && every.length > 0) {
        const key = someEvent();
        const deletions = [];
        for (const copy of [one, bulk]) deletions.push(answer(copy, await ops('DELETE', `/events/${copy.eventId(key)}`)));
        same(`after batch ${batch}: deleting event ${key}`, deletions[0], deletions[1]);
        count(`event deletion ${deletions[0]!.status}`);
      }
      await server.ops.post('/drain');
      const refreshed = await published();
      same(`after batch ${batch}: changes published by merges, deletions and refreshes`, refreshed.one, refreshed.bulk);
      await server.ops.post('/clock', { advance_seconds: 60 });
      count('batches');
    }

    const state = await snapshots();
    sameSnapshots('at the end', state.one, state.bulk);
    const keys = [...one.eventKey.values()].sort(byLine);
    same('events', keys, [...bulk.eventKey.values()].sort(byLine));
    for (const key of keys) {
      same(
        `event ${key} as the operator reads it`,
        answer(one, await ops('GET', `/events/${one.eventId(key)}`)),
        answer(bulk, await ops('GET', `/events/${bulk.eventId(key)}`)),
      );
    }
    // Revisions: each live event's latest revision holds the event as it reads now, whether the
    // bulk path made it from what its batch held or the single path from the event's view.
    for (const copy of [one, bulk]) {
      const live = await db.query<{ id: string }>(
        'SELECT id FROM events e WHERE e.event_type_id = $1 AND e.merged_into_event_id IS NULL AND e.deleted_at IS NULL',
        [copy.typeId],
      );
      const latest = await eventRevisionsStore.latest(
        db,
        live.map((row) => row.id),
      );
      const heads = [...latest].map(([event_id, head]) => ({ event_id, state: head.state as unknown as Record<string, unknown> }));
      assert.ok(heads.length > 0);
      for (const head of heads) {
        // As GET /v1/events/{id} reads it: every report, received_at in the clock's future too.
        const event = (await server.runtime.eventReads.get(head.event_id)) as unknown as Record<string, unknown>;
        assert.deepEqual(Object.keys(head.state).sort(), REVISION_FIELDS);
        const read = Object.fromEntries(REVISION_FIELDS.map((field) => [field, event[field]]));
        assert.deepEqual(
          head.state,
          read,
          `event ${copy.eventKey.get(head.event_id)} (${copy === one ? 'one by one' : 'bulk'}): its latest revision's state is the event as read`,
        );
      }
    }
    // Clustering reads an event's window on its participant rows: on both paths, after merges,
    // deletions and in-place updates, each row's anchor is its event's.
    const offAnchor = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_participants p JOIN events e ON e.id = p.event_id
        WHERE e.event_type_id = ANY($1::uuid[]) AND p.anchor IS DISTINCT FROM COALESCE(e.happened_on::timestamp AT TIME ZONE 'UTC', e.first_report_date)`,
      [[one.typeId, bulk.typeId]],
    );
    assert.equal(offAnchor[0]!.n, 0, 'participant rows whose anchor is not their event window anchor');
    // No key keeps an event's participant rows one per entity (migration 035): its writers do.
    const repeated = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM event_participants p JOIN events e ON e.id = p.event_id
        WHERE e.event_type_id = ANY($1::uuid[]) GROUP BY p.event_id, p.entity_id HAVING count(*) > 1) AS twice`,
      [[one.typeId, bulk.typeId]],
    );
    assert.equal(repeated[0]!.n, 0, 'an event with two rows for one participant');
    // A live event's participants are among the entities its row involves (the live ones):
    // the row lists them, and only a merge or deletion (which moves or drops the rows at once)
    // leaves the row behind until the refresh.
    const strays = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_participants p JOIN events e ON e.id = p.event_id
        WHERE e.event_type_id = ANY($1::uuid[]) AND (e.merged_into_event_id IS NOT NULL OR e.deleted_at IS NOT NULL OR NOT p.entity_id = ANY(e.involved_entity_ids))`,
      [[one.typeId, bulk.typeId]],
    );
    assert.equal(strays[0]!.n, 0, 'participant rows of events gone, or of entities their event does not involve');
    // These references have no foreign keys (migrations 017 and 033: values and mentions are
    // arrays on the report's row): the code that writes them keeps them.
    const dangling = await db.query<{ what: string; n: number }>(
      `SELECT 'role of no event-type role' AS what, count(*)::int AS n FROM report_roles rr WHERE NOT EXISTS (SELECT 1 FROM event_type_roles t WHERE t.id = rr.role_id)
       UNION ALL SELECT 'role naming no entity', count(*)::int FROM report_roles rr WHERE rr.entity_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = rr.entity_id)
       UNION ALL SELECT 'mention of no entity', count(*)::int FROM report_mentions m WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = m.entity_id)
       UNION ALL SELECT 'index row of no event', count(*)::int FROM event_role_values v WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = v.event_id)`,
    );
    assert.deepEqual(dangling, [
      { what: 'role of no event-type role', n: 0 },
      { what: 'role naming no entity', n: 0 },
      { what: 'mention of no entity', n: 0 },
      { what: 'index row of no event', n: 0 },
    ]);
    const live = Object.values(state.one.events!).filter((e: any) => e.merged_into === null && e.deleted_at === null).length;
    // Copies were found, against the corpus and within a batch (a copy of every third text, or so).
    assert.ok((tally.get('copy') ?? 0) + (tally.get('copy (of the same batch)') ?? 0) > 0, 'no copy among the lines');
    const tallied = [...tally].map(([what, n]) => `${what}: ${n}`).join(', ');
    t.diagnostic(`${ARTICLES} lines (${tallied}); ${one.reportLine.size} reports in ${keys.length} events, ${live} live`);
  });
});
