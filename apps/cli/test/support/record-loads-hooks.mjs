// The module-loader hook of record-loads.mjs (runs on the loader's own thread).
import { appendFileSync } from 'node:fs';

let file;

/** Takes the file to append to. */
export function initialize(data) {
  file = data.file;
}

/** Appends each URL as it loads. */
export async function load(url, context, next) {
  appendFileSync(file, `${url}\n`);
  return next(url, context);
}
