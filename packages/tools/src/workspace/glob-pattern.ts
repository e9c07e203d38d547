/**
 * Compiles a glob to a RegExp over `/`-separated relative paths. Supported: `*` (any characters
 * but `/`), `?` (one character but `/`), `**` as a whole segment (any number of directories),
 * `[abc]`, `[a-z]`, `[!abc]`, `{a,b}` (nestable) and `\` to escape. `*` also matches names that
 * start with a dot. A pattern without `/` matches at the top level only, as in a shell.
 */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${compile(pattern.replace(/^\.\//, ''), 0, false).source}$`);
}

/** A compiled stretch of a glob. */
interface Compiled {
  /** RegExp source for the stretch. */
  readonly source: string;
  /** Index of the character that ended it (`,` or `}` inside braces, else the pattern's length). */
  readonly end: number;
}

function compile(pattern: string, start: number, inBraces: boolean): Compiled {
  let source = '';
  let index = start;
  while (index < pattern.length) {
    const char = pattern.charAt(index);
    if (inBraces && (char === ',' || char === '}')) return { source, end: index };
    if (char === '*') {
      const previous = pattern.charAt(index - 1);
      const atSegmentStart =
        index === 0 || previous === '/' || (inBraces && (previous === '{' || previous === ','));
      if (pattern.charAt(index + 1) === '*' && atSegmentStart) {
        const next = pattern.charAt(index + 2);
        if (next === '/') {
          source += '(?:[^/]*/)*';
          index += 3;
          continue;
        }
        if (next === '' || (inBraces && (next === ',' || next === '}'))) {
          source += '.*';
          index += 2;
          continue;
        }
      }
      source += '[^/]*';
      while (pattern.charAt(index) === '*') index++;
      continue;
    }
    if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = pattern.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
      } else {
        let body = pattern.slice(index + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        const escaped = body.replace(/[\\\]^]/g, (match) => `\\${match}`);
        source += negated ? `[^/${escaped}]` : `[${escaped}]`;
        index = close;
      }
    } else if (char === '{') {
      const alternatives: string[] = [];
      let cursor = index + 1;
      let closed = false;
      while (cursor <= pattern.length) {
        const part = compile(pattern, cursor, true);
        alternatives.push(part.source);
        if (pattern.charAt(part.end) === '}') {
          closed = true;
          cursor = part.end;
          break;
        }
        if (part.end >= pattern.length) break;
        cursor = part.end + 1;
      }
      if (closed) {
        source += `(?:${alternatives.join('|')})`;
        index = cursor;
      } else {
        source += '\\{';
      }
    } else if (char === '\\' && index + 1 < pattern.length) {
      index++;
      source += escapeRegExp(pattern.charAt(index));
    } else {
      source += escapeRegExp(char);
    }
    index++;
  }
  return { source, end: index };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
