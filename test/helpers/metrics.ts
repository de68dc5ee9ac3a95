// Reading GET /ops/v1/metrics as a scraper would: the text exposition format parsed into
// samples (name, labels, value), comments and blank lines skipped.
import assert from 'node:assert/strict';
import { bearer, type HttpClient } from './http.js';
import { OPS_TOKEN } from './server.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE.exec(line);
      assert.ok(match, `not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The names of the metrics the exposition declares (its `# TYPE` lines). */
export function declaredMetrics(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]!);
}

export interface Scrape {
  text: string;
  samples: Sample[];
  /** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels?: Record<string, string>): number;
}

export async function scrape(http: HttpClient, token = OPS_TOKEN): Promise<Scrape> {
  const response = await http.get('/ops/v1/metrics', bearer(token));
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
  const samples = parseMetrics(response.text);
  return {
    text: response.text,
    samples,
    value: (name, labels = {}) =>
      samples
        .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
        .reduce((sum, sample) => sum + sample.value, 0),
  };
}
