const DEV_SECRET = "points-development-secret-do-not-use-in-production";
let warned = false;

/**
 * CONTRACT.md §6: AUTH_SECRET (or next-auth v4's NEXTAUTH_SECRET). Outside production a fixed
 * development secret is used, with a warning; in production there is none, and next-auth then
 * refuses to sign anyone in rather than sign sessions with a known key.
 */
export function authSecret(): string | undefined {
  const secret = process.env.AUTH_SECRET || process.env.NEXTAUTH_SECRET;
  if (secret) return secret;
  if (process.env.NODE_ENV === "production") return undefined;
  if (!warned) {
    console.warn("AUTH_SECRET is not set: using a development secret. Set AUTH_SECRET before deploying.");
    warned = true;
  }
  return DEV_SECRET;
}
