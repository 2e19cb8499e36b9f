import { z } from "zod";

/**
 * zod -> JSON Schema (2020-12), the one conversion behind the OpenAPI document, the MCP tool
 * schemas (tools/list and /.well-known/mcp.json) and the agent card. zod 4 emits schemas that
 * carry a `.meta({ id })` under `$defs`; the OpenAPI document hoists them into
 * `components.schemas`, the tool schemas inline them (MCP clients expect self-contained schemas).
 */

export type JsonSchema = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type SchemaMode = "input" | "output";

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The raw conversion: `$defs` and `#/$defs/...` references as zod writes them, no `$schema`. */
export function rawJsonSchema(schema: z.ZodType, mode: SchemaMode): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: mode,
    unrepresentable: "any",
    reused: "inline",
    cycles: "ref",
  }) as unknown as JsonSchema;
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

/**
 * Walks a JSON value, rewriting every `$ref` through `rewrite`: a string keeps a reference, an
 * object replaces it (inlining), the keywords next to the reference (a description) winning.
 */
export function mapRefs(value: JsonValue, rewrite: (ref: string) => JsonValue | string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => mapRefs(item, rewrite));
  if (!isObject(value)) return value;
  const siblings: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    if (key !== "$ref") siblings[key] = mapRefs(child, rewrite);
  }
  const ref = value.$ref;
  if (typeof ref !== "string") return siblings;
  const replaced = rewrite(ref);
  if (typeof replaced === "string") return { $ref: replaced, ...siblings };
  if (isObject(replaced)) return { ...replaced, ...siblings };
  return { $ref: ref, ...siblings };
}

/**
 * A self-contained schema: every `#/$defs/X` reference replaced by the definition itself. The
 * service's schemas have no cycles; a cycle would be left as a reference into a kept `$defs`.
 */
export function inlineJsonSchema(schema: z.ZodType, mode: SchemaMode): JsonSchema {
  const { $defs, ...root } = rawJsonSchema(schema, mode);
  const defs = isObject($defs) ? $defs : {};
  const resolving = new Set<string>();
  let kept = false;
  const resolve = (value: JsonValue): JsonValue =>
    mapRefs(value, (ref) => {
      const match = /^#\/\$defs\/(.+)$/.exec(ref);
      const name = match?.[1];
      const definition = name === undefined ? undefined : defs[name];
      if (name === undefined || !isObject(definition)) return ref;
      if (resolving.has(name)) {
        kept = true;
        return ref;
      }
      resolving.add(name);
      const resolved = resolve(definition);
      resolving.delete(name);
      return resolved;
    });
  const result = resolve(root) as JsonSchema;
  return kept ? { ...result, $defs: defs } : result;
}

/**
 * Collects named schemas for an OpenAPI document: each conversion's `$defs` become
 * `components.schemas` entries and references point there. A name already taken by a different
 * schema (the same zod schema seen as input and as output can differ, e.g. open vs closed
 * objects) gets a suffix, so no component is silently overwritten.
 */
export class ComponentRegistry {
  readonly schemas: Record<string, JsonSchema> = {};

  /** Converts and registers; returns the schema to embed (a `$ref` when the root has an id). */
  add(schema: z.ZodType, mode: SchemaMode): JsonSchema {
    const { $defs, ...root } = rawJsonSchema(schema, mode);
    const defs = isObject($defs) ? $defs : {};
    const names = new Map<string, string>();
    // Names first, so definitions referring to each other can be rewritten consistently.
    for (const name of Object.keys(defs)) names.set(name, this.reserve(name, mode, defs[name]));
    const rewrite = (value: JsonValue): JsonValue =>
      mapRefs(value, (ref) => {
        const match = /^#\/\$defs\/(.+)$/.exec(ref);
        const target = match?.[1] === undefined ? undefined : names.get(match[1]);
        return target === undefined ? ref : `#/components/schemas/${target}`;
      });
    for (const [name, definition] of Object.entries(defs)) {
      const target = names.get(name);
      if (target !== undefined && this.schemas[target] === undefined) {
        this.schemas[target] = rewrite(definition) as JsonSchema;
      }
    }
    return rewrite(root) as JsonSchema;
  }

