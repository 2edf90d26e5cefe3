import { isIP } from "node:net";
import { env } from "@/lib/env";

const CAPTURED = "POINTS_OPERATOR_TRUSTS_PROXY";

/**
 * Whether the operator said a proxy in front sets X-Forwarded-* truthfully: AUTH_TRUST_HOST, or
 * the public URL (AUTH_URL / NEXTAUTH_URL) set explicitly. Otherwise those headers come from the
 * client, and a client must not choose the host or scheme of its own redirects and cookies, nor
 * the address its sign-in failures are counted under.
 *
 * Captured the first time it is asked, in process.env so that every bundle of the process (the
 * proxy, the route handlers) agrees, before lib/dashboard/auth-options.ts sets anything for next-auth.
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

/** How many proxies in front append to X-Forwarded-For (AUTH_TRUSTED_PROXY_HOPS, 1 by default). */
export function trustedProxyHops(): number {
  return env().AUTH_TRUSTED_PROXY_HOPS ?? 1;
}

/**
 * The address the server's socket saw, as scripts/socket-address.mjs stamps it on every request
 * (replacing any copy the client sent). None when that hook is not installed in this process: the
 * header could then be the client's own.
 */
export function socketAddressOf(headers: Record<string, string | string[] | undefined>): string | null {
  const name = process.env.POINTS_SOCKET_ADDRESS_HEADER;
  const value = name ? headers[name] : undefined;
  return typeof value === "string" ? value : null;
}

/**
 * The client's address for per-address limits. Behind a trusted proxy it is the entry that proxy
 * appended to X-Forwarded-For: the Nth from the right with N trusted hops (entries further left are
 * the client's word), the leftmost if there are fewer; without the header, the socket's. With no
 * proxy declared, always the socket's. Null unless it parses as an IP.
 */
export function chooseClientAddress(input: {
  trustsProxy: boolean;
  hops: number;
  forwardedFor: string | null | undefined;
  socketAddress: string | null | undefined;
}): string | null {
  const entries = (input.forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chosen =
    input.trustsProxy && entries.length > 0
      ? entries[Math.max(0, entries.length - input.hops)]
      : input.socketAddress?.trim();
  if (!chosen) return null;
  const address = chosen.startsWith("::ffff:") && isIP(chosen.slice(7)) === 4 ? chosen.slice(7) : chosen;
  return isIP(address) ? address : null;
}

/** chooseClientAddress for a request's headers, with this server's settings. */
export function clientAddress(headers: Record<string, string | string[] | undefined>): string | null {
  const forwardedFor = headers["x-forwarded-for"];
  return chooseClientAddress({
    trustsProxy: operatorTrustsForwardedHeaders(),
    hops: trustedProxyHops(),
    forwardedFor: typeof forwardedFor === "string" ? forwardedFor : null,
    socketAddress: socketAddressOf(headers),
  });
}
