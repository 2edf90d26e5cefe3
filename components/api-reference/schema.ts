import { isReference, refName, resolve } from "./resolve";
import type { Json, OpenApiDocument, Schema } from "./types";

/** One field of a schema as the page lists it: nested fields carry their parent's path ("failure.code"). */
export interface FieldRow {
  path: string;
  depth: number;
  type: string;
  /** Named object schemas (components.schemas) in the type: listed once each in the page's Schemas section. */
  links: string[];
  required: boolean;
  description?: string;
  enumValues: string[];
  notes: string[];
}

/** A schema laid out as rows; a oneOf/anyOf at the top gives one set of rows per alternative. */
export interface SchemaLayout {
  name?: string;
  description?: string;
  type: string;
  /** The type behind the name: "object" for a named object. */
  innerType: string;
  rows: FieldRow[];
  variants: { title: string; description?: string; rows: FieldRow[] }[];
}

/** Nested objects are listed this deep at most; past it a field shows its type only. */
const MAX_DEPTH = 4;

interface Followed {
  schema: Schema;
  name?: string;
}

/** The schema behind a `$ref`, or undefined when the ref is broken or already being expanded (a cycle). */
function follow(
  document: OpenApiDocument,
  schema: Schema | undefined,
  expanding: ReadonlySet<string>,
): Followed | undefined {
  if (!schema) return undefined;
  if (isReference(schema) && expanding.has(schema.$ref)) return undefined;
  const resolved = resolve<Schema>(document, schema);
  if (!resolved) return undefined;
  return { schema: mergeAllOf(document, resolved.value, expanding), name: resolved.name };
}

/** allOf parts merged into one object schema: their properties and required lists side by side. */
function mergeAllOf(document: OpenApiDocument, schema: Schema, expanding: ReadonlySet<string>): Schema {
  if (!schema.allOf) return schema;
  const merged: Schema = {
    ...schema,
    allOf: undefined,
    properties: { ...schema.properties },
    required: [...(schema.required ?? [])],
  };
  for (const part of schema.allOf) {
    const followed = follow(document, part, refsOf(part, expanding));
    if (!followed) continue;
    Object.assign(merged.properties ?? {}, followed.schema.properties);
    merged.required?.push(...(followed.schema.required ?? []));
    merged.type ??= followed.schema.type;
    merged.description ??= followed.schema.description;
  }
  return merged;
}

function refsOf(schema: Schema | undefined, expanding: ReadonlySet<string>): ReadonlySet<string> {
  return schema && isReference(schema) ? new Set([...expanding, schema.$ref]) : expanding;
}

function isNullSchema(schema: Schema): boolean {
  return schema.type === "null" || (Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null);
}

/** A short type as a reader wants it: "string", "integer or null", "array of TopUp", "TopUp or Error". */
export function typeLabel(
  document: OpenApiDocument,
  schema: Schema | undefined,
  expanding: ReadonlySet<string> = new Set(),
): string {
  if (!schema) return "any";
  if (isReference(schema)) {
    if (expanding.has(schema.$ref)) return refName(schema.$ref);
    const followed = follow(document, schema, expanding);
    if (!followed) return refName(schema.$ref);
    // A named object reads best by its name; a named scalar by what it is.
    const inner = typeLabel(document, followed.schema, refsOf(schema, expanding));
    return isObjectLike(followed.schema) ? (followed.name ?? inner) : inner;
  }
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return unique(alternatives.map((part) => typeLabel(document, part, expanding))).join(" or ");
  if (schema.allOf) return typeLabel(document, mergeAllOf(document, schema, expanding), expanding);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : inferTypes(schema);
  const labels = types.map((type) => {
    if (type === "array") return `array of ${typeLabel(document, schema.items, expanding)}`;
    if (type === "string" && schema.format) return `string (${schema.format})`;
    return type;
  });
  if (schema.nullable && !types.includes("null")) labels.push("null");
  return labels.length > 0 ? labels.join(" or ") : "any";
}

function inferTypes(schema: Schema): string[] {
  if (schema.properties) return ["object"];
  if (schema.items) return ["array"];
  if (schema.enum)
    return unique(
      schema.enum.map((value) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)),
    );
  return [];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function isObjectLike(schema: Schema): boolean {
  return (
    Boolean(schema.properties) ||
    schema.type === "object" ||
    (Array.isArray(schema.type) && schema.type.includes("object"))
  );
}

