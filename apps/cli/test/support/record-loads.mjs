// Preloaded with `node --import` by lazy-loading.test.ts: appends the URL or path of every module
// the process loads to the file MH_LOADED_MODULES names, one a line, as it loads (no exit hook to
// miss). ESM loads go through a hook thread (record-loads-hooks.mjs); CommonJS modules required
// from CommonJS (OpenTelemetry's, better-sqlite3's) never pass that hook, so `Module._load` too.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.MH_LOADED_MODULES;
if (file) {
  register(new URL('./record-loads-hooks.mjs', import.meta.url), { data: { file } });
  const load = Module._load;
  Module._load = function recordLoad(request, parent, isMain, ...rest) {
    const loaded = load.call(this, request, parent, isMain, ...rest);
    try {
      appendFileSync(file, `${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      // A built-in without a file: nothing to record.
    }
    return loaded;
  };
}