  /** Registers a hand-assembled schema under a name (used for per-status error envelopes). */
  put(name: string, schema: JsonSchema): JsonSchema {
    this.schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }

  private reserve(name: string, mode: SchemaMode, definition: JsonValue | undefined): string {
    // An object read as input is open and as output closed: that variant is named after its side.
    const candidates = [name, mode === "input" ? `${name}Input` : `${name}Output`];
    for (let index = 2; index < 10; index += 1) candidates.push(`${name}${index}`);
    if (this.firstMode.get(name) === mode) candidates.splice(1, 1);
    if (!this.firstMode.has(name)) this.firstMode.set(name, mode);
    const wanted = JSON.stringify(this.preview(definition));
    for (const candidate of candidates) {
      const existing = this.schemas[candidate];
      if (existing === undefined) {
        this.pending.set(candidate, wanted);
        return candidate;
      }
      if (this.pending.get(candidate) === wanted) return candidate;
    }
    throw new Error(`Too many different schemas named ${name}`);
  }

  /** The definition as written before reference rewriting, to compare two schemas of one name. */
  private preview(definition: JsonValue | undefined): JsonValue {
    return definition ?? null;
  }

  private readonly pending = new Map<string, string>();
  private readonly firstMode = new Map<string, SchemaMode>();
}

/** Keywords that describe a value rather than constrain it: they stay beside a nullable's `anyOf`. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "example", "deprecated", "$comment"]);
/** zod's bounds of an integer without bounds of its own: noise to a reader, no constraint in practice. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * A schema every function-calling dialect reads: a type array (`["string", "null"]`, which some
 * dialects reject) becomes an `anyOf` of single types, the constraints going with the non-null
 * branch and the annotations staying outside; zod's default integer bounds are dropped.
 */
export function portableJsonSchema(schema: JsonSchema): JsonSchema {
  return portableValue(schema) as JsonSchema;
}

function portableValue(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(portableValue);
  if (!isObject(value)) return value;
  const result: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    if ((key === "minimum" && child === -SAFE_INTEGER) || (key === "maximum" && child === SAFE_INTEGER)) continue;
    // Under properties, the keys are names, not keywords: each value is a schema.
    result[key] =
      (key === "properties" || key === "$defs") && isObject(child)
        ? Object.fromEntries(Object.entries(child).map(([name, schema]) => [name, portableValue(schema)]))
        : portableValue(child);
  }
  const types = result.type;
  if (!Array.isArray(types)) return result;
  const outside: JsonSchema = {};
  const constraints: JsonSchema = {};
  for (const [key, child] of Object.entries(result)) {
    if (key !== "type") (ANNOTATIONS.has(key) ? outside : constraints)[key] = child;
  }
  const enumValues = constraints.enum;
  if (Array.isArray(enumValues)) constraints.enum = enumValues.filter((item) => item !== null);
  return { ...outside, anyOf: types.map((type) => (type === "null" ? { type } : { type, ...constraints })) };
}

/**
 * The outline of a schema down to `depth` levels of properties and items: types, descriptions,
 * constants and enums, and which properties are required; deeper objects and arrays keep their
 * type only and no object is closed. Whatever the schema accepts, its outline accepts.
 */
export function outlineJsonSchema(schema: JsonSchema, depth: number): JsonSchema {
  const outline: JsonSchema = {};
  for (const key of ["type", "description", "const", "enum"]) {
    const kept = schema[key];
    if (kept !== undefined) outline[key] = kept;
  }
  const branches = schema.anyOf;
  if (Array.isArray(branches)) {
    outline.anyOf = branches.map((branch) => (isObject(branch) ? outlineJsonSchema(branch, depth) : branch));
  }
  if (depth > 0) {
    const properties = schema.properties;
    if (isObject(properties)) {
      outline.properties = Object.fromEntries(
        Object.entries(properties).map(([name, child]) => [
          name,
          isObject(child) ? outlineJsonSchema(child, depth - 1) : child,
        ]),
      );
      if (schema.required !== undefined) outline.required = schema.required;
    }
    const items = schema.items;
    if (isObject(items)) outline.items = outlineJsonSchema(items, depth - 1);
  }
  return outline;
}
