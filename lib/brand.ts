/**
 * Next.js bundles the startup hook (which builds the runtime and its provider) apart from the
 * routes, so a class can exist twice in one process and plain `instanceof` fails across the two
 * copies. Classes whose identity matters carry a process-wide Symbol.for brand instead, and
 * answer `instanceof` by it in a `static [Symbol.hasInstance]` method.
 */
export function brandOf(name: string): symbol {
  return Symbol.for(`points.${name}`);
}

export function hasBrand(brand: symbol): (value: unknown) => boolean {
  return (value) => typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}
