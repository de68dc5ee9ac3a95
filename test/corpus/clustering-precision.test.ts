// Clustering precision: a report never joins an event whose reports name a different entity
// (by survivor) in a NAMED_ENTITY role the report also carries; among the events that
// qualify, the most recently first-reported still wins.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testCorpus, type TestCorpus, unique } from '../helpers/corpus.js';
import { dealType } from '../helpers/reporting.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('clustering precision', () => {
  let server: TestServer;
  let corpus: TestCorpus;
  let deal: { id: string };
  let outlet: string;
  before(async () => {
    server = await startServer();
    corpus = testCorpus(server);
    await server.ops.post('/clock', { now: '2026-11-20T12:00:00.000Z' });
    deal = await dealType(corpus);
    outlet = await corpus.outlet();
  });
  after(() => server.close());

  const report = (day: string, roles: Record<string, string>) =>
    corpus.article({
      outlet_id: outlet,
      event_type_id: deal.id,
      published_at: `2026-11-${day}T08:00:00.000Z`,
      roles: Object.entries(roles).map(([role, entity_id]) => ({ role, entity_id })),
    });

  it('when a report names another entity in a role the event fills, then it opens its own event; a report that agrees, or leaves the role out, joins', async () => {
    const casperLlc = await corpus.entity(`Casper LLC ${unique()}`);
    const spencer = await corpus.entity(`Spencer LLC ${unique()}`);
    const casperGroup = await corpus.entity(`Casper Group ${unique()}`);
    const agreed = await report('18', { acquirer: casperLlc, target: spencer });
    const other = await report('18', { acquirer: casperLlc, target: casperGroup });
    assert.notEqual(other, agreed, 'another deal of the same acquirer is another event');
    // The newest qualifying event wins: "other" is newer, and a report naming only the
    // acquirer qualifies for both.
    assert.equal(await report('19', { acquirer: casperLlc }), other);
    assert.equal(await report('19', { acquirer: casperLlc, target: spencer }), agreed, 'agreeing on every role it carries joins, newest or not');
    assert.equal(await report('19', { target: spencer }), agreed);
  });

  it('when the entities differ only by an entity merge, then they are one entity and the report joins', async () => {
    const buyer = await corpus.entity();
    const target = await corpus.entity();
    const alias = await corpus.entity();
    const first = await report('18', { acquirer: buyer, target });
    const merged = await corpus.ops('POST', `/entities/${alias}/merge`, { into_entity_id: target });
    assert.ok(merged.status < 300, merged.text);
    assert.equal(await report('19', { acquirer: buyer, target: alias }), first, 'the merged-away entity is its survivor');
  });

  it('when an event already names two entities in a role, then a report naming one of them in it does not join', async () => {
    const buyer = await corpus.entity();
    const [a, b] = [await corpus.entity(), await corpus.entity()];
    const first = await report('18', { acquirer: buyer, target: a });
    // Joined through the acquirer by incident_id, so the event names both targets.
    const joined = await corpus.ops('POST', '/articles', {
      outlet_id: outlet,
      event_type_id: deal.id,
      published_at: '2026-11-18T09:00:00.000Z',
      incident_id: first,
      roles: [
        { role: 'acquirer', entity_id: buyer },
        { role: 'target', entity_id: b },
      ],
    });
    assert.equal(joined.json.incident_id, first);
    assert.notEqual(await report('19', { acquirer: buyer, target: a }), first, 'the event names b as target too');
  });
});
