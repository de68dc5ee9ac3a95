import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create('/tmp/evbench/pglite-data/pglite');
const t = performance.now();
await db.exec(fs.readFileSync('/tmp/evbench/delta.sql', 'utf8'));
await db.exec('VACUUM ANALYZE');
console.log('delta applied in', ((performance.now() - t) / 1000).toFixed(1), 's');
await db.close();
