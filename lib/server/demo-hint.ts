import path from "node:path";
import { demoInfoFile, demoPasswordWorks, demoResetCommand } from "@/lib/points/accounts/seed";
import type { Runtime } from "./runtime";

/** What the sign-in page of `npm run dev` says about the demo's admin: never the password itself. */
export interface DemoSignInHint {
  email: string;
  /** Where the password is kept, relative to the project when it is inside it. */
  file: string;
  /** Set when the kept password no longer works (changed or reset since): the command that makes a new one. */
  reset?: string;
}

/**
 * Only under `next dev` (NODE_ENV development), and only when this process seeded (or found) the
 * demo organisation on the embedded database: `next start` seeds none, and its sign-in page says
 * nothing about one, nor waits for the database to say it. A runtime that cannot start shows no hint.
 */
export async function demoSignInHint(
  runtime: () => Promise<Pick<Runtime, "demo" | "database" | "db">>,
  cwd = process.cwd(),
): Promise<DemoSignInHint | null> {
  if (process.env.NODE_ENV !== "development") return null;
  const started = await runtime().catch(() => null);
  if (!started) return null;
  const { demo, database, db } = started;
  if (!demo || database.kind !== "pglite") return null;
  const file = demoInfoFile(path.dirname(database.location));
  const relative = path.relative(cwd, file);
  const hint: DemoSignInHint = {
    email: demo.admin.email,
    file: relative.startsWith("..") || path.isAbsolute(relative) ? file : relative,
  };
  if (!(await demoPasswordWorks(db, demo).catch(() => true))) hint.reset = demoResetCommand(demo);
  return hint;
}
