// The baseline: a bare Fastify HTTPS route (HTTP/2 with HTTP/1.1, same certificate) that
// answers the same JSON as GET /v1/sensors, with no auth, budgets or logging.
import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';

const dataDir = process.env.BENCH_DATA_DIR!;
const app = Fastify({
  http2: true,
  https: {
    allowHTTP1: true,
    cert: fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem')),
    key: fs.readFileSync(path.join(dataDir, 'tls', 'key.pem')),
  },
});
app.get('/v1/sensors', async () => ({ object: 'list', data: [], has_more: false, next_cursor: null }));
await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
