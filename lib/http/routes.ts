/**
 * The API's route templates, as the OpenAPI document names them: logs and metrics label a request
 * by its template (never its path, whose ids would make a metric series per purchase). A vitest
 * (lib/openapi/document.test.ts) holds this list to the document's paths.
 */
export const API_ROUTES = [
  "/v3/points/top-ups",
  "/v3/points/top-ups/{id}",
  "/v3/points/payment-methods",
  "/v3/points/balance",
  "/v3/points/quotes",
  "/v3/points/events",
  "/v3/points/spends",
  "/v3/openapi.json",
] as const;

const patterns = new Map<string, RegExp>();

function patternOf(template: string): RegExp {
  let pattern = patterns.get(template);
  if (!pattern) {
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
      .join("");
    pattern = new RegExp(`^${source}$`);
    patterns.set(template, pattern);
  }
  return pattern;
}

/** The template among `templates` that a concrete path matches (`/v3/points/top-ups/{id}`), or null. */
export function matchRoute(path: string, templates: readonly string[] = API_ROUTES): string | null {
  if (templates.includes(path)) return path;
  return templates.find((template) => patternOf(template).test(path)) ?? null;
}
