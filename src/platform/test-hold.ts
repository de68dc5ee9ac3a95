// Test pause points (EVMON_TEST_SEARCH_PAUSE, EVMON_TEST_ANSWER_PAUSE): the work waits at one
// point, named in a log line the test watches for, long enough for the test to kill the process.
import type { Logger } from 'pino';

export async function testHold(logger: Logger, point: string): Promise<void> {
  logger.warn({ point }, 'test pause');
  await new Promise((resolve) => setTimeout(resolve, 120_000));
}
