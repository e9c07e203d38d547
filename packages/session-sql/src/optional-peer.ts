import { ConfigError } from '@mh/core';

/**
 * Imports an optional peer dependency (a database driver) on first use, so a user installs only
 * the driver of the engine they use. A driver that is not installed is a `ConfigError` on
 * `driver` naming the package to install; any other failure to load it is rethrown as it is.
 *
 * @param name The package, as `load` imports it.
 * @param neededBy The function that needs it, for the message.
 * @param load `() => import(name)`, written out so bundlers and types see the import.
 */
export async function loadOptionalPeer<T>(
  name: string,
  neededBy: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(`'${name}'`);
    if (!missing) throw error;
    throw new ConfigError(
      'driver',
      `${neededBy} needs the package ${JSON.stringify(name)} (an optional peer dependency of @mh/session-sql): install it with \`pnpm add ${name}\``,
      { cause: error },
    );
  }
}
