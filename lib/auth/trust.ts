import { isIP } from "node:net";

const CAPTURED = "POINTS_OPERATOR_TRUSTS_PROXY";

/**
 * Whether the operator said a proxy in front sets X-Forwarded-* truthfully: AUTH_TRUST_HOST, or
 * the public URL (AUTH_URL / NEXTAUTH_URL) set explicitly. Otherwise those headers come from the
 * client, and a client must not choose the host or scheme of its own redirects and cookies, nor
 * the address its sign-in failures are counted under.
 *
 * Captured the first time it is asked, in process.env so that every bundle of the process (the
 * proxy, the route handlers) agrees, before lib/auth/options.ts sets anything for next-auth.
 */
export function operatorTrustsForwardedHeaders(): boolean {
  const { AUTH_TRUST_HOST, AUTH_URL, NEXTAUTH_URL } = process.env;
  process.env[CAPTURED] ??= (AUTH_TRUST_HOST && AUTH_TRUST_HOST !== "false") || AUTH_URL || NEXTAUTH_URL ? "1" : "0";
  return process.env[CAPTURED] === "1";
}

/**
 * The headers a request is answered with when no trusted proxy is declared: the forwarded host
 * is the Host the client connected to, and the scheme is Next's own (plain http). Null when the
 * operator trusts the proxy, which then speaks for the client.
 */
export function untrustedForwardedHeaders(headers: Headers): Headers | null {
  if (operatorTrustsForwardedHeaders()) return null;
  const sanitized = new Headers(headers);
  const host = headers.get("host");
  if (host) sanitized.set("x-forwarded-host", host);
  else sanitized.delete("x-forwarded-host");
  sanitized.set("x-forwarded-proto", "http");
  sanitized.delete("x-forwarded-for");
  return sanitized;
}

/**
 * The client's address for per-address limits: the leftmost X-Forwarded-For value, only behind a
 * trusted proxy and only if it parses as an IP. Otherwise none: without a declared proxy the
 * header is the client's own word, and a limit keyed on it could be dodged or aimed at others.
 */
export function clientAddress(forwardedFor: string | null | undefined): string | null {
  if (!operatorTrustsForwardedHeaders()) return null;
  const leftmost = forwardedFor?.split(",")[0]?.trim() ?? "";
  return isIP(leftmost) ? leftmost : null;
}
