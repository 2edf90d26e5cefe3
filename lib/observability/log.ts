import { createRequire } from "node:module";
import path from "node:path";
import pino, { type DestinationStream, type Logger } from "pino";
import { env } from "@/lib/env";
import { requestContext } from "./context";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fields censored wherever they appear in a line, at any depth scrub walks: API keys, passwords,
 * cookies, the Authorization header, Stripe's keys and webhook secrets.
 */
const SECRET_FIELDS = [
  "authorization",
  "Authorization",
  "cookie",
  "Cookie",
  "set-cookie",
  "password",
  "apiKey",
  "api_key",
  "secret",
  "secretKey",
  "secret_key",
  "webhookSecret",
  "webhook_secret",
  "sessionToken",
  "session_token",
  "stripeSecretKey",
];
const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS);
export const REDACTED = "[redacted]";

/**
 * Secrets recognised by their shape, in any string a line carries (a message, an error's text):
 * field names alone miss a key pasted into a message. Our API keys, Stripe's secret, restricted
 * and publishable keys, webhook secrets, and whatever follows `Bearer`.
 */
const SECRET_VALUES = [
  /\bpts_[A-Za-z0-9]{8,}/g,
  /\b(?:sk|rk)_(?:test|live)_[A-Za-z0-9]+/g,
  /\bwhsec_[A-Za-z0-9+/=]+/g,
  /\b(bearer)\s+[^\s"',]+/gi,
];

/** Whether a text may hold one of SECRET_VALUES: one scan, so most strings are not searched four times. */
const MAY_HOLD_SECRET = /pts_|_(?:test|live)_|whsec_|bearer/i;

export function scrubText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let scrubbed = text;
  for (const pattern of SECRET_VALUES) {
    scrubbed = scrubbed.replace(pattern, (_match, scheme?: string) =>
      typeof scheme === "string" && /^bearer$/i.test(scheme) ? `${scheme} ${REDACTED}` : REDACTED,
    );
  }
  return scrubbed;
}

/**
 * Every string in a line's fields scrubbed and every secret field censored, in one walk; an Error
 * kept to its name and message (no stack, no cause).
 */
function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value instanceof Error) return { type: value.name, message: scrubText(value.message) };
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const scrubbed: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    scrubbed[key] = SECRET_FIELD_NAMES.has(key) ? REDACTED : scrub(item, depth + 1);
  }
  return scrubbed;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go: stdout (1) unless a test or the operator command says otherwise. */
  destination?: DestinationStream;
  /** Lines for a person (pino-pretty), as `npm run dev` prints them. */
  pretty?: boolean;
}

/**
 * One JSON line per event, UTC timestamps, the request's id, organisation and API key id on every
 * line written while serving a request (lib/observability/context.ts). Lines go to stdout
 * asynchronously: those written while a write is under way leave together, instead of one system
 * call each, and what is still buffered is written synchronously when the process exits.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination =
    options.destination ?? (options.pretty ? prettyDestination() : null) ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: options.level ?? "info",
      base: { service: "points" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrub(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((arg) => (typeof arg === "string" ? scrubText(arg) : arg)) as Parameters<typeof method>,
          );
        },
      },
      mixin() {
        const context = requestContext();
        if (!context) return {};
        return {
          request_id: context.requestId,
          ...(context.organizationId ? { organization_id: context.organizationId } : {}),
          ...(context.apiKeyId ? { api_key_id: context.apiKeyId } : {}),
        };
      },
    },
    destination,
  );
}

/**
 * pino-pretty, formatting each line in place (no worker thread), for `npm run dev`. It is a
 * development dependency: loaded by name at run time, so the production build never needs it.
 */
function prettyDestination(): DestinationStream | null {
  try {
    const load = createRequire(path.join(process.cwd(), "package.json"));
    const { prettyFactory } = load("pino-pretty") as typeof import("pino-pretty");
    const format = prettyFactory({
      colorize: true,
      singleLine: true,
      translateTime: "SYS:HH:MM:ss",
      ignore: "pid,hostname,service",
    });
    return { write: (line: string) => void process.stdout.write(format(line)) };
  } catch {
    return null;
  }
}

function levelFromEnv(): LogLevel {
  return env().LOG_LEVEL ?? "info";
}

const globalForLog = globalThis as unknown as { pointsLogger?: Logger };

/**
 * The process's logger, made once (Next loads this module once per bundle): LOG_LEVEL sets its
 * level (default info); outside production it prints for a person.
 */
export function log(): Logger {
  globalForLog.pointsLogger ??= createLogger({
    level: levelFromEnv(),
    pretty: process.env.NODE_ENV !== "production",
  });
  return globalForLog.pointsLogger;
}

/** Replaces the process's logger: a test captures lines with createLogger({ destination }). */
export function replaceLogger(logger: Logger): void {
  globalForLog.pointsLogger = logger;
}

/**
 * The operator command keeps stdout for its own output (`--json`): its lines go to stderr, and
 * only warnings and errors unless LOG_LEVEL says otherwise (it prints what it did itself).
 */
export function logToStderr(): void {
  globalForLog.pointsLogger = createLogger({
    level: env().LOG_LEVEL ?? "warn",
    destination: pino.destination({ dest: 2, sync: true }),
  });
}