/** Every value a field may take, when it is a closed set (enum, const, or alternatives of those). */
export function enumValues(
  document: OpenApiDocument,
  schema: Schema | undefined,
  expanding: ReadonlySet<string> = new Set(),
  inAlternatives = false,
): string[] {
  const followed = follow(document, schema, expanding);
  if (!followed) return [];
  const s = followed.schema;
  const inner = refsOf(schema, expanding);
  if (s.enum) return s.enum.filter((value) => value !== null).map(display);
  // A const is its own type label ("success"): listing it again says nothing more.
  if (s.const !== undefined) return inAlternatives && s.const !== null ? [display(s.const)] : [];
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) {
    const parts = alternatives.filter((part) => !isNullSchema(part));
    const values = parts.map((part) => enumValues(document, part, inner, true));
    return values.every((list) => list.length > 0) ? unique(values.flat()) : [];
  }
  if (s.type === "array" || (Array.isArray(s.type) && s.type.includes("array")))
    return enumValues(document, s.items, inner);
  return [];
}

function display(value: Json): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Limits worth telling a caller: bounds, lengths, a pattern, a default. */
function notesOf(schema: Schema): string[] {
  const notes: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    notes.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) notes.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) notes.push(`at most ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    notes.push(`${schema.minLength}-${schema.maxLength} characters`);
  else if (schema.maxLength !== undefined) notes.push(`at most ${schema.maxLength} characters`);
  else if (schema.minLength !== undefined && schema.minLength > 0)
    notes.push(`at least ${schema.minLength} characters`);
  if (schema.pattern) notes.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) notes.push(`default ${display(schema.default)}`);
  if (schema.deprecated) notes.push("deprecated");
  return notes;
}

const SCHEMAS = "#/components/schemas/";

function isNamedSchemaRef(schema: Schema): boolean {
  return isReference(schema) && schema.$ref.startsWith(SCHEMAS);
}

/** Whether a component schema gets its own entry in the page's Schemas section: objects, and alternatives of objects. */
export function isListedSchema(document: OpenApiDocument, name: string): boolean {
  const followed = follow(document, { $ref: `${SCHEMAS}${name.replace(/~/g, "~0").replace(/\//g, "~1")}` }, new Set());
  if (!followed) return false;
  return (
    isObjectLike(followed.schema) ||
    Boolean((followed.schema.oneOf ?? followed.schema.anyOf)?.some((part) => isNamedSchemaRef(part)))
  );
}

/** The component schemas the reference lists under Schemas, in the document's order. */
export function listedSchemaNames(document: OpenApiDocument): string[] {
  return Object.keys(document.components?.schemas ?? {}).filter((name) => isListedSchema(document, name));
}

/** The listed component schemas a field's type names: itself, its items, its alternatives. */
function linksOf(document: OpenApiDocument, schema: Schema | undefined, expanding: ReadonlySet<string>): string[] {
  if (!schema) return [];
  if (isReference(schema)) {
    if (isNamedSchemaRef(schema) && isListedSchema(document, refName(schema.$ref))) return [refName(schema.$ref)];
    if (expanding.has(schema.$ref)) return [];
  }
  const followed = follow(document, schema, expanding);
  if (!followed) return [];
  const inner = refsOf(schema, expanding);
  const s = followed.schema;
  const parts = [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.items ? [s.items] : [])];
  return unique(parts.flatMap((part) => linksOf(document, part, inner)));
}

/**
 * The object a field's rows come from: itself, its array's items, or its only non-null alternative.
 * A named schema is not laid out again inside another (`expandNamed` false): the field links to
 * its one entry in the Schemas section instead, which keeps the page small and ends every cycle.
 */
function objectInside(
  document: OpenApiDocument,
  schema: Schema,
  expanding: ReadonlySet<string>,
  expandNamed: boolean,
): { schema: Schema; expanding: ReadonlySet<string>; suffix: string } | undefined {
  if (!expandNamed && isNamedSchemaRef(schema)) return undefined;
  const followed = follow(document, schema, expanding);
  if (!followed) return undefined;
  const inner = refsOf(schema, expanding);
  const s = followed.schema;
  if (s.properties) return { schema: s, expanding: inner, suffix: "." };
  if (s.items) {
    const item = objectInside(document, s.items, inner, expandNamed);
    return item ? { ...item, suffix: `[]${item.suffix}` } : undefined;
  }
  const alternatives = (s.oneOf ?? s.anyOf)?.filter((part) => !isNullSchema(part));
  if (alternatives?.length === 1 && alternatives[0]) return objectInside(document, alternatives[0], inner, expandNamed);
  return undefined;
}

function collect(
  document: OpenApiDocument,
  schema: Schema,
  prefix: string,
  depth: number,
  expanding: ReadonlySet<string>,
  rows: FieldRow[],
): void {
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const followed = follow(document, property, expanding);
    const path = `${prefix}${name}`;
    rows.push({
      path,
      depth,
      type: typeLabel(document, property, expanding),
      links: linksOf(document, property, expanding),
      required: required.has(name),
      description: property.description ?? followed?.schema.description,
      enumValues: enumValues(document, property, expanding),
      notes: notesOf(followed?.schema ?? property),
    });
    if (depth + 1 >= MAX_DEPTH) continue;
    const inside = objectInside(document, property, expanding, false);
    if (inside) collect(document, inside.schema, `${path}${inside.suffix}`, depth + 1, inside.expanding, rows);
  }
}

