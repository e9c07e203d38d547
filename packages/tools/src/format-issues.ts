import type * as z from 'zod';

/** The prefix zod puts on its default type messages; the model does not need it. */
const INVALID_INPUT_PREFIX = 'Invalid input: ';

/**
 * Words zod issues so a model can act on them: one line per issue, its path joined with dots
 * (`(root)` for the arguments object itself), e.g. `a: expected number, received string` or
 * `items.0.name: missing required value (expected string)`.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${formatPath(issue.path)}: ${issueText(issue)}`);
}

/** `a.b.0` for a nested path, `(root)` for the top. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map((key) => String(key)).join('.');
}

function issueText(issue: z.core.$ZodIssue): string {
  const message = issue.message.startsWith(INVALID_INPUT_PREFIX)
    ? issue.message.slice(INVALID_INPUT_PREFIX.length)
    : issue.message;
  // A missing field reads better as such than as "received undefined".
  if (
    issue.code === 'invalid_type' &&
    message === `expected ${issue.expected}, received undefined`
  ) {
    return `missing required value (expected ${issue.expected})`;
  }
  return message;
}
