import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";

/*
 * The README's shell blocks, found by the paragraph before them and run in bash as a reader
 * would paste them (e2e/api/readme.spec.ts, e2e/stripe-fake/).
 */

const README = fs.readFileSync(path.join(process.cwd(), "README.md"), "utf8");

/** The shell block that follows the first line starting with `intro`. */
export function shellBlockAfter(intro: string): string {
  const start = README.indexOf(`\n${intro}`);
  expect(start, `README has a paragraph starting "${intro}"`).toBeGreaterThan(-1);
  const match = /```sh\n([\s\S]*?)```/.exec(README.slice(start));
  if (!match?.[1]) throw new Error(`No shell block after "${intro}".`);
  return match[1];
}

/** Runs a README block in bash with the server's URL, and returns the HTTP statuses it printed. */
export function runBlock(block: string, baseUrl: string, variables: Record<string, string>): number[] {
  const script = `exec 2>&1\n${block.replace(/^URL=.*$/m, `URL=${baseUrl}`)}`;
  const output = execFileSync("bash", ["-c", script], {
    encoding: "utf8",
    env: { ...process.env, ...variables },
    cwd: variables.WORKDIR ?? process.cwd(),
  });
  const statuses = [...output.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((match) => Number(match[1]));
  if (statuses.length === 0) throw new Error(`The block printed no HTTP status:\n${script}\n---\n${output}`);
  return statuses;
}
