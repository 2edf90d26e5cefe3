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
