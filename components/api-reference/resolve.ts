import type { OpenApiDocument, Reference } from "./types";

export function isReference(value: unknown): value is Reference {
  return typeof value === "object" && value !== null && typeof (value as { $ref?: unknown }).$ref === "string";
}

/** The last segment of a local `$ref` ("#/components/schemas/TopUp" → "TopUp"). */
export function refName(ref: string): string {
  const segments = ref.split("/");
  return decodePointerSegment(segments[segments.length - 1] ?? ref);
}

function decodePointerSegment(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** What a local JSON pointer ("#/a/b") points at in the document, or undefined. */
function lookUp(document: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const segment of ref.slice(2).split("/")) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[decodePointerSegment(segment)];
  }
  return node;
}

export interface Resolved<T> {
  value: T;
  /** The name of the last component followed, when there was a `$ref`. */
  name?: string;
}

/**
 * Follows `$ref`s (local ones, `#/components/...` or any other pointer into the document) until a
 * value that is not a reference. A reference that loops back on itself, or points nowhere, gives
 * undefined: the page then shows the reference's name instead of the value.
 */
export function resolve<T>(document: OpenApiDocument, value: T | Reference | undefined): Resolved<T> | undefined {
  let current: unknown = value;
  let name: string | undefined;
  const seen = new Set<string>();
  while (isReference(current)) {
    const ref = current.$ref;
    if (seen.has(ref)) return undefined;
    seen.add(ref);
    name = refName(ref);
    current = lookUp(document, ref);
  }
  if (current === undefined) return undefined;
  return { value: current as T, name };
}
