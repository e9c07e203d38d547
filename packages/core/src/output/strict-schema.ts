import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../ports/provider.js';

/**
 * A JSON Schema rewritten for OpenAI's strict mode (Structured Outputs), and the way back from a
 * value the model wrote under it to one the original schema reads.
 */
export interface StrictSchema {
  /**
   * The schema strict mode accepts: every object closed (`additionalProperties: false`) with every
   * property required, an optional property made nullable instead, and the keywords strict mode
   * does not know removed (`removed` lists them).
   */
  readonly schema: JsonSchema;
  /** The keywords removed, each with the path of its schema (`#/properties/name`). */
  readonly removed: readonly string[];
  /**
   * The model's value as the original schema reads it: a `null` in a property that was optional
   * (and does not take `null` itself) becomes an absent property; a property both optional and
   * nullable stays `null` (strict mode writes both the same way). Does not change `value`.
   */
  restore(value: unknown): unknown;
}

/** Keywords strict mode understands, kept as they are (on the node types they belong to). */
const KEPT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/**
 * Keywords that only narrow what is valid: removed, since the answer is validated against the
 * original schema anyway (a model that breaks one is asked again).
 */
const DROPPED = new Set([
  '$schema',
  '$id',
  '$comment',
  'minLength',
  'maxLength',
  'uniqueItems',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
  'contentEncoding',
  'contentMediaType',
]);

/** The string formats strict mode knows; another `format` is removed. */
const FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Strict mode's limits on one schema. */
export const STRICT_LIMITS: { readonly maxDepth: number; readonly maxProperties: number } = {
  maxDepth: 10,
  maxProperties: 5000,
};

/**
 * Rewrites `schema` (a JSON Schema, as `z.toJSONSchema` writes one) for OpenAI's strict mode. The
 * root must be an object. A shape strict mode cannot express (`allOf`, `not`, conditionals,
 * records and other open objects, tuples, pattern properties, more than 10 levels or 5000
 * properties) is a `ConfigError` naming `field` and the path in the schema; nothing is dropped
 * that would let the model write what the schema forbids, except the narrowing keywords listed
 * in `removed` (the answer is still checked against the original).
 */
export function toStrictSchema(schema: JsonSchema, field = 'output'): StrictSchema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new ConfigError(field, 'expected a JSON Schema object');
  if (schema.type !== 'object') {
    throw new ConfigError(
      field,
      `strict mode needs an object at the root of the schema, got ${describe(schema)}`,
    );
  }
  const rewriter = new Rewriter(field);
  const strict = rewriter.node(schema, '#', 0);
  const root = schema;
  return {
    schema: Object.freeze(strict),
    removed: rewriter.removed,
    restore: (value) => restoreValue(value, root, root, 0),
  };
}

class Rewriter {
  readonly removed: string[] = [];
  readonly #field: string;
  #properties = 0;

  constructor(field: string) {
    this.#field = field;
  }

  #refuse(path: string, why: string): never {
    throw new ConfigError(this.#field, `cannot be sent in strict mode: ${why} at ${path}`);
  }

