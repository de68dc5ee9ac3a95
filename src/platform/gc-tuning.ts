// The server's garbage-collector setting, applied by importing this module before any other
// (src/main.ts). It must run before start-up allocates, so it is a side effect of the import.
//
// V8 "pretenures" an allocation site (allocates its objects straight in the old generation)
// once nearly all the objects it made survived a young collection, and never goes back. At
// start-up nearly everything survives (modules, schemas, migrations, reference data, the
// search index), so sites that the request path shares with start-up, the database
// driver's rows among them, stay pretenured for the life of the process. Each request's
// short-lived objects then land in the old generation, keep the young objects they point to
// alive through every young collection, and wait for a full one: on GET /v1/sensors
// (PostgreSQL, bench/sensors-throughput.ts) young collections took 3.9 ms instead of 0.8 ms
// and promoted 10 % of all that was allocated, about 18 µs of CPU per request, the largest
// single item of the service's cost over a bare route. Without pretenuring they take 1.1 ms
// and promote almost nothing. Start-up's long-lived objects are copied once more instead,
// which costs nothing measurable (bench/RESULTS.md, "tenth stretch").
import v8 from 'node:v8';

v8.setFlagsFromString('--no-allocation-site-pretenuring');
