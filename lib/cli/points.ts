import os from "node:os";
import { PgliteLockedError } from "@/lib/db/pglite-lock";
import { newId } from "@/lib/ids";
import { type Actor, runWithRequestContext } from "@/lib/observability/context";
import { PointsError, ProvisioningError } from "@/lib/points/errors";
import { createRuntime, type Runtime } from "@/lib/server/runtime";
import { UsageError } from "./args";
import { type PointsCommand, parseCommand } from "./commands";
import { type CliIo, refusalMessage } from "./output";
import { audit } from "./run/audit";
import { disputeSettle } from "./run/dispute";
import { grant } from "./run/grant";
import { keyCreate, keyRevoke } from "./run/key";
import { orgCreate, orgSpend, orgUpdate } from "./run/org";
import { reconcile } from "./run/reconcile";
import { CommandRefused, messageOf } from "./run/shared";
import { stripeSetupPrices } from "./run/stripe";
import { topUpRefund } from "./run/top-up";
import { userAdd, userResetPassword } from "./run/user";
import { webhook } from "./run/webhook";
import { USAGE } from "./usage";

/** Exit codes: 0 done, 1 refused or failed (nothing changed), 2 the command line is wrong. */
export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

export interface PointsCliDependencies {
  /** The app's own runtime: the same database, migrations and billing provider as the server. */
  openRuntime(): Promise<Runtime>;
}

const defaultDependencies: PointsCliDependencies = { openRuntime: () => createRuntime() };

/**
 * `npm run points -- <command>` (docs/contract.md §7). The whole line is validated before the database
 * is opened, and every change goes through lib/points, which validates before it writes, so a
 * refused command leaves the database as it was. Returns the exit code.
 */
export async function runPointsCli(
  argv: readonly string[],
  io: CliIo,
  dependencies: PointsCliDependencies = defaultDependencies,
): Promise<number> {
  let command: PointsCommand;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${error.message}\n`);
    io.stderr(error.showUsage ? `\n${USAGE}` : "Run `npm run points -- help` for the commands and options.\n");
    return EXIT_USAGE;
  }
  if (command.kind === "help") {
    io.stdout(USAGE);
    return EXIT_OK;
  }

  let runtime: Runtime;
  try {
    runtime = await dependencies.openRuntime();
  } catch (error) {
    // PgliteLockedError's own message says to stop the server or set DATABASE_URL.
    const reason =
      error instanceof PgliteLockedError ? error.message : `The command could not start: ${messageOf(error)}`;
    io.stderr(`${reason}\n`);
    return EXIT_REFUSED;
  }
  try {
    // What a change defers (a recharge it made due) runs before the command exits.
    const deferred: Promise<void>[] = [];
    const services: Runtime = { ...runtime, defer: (task) => void deferred.push(task()) };
    await runWithRequestContext({ requestId: newId("request"), actor: operator() }, async () => {
      await execute(command, services, io);
      await Promise.all(deferred);
    });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ProvisioningError || error instanceof CommandRefused || error instanceof PointsError) {
      const message = error instanceof ProvisioningError ? refusalMessage(error) : error.message;
      io.stderr(`${message}\nNothing was changed.\n`);
    } else {
      io.stderr(`The command failed: ${messageOf(error)}\n`);
    }
    return EXIT_REFUSED;
  } finally {
    // Closing lets the process exit at once and, on PGlite, releases the directory lock.
    await runtime.database.close().catch(() => {});
  }
}

/** The operator running the command, as the audit log names them: the system user, when it can be read. */
function operator(): Actor {
  try {
    return { type: "operator", id: os.userInfo().username || "operator" };
  } catch {
    return { type: "operator", id: "operator" };
  }
}

async function execute(command: Exclude<PointsCommand, { kind: "help" }>, runtime: Runtime, io: CliIo): Promise<void> {
  switch (command.kind) {
    case "org-create":
      return orgCreate(command, runtime, io);
    case "org-update":
      return orgUpdate(command, runtime, io);
    case "key-create":
      return keyCreate(command, runtime, io);
    case "key-revoke":
      return keyRevoke(command, runtime, io);
    case "user-add":
      return userAdd(command, runtime, io);
    case "user-reset-password":
      return userResetPassword(command, runtime, io);
    case "reconcile":
      return reconcile(command, runtime, io);
    case "stripe-setup-prices":
      return stripeSetupPrices(command, runtime, io);
    case "top-up-refund":
      return topUpRefund(command, runtime, io);
    case "dispute-settle":
      return disputeSettle(command, runtime, io);
    case "org-spend":
      return orgSpend(command, runtime, io);
    case "audit":
      return audit(command, runtime, io);
    case "grant-create":
    case "grant-void":
    case "grant-list":
      return grant(command, runtime, io);
    default:
      return webhook(command, runtime, io);
  }
}
