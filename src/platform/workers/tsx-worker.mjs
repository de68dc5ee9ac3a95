// The entry of a worker thread when the process runs the TypeScript sources through tsx (the
// command line, the tests, `npm run bench`): a worker does not inherit the loader that the
// process registered, so it registers its own before it imports the task's module (named in
// workerData), whose default export is the task. Built processes start the module itself.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const task = await import(workerData.module);
export default task.default;
