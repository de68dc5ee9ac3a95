// The bulk ingest path: NDJSON lines, each an article object of POST /ops/v1/articles,
// validated and ingested with the same rules, many per transaction (a savepoint per line, so
// a refused line is reported and skipped while the batch goes on).
import { performance } from 'node:perf_hooks';
import { compileBodyValidator } from '../../platform/http/validation.js';
import type { Database } from '../../platform/db/database.js';
import { ProblemError } from '../../platform/problems.js';
import { IngestArticleBody } from './events.schemas.js';
import { lockClustering, type EventsService } from './events.service.js';

export interface ImportProblem {
  line: number;
  detail: string;
}

export interface ImportSummary {
  imported: number;
  /** Articles stored already (the same outlet and url): nothing added. */
  existing: number;
  refused: number;
  seconds: number;
}

const validate = compileBodyValidator(IngestArticleBody);

export async function importArticles(
  db: Database,
  events: EventsService,
  lines: AsyncIterable<string>,
  options: { batchSize?: number; onProblem?: (problem: ImportProblem) => void } = {},
): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = options.batchSize ?? 500;
  let imported = 0;
  let existing = 0;
  let refused = 0;
  let batch: { line: number; body: IngestArticleBody }[] = [];
  const refuse = (line: number, detail: string) => {
    refused++;
    options.onProblem?.({ line, detail });
  };

  const flush = async () => {
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    await db.transaction(async (tx) => {
      await lockClustering(
        tx,
        current.map(({ body }) => body.event_type_id),
      );
      for (const { line, body } of current) {
        await tx.query('SAVEPOINT article');
        try {
          const ingested = await events.ingestArticleIn(tx, body);
          await tx.query('RELEASE SAVEPOINT article');
          if (ingested.existing) existing++;
          else imported++;
        } catch (error) {
          await tx.query('ROLLBACK TO SAVEPOINT article');
          if (!(error instanceof ProblemError)) throw error;
          refuse(
            line,
            `${error.extras.code ?? error.slug}: ${error.detail}${error.extras.errors ? ` (${error.extras.errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')})` : ''}`,
          );
        }
      }
    });
  };

  let lineNumber = 0;
  for await (const raw of lines) {
    lineNumber++;
    const text = raw.trim();
    if (text === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      refuse(lineNumber, 'not valid JSON');
      continue;
    }
    const errors = validate(value);
    if (errors.length > 0) {
      refuse(lineNumber, errors.map((e) => `${e.pointer || '(line)'} ${e.detail}`).join('; '));
      continue;
    }
    batch.push({ line: lineNumber, body: value as IngestArticleBody });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return { imported, existing, refused, seconds: Math.round((performance.now() - started) / 100) / 10 };
}
