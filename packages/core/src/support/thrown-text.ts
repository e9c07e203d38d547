/**
 * The readable message of a thrown value: an error's (or error-like object's) `message`, or a
 * thrown string; `undefined` when there is none (a blank message, `undefined`, a number, an object
 * without a message). Never throws, whatever was thrown: a null-prototype object, a `message`
 * getter or `toString` that throws, a Proxy whose traps throw.
 */
export function thrownMessage(value: unknown): string | undefined {
  try {
    if (typeof value === 'string') return value.trim() === '' ? undefined : value;
    if (typeof value !== 'object' || value === null) return undefined;
    const message: unknown = (value as { message?: unknown }).message;
    return typeof message === 'string' && message.trim() !== '' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** `value instanceof Error`, false instead of a throw for a Proxy whose `getPrototypeOf` traps. */
export function isErrorObject(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

/**
 * What was thrown, in a few words for a message (`undefined`, `42`, `Symbol(x)`, `an Error without
 * a message`, `an object`). Never throws and never calls the value's own `toString`.
 */
export function thrownKind(value: unknown): string {
  try {
    switch (typeof value) {
      case 'string':
        return value.trim() === '' ? 'an empty string' : 'a string';
      case 'number':
      case 'boolean':
      case 'symbol':
        return String(value);
      case 'bigint':
        return `${value}n`;
      case 'undefined':
        return 'undefined';
      case 'function':
        return 'a function';
      default:
        if (value === null) return 'null';
        return isErrorObject(value) ? 'an Error without a message' : 'an object';
    }
  } catch {
    return 'an object';
  }
}

/**
 * The text of a failure for whoever reads it (a model, a log): the thrown value's message, else
 * `<subject> failed without a readable message (it threw <kind>).` Total: it never throws, so
 * turning a failure into text can never become a second failure.
 */
export function thrownText(subject: string, value: unknown): string {
  return (
    thrownMessage(value) ??
    `${subject} failed without a readable message (it threw ${thrownKind(value)}).`
  );
}