/** A request or response schema laid out for the page, `$ref`s followed and cycles cut. */
export function layOutSchema(document: OpenApiDocument, schema: Schema | undefined): SchemaLayout | undefined {
  if (!schema) return undefined;
  const followed = follow(document, schema, new Set());
  const type = typeLabel(document, schema);
  if (!followed)
    return {
      name: isReference(schema) ? refName(schema.$ref) : undefined,
      type,
      innerType: type,
      rows: [],
      variants: [],
    };
  const expanding = refsOf(schema, new Set());
  const layout: SchemaLayout = {
    name: followed.name,
    description: followed.schema.description,
    type,
    innerType: typeLabel(document, followed.schema, expanding),
    rows: [],
    variants: [],
  };
  const alternatives = followed.schema.oneOf ?? followed.schema.anyOf;
  if (alternatives && !followed.schema.properties) {
    alternatives.forEach((part, index) => {
      const partFollowed = follow(document, part, expanding);
      const rows: FieldRow[] = [];
      if (partFollowed?.schema.properties) collect(document, partFollowed.schema, "", 0, refsOf(part, expanding), rows);
      layout.variants.push({
        title: partFollowed?.name ?? partFollowed?.schema.title ?? `Option ${index + 1}`,
        description: partFollowed?.schema.description,
        rows,
      });
    });
    return layout;
  }
  const inside = objectInside(document, schema, new Set(), true);
  if (inside)
    collect(document, inside.schema, inside.suffix === "." ? "" : inside.suffix, 0, inside.expanding, layout.rows);
  return layout;
}

/**
 * An example value built from a schema, for when the document gives none: each field's own example,
 * else its first enum value, else a placeholder of its type. Cycles and great depth give null.
 */
export function exampleOf(
  document: OpenApiDocument,
  schema: Schema | undefined,
  expanding: ReadonlySet<string> = new Set(),
  depth = 0,
): Json {
  if (!schema || depth > 8) return null;
  const followed = follow(document, schema, expanding);
  if (!followed) return null;
  const s = followed.schema;
  const inner = refsOf(schema, expanding);
  if (s.examples && s.examples.length > 0) return s.examples[0] ?? null;
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (s.enum && s.enum.length > 0) return s.enum[0] ?? null;
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) {
    const first = alternatives.find((part) => !isNullSchema(part)) ?? alternatives[0];
    return exampleOf(document, first, inner, depth + 1);
  }
  const types = Array.isArray(s.type) ? s.type.filter((type) => type !== "null") : s.type ? [s.type] : inferTypes(s);
  const type = types[0];
  if (type === "object" || s.properties) {
    const value: Record<string, Json> = {};
    for (const [name, property] of Object.entries(s.properties ?? {}))
      value[name] = exampleOf(document, property, inner, depth + 1);
    return value;
  }
  if (type === "array") return [exampleOf(document, s.items, inner, depth + 1)];
  if (type === "integer" || type === "number") return s.minimum ?? 0;
  if (type === "boolean") return true;
  if (type === "string") return s.format === "date-time" ? "2026-01-01T00:00:00Z" : "string";
  return null;
}
