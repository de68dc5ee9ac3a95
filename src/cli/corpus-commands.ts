// evmon commands for the corpus: reference data, reporting grants, event merges and
// deletions, NDJSON import, and demo corpora. Inputs go through the operator API's schemas.
import fs from 'node:fs';
import readline from 'node:readline';
import type { TSchema } from '@sinclair/typebox';
import { importArticles } from '../modules/corpus/article-import.js';
import { CreateEntityBody, CreateEntityListBody, CreateEventTypeBody, CreateOutletBody, UpdateEventTypeBody } from '../modules/corpus/reference.schemas.js';
import { CreateGrantBody } from '../modules/reporting/reporting.schemas.js';
import { generateDemoCorpus } from '../modules/demo/demo-corpus.js';
import type { Runtime } from '../runtime.js';

export const CORPUS_USAGE = `
  outlets create --name N [--domain D]
  entities create --name N [--type T]
  entities merge <entity-id> --into <entity-id>
  entities delete <entity-id>
  entity-lists create --name N [--owner <account-id>] --entities ID[,ID…]
  event-types create --file type.json          (the body of POST /ops/v1/event-types)
  event-types update <id> --file patch.json    (the body of PATCH /ops/v1/event-types/{id})
  grants create --file grant.json              (the body of POST /ops/v1/reporting-grants)
  grants revoke <grant-id>
  events show <event-id>
  events merge <event-id> --into <event-id>
  events delete <event-id>
  import <file.ndjson> [--batch-size N]        (one POST /ops/v1/articles object per line; N lines per transaction, default 500)
  demo --events N [--seed S]                   (news articles about N generated events, through bulk ingest;
                                               prints the clustering's B-cubed precision and recall)`;

export const CORPUS_OPTIONS = {
  domain: { type: 'string' },
  type: { type: 'string' },
  into: { type: 'string' },
  owner: { type: 'string' },
  entities: { type: 'string' },
  file: { type: 'string' },
  events: { type: 'string' },
  seed: { type: 'string' },
} as const;

export interface CommandTools {
  validated<T>(schema: TSchema, value: unknown): T;
  requireId(value: string | undefined, what: string): string;
  usage(message: string): Error;
}

const readJson = (file: string | undefined, tools: CommandTools): unknown => {
  if (!file) throw tools.usage('expected --file');
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw tools.usage(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
};

/** Runs a corpus command, or answers undefined when `command` is not one. */
export async function runCorpusCommand(
  command: string,
  v: Record<string, string | undefined>,
  rest: string[],
  runtime: () => Promise<Runtime>,
  tools: CommandTools,
): Promise<unknown> {
  const { validated, requireId } = tools;
  switch (command) {
    case 'outlets create':
      return (await runtime()).reference.createOutlet(validated(CreateOutletBody, { name: v.name, ...(v.domain ? { domain: v.domain } : {}) }));
    case 'entities create':
      return (await runtime()).reference.createEntity(validated(CreateEntityBody, { name: v.name, ...(v.type ? { type: v.type } : {}) }));
    case 'entities merge':
      return (await runtime()).reference.mergeEntity(requireId(rest[0], 'an entity id'), requireId(v.into, 'an entity id after --into'));
    case 'entities delete':
      await (await runtime()).reference.deleteEntity(requireId(rest[0], 'an entity id'));
      return { object: 'entity', id: rest[0], deleted: true };
    case 'entity-lists create':
      return (await runtime()).reference.createEntityList(
        validated(CreateEntityListBody, {
          name: v.name,
          owner_account_id: v.owner ?? null,
          entity_ids: (v.entities ?? '')
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        }),
      );
    case 'event-types create':
      return (await runtime()).reference.createEventType(validated(CreateEventTypeBody, readJson(v.file, tools)));
    case 'event-types update':
      return (await runtime()).reference.updateEventType(requireId(rest[0], 'an event type id'), validated(UpdateEventTypeBody, readJson(v.file, tools)));
    case 'grants create':
      return (await runtime()).grants.create(validated(CreateGrantBody, readJson(v.file, tools)));
    case 'grants revoke':
      return (await runtime()).grants.revoke(requireId(rest[0], 'a reporting grant id'));
    case 'events show':
      return (await runtime()).events.getEvent(requireId(rest[0], 'an event id'));
    case 'events merge':
      return (await runtime()).events.mergeEvent(requireId(rest[0], 'an event id'), requireId(v.into, 'an event id after --into'));
    case 'events delete':
      await (await runtime()).events.deleteEvent(requireId(rest[0], 'an event id'));
      return { object: 'event', id: rest[0], deleted: true };
    case 'import': {
      const file = rest[0];
      if (!file || !fs.existsSync(file)) throw tools.usage(`expected an NDJSON file, got ${file ?? 'nothing'}`);
      const batchSize = Number(v['batch-size'] ?? '500');
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw tools.usage('--batch-size must be a whole number from 1 to 10000');
      const rt = await runtime();
      const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
      const summary = await importArticles(rt.events, lines, {
        batchSize,
        onProblem: (problem) => process.stderr.write(`line ${problem.line}: ${problem.detail}\n`),
        // A long import says how far it got: what is done stays done if it stops, and a run
        // again adds nothing twice (an article is its outlet and url).
        onBatch: (lines) => process.stderr.write(`lines 1 to ${lines} done\n`),
      });
      return { object: 'import', ...summary, reports_per_second: summary.seconds > 0 ? Math.round(summary.imported / summary.seconds) : summary.imported };
    }
    case 'demo': {
      const events = Number(v.events ?? '1000');
      if (!Number.isInteger(events) || events < 1 || events > 10_000_000) throw tools.usage('--events must be a whole number from 1 to 10000000');
      const seed = v.seed === undefined ? undefined : Number(v.seed);
      if (seed !== undefined && !Number.isInteger(seed)) throw tools.usage('--seed must be a whole number');
      const summary = await generateDemoCorpus(await runtime(), {
        events,
        seed,
        // Large batches: each reads the events its reports can join once for all of them, and
        // a batch spanning more of the news reaches barely more events (their 3-day windows
        // overlap). At ten million events' density 10,000 articles a batch read 2.4 events a
        // report where 2,000 read 4.9 (bench/RESULTS.md, "eleventh step").
        batchSize: 10_000,
        progress: (done, total) => process.stderr.write(`\r${done} / ${total} events`),
      });
      process.stderr.write('\n');
      return { object: 'demo_corpus', ...summary };
    }
    default:
      return undefined;
  }
}
