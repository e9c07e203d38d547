const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Remembers a server's process group so it is killed if we exit without closing it (a detached
 * group would otherwise outlive us).
 */
export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) killGroup(group, 'SIGKILL');
  });
}

/** Forgets a process group that has been killed. */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

/** Signals every process in the group led by `pid`; a group that is already gone is ignored. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}
