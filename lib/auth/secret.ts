import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";

/** next-auth signs session cookies with this: shorter secrets can be guessed offline. */
export const MIN_SECRET_BYTES = 32;

const HOW_TO_MAKE_ONE = "Make one with `openssl rand -base64 32` and set it as AUTH_SECRET.";

/** Why the server cannot sign sessions: startup stops with this message. */
export class AuthSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthSecretError";
  }
}

/**
 * Where `npm run dev` keeps the secret it generated, beside the embedded database. Read at run time
 * only: `turbopackIgnore` keeps `next build` from tracing the file into the server's output, which
 * would ship a developer's secret with a deployment.
 */
export function devSecretFile(): string {
  return path.join(/* turbopackIgnore: true */ process.cwd(), ".data", "auth-secret");
}

let cached: string | undefined;

/**
 * docs/contract.md §6: the secret that signs dashboard sessions. AUTH_SECRET (or next-auth v4's
 * NEXTAUTH_SECRET), at least 32 bytes. In production there is no fallback: a published or
 * guessable secret lets anyone forge an admin session. Outside production (`npm run dev`) a
 * random secret is generated once and kept in .data/auth-secret, so sessions survive restarts.
 * No secret is ever a constant in the code.
 */
export function authSecret(options: { onGenerated?: (file: string) => void } = {}): string {
  if (cached) return cached;
  const { AUTH_SECRET, NEXTAUTH_SECRET } = env();
  const configured = AUTH_SECRET ?? NEXTAUTH_SECRET;
  if (configured) {
    if (Buffer.byteLength(configured, "utf8") < MIN_SECRET_BYTES) {
      throw new AuthSecretError(`AUTH_SECRET is shorter than ${MIN_SECRET_BYTES} bytes. ${HOW_TO_MAKE_ONE}`);
    }
    cached = configured;
    return cached;
  }
  if (process.env.NODE_ENV === "production") {
    throw new AuthSecretError(`AUTH_SECRET is not set: the dashboard cannot sign sessions. ${HOW_TO_MAKE_ONE}`);
  }
  cached = readOrCreateDevSecret(devSecretFile(), options.onGenerated);
  return cached;
}

/**
 * Reads the development secret, or creates it (exclusively: two processes starting at once agree),
 * telling `onCreated` when this call made it.
 */
export function readOrCreateDevSecret(file: string = devSecretFile(), onCreated?: (file: string) => void): string {
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (Buffer.byteLength(existing) >= MIN_SECRET_BYTES) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    fs.writeFileSync(file, `${secret}\n`, { flag: "wx", mode: 0o600 });
    onCreated?.(file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return fs.readFileSync(file, "utf8").trim();
    throw error;
  }
}
