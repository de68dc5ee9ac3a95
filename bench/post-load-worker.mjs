// The thread of bench/post-load.ts: runs the load it is given, `inFlight` requests at a time, and
// answers the rate and latencies after the warm-up.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'undici';

/** @param {import('./post-load.ts').PostLoad} load */
async function run(load) {
  const agent = new Agent({ connect: { ca: load.ca, servername: 'localhost' }, connections: load.inFlight });
  /** @type {number[]} */
  const latencies = [];
  let next = 0;
  let started = 0;
  await Promise.all(
    Array.from({ length: load.inFlight }, async () => {
      while (next < load.bodies.length) {
        const i = next++;
        if (i === load.warmup) started = performance.now();
        const begin = performance.now();
        const response = await request(load.url, {
          method: 'POST',
          headers: { ...load.headers, 'content-type': 'application/json' },
          body: JSON.stringify(load.bodies[i]),
          dispatcher: agent,
        });
        await response.body.dump();
        if (response.statusCode !== load.status) throw new Error(`${load.url} answered ${response.statusCode}`);
        if (i >= load.warmup) latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  latencies.sort((x, y) => x - y);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rate: latencies.length / seconds, p50: at(0.5), p99: at(0.99), count: latencies.length };
}

parentPort.postMessage(await run(workerData));
