import { operatorTrustsForwardedHeaders } from "@/lib/auth/trust";

/**
 * This deployment's own URL, for the example request: the public URL when the operator set one
 * (AUTH_URL / NEXTAUTH_URL), else the Host the request arrived with. A proxy's X-Forwarded-* is
 * read only when the operator declared it trusted (lib/auth/trust.ts). Anything that does not look
 * like a host falls back to localhost, so a forged header cannot put markup or another command
 * into the example.
 */
export function deploymentUrl(header: (name: string) => string | null): string {
  const configured = process.env.AUTH_URL ?? process.env.NEXTAUTH_URL;
  if (configured && /^https?:\/\/[A-Za-z0-9.:[\]-]+\/?$/.test(configured)) return configured.replace(/\/$/, "");
  const first = (value: string | null) => value?.split(",")[0]?.trim() ?? "";
  const trusted = operatorTrustsForwardedHeaders();
  const forwardedProto = trusted ? first(header("x-forwarded-proto")).toLowerCase() : "";
  const host = (trusted ? first(header("x-forwarded-host")) : "") || first(header("host"));
  const safeHost = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? host : "localhost:3000";
  const isLocal = /^(localhost|127\.|\[::1\])/.test(safeHost);
  const proto = forwardedProto === "http" || forwardedProto === "https" ? forwardedProto : isLocal ? "http" : "https";
  return `${proto}://${safeHost}`;
}
