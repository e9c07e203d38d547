import { ConfigError } from '@mh/core';
import { type Attribution, LAYERS, type Layer } from './types.js';

/** Longest normalised detail kept in a signature. */
const MAX_DETAIL_CHARS = 120;

/**
 * Error text with what varies between occurrences of one cause stripped: quoted strings, paths,
 * URLs, ids (UUIDs, hex, `toolu_…`-style), numbers; lower-cased and whitespace collapsed. Two
 * `ENOENT: no such file '/tmp/a1/x.txt'` errors of different files normalise alike.
 */
export function normaliseErrorText(text: string): string {
  if (typeof text !== 'string') throw new ConfigError('text', 'expected a string');
  return text
    .replace(/[a-z]+:\/\/\S+/gi, '<url>')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '<str>')
    .replace(/(?:[A-Za-z]:)?(?:[\w.-]*[\\/])+[\w.-]+/g, '<path>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\b[a-z]+_[A-Za-z0-9]{6,}\b/g, '<id>')
    .replace(/\b([a-z]+-)[a-z0-9]{16,}\b/gi, '$1<id>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, '<id>')
    .replace(/\d+(?:\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .slice(0, MAX_DETAIL_CHARS);
}

/** The clustering signature of an attribution: rule, subject and normalised detail. */
export function signatureOf(rule: string, subject: string | undefined, detail: string): string {
  return [rule, subject ?? '', normaliseErrorText(detail)].join(' | ');
}

/** A failed run as clustering needs it. */
export interface ClusterMember {
  /** The case's name. */
  readonly case: string;
  /** The repeat index. */
  readonly repeat: number;
  /** Its attribution. */
  readonly attribution: Attribution;
}

/** Failures with the same layer and signature. */
export interface FailureCluster {
  /** The layer. */
  readonly layer: Layer;
  /** The rule. */
  readonly rule: string;
  /** The shared signature. */
  readonly signature: string;
  /** How many failed runs. */
  readonly count: number;
  /** The cases involved, each once, in first-seen order. */
  readonly cases: readonly string[];
  /** The first member's summary, as an example. */
  readonly example: string;
}

/**
 * Groups failures by layer and signature, largest cluster first (ties: layer order, then
 * signature), so the top of the list is the cause that costs the most runs.
 */
export function clusterFailures(members: readonly ClusterMember[]): FailureCluster[] {
  if (!Array.isArray(members)) throw new ConfigError('members', 'expected an array');
  members.forEach((member, index) => {
    if (typeof member?.attribution?.signature !== 'string' || typeof member.case !== 'string')
      throw new ConfigError(`members[${index}]`, 'expected { case, repeat, attribution }');
  });
  const groups = new Map<string, { first: ClusterMember; cases: Set<string>; count: number }>();
  for (const member of members) {
    const key = `${member.attribution.layer}\u0000${member.attribution.signature}`;
    const group = groups.get(key);
    if (group) {
      group.count++;
      group.cases.add(member.case);
    } else {
      groups.set(key, { first: member, cases: new Set([member.case]), count: 1 });
    }
  }
  return [...groups.values()]
    .map(({ first, cases, count }) => ({
      layer: first.attribution.layer,
      rule: first.attribution.rule,
      signature: first.attribution.signature,
      count,
      cases: [...cases],
      example: first.attribution.summary,
    }))
    .sort(
      (a, b) =>
        b.count - a.count ||
        LAYERS.indexOf(a.layer) - LAYERS.indexOf(b.layer) ||
        a.signature.localeCompare(b.signature),
    );
}
