#!/usr/bin/env node
// The operator command line. It runs the TypeScript sources through tsx, so it never depends
// on a stale build.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
