// The project root, found from this file, so source (tsx) and compiled (dist/) runs agree.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('project root (package.json) not found');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot();
