import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

// One python3 process per folder (Node can make neither): spawning is what costs on a busy machine.
const MAKE_NODES = `
import os, stat, sys
os.mkfifo(os.path.join(sys.argv[1], 'pipe'))
try:
    os.mknod(os.path.join(sys.argv[1], 'null-device'), stat.S_IFCHR | 0o600, os.makedev(1, 3))
    print('device')
except OSError:
    print('no device')
`;

/**
 * Makes `pipe`, a named pipe (FIFO), in `folder`, and `null-device`, a character device with the
 * numbers of `/dev/null` (1, 3). The device needs root and a filesystem mounted without `nodev`;
 * returns whether it was made, so the device test can be skipped. `/dev/null`, not `/dev/zero`:
 * code that reads a device to the end must finish, even the code under test before its fix.
 */
export function makeFifoAndDevice(folder: string): { readonly device: boolean } {
  const said = execFileSync('python3', ['-c', MAKE_NODES, folder], { encoding: 'utf8' });
  return { device: said.trim() === 'device' };
}

/**
 * Opens and closes a FIFO read-write, which never blocks on Linux and wakes every reader stuck
 * in `open()` on it. Lets a test against blocking code give its libuv threads back afterwards.
 */
export function releaseFifoReaders(target: string): void {
  try {
    closeSync(openSync(target, constants.O_RDWR | constants.O_NONBLOCK));
  } catch {
    // Already gone: nothing is waiting on it.
  }
}

/** A Unix socket listening at `target`; close the server to remove it. */
export async function listenOnSocket(target: string): Promise<Server> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(target, () => resolve());
  });
  return server;
}
