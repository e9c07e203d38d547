/** Variables a server inherits from our environment; nothing else leaks (API keys stay with us). */
export const INHERITED_ENV_KEYS: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'TMPDIR',
  'TEMP',
  'TMP',
];

/**
 * Builds a server's environment: the inherited keys that are set in `parent` (skipping exported
 * shell functions, whose values start with `()`), then `explicit` on top. An explicit `undefined`
 * removes an inherited key.
 */
export function childEnvironment(
  explicit: Readonly<Record<string, string | undefined>> = {},
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV_KEYS) {
    const value = parent[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  for (const [key, value] of Object.entries(explicit)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
