// `npm start`'s build: tsc runs only when the sources differ from those dist/ was built from
// (a hash of src/, the TypeScript settings and the lock file, kept in dist/.sources-hash), and
// says what it does, since on a busy machine it takes a minute. `npm run build` (--always)
// builds whatever the hash says. The hash is removed before tsc writes and written only after
// it succeeds, so a build that failed halfway, or one of other sources, is never taken for
// this one.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const STAMP = path.join(ROOT, 'dist', '.sources-hash');
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The files a build reads, relative to the root, in a stable order. */
function sources() {
  const files = fs
    .readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name)));
  return [...files.sort(), ...SETTINGS.filter((file) => fs.existsSync(path.join(ROOT, file)))];
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of sources())
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(ROOT, file)))
      .update('\0');
  return hash.digest('hex');
}

const hash = sourcesHash();
const always = process.argv.includes('--always');
const built = !always && fs.existsSync(path.join(ROOT, 'dist', 'src', 'main.js')) && fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === hash;
if (built) {
  console.log('dist/ is up to date with the sources: not building (npm run build builds anyway)');
} else {
  console.log(
    always ? 'building dist/ from the sources…' : 'building dist/ from the sources (tsc: about 6 s on an idle 2-core machine, a minute or more on a busy one)…',
  );
  const started = Date.now();
  fs.rmSync(STAMP, { force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  fs.writeFileSync(STAMP, hash);
  console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
