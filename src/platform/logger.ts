// Structured logs (pino). Authorization headers never reach a log line: request logging
// records method, url and address only, and redaction covers any header or body that a
// caller might pass into a log call by mistake.
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.key',
  '*.raw_key',
  '*.signing_secret',
  'key',
  'signing_secret',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}
