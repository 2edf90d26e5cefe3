const PLACEHOLDER_ORIGIN = "http://same-origin.invalid";

/**
 * Where to go after signing in: a path on this site, or /dashboard. The value is parsed as a URL
 * against a placeholder origin and kept only if it stays on that origin, so `//evil.example`,
 * `/\evil.example` (browsers read the backslash as a slash), `https://evil.example` and anything
 * with control characters (which browsers strip before parsing) are all refused.
 */
export function safeRedirectPath(value: string | null | undefined, fallback = "/dashboard"): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.includes("\\")) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(value)) return fallback;
  let parsed: URL;
  try {
    parsed = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return fallback;
  }
  if (parsed.origin !== PLACEHOLDER_ORIGIN) return fallback;
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}
