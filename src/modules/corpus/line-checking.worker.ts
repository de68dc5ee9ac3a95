// The task of line-checker.ts's worker threads: a slice of a bulk batch checked and its texts
// read (article-lines.ts), answered in the form that crosses threads.
import { checkedLines, type SentLine, sentLine } from './article-lines.js';

export interface LineCheckingTask {
  lines: string[];
  /** The number of the slice's first line in its batch. */
  first: number;
}

export default function checkLineSlice({ lines, first }: LineCheckingTask): SentLine[] {
  return checkedLines(lines, first).map(sentLine);
}
