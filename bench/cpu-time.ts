// Where a bench's CPU went: this process (its threads included) against the whole machine.
// On a machine running nothing else, the rest is the database server's.
import os from 'node:os';

export interface CpuTime {
  /** CPU time (ms) this process has used. */
  node: number;
  /** CPU time (ms) all cores have spent busy. */
  machine: number;
}

export function cpuNow(): CpuTime {
  const { user, system } = process.cpuUsage();
  const machine = os.cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0);
  return { node: (user + system) / 1000, machine };
}

/** CPU per item (ms) between two readings: this process's, and the rest's. */
export function cpuPerItem(from: CpuTime, to: CpuTime, items: number): { node: number; rest: number } {
  const node = to.node - from.node;
  return { node: node / items, rest: (to.machine - from.machine - node) / items };
}
