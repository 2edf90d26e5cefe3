/** A form value as Stripe's API reads it: strings, nested objects (`a[b]=`), and arrays (`a[0]=`, `a[]=`). */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

/**
 * Parses `application/x-www-form-urlencoded` the way Stripe does (qs style, as stripe-node sends
 * it): `metadata[top_up_id]=tu_1`, `expand[0]=data.currency_options`, `lookup_keys[]=points_100`.
 * An indexed or empty-bracket key makes an array. An empty string stays "" (Stripe reads it as
 * "unset this field": the route decides).
 */
export function parseForm(body: string): FormObject {
  const root: { [key: string]: Node } = {};
  if (!body) return {};
  for (const pair of body.split("&")) {
    if (!pair) continue;
    const [rawKey = "", rawValue = ""] = splitOnce(pair, "=");
    const key = decode(rawKey);
    const value = decode(rawValue);
    const path = keyPath(key);
    assign(root, path, value);
  }
  return normaliseArrays(root) as FormObject;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
}

function decode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, " "));
}

/** `a[b][0][]` → ["a", "b", "0", ""]. */
function keyPath(key: string): string[] {
  const first = key.indexOf("[");
  if (first < 0) return [key];
  const parts = [key.slice(0, first)];
  for (const match of key.slice(first).matchAll(/\[([^\]]*)\]/g)) parts.push(match[1] ?? "");
  return parts;
}

type Node = { [key: string]: Node | string } | string;

function assign(target: { [key: string]: Node }, path: string[], value: string): void {
  const [head = "", ...rest] = path;
  // `a[]=x` appends: give each such value a fresh numeric slot.
  const slot = head === "" ? String(Object.keys(target).length) : head;
  if (rest.length === 0) {
    target[slot] = value;
    return;
  }
  const existing = target[slot];
  const child: { [key: string]: Node } = typeof existing === "object" ? existing : {};
  target[slot] = child;
  assign(child, rest, value);
}

/** Objects whose keys are all 0..n-1 become arrays, as Stripe reads `expand[0]`, `expand[1]`. */
function normaliseArrays(node: Node): FormValue {
  if (typeof node === "string") return node;
  const keys = Object.keys(node);
  const values = keys.map((key) => normaliseArrays(node[key] as Node));
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys
      .map((key, index) => [Number(key), values[index] as FormValue] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, value]) => value);
  }
  return Object.fromEntries(keys.map((key, index) => [key, values[index] as FormValue]));
}

/** Reads a string field ("" counts as absent unless the caller says otherwise). */
export function str(form: FormObject, key: string): string | undefined {
  const value = form[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

export function obj(form: FormObject, key: string): FormObject | undefined {
  const value = form[key];
  return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}

export function list(form: FormObject, key: string): string[] {
  const value = form[key];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  if (typeof value === "string" && value !== "") return [value];
  if (value && typeof value === "object")
    return Object.values(value).filter((item): item is string => typeof item === "string");
  return [];
}

export function bool(form: FormObject, key: string): boolean | undefined {
  const value = str(form, key);
  return value === undefined ? undefined : value === "true";
}

export function int(form: FormObject, key: string): number | undefined {
  const value = str(form, key);
  return value !== undefined && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

/** Metadata as Stripe stores it: string values; an empty string deletes the key. */
export function metadataOf(form: FormObject, previous: Record<string, string> = {}): Record<string, string> {
  const given = obj(form, "metadata");
  if (!given) return previous;
  const next = { ...previous };
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== "string") continue;
    if (value === "") delete next[key];
    else next[key] = value;
  }
  return next;
}
