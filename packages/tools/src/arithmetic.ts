/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_CHARS = 1_000;
/** Deepest nesting of parentheses and unary signs; bounds the parser's recursion. */
const MAX_DEPTH = 200;
/** Significant digits kept, so `0.1 + 0.2` reads `0.3` rather than `0.30000000000000004`. */
const SIGNIFICANT_DIGITS = 15;

type Operator = '+' | '-' | '*' | '/' | '%' | '^' | '(' | ')';

/** A number or an operator, with its 1-based position for error messages. */
type Token =
  | {
      readonly kind: 'number';
      readonly value: number;
      readonly text: string;
      readonly position: number;
    }
  | {
      readonly kind: 'operator';
      readonly value: Operator;
      readonly text: string;
      readonly position: number;
    };

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const OPERATORS = new Set<string>(['+', '-', '*', '/', '%', '^', '(', ')']);

/**
 * Evaluates an arithmetic expression: `+ - * / %`, `^` or `**` for powers (right-associative and
 * binding tighter than a unary minus, so `-2^2` is -4), parentheses, unary minus and plus, and
 * decimals (`.5`, `1e3`). `%` is the remainder with the sign of the dividend, as in JavaScript.
 * A hand-written recursive-descent parser; nothing is ever `eval`ed. Throws `SyntaxError` for bad
 * syntax (naming the 1-based position) and `RangeError` for division by zero or a result that is
 * not a finite real number.
 */
export function evaluateArithmetic(expression: string): number {
  if (expression.length > MAX_EXPRESSION_CHARS) {
    throw new SyntaxError(`The expression is longer than ${MAX_EXPRESSION_CHARS} characters.`);
  }
  const value = new Parser(tokenize(expression)).parse();
  if (Number.isNaN(value)) throw new RangeError('The result is not a real number.');
  if (!Number.isFinite(value)) throw new RangeError('The result is too large to represent.');
  const rounded = Number.parseFloat(value.toPrecision(SIGNIFICANT_DIGITS));
  return rounded === 0 ? 0 : rounded;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expression.length) {
    const char = expression.charAt(index);
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    const number = NUMBER.exec(expression.slice(index));
    if (number) {
      const text = number[0];
      tokens.push({ kind: 'number', value: Number(text), text, position: index + 1 });
      index += text.length;
      continue;
    }
    if (expression.startsWith('**', index)) {
      tokens.push({ kind: 'operator', value: '^', text: '**', position: index + 1 });
      index += 2;
      continue;
    }
    if (OPERATORS.has(char)) {
      tokens.push({ kind: 'operator', value: char as Operator, text: char, position: index + 1 });
      index++;
      continue;
    }
    throw new SyntaxError(`Unexpected character '${char}' at position ${index + 1}.`);
  }
  return tokens;
}

/** Recursive descent over the tokens, one method per precedence level, lowest first. */
class Parser {
  readonly #tokens: readonly Token[];
  #index = 0;
  #depth = 0;

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  parse(): number {
    if (this.#tokens.length === 0) throw new SyntaxError('The expression is empty.');
    const value = this.#sum();
    const extra = this.#tokens[this.#index];
    if (extra) throw new SyntaxError(`Unexpected '${extra.text}' at position ${extra.position}.`);
    return value;
  }

  #sum(): number {
    let value = this.#product();
    for (let operator = this.#take('+', '-'); operator; operator = this.#take('+', '-')) {
      const right = this.#product();
      value = operator.value === '+' ? value + right : value - right;
    }
    return value;
  }

  #product(): number {
    let value = this.#unary();
    for (let operator = this.#take('*', '/', '%'); operator; operator = this.#take('*', '/', '%')) {
      const right = this.#unary();
      if (operator.value !== '*' && right === 0) {
        throw new RangeError(`Division by zero at position ${operator.position}.`);
      }
      value =
        operator.value === '*'
          ? value * right
          : operator.value === '/'
            ? value / right
            : value % right;
    }
    return value;
  }

  #unary(): number {
    const sign = this.#take('+', '-');
    if (!sign) return this.#power();
    return this.#nested(() => (sign.value === '-' ? -this.#unary() : this.#unary()));
  }

  #power(): number {
    const base = this.#primary();
    // The exponent is a unary so `2^-1` works; recursing through it makes `^` right-associative.
    return this.#take('^') ? base ** this.#unary() : base;
  }

  #primary(): number {
    const token = this.#tokens[this.#index];
    if (token?.kind === 'number') {
      this.#index++;
      return token.value;
    }
    if (token?.value === '(') {
      this.#index++;
      const value = this.#nested(() => this.#sum());
      if (!this.#take(')')) {
        throw new SyntaxError(`Missing ')' to close the '(' at position ${token.position}.`);
      }
      return value;
    }
    const found = token
      ? `'${token.text}' at position ${token.position}`
      : 'the end of the expression';
    throw new SyntaxError(`Expected a number or '(' but found ${found}.`);
  }

  #take(...operators: Operator[]): (Token & { kind: 'operator' }) | undefined {
    const token = this.#tokens[this.#index];
    if (token?.kind !== 'operator' || !operators.includes(token.value)) return undefined;
    this.#index++;
    return token;
  }

  #nested(parse: () => number): number {
    if (++this.#depth > MAX_DEPTH) throw new SyntaxError('The expression is nested too deeply.');
    try {
      return parse();
    } finally {
      this.#depth--;
    }
  }
}
