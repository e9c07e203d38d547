import { randomBytes } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function random(alphabet: string, length: number): string {
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/**
 * Fake secrets of every shape the redactor knows, generated at test time (none is committed),
 * keyed by the name of the pattern that should mask them. Each value is the secret part only.
 */
export function fakeSecrets(): Record<string, string> {
  return {
    'anthropic-key': `sk-ant-api03-${random(`${ALNUM}_-`, 93)}AA`,
    'openai-key': `sk-proj-${random(ALNUM, 58)}T3BlbkFJ${random(ALNUM, 58)}`,
    'openai-legacy-key': `sk-${random(ALNUM, 20)}T3BlbkFJ${random(ALNUM, 20)}`,
    'github-token': `ghp_${random(ALNUM, 36)}`,
    'aws-access-key': `AKIA${random(UPPER, 16)}`,
    jwt: `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(`{"sub":"${random(ALNUM, 8)}"}`)}.${random(`${ALNUM}_-`, 43)}`,
    bearer: random(`${ALNUM}._-`, 40),
  };
}

/** Text that carries every secret in `secrets`, in the contexts each pattern expects. */
export function plantedText(secrets: Record<string, string>, label: string): string {
  return [
    `${label}: my key is ${secrets['anthropic-key']} and`,
    `openai ${secrets['openai-key']} / ${secrets['openai-legacy-key']}`,
    `token=${secrets['github-token']} aws ${secrets['aws-access-key']}`,
    `session ${secrets.jwt}`,
    `Authorization: Bearer ${secrets.bearer}`,
  ].join('\n');
}