  node(schema: JsonSchema, path: string, depth: number): JsonSchema {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
      this.#refuse(path, 'a schema that is not an object (true/false schemas are not allowed)');
    if (depth > STRICT_LIMITS.maxDepth)
      this.#refuse(path, `more than ${STRICT_LIMITS.maxDepth} levels of nesting`);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'oneOf') {
        // Alternatives of a union: as `anyOf`, the one form strict mode has.
        out.anyOf = this.#branches(value, `${path}/oneOf`, depth);
      } else if (key === 'anyOf') {
        out.anyOf = this.#branches(value, `${path}/anyOf`, depth);
      } else if (key === 'properties' || key === '$defs' || key === 'definitions') {
        out[key] = this.#schemas(value, `${path}/${key}`, key === 'properties' ? depth + 1 : depth);
      } else if (key === 'items') {
        if (Array.isArray(value)) this.#refuse(`${path}/items`, 'a tuple (items as an array)');
        out.items = this.node(value as JsonSchema, `${path}/items`, depth + 1);
      } else if (key === 'format' && !FORMATS.has(String(value))) {
        this.removed.push(`${path}/format`);
      } else if (
        key === 'additionalProperties' ||
        key === 'propertyNames' ||
        key === 'patternProperties'
      ) {
        if (key !== 'additionalProperties' || value !== false)
          this.#refuse(path, `an open object (${key}), e.g. a record`);
      } else if (KEPT.has(key)) {
        out[key] = value;
      } else if (DROPPED.has(key)) {
        this.removed.push(`${path}/${key}`);
      } else {
        this.#refuse(path, `the keyword ${JSON.stringify(key)}`);
      }
    }
    if (isObjectType(schema)) this.#close(out, schema, path);
    return out;
  }

  /** Every property required, the optional ones nullable, the object closed. */
  #close(out: Record<string, unknown>, schema: JsonSchema, path: string): void {
    const properties = (out.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const keys = Object.keys(properties);
    this.#properties += keys.length;
    if (this.#properties > STRICT_LIMITS.maxProperties)
      this.#refuse(path, `more than ${STRICT_LIMITS.maxProperties} properties in all`);
    for (const key of keys) {
      if (!required.has(key)) properties[key] = nullable(properties[key] as JsonSchema);
    }
    out.properties = properties;
    out.required = keys;
    out.additionalProperties = false;
  }

  #branches(value: unknown, path: string, depth: number): JsonSchema[] {
    if (!Array.isArray(value) || value.length === 0) this.#refuse(path, 'an empty union');
    if (path === '#/anyOf' || path === '#/oneOf') this.#refuse(path, 'a union at the root');
    return value.map((branch, index) => this.node(branch as JsonSchema, `${path}/${index}`, depth));
  }

  #schemas(value: unknown, path: string, depth: number): Record<string, JsonSchema> {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      this.#refuse(path, 'a map of schemas that is not an object');
    const out: Record<string, JsonSchema> = {};
    for (const [name, schema] of Object.entries(value)) {
      Object.defineProperty(out, name, {
        value: this.node(schema as JsonSchema, `${path}/${escapePointer(name)}`, depth),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
}

function isObjectType(schema: JsonSchema): boolean {
  return (
    schema.type === 'object' ||
    (schema.type === undefined && schema.properties !== undefined && schema.$ref === undefined)
  );
}

/** Whether the schema lets `null` through already. */
function allowsNull(schema: JsonSchema): boolean {
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  const anyOf = schema.anyOf ?? schema.oneOf;
  return Array.isArray(anyOf) && anyOf.some((branch) => allowsNull(branch as JsonSchema));
}

/** The schema, or `null`. */
function nullable(schema: JsonSchema): JsonSchema {
  if (allowsNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  return { anyOf: [schema, { type: 'null' }] };
}

function describe(schema: JsonSchema): string {
  if (schema.type !== undefined) return `type ${JSON.stringify(schema.type)}`;
  const keys = Object.keys(schema);
  return keys.length === 0 ? 'an empty schema' : `a schema with ${keys.join(', ')}`;
}

const escapePointer = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

/** The schema a `$ref` of the root points to (`#/$defs/Name`, `#/definitions/Name`, `#`). */
function resolve(ref: string, root: JsonSchema): JsonSchema | undefined {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const name = (match[2] as string).replaceAll('~1', '/').replaceAll('~0', '~');
  const defs = root[match[1] as string] as Record<string, JsonSchema> | undefined;
  return defs !== undefined && Object.hasOwn(defs, name) ? defs[name] : undefined;
}

/** Undoes the nullable-instead-of-optional rewrite along the original schema. */
function restoreValue(value: unknown, schema: JsonSchema, root: JsonSchema, hops: number): unknown {
  // A reference cycle that consumes no value would never end: give up restoring there.
  if (hops > 64 || schema === null || typeof schema !== 'object') return value;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref, root);
    return target ? restoreValue(value, target, root, hops + 1) : value;
  }
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) {
    const branch = branches.find((candidate) => fits(value, candidate, root));
    return branch ? restoreValue(value, branch, root, hops + 1) : value;
  }
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    return items && typeof items === 'object' && !Array.isArray(items)
      ? value.map((item) => restoreValue(item, items, root, 0))
      : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === undefined) {
      Object.defineProperty(out, key, { value: member, enumerable: true, writable: true });
      continue;
    }
    if (member === null && !required.has(key) && !allowsNullDeep(property, root)) continue;
    Object.defineProperty(out, key, {
      value: restoreValue(member, property, root, 0),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Whether `schema` (following references) lets `null` through. */
function allowsNullDeep(schema: JsonSchema, root: JsonSchema, hops = 0): boolean {
  if (hops > 64) return false;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref, root);
    return target ? allowsNullDeep(target, root, hops + 1) : false;
  }
  if (allowsNull(schema)) return true;
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(branches) && branches.some((b) => allowsNullDeep(b, root, hops + 1));
}

/** Whether a union's branch has the JSON type of `value` (the branch to restore it along). */
function fits(value: unknown, schema: JsonSchema, root: JsonSchema, hops = 0): boolean {
  if (hops > 64) return false;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref, root);
    return target ? fits(value, target, root, hops + 1) : false;
  }
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) return branches.some((b) => fits(value, b, root, hops + 1));
  if ('const' in schema) return JSON.stringify(schema.const) === JSON.stringify(value);
  if (Array.isArray(schema.enum))
    return schema.enum.some((option: unknown) => JSON.stringify(option) === JSON.stringify(value));
  const type = jsonType(value);
  const declared = schema.type;
  const types = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
  if (types.length === 0) return true;
  if (type === 'object' && types.includes('object')) {
    // Of several object branches, the one that declares the value's keys (a discriminated union).
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    return Object.entries(value as Record<string, unknown>).every(
      ([key, member]) =>
        Object.hasOwn(properties, key) &&
        (!('const' in (properties[key] as JsonSchema)) ||
          JSON.stringify((properties[key] as JsonSchema).const) === JSON.stringify(member)),
    );
  }
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
