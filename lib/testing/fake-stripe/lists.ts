import type Stripe from "stripe";
import type { Ctx } from "./answers";
import { type FormObject, int, list, str } from "./form";

/** Stripe's list envelope: newest first, `limit` (default 10, at most 100), `starting_after`, `ending_before`. */
export function listPage<T extends { id: string }>(items: T[], ctx: Ctx, url: string): Stripe.ApiList<T> {
  const limit = Math.min(Math.max(int(ctx.query, "limit") ?? 10, 1), 100);
  const after = str(ctx.query, "starting_after");
  const before = str(ctx.query, "ending_before");
  let start = 0;
  let end = items.length;
  if (after) start = items.findIndex((item) => item.id === after) + 1;
  if (before)
    end = Math.max(
      items.findIndex((item) => item.id === before),
      0,
    );
  const window = before ? items.slice(Math.max(end - limit, 0), end) : items.slice(start, start + limit);
  const hasMore = before ? end - limit > 0 : start + limit < items.length;
  return { object: "list", url, has_more: hasMore, data: window };
}

/** Stripe's search envelope, one page: this server never has more. */
export function searchResult<T>(data: T[], url: string): Stripe.ApiSearchResult<T> {
  return { object: "search_result", url, has_more: false, next_page: null, data };
}

/** Stripe's search syntax, as far as this product uses it: `field:'value'` and `metadata['k']:'v'`, AND-ed. */
export function matchesQuery(
  query: string,
  metadata: Record<string, string>,
  fields: Record<string, string | null>,
): boolean {
  const clauses = query.split(/\s+AND\s+/i).filter(Boolean);
  return clauses.every((clause) => {
    const meta = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(clause.trim());
    if (meta) return metadata[meta[1] ?? ""] === meta[2];
    const field = /^([a-z_]+):'([^']*)'$/.exec(clause.trim());
    if (field) return fields[field[1] ?? ""] === field[2];
    return false;
  });
}

/** The `expand[]` paths a request asked for. */
export function expands(query: FormObject): Set<string> {
  return new Set(list(query, "expand"));
}
