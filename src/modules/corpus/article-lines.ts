// Bulk lines as ingest takes them (POST /ops/v1/articles/bulk and `evmon import`): each line
// read as the single call reads its body, checked against its schema, and its text read for
// copy detection (readText). Pure work on strings, done in a worker thread for large batches
// (line-checker.ts), so what crosses threads has a plain form of its own (SentLine).
import { parseJsonBody } from '../../platform/http/body-parsing.js';
import { compileBodyValidator } from '../../platform/http/validation.js';
import { type ProblemExtras, ProblemError, type ProblemSlug } from '../../platform/problems.js';
import type { TextShingles } from './copy-fingerprint.js';
import { IngestArticleBody } from './events.schemas.js';
import { readText } from './new-report.js';

const validate = compileBodyValidator(IngestArticleBody);

/** One line's text as an article body, or the problem the single call would answer for that body. */
export function checkLine(text: string): IngestArticleBody | ProblemError {
  let value: unknown;
  try {
    // As the single call reads a body: a byte-order mark and surrounding space are not JSON.
    value = parseJsonBody(Buffer.from(text.trim()));
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  const { errors, omitted } = validate(value);
  if (errors.length > 0)
    return new ProblemError('validation-failed', 'The body does not match the schema of this operation.', { errors, errorsOmitted: omitted });
  return value as IngestArticleBody;
}

/** A line checked, and its text read when valid (readText). */
export interface CheckedLine {
  line: number;
  checked: IngestArticleBody | ProblemError;
  text: TextShingles | null;
}

/** Each line of `lines` checked and its text read, numbered from `first`; blank lines dropped (they get no outcome). */
export function checkedLines(lines: readonly string[], first = 1): CheckedLine[] {
  return lines.flatMap((raw, i) => {
    if (raw.trim() === '') return [];
    const checked = checkLine(raw);
    return [{ line: first + i, checked, text: checked instanceof ProblemError ? null : readText(checked) }];
  });
}

/**
 * A checked line as it crosses threads (structured clone keeps no class): a problem as its
 * parts, and a body without its text, which was read already (the texts would be copied back
 * for nothing).
 */
export type SentLine =
  | { line: number; body: IngestArticleBody; text: TextShingles | null }
  | { line: number; problem: { slug: ProblemSlug; detail: string; extras: ProblemExtras } };

export function sentLine({ line, checked, text }: CheckedLine): SentLine {
  if (checked instanceof ProblemError) return { line, problem: { slug: checked.slug, detail: checked.detail, extras: checked.extras } };
  const { text: _read, ...body } = checked;
  return { line, body, text };
}

export function receivedLine(sent: SentLine): CheckedLine {
  if ('problem' in sent) {
    const { slug, detail, extras } = sent.problem;
    return { line: sent.line, checked: new ProblemError(slug, detail, extras), text: null };
  }
  return { line: sent.line, checked: sent.body, text: sent.text };
}
