import type { JsonSchema } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';

/**
 * Why `answer` does not satisfy `schema`, naming the path below `field`; undefined when it does.
 * It checks the JSON Schema keywords a question's answer needs — `type` (one or a list, with
 * `integer`), `enum`, `const`, `required`, `properties`, `additionalProperties: false`, `items`,
 * `minLength`, `maxLength`, `minimum`, `maximum` — and ignores the others, so the tool still
 * validates what it relies on beyond them (it reads the answer as `unknown`).
 */
export function answerSchemaProblem(
  answer: unknown,
  schema: JsonSchema,
  field: string,
): string | undefined {
  const { type, required, properties, additionalProperties, items } = schema;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.some((name) => isOfType(answer, name)))
      return `${field}: expected ${types.join(' or ')}, got ${kindOf(answer)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((value) => sameJson(value, answer)))
    return `${field}: expected one of ${JSON.stringify(schema.enum)}`;
  if ('const' in schema && !sameJson(schema.const, answer))
    return `${field}: expected ${JSON.stringify(schema.const)}`;
  const bounds = boundsProblem(answer, schema, field);
  if (bounds !== undefined) return bounds;
  if (isObject(answer)) {
    if (Array.isArray(required)) {
      const missing = required.find((key) => typeof key === 'string' && !(key in answer));
      if (missing !== undefined) return `${field}.${missing}: required`;
    }
    const known = isObject(properties) ? properties : {};
    for (const [key, value] of Object.entries(answer)) {
      const inner = known[key];
      if (isObject(inner)) {
        const problem = answerSchemaProblem(value, inner, `${field}.${key}`);
        if (problem !== undefined) return problem;
      } else if (additionalProperties === false && !(key in known)) {
        return `${field}.${key}: not allowed (additionalProperties is false)`;
      }
    }
  }
  if (Array.isArray(answer) && isObject(items)) {
    for (const [index, value] of answer.entries()) {
      const problem = answerSchemaProblem(value, items, `${field}[${index}]`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function boundsProblem(answer: unknown, schema: JsonSchema, field: string): string | undefined {
  const { minLength, maxLength, minimum, maximum } = schema;
  if (typeof answer === 'string') {
    const length = [...answer].length;
    if (typeof minLength === 'number' && length < minLength)
      return `${field}: expected at least ${minLength} characters`;
    if (typeof maxLength === 'number' && length > maxLength)
      return `${field}: expected at most ${maxLength} characters`;
  }
  if (typeof answer === 'number') {
    if (typeof minimum === 'number' && answer < minimum) return `${field}: expected >= ${minimum}`;
    if (typeof maximum === 'number' && answer > maximum) return `${field}: expected <= ${maximum}`;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isOfType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
    case 'boolean':
      return typeof value === type;
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      // A type this check does not know is not held against the answer.
      return true;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
