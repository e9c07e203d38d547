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
  process.once('exit', killAllServerGroups);
}

/** Forgets a process group that has been killed. */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

/**
 * SIGKILLs the process group of every stdio server this process started and has not closed yet;
 * synchronous, so it can run in an `exit` handler or a signal handler just before exiting. It runs
 * by itself on `process.exit`; a host that ends on a signal (SIGINT, SIGTERM) without calling
 * `process.exit` should call it, since servers live in their own process groups and do not get
 * the terminal's signals. Returns how many groups were signalled.
 */
export function killAllServerGroups(): number {
  const count = liveGroups.size;
  for (const group of liveGroups) killGroup(group, 'SIGKILL');
  liveGroups.clear();
  return count;
}

/** Signals every process in the group led by `pid`; a group that is already gone is ignored. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}
