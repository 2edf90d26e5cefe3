import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/*
 * `npm run stripe:fake` (scripts/stripe-fake.ts) as a process of its own, as a person runs it, on
 * a port beside E2E_PORT, with the block it prints for pasting, and a way to run that block.
 */

const ROOT = process.cwd();
const TSX = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

export interface StripeFakeProcess {
  child: ChildProcess;
  url: string;
  /** What it printed for a person to paste into the app's terminal. */
  pasteBlock: string;
  /** The variables that block exports. */
  exports: Record<string, string>;
  output(): string;
  stop(): Promise<void>;
}

/** Starts it with these options (`--port`, `--forward-to`, `--state-dir`…) and waits for its printout. */
export async function startStripeFake(args: string[]): Promise<StripeFakeProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_FAKE_PORT"]) delete env[name];
  const child = spawn(process.execPath, [TSX, path.join("scripts", "stripe-fake.ts"), ...args], { cwd: ROOT, env });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("Stop with Ctrl-C.")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`npm run stripe:fake did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pasteBlock = /pasted whole:\n\n([\s\S]*?)\n\nStop with Ctrl-C\./.exec(output)?.[1] ?? "";
  const exports = Object.fromEntries(
    [...pasteBlock.matchAll(/^export (\w+)=(\S+)$/gm)].map((match) => [match[1], match[2]]),
  );
  return {
    child,
    url: exports.STRIPE_API_URL ?? "",
    pasteBlock,
    exports,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exit;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Runs the pasted block up to the app's start (which the test does itself, with `next start`) in
 * the project, on the embedded database in `pgliteDir`, the org it makes written to `dataDir`
 * rather than the project's own .data/.
 */
export function runPasteBlock(fake: StripeFakeProcess, pgliteDir: string, dataDir: string): void {
  const lines = fake.pasteBlock.split("\n").filter((line) => !/npm run dev$/.test(line));
  const script = lines.join("\n").replaceAll("> .data/", `> ${dataDir}/`);
  const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: pgliteDir };
  for (const name of [
    "DATABASE_URL",
    "TEST_DATABASE_URL",
    "STRIPE_SECRET_KEY",
    "STRIPE_API_URL",
    "STRIPE_WEBHOOK_SECRET",
  ])
    delete env[name];
  fs.mkdirSync(dataDir, { recursive: true });
  execFileSync("bash", ["-e", "-c", script], { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}
