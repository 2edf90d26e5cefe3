import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout's root, where `scripts/` and `node_modules/` are. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command from the checkout's root to its end, with its whole output: what an operator would see. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
