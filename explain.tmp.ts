import { PGlite } from '@electric-sql/pglite';
import { filterConditions, SqlParams } from './src/modules/filters/filter-sql.js';
import { compileFilter, normalizeFilter } from './src/modules/filters/filter.js';
import { databaseEntityResolver } from './src/modules/filters/entity-resolver.js';
const pg = await PGlite.create('/tmp/evbench/pglite-data/pglite');
const db = { query: async (sql: string, p?: readonly unknown[]) => (await pg.query(sql, p as unknown[])).rows as any[], exec: async (s: string) => { await pg.exec(s); } };
const type = (await db.query(`SELECT id FROM event_types WHERE code_name = $1`, [process.argv[2] ?? 'funding_round']))[0].id;
const seq = (await db.query(`SELECT max(received_seq) AS s FROM reports`))[0].s;
const f = JSON.parse(process.argv[3] ?? '{}');
const popular = (await db.query('SELECT entity_id FROM event_entities GROUP BY entity_id ORDER BY count(*) DESC LIMIT 40')).map((r: any) => r.entity_id);
if (f.list) f.involved_entity_ids = popular.slice(20, 40);
delete f.list; delete f.notype; delete f.days;
if (f.outlets) f.required_source_news_outlet_ids = (await db.query('SELECT id FROM news_outlets ORDER BY id LIMIT 3')).map((r: any) => r.id);
delete f.outlets;
const compiled = await compileFilter(normalizeFilter({ event_type_id: f.notype ? null : type, ...f }), databaseEntityResolver(db as any));
const params = new SqlParams();
const where = [...filterConditions(compiled, params, Number(seq)), `e.first_report_date >= ${params.add(new Date(Date.now() - (f.days ?? 30) * 86400000), '::timestamptz')}`];
for (const q of [`SELECT count(*) FROM events e WHERE ${where.join(' AND ')}`, `SELECT e.id FROM events e WHERE ${where.join(' AND ')} ORDER BY e.first_report_date DESC, e.id DESC LIMIT 21`]) {
  const t = performance.now();
  const r = await pg.query('EXPLAIN (ANALYZE, BUFFERS off) ' + q, params.values);
  console.log(r.rows.map((x: any) => x['QUERY PLAN']).join('\n'), '\n', (performance.now() - t).toFixed(1), 'ms\n');
}
await pg.close();
