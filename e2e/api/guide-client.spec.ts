import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { expect, test } from "../fixtures";
import { codeBlockAfter } from "../readme";

/*
 * docs/api.md's "A typed client in TypeScript", as a reader follows it: in a project of their own (an
 * ES module with openapi-fetch and openapi-typescript installed: here this checkout's node_modules),
 * the command that writes the types from the running service, then the five lines, type-checked
 * and run with tsx. Only the service's URL is changed, to this run's server.
 */

const GUIDE = "docs/api.md";
const DOCUMENTED_URL = "http://localhost:3000";

/** A reader's project: package.json says ES module, and the packages the guide names are installed. */
function readerProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-guide-client-"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  fs.symlinkSync(path.join(process.cwd(), "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

/**
 * bash in the project, as a terminal would run the line (npx must find what is installed, never
 * download), with no colours: Playwright's FORCE_COLOR would have console.log colour a number.
 */
function run(dir: string, command: string, env: Record<string, string> = {}): string {
  const { FORCE_COLOR: _colours, ...inherited } = process.env;
  return execFileSync("bash", ["-c", command], {
    cwd: dir,
    encoding: "utf8",
    env: { ...inherited, NO_COLOR: "1", npm_config_offline: "true", npm_config_update_notifier: "false", ...env },
  }).trim();
}

/** TypeScript's complaints about these files, as a strict project with bundler resolution would make them. */
function typeErrors(files: string[]): { file: string; code: number; message: string }[] {
  const program = ts.createProgram(files, {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
    file: path.basename(diagnostic.file?.fileName ?? ""),
    code: diagnostic.code,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, " "),
  }));
}

test("docs/api.md's typed client: one command writes the types, five lines compile and read the balance", async ({
  fx,
  baseURL,
  request,
}) => {
  test.setTimeout(90_000);
  const command = codeBlockAfter(GUIDE, "[openapi-typescript](https://openapi-ts.dev) turns the document", "sh");
  const lines = codeBlockAfter(GUIDE, "Then five lines make the client", "ts");
  expect(lines.trimEnd().split("\n"), "the guide promises five lines").toHaveLength(5);
  for (const block of [command, lines]) expect(block).toContain(DOCUMENTED_URL);
  // Every package the guide runs (openapi-typescript, tsx) is one its install line names.
  const guide = fs.readFileSync(GUIDE, "utf8");
  const section = guide.slice(guide.indexOf("### A typed client in TypeScript"), guide.indexOf("Then five lines"));
  const installed = [...section.matchAll(/`npm install (?:-D )?([^`]+)`/g)].flatMap((match) =>
    (match[1] ?? "").split(" "),
  );
  expect(installed).toEqual(expect.arrayContaining(["openapi-fetch", "openapi-typescript", "tsx"]));
  expect(guide).toContain("run with `npx tsx balance.ts`");
  const origin = new URL(baseURL ?? fx.baseUrl).origin;
  const dir = readerProject();
  try {
    run(dir, command.replaceAll(DOCUMENTED_URL, origin));
    expect(fs.readFileSync(path.join(dir, "points-api.d.ts"), "utf8")).toContain('"/v3/points/balance"');

    const balance = path.join(dir, "balance.ts");
    fs.writeFileSync(balance, lines.replaceAll(DOCUMENTED_URL, origin));
    // A misspelt field must not compile: the client is typed by the document, not `any`.
    const misspelt = path.join(dir, "misspelt.ts");
    fs.writeFileSync(misspelt, lines.replaceAll(DOCUMENTED_URL, origin).replace("points_balance", "points_balanse"));
    const errors = typeErrors([balance, misspelt]);
    expect(errors.filter((error) => error.file === "balance.ts")).toEqual([]);
    expect(errors.filter((error) => error.file === "misspelt.ts").map((error) => error.code)).toEqual([2551]);

    // Run as the guide says. This organisation has no card, so nothing ever changes its balance.
    const organization = fx.organizations.noCards;
    const expected = await request.get("/v3/points/balance", {
      headers: { Authorization: `Bearer ${organization.apiKey}` },
    });
    expect(expected.status()).toBe(200);
    const printed = run(dir, "npx tsx balance.ts", { POINTS_API_KEY: organization.apiKey });
    expect(printed).toBe(String((await expected.json()).data.points_balance));
    // A refused key: the error's code, typed, is what it prints.
    expect(run(dir, "npx tsx balance.ts", { POINTS_API_KEY: "pts_not_a_key" })).toBe("invalid_api_key");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
