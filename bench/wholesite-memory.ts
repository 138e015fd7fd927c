import fs from 'node:fs';

/** One process of the service's tree over one measurement. */
export interface ProcessPeak {
  pid: number;
  /** api (the started process: API and supervisor), a worker's WORKER_KIND (audits, reports), or parent/command of a helper. */
  role: string;
  /** The highest VmRSS seen while sampling, in KiB. */
  peakRssKiB: number;
  /** VmHWM when sampling stopped: the peak since the process started (NaN if it had exited). */
  hwmKiB: number;
  /** The highest VmRSS seen in each phase of the audit (TreeMemory.phase when sampled), in KiB. */
  byPhase: Map<string, number>;
  /** CPU time (user + system) it used between the first and the last sample that saw it, in seconds. */
  cpuSeconds: number;
  /** That CPU time by phase of the audit, in seconds. */
  cpuByPhase: Map<string, number>;
}

/** Linux's USER_HZ: /proc reports CPU time in ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

/**
 * Samples the resident memory of processes (each machine's root: the API's, then worker-only ones)
 * and all their descendants every `everyMs` (250 ms): the trees are walked again each time, so a
 * worker restarted mid-run is counted under its new pid too.
 */
export class TreeMemory {
  private readonly peaks = new Map<number, ProcessPeak>();
  private readonly roles = new Map<number, string>();
  /** CPU ticks of each process when first seen. */
  private readonly firstTicks = new Map<number, number>();
  private machineAt = machineTicks();
  /** The machine's CPU ticks (all cores) in each phase of the audit, and the busy ones among them. */
  private readonly machineByPhase = new Map<string, { total: number; busy: number }>();
  private readonly timer: NodeJS.Timeout;
  /** What the audit is doing (its progress phase, e.g. crawling or analyzing), for the peaks per phase. */
  phase = 'queued';

  constructor(
    private readonly rootPids: readonly number[],
    everyMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): ProcessPeak[] {
    clearInterval(this.timer);
    this.sample();
    for (const peak of this.peaks.values()) peak.hwmKiB = statusKiB(peak.pid, 'VmHWM');
    return [...this.peaks.values()];
  }

  /** Share of the machine's CPU time that was busy, over the whole measurement and in each phase that took any. */
  machineBusy(): { all: number; byPhase: Map<string, number> } {
    const byPhase = new Map<string, number>();
    let [total, busy] = [0, 0];
    for (const [phase, ticks] of this.machineByPhase) {
      if (ticks.total > 0) byPhase.set(phase, ticks.busy / ticks.total);
      [total, busy] = [total + ticks.total, busy + ticks.busy];
    }
    return { all: busy / total, byPhase };
  }

  private sample(): void {
    const now = machineTicks();
    const spent = this.machineByPhase.get(this.phase) ?? { total: 0, busy: 0 };
    spent.total += now.total - this.machineAt.total;
    spent.busy += now.total - now.idle - (this.machineAt.total - this.machineAt.idle);
    this.machineByPhase.set(this.phase, spent);
    this.machineAt = now;
    for (const { pid, role } of this.tree()) {
      const rss = statusKiB(pid, 'VmRSS');
      if (Number.isNaN(rss)) continue;
      const peak = this.peaks.get(pid) ?? {
        pid,
        role,
        peakRssKiB: 0,
        hwmKiB: NaN,
        byPhase: new Map(),
        cpuSeconds: 0,
        cpuByPhase: new Map(),
      };
      peak.peakRssKiB = Math.max(peak.peakRssKiB, rss);
      const ticks = cpuTicks(pid);
      if (!this.firstTicks.has(pid)) this.firstTicks.set(pid, ticks);
      if (Number.isFinite(ticks)) {
        const seconds = (ticks - this.firstTicks.get(pid)!) / TICKS_PER_SECOND;
        peak.cpuByPhase.set(this.phase, (peak.cpuByPhase.get(this.phase) ?? 0) + seconds - peak.cpuSeconds);
        peak.cpuSeconds = seconds;
      }
      peak.byPhase.set(this.phase, Math.max(peak.byPhase.get(this.phase) ?? 0, rss));
      this.peaks.set(pid, peak);
    }
  }

  /**
   * The roots and their live descendants, from one pass over /proc/<pid>/stat. A root's children are
   * the workers (named by WORKER_KIND); anything deeper, or not a worker, is a helper named after its
   * parent (e.g. api/esbuild: tsx's compiler service). The first root is the API; any other is a
   * worker-only machine.
   */
  private tree(): Array<{ pid: number; role: string }> {
    const children = new Map<number, number[]>();
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        // Field 4 is the parent pid; the command name (field 2) may contain spaces.
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (state === 'Z') continue;
        const siblings = children.get(Number(ppid)) ?? [];
        siblings.push(Number(entry));
        children.set(Number(ppid), siblings);
      } catch {
        // exited meanwhile
      }
    }
    const tree = this.rootPids.map((pid, i) => ({ pid, role: i === 0 ? 'api' : 'machine' }));
    const roots = tree.length;
    for (let i = 0; i < tree.length; i++)
      for (const pid of children.get(tree[i]!.pid) ?? []) {
        let role = this.roles.get(pid);
        if (role === undefined) {
          role = roleOf(pid, i < roots, tree[i]!.role);
          this.roles.set(pid, role);
        }
        tree.push({ pid, role });
      }
    return tree;
  }
}

function roleOf(pid: number, childOfRoot: boolean, parentRole: string): string {
  try {
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const kind = fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((v) => v.startsWith('WORKER_KIND='))
      ?.slice('WORKER_KIND='.length);
    if (childOfRoot && kind && command.some((part) => /worker-main\.(ts|js)$/.test(part))) return kind;
    const script = command.find((part) => /\.(ts|js|cjs)$/.test(part)) ?? command[0] ?? '?';
    return `${parentRole}/${script.split('/').pop()}`;
  } catch {
    return `${parentRole}/?`;
  }
}

/** utime + stime of a process (fields 14 and 15 of /proc/<pid>/stat), in ticks; NaN when it is gone. */
function cpuTicks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields from the third on: utime is the 14th field of the line, the 12th here.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/** The machine's CPU ticks over all cores since boot, and the idle ones among them (/proc/stat). */
function machineTicks(): { total: number; idle: number } {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = values.map(Number);
  // idle and iowait
  return { total: ticks.reduce((a, b) => a + b, 0), idle: ticks[3]! + ticks[4]! };
}

/** A field of /proc/<pid>/status in KiB; NaN when the process is gone. */
function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** Helper processes (tsx's esbuild service and the like) are named parent/command. */
export const isHelper = (role: string) => role.includes('/');

/** The largest peak among the processes of a role (a restarted worker has several), in MiB. */
export function rolePeakMiB(peaks: ProcessPeak[], role: string): { mib: number; pids: number } {
  const mine = peaks.filter((p) => p.role === role);
  return { mib: mine.length ? Math.max(...mine.map((p) => p.peakRssKiB / 1024)) : NaN, pids: mine.length };
}
