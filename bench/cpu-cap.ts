import fs from 'node:fs';
import path from 'node:path';

/**
 * A CPU limit on one process, as a machine of its own would have: a cgroup (v1 `cpu` controller) with
 * a CFS quota of `cores` × the period, holding the process and its threads. On a 2-core machine the
 * audit workers, Postgres and Temporal share both cores, so a second worker finds none free; capping
 * each worker shows what a second worker adds where the worker, not the machine, is the limit.
 */
const CPU_CGROUPS = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

export class CpuCap {
  private readonly dir: string;

  private constructor(name: string, cores: number) {
    this.dir = path.join(CPU_CGROUPS, name);
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(path.join(this.dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    fs.writeFileSync(path.join(this.dir, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
  }

  /** A cgroup of `cores` CPUs named `name`; throws when this machine has no writable cgroup v1 cpu controller. */
  static create(name: string, cores: number): CpuCap {
    if (!fs.existsSync(path.join(CPU_CGROUPS, 'cgroup.procs')))
      throw new Error(`--worker-cpu needs the cgroup v1 cpu controller at ${CPU_CGROUPS}, which this machine lacks`);
    return new CpuCap(name, cores);
  }

  /** Moves a process, with all its threads, into the cgroup. */
  hold(pid: number): void {
    fs.writeFileSync(path.join(this.dir, 'cgroup.procs'), String(pid));
  }

  /** The cgroup removed, once the processes it held have exited (the kernel refuses it before). */
  remove(): void {
    try {
      fs.rmdirSync(this.dir);
    } catch {
      // still holds a process, or already gone
    }
  }
}
