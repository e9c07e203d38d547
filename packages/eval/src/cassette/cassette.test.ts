import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { collect, fieldOf, ScriptedProvider } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { answerEvents, CountingExecutor, requestOf, tempCassette } from '../../test/helpers.js';
import { openCassette } from './cassette.js';
import { CassetteFileError } from './errors.js';
import type { CassetteOptions } from './options.js';

const KEY = { case: 'c', repeat: 0 };

async function problemOf(action: () => unknown): Promise<string | undefined> {
  try {
    await action();
  } catch (error) {
    if (CassetteFileError.isInstance(error)) return error.problem;
    throw error;
  }
  return undefined;
}

describe('openCassette', () => {
  it.each([
    ['path', '', { mode: 'record' }],
    ['options.mode', 'x', { mode: 'rewind' }],
    ['options.strict', 'x', { mode: 'replay', strict: 'yes' }],
    ['options.overwrite', 'x', { mode: 'record', overwrite: 1 }],
    ['options.append', 'x', { mode: 'record', append: 'yes' }],
    ['options.append', 'x', { mode: 'record', append: true, overwrite: true }],
    ['options.append', 'x', { mode: 'replay', append: true }],
    ['options.meta', 'x', { mode: 'record', meta: [] }],
    ['options.timing', 'x', { mode: 'replay', timing: 'fast' }],
    ['options.secrets', 'x', { mode: 'record', secrets: 'sk' }],
    ['options.maxAgeMs', 'x', { mode: 'replay', maxAgeMs: 0 }],
    ['options.onWarning', 'x', { mode: 'replay', onWarning: 'log' }],
    ['options.clock', 'x', { mode: 'record', clock: {} }],
    ['options.strcit', 'x', { mode: 'replay', strcit: true }],
  ])('rejects a bad %s with a ConfigError naming it', async (field, path, options) => {
    expect(await fieldOf(() => openCassette(path, options as unknown as CassetteOptions))).toBe(
      field,
    );
  });

  it('writes a header with the format, version, time and meta', async () => {
    const path = tempCassette();
    await (await openCassette(path, { mode: 'record', meta: { model: 'm', sha: 'abc' } })).close();
    const header = JSON.parse(readFileSync(path, 'utf8').split('\n')[0] ?? '');
    expect(header).toMatchObject({
      type: 'header',
      format: 'mh-cassette',
      version: 1,
      meta: { model: 'm', sha: 'abc' },
    });
    expect(Date.parse(header.createdAt)).not.toBeNaN();
  });

  it('refuses to record over an existing file unless told to overwrite', async () => {
    const path = tempCassette();
    writeFileSync(path, 'precious\n');
    expect(await problemOf(() => openCassette(path, { mode: 'record' }))).toBe('exists');
    expect(readFileSync(path, 'utf8')).toBe('precious\n');
    await (await openCassette(path, { mode: 'record', overwrite: true })).close();
    expect(readFileSync(path, 'utf8')).toMatch(/^\{"type":"header"/);
  });

  it('refuses to replay a missing file or a file that is not a cassette', async () => {
    const path = tempCassette();
    expect(await problemOf(() => openCassette(path, { mode: 'lockdown' }))).toBe('missing');
    writeFileSync(path, '{"hello":"world"}\n');
    expect(await problemOf(() => openCassette(path, { mode: 'replay' }))).toBe('not-a-cassette');
  });

  it('warns about a recording older than maxAgeMs', async () => {
    const path = tempCassette();
    writeFileSync(
      path,
      '{"type":"header","format":"mh-cassette","version":1,"createdAt":"2020-01-01T00:00:00.000Z","meta":{}}\n',
    );
    const warnings: string[] = [];
    const cassette = await openCassette(path, {
      mode: 'lockdown',
      maxAgeMs: 86_400_000,
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings[0]).toMatch(/recorded .* day\(s\) ago .*older than maxAgeMs/);
    expect(cassette.warnings).toEqual(warnings);
  });
});

describe('Cassette', () => {
  it('rejects a bad key, naming the field', async () => {
    const cassette = await openCassette(tempCassette(), { mode: 'record' });
    const inner = new ScriptedProvider([]);
    expect(await fieldOf(() => cassette.provider(inner, { case: '', repeat: 0 }))).toBe('key.case');
    expect(await fieldOf(() => cassette.provider(inner, { case: 'c', repeat: 1.5 }))).toBe(
      'key.repeat',
    );
    expect(await fieldOf(() => cassette.provider(undefined, KEY))).toBe('inner');
    expect(await fieldOf(() => cassette.tools({} as CountingExecutor, KEY))).toBe('inner');
  });

  it('hands out one provider and one executor per key', async () => {
    const cassette = await openCassette(tempCassette(), { mode: 'record' });
    cassette.provider(new ScriptedProvider([]), KEY);
    cassette.tools(new CountingExecutor(), KEY);
    expect(await fieldOf(() => cassette.provider(new ScriptedProvider([]), KEY))).toBe('key');
    expect(await fieldOf(() => cassette.tools(new CountingExecutor(), KEY))).toBe('key');
    cassette.provider(new ScriptedProvider([]), { case: 'c', repeat: 1 });
    expect(cassette.keys()).toEqual([KEY, { case: 'c', repeat: 1 }]);
  });

  it('hands out nothing once closed, and closes only once', async () => {
    const cassette = await openCassette(tempCassette(), { mode: 'record' });
    await cassette.close();
    await cassette.close();
    expect(await fieldOf(() => cassette.provider(new ScriptedProvider([]), KEY))).toBe('cassette');
  });

  it('lists the recorded keys when replaying', async () => {
    const path = tempCassette();
    const recording = await openCassette(path, { mode: 'record' });
    for (const repeat of [0, 1, 2]) {
      const provider = recording.provider(new ScriptedProvider([{ events: answerEvents('x') }]), {
        case: 'c',
        repeat,
      });
      await collect(provider.stream(requestOf('q')));
    }
    await recording.close();
    const replay = await openCassette(path, { mode: 'lockdown' });
    expect(replay.keys()).toEqual([0, 1, 2].map((repeat) => ({ case: 'c', repeat })));
  });

  it('repairs a truncated last line before appending a fall-through recording', async () => {
    const path = tempCassette();
    const recording = await openCassette(path, { mode: 'record' });
    await collect(
      recording
        .provider(new ScriptedProvider([{ events: answerEvents('one') }]), KEY)
        .stream(requestOf('q')),
    );
    await recording.close();
    appendFileSync(path, '{"type":"request","case":"c","rep');
    const warnings: string[] = [];
    const replay = await openCassette(path, {
      mode: 'replay',
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings[0]).toMatch(/line 3 is truncated/);
    const provider = replay.provider(
      new ScriptedProvider([{ events: answerEvents('two', 'msg_2') }]),
      KEY,
    );
    await collect(provider.stream(requestOf('q')));
    await collect(provider.stream(requestOf('q2')));
    await replay.close();

    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(['header', 'request', 'request']);
    const again = await openCassette(path, { mode: 'lockdown' });
    expect(again.warnings).toEqual([]);
  });
});

describe('openCassette with append', () => {
  /** Records one exchange answering `text` under `key` into `path`, opened with `options`. */
  async function recordOne(
    path: string,
    key: { case: string; repeat: number },
    text: string,
    options: CassetteOptions = { mode: 'record' },
  ): Promise<void> {
    const cassette = await openCassette(path, options);
    const provider = cassette.provider(new ScriptedProvider([{ events: answerEvents(text) }]), key);
    await collect(provider.stream(requestOf('q')));
    await cassette.close();
  }

  it('adds a new key to an existing cassette, keeping its header and recordings', async () => {
    const path = tempCassette();
    await recordOne(path, KEY, 'one', { mode: 'record', meta: { model: 'm' } });
    const header = readFileSync(path, 'utf8').split('\n')[0];
    const later = { case: 'c', repeat: 1 };
    await recordOne(path, later, 'two', { mode: 'record', append: true });
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(header);
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(['header', 'request', 'request']);
    const replay = await openCassette(path, { mode: 'lockdown' });
    expect(replay.keys()).toEqual([KEY, later]);
    const served = await collect(replay.provider(undefined, later).stream(requestOf('q')));
    expect(JSON.stringify(served)).toContain('two');
  });

  it('creates the cassette when there is none yet', async () => {
    const path = tempCassette();
    await recordOne(path, KEY, 'one', { mode: 'record', append: true });
    const replay = await openCassette(path, { mode: 'lockdown' });
    expect(replay.keys()).toEqual([KEY]);
  });

  it('refuses a key the cassette already holds, naming the key', async () => {
    const path = tempCassette();
    await recordOne(path, KEY, 'one');
    const cassette = await openCassette(path, { mode: 'record', append: true });
    expect(await fieldOf(() => cassette.provider(new ScriptedProvider([]), KEY))).toBe('key');
    expect(await fieldOf(() => cassette.tools(new CountingExecutor(), KEY))).toBe('key');
    await cassette.close();
  });
});
