// Many articles at once: `POST /ops/v1/articles/bulk` (operations.md) and `evmon import`. Each
// line is one article object of POST /ops/v1/articles, checked and ingested by the same rules
// as the single call; the valid lines of a batch are written in one transaction
// (EventsService.ingestArticles).
import { performance } from 'node:perf_hooks';
import { ProblemError } from '../../platform/problems.js';
import type { CheckedLine } from './article-lines.js';
import type { EventsService } from './events.service.js';
import type { LineOutcome } from './new-report.js';
import type { CopiesAhead } from './recent-copies.js';

export type { LineOutcome };

/**
 * Ingests checked lines: the refused ones answered as they are, the valid ones in one
 * transaction (`ahead`: their texts looked up for copy detection beforehand, EventsService.lookAhead).
 */
export async function ingestChecked(events: Pick<EventsService, 'ingestArticles'>, lines: readonly CheckedLine[], ahead?: CopiesAhead): Promise<LineOutcome[]> {
  const valid = lines.flatMap(({ line, checked, text }) => (checked instanceof ProblemError ? [] : [{ line, body: checked, text }]));
  const stored = new Map((await events.ingestArticles(valid, ahead)).map((outcome) => [outcome.line, outcome]));
  return lines.map(({ line, checked }) => (checked instanceof ProblemError ? { line, status: 400 as const, problem: checked } : stored.get(line)!));
}

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

/** `evmon import`: a file of any length, read as a stream, `batchSize` lines per transaction. */
export async function importArticles(
  events: EventsService,
  lines: AsyncIterable<string>,
  options: {
    batchSize?: number;
    onProblem?: (problem: ImportProblem) => void;
    /** After each batch committed: the lines read so far (all of them done). */
    onBatch?: (lines: number) => void;
  } = {},
): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = options.batchSize ?? 500;
  const summary = { imported: 0, existing: 0, refused: 0 };
  let batch: string[] = [];
  let firstLine = 1;
  // The batch being written: the next one is checked and its texts read meanwhile, while the
  // database works (batches are still written one after the other, in order).
  let writing: Promise<void> = Promise.resolve();
  const write = async (numbered: CheckedLine[], linesDone: number, ahead: CopiesAhead) => {
    const outcomes = await ingestChecked(events, numbered, ahead);
    options.onBatch?.(linesDone);
    for (const outcome of outcomes) {
      if (outcome.status === 400) {
        summary.refused++;
        options.onProblem?.({ line: outcome.line, detail: describe(outcome.problem) });
      } else if (outcome.status === 201) summary.imported++;
      else summary.existing++;
    }
  };
  const flush = async () => {
    const lines = batch;
    const first = firstLine;
    firstLine += lines.length;
    batch = [];
    const numbered = (await events.checkLines(lines)).map((checked) => ({ ...checked, line: checked.line + first - 1 }));
    // And its texts looked up for copy detection, in the turns the write leaves.
    const ahead = await events.lookAhead(numbered);
    try {
      await writing;
    } catch (error) {
      ahead.end();
      throw error;
    }
    writing = write(numbered, firstLine - 1, ahead);
    // Its failure is answered by the next flush's await (or the last): not an unhandled rejection meanwhile.
    writing.catch(() => {});
  };
  try {
    for await (const raw of lines) {
      batch.push(raw);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
  } catch (error) {
    // Reading or checking failed: the batch being written settles before the caller closes
    // the database under it.
    await writing.catch(() => {});
    throw error;
  }
  await writing;
  return { ...summary, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** A problem on one line of a terminal: its code or slug, its detail, and its field errors. */
function describe(problem: ProblemError): string {
  const errors = problem.extras.errors;
  if (errors?.length === 1 && errors[0]!.pointer === '' && errors[0]!.detail === 'is not valid JSON') return 'not valid JSON';
  if (errors && !problem.extras.code) return errors.map((e) => `${e.pointer || '(line)'} ${e.detail}`).join('; ');
  return `${problem.extras.code ?? problem.slug}: ${problem.detail}${errors ? ` (${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')})` : ''}`;
}
