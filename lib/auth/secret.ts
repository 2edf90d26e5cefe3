import { env } from "@/lib/env";

const DEV_SECRET = "points-development-secret-do-not-use-in-production";
let warned = false;

/**
 * CONTRACT.md §6: AUTH_SECRET (or next-auth v4's NEXTAUTH_SECRET); when neither is set, a
 * development secret with a warning. Sessions signed with a published secret can be forged, so in
 * production the warning says so plainly at startup; a deployment must set its own.
 */
export function authSecret(): string {
  const { AUTH_SECRET, NEXTAUTH_SECRET } = env();
  const secret = AUTH_SECRET ?? NEXTAUTH_SECRET;
  if (secret) return secret;
  if (!warned) {
    warned = true;
    console.warn(
      process.env.NODE_ENV === "production"
        ? "WARNING: AUTH_SECRET is not set, so dashboard sessions are signed with the public development secret. Set AUTH_SECRET before exposing this server."
        : "AUTH_SECRET is not set: using a development secret. Set AUTH_SECRET before deploying.",
    );
  }
  return DEV_SECRET;
}
