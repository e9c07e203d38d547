import type { ParseResult, ToolSchema } from '@mh/core';
import { formatPath } from './format-issues.js';

/**
 * One property of a `PlainObjectSchema`: the few JSON Schema keywords its validator understands.
 * `integer` is a safe integer (as zod's `.int()`), so its `maximum` may be
 * `Number.MAX_SAFE_INTEGER`, which is what zod writes for it.
 */
export interface PlainProperty {
  /** The JSON type of the value. */
  readonly type: 'string' | 'integer' | 'boolean';
  /** What the value means; the model reads it. */
  readonly description?: string;
  /** Fewest characters of a string. */
  readonly minLength?: number;
  /** Most characters of a string. */
  readonly maxLength?: number;
  /** Smallest integer allowed. */
  readonly minimum?: number;
  /** Largest integer allowed. */
  readonly maximum?: number;
}

/** A JSON Schema of an arguments object whose properties are all `PlainProperty`s. */
export interface PlainObjectSchema {
  /** Always `object`: a tool takes an arguments object. */
  readonly type: 'object';
  /** The properties, in the order their issues are reported. */
  readonly properties: Readonly<Record<string, PlainProperty>>;
  /** The names of the properties that must be present. */
  readonly required?: readonly string[];
}

/**
 * Core's `ToolSchema` from a plain JSON Schema, with a small validator in place of zod: the
 * built-in tools use it so that loading them does not load zod (cold start, issue 16). It accepts
 * and refuses what the zod schema with the same JSON Schema did, with the same issue lines
 * (`plain-object-schema.test.ts` compares them), and like zod it drops unknown keys.
 */
export function plainToolSchema<Input>(jsonSchema: PlainObjectSchema): ToolSchema<Input> {
  const required = new Set(jsonSchema.required ?? []);
  const properties = Object.entries(jsonSchema.properties);
  return {
    jsonSchema: Object.freeze(jsonSchema),
    parse(input): ParseResult<Input> {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return { success: false, issues: [`(root): ${typeIssue('object', input)}`] };
      }
      const issues: string[] = [];
      const value: Record<string, unknown> = {};
      for (const [key, property] of properties) {
        const field = (input as Record<string, unknown>)[key];
        if (field === undefined && !required.has(key)) {
          // zod keeps a key given as undefined, and leaves out one not given.
          if (Object.hasOwn(input, key)) value[key] = undefined;
          continue;
        }
        const problems = propertyIssues(property, field);
        for (const problem of problems) issues.push(`${formatPath([key])}: ${problem}`);
        if (problems.length === 0) value[key] = field;
      }
      return issues.length === 0
        ? { success: true, value: value as Input }
        : { success: false, issues };
    },
  };
}

/** The problems of one present value, worded as `formatIssues` words zod's. */
function propertyIssues(property: PlainProperty, value: unknown): string[] {
  switch (property.type) {
    case 'boolean':
      return typeof value === 'boolean' ? [] : [typeIssue('boolean', value)];
    case 'string': {
      if (typeof value === 'string')
        return lengthIssues(property, value.length, 'string', 'characters');
      // zod checks the length of an array given for a string too, and says so.
      const issues = [typeIssue('string', value)];
      if (Array.isArray(value))
        issues.push(...lengthIssues(property, value.length, 'array', 'items'));
      return issues;
    }
    case 'integer':
      return integerIssues(property, value);
  }
}

function lengthIssues(
  property: PlainProperty,
  length: number,
  what: string,
  units: string,
): string[] {
  if (property.minLength !== undefined && length < property.minLength)
    return [`Too small: expected ${what} to have >=${property.minLength} ${units}`];
  if (property.maxLength !== undefined && length > property.maxLength)
    return [`Too big: expected ${what} to have <=${property.maxLength} ${units}`];
  return [];
}

function integerIssues(property: PlainProperty, value: unknown): string[] {
  if (typeof value !== 'number' || !Number.isFinite(value)) return [typeIssue('number', value)];
  if (!Number.isInteger(value)) return ['expected int, received number'];
  const issues: string[] = [];
  // zod's `.int()` is a safe integer: its bounds are worded for `int`, a given bound for `number`.
  if (value > Number.MAX_SAFE_INTEGER)
    issues.push(`Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`);
  if (value < Number.MIN_SAFE_INTEGER)
    issues.push(`Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`);
  if (property.minimum !== undefined && value < property.minimum)
    issues.push(`Too small: expected number to be >=${property.minimum}`);
  if (
    property.maximum !== undefined &&
    property.maximum !== Number.MAX_SAFE_INTEGER &&
    value > property.maximum
  )
    issues.push(`Too big: expected number to be <=${property.maximum}`);
  return issues;
}

/** `expected string, received number`, or for a missing value `missing required value (…)`. */
function typeIssue(expected: string, value: unknown): string {
  return value === undefined
    ? `missing required value (expected ${expected})`
    : `expected ${expected}, received ${receivedType(value)}`;
}

/** The name zod gives a value's type in its messages. */
function receivedType(value: unknown): string {
  if (typeof value === 'number') {
    // `NaN`, `Infinity` or `-Infinity`, as zod names them.
    return Number.isFinite(value) ? 'number' : String(value);
  }
  if (typeof value !== 'object') return typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const prototype: unknown = Object.getPrototypeOf(value);
  const name = (prototype as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return prototype === Object.prototype || prototype === null || typeof name !== 'string'
    ? 'object'
    : name;
}
