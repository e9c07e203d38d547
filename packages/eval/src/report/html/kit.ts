/**
 * Markup that is already safe: produced by `html` (its values escaped) or by `rawHtml` on a
 * constant. Anything else placed in `html` is escaped, so a case name or a model answer holding
 * `<script>` is shown as text.
 */
export class SafeHtml {
  /** The markup. */
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }

  /** The markup (so a `SafeHtml` reads naturally in a string). */
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` with the five characters that matter in HTML text and attribute values escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

function part(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(part).join('');
  return escapeHtml(String(value));
}

/**
 * A template tag that escapes every interpolated value unless it is `SafeHtml`; arrays are
 * joined, and `undefined`, `null` and `false` render nothing (so `${cond && html`…`}` works).
 */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += part(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Trusted constant markup (the stylesheet, the script); never pass data through this. */
export function rawHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
