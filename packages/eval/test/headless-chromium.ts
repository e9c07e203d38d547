// Headless Chromium (Debian's `chromium` package) for the HTML report's browser test, run so that
// it cannot reach the network: every request goes to a local sink that records and refuses it,
// and every host name resolves to nothing.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Chromium binary: `MH_CHROMIUM`, else the first of the usual names on PATH. */
export function findChromium(): string | undefined {
  const configured = process.env.MH_CHROMIUM;
  if (configured) return configured;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('which', [name], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

/** True where a missing Chromium must fail the browser test instead of skipping it (CI). */
export function chromiumRequired(): boolean {
  return process.env.CI === 'true' || process.env.MH_REQUIRE_CHROMIUM === '1';
}

/**
 * Hosts of Chromium's own background services (component updates, sign-in, network time). Some
 * of them ask even with `--disable-background-networking`; the sink refuses them. Anything else
 * in the sink came from the page.
 */
export const CHROMIUM_SERVICE_HOST = /^(?:[\w-]+\.)*(?:google\.com|googleapis\.com|gvt1\.com)$/;

/** What a headless run printed, and what it tried to fetch. */
export interface ChromiumRun {
  readonly stdout: string;
  readonly stderr: string;
  /** The host of every request that reached the sink. */
  readonly requestedHosts: readonly string[];
}

function hostOf(requestLine: string): string {
  // `CONNECT host:443 HTTP/1.1` or `GET http://host/path HTTP/1.1`
  const target = requestLine.split(' ')[1] ?? '';
  try {
    return target.includes('://') ? new URL(target).hostname : (target.split(':')[0] ?? '');
  } catch {
    return target;
  }
}

/** Runs `chromium --headless … args` against a fresh profile, with the network cut off. */
export async function runHeadless(
  binary: string,
  args: readonly string[],
  timeoutMs = 60_000,
): Promise<ChromiumRun> {
  const requestedHosts: string[] = [];
  const sink = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      requestedHosts.push(hostOf(String(chunk).split('\r\n')[0] ?? ''));
      socket.destroy();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const port = (sink.address() as net.AddressInfo).port;
  const profile = mkdtempSync(join(tmpdir(), 'mh-chromium-profile-'));
  try {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>(
      (resolve, reject) => {
        execFile(
          binary,
          [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            `--user-data-dir=${profile}`,
            `--proxy-server=http://127.0.0.1:${port}`,
            '--proxy-bypass-list=<-loopback>',
            // Every name resolves to nothing; the sink's own address stays reachable.
            '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
            '--dns-prefetch-disable',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--disable-extensions',
            '--disable-default-apps',
            '--disable-domain-reliability',
            '--disable-client-side-phishing-detection',
            '--disable-breakpad',
            '--no-first-run',
            '--no-default-browser-check',
            '--no-pings',
            '--metrics-recording-only',
            ...args,
          ],
          { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
          (error, out, err) =>
            error
              ? reject(Object.assign(error, { stderr: err }))
              : resolve({ stdout: out, stderr: err }),
        );
      },
    );
    return { stdout, stderr, requestedHosts };
  } finally {
    sink.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
