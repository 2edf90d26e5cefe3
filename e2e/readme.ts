import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";

/*
 * The documentation's shell blocks (the README, docs/*.md), found by the paragraph before them and
 * run in bash as a reader would paste them (e2e/api/readme.spec.ts, e2e/stripe-fake/ and others).
 */

/** The `lang` code block that follows the first line of `file` starting with `intro`. */
export function codeBlockAfter(file: string, intro: string, lang = "sh"): string {
  const text = fs.readFileSync(path.join(process.cwd(), file), "utf8");
  const start = text.indexOf(`\n${intro}`);
  expect(start, `${file} has a paragraph starting "${intro}"`).toBeGreaterThan(-1);
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(start));
  if (!match?.[1]) throw new Error(`No ${lang} block after "${intro}" in ${file}.`);
  return match[1];
}

/** The shell block that follows the first line of `file` starting with `intro`. */
export function shellBlockAfter(file: string, intro: string): string {
  return codeBlockAfter(file, intro, "sh");
}

/** Runs a documented block in bash with the server's URL, and returns the HTTP statuses it printed. */
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
