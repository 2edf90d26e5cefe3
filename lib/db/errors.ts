/**
 * True when the error (or one it wraps: drizzle puts the driver's error in `cause`) is a
 * Postgres unique violation, optionally on the named constraint or index.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; constraint_name?: unknown; cause?: unknown };
    if (candidate.code === "23505") {
      const name = candidate.constraint_name ?? candidate.constraint;
      return constraint === undefined || name === constraint;
    }
    current = candidate.cause;
  }
  return false;
}

/** postgres.js's own codes for a connection that is gone or never came (its errors' `code`). */
const DRIVER_CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server (or pooler) that cannot serve now, whatever the query: class 08
 * (connection exception; PgBouncer answers 08P01 while it cannot log in to Postgres, or a client
 * waited past query_wait_timeout), 57P01-57P03 (admin or crash shutdown, cannot connect now),
 * 53300 (too many connections) and 57014 (a statement cut by statement_timeout).
 */
function isUnavailableState(code: string): boolean {
  return (
    code.startsWith("08") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03" ||
    code === "53300" ||
    code === "57014"
  );
}

/**
 * True when the error (or one it wraps) says the database could not be reached or dropped the
 * connection: a moment's outage (a pooler or Postgres restarting), not a fault of the request.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      (DRIVER_CONNECTION_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isUnavailableState(code)))
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
