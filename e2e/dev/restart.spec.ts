import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { WCAG_21_AA } from "../accessibility";

/*
 * `npm run dev`, stopped and started again, on the embedded database inside the project (where
 * the dev server's file watcher can see it): after each start, /signin and a dashboard page load
 * once and stay loaded, with no reload loop; and the console says each thing once.
 */

/** Beside this run's E2E_PORT (offset 7, which no other spec uses), so two checkouts can run at once. */
const PORT = Number(process.env.E2E_PORT ?? 3100) + 7;
const ROOT = process.cwd();
const SCREENSHOTS = path.join(ROOT, "e2e", ".artifacts", "screenshots");

/** What `npm run dev` runs (package.json), so the test sees what a person sees. */
const DEV_COMMAND = [path.join(ROOT, "scripts", "next.mjs"), "dev", "-p", String(PORT)];

async function startDev(dataDir: string, output: string[]): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: path.join(dataDir, "pglite"), NODE_ENV: "development" };
  for (const name of [
    "DATABASE_URL",
    "TEST_DATABASE_URL",
    "AUTH_SECRET",
    "NEXTAUTH_SECRET",
    "NEXTAUTH_URL",
    "STRIPE_SECRET_KEY",
  ]) {
    delete env[name];
  }
  delete env.NEXT_TELEMETRY_DISABLED;
  const child = spawn(process.execPath, DEV_COMMAND, { env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  for (let attempt = 0; attempt < 180; attempt += 1) {
    const up = await fetch(`http://localhost:${PORT}/signin`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  child.kill("SIGKILL");
  throw new Error("next dev did not start within 3 minutes");
}

async function stopDev(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

/** Every file under a directory with its size and modification time; empty when it does not exist. */
function snapshot(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => ({ name, stat: fs.statSync(path.join(dir, name)) }))
    .filter(({ stat }) => stat.isFile())
    .map(({ name, stat }) => `${name} ${stat.size} ${stat.mtimeMs}`)
    .sort();
}

/** Document loads of the page while it sits for a few seconds: one means no reload. */
async function documentLoads(page: Page, url: string): Promise<number> {
  let loads = 0;
  const count = (request: { resourceType(): string }) => {
    if (request.resourceType() === "document") loads += 1;
  };
  page.on("request", count);
  await page.goto(url);
  await page.waitForTimeout(4000);
  page.off("request", count);
  return loads;
}

/**
 * The sign-in page of `npm run dev` says whom to sign in as and where the password is kept, never
 * the password; on a phone too, without scrolling sideways. (`next start` says none of it: the
 * dashboard and phone projects check that.)
 */
async function expectDemoHint(
  page: Page,
  demo: { admin: { email: string; password: string } },
  dataDir: string,
): Promise<void> {
  const hint = page.getByTestId("dev-sign-in-hint");
  await expect(hint).toContainText(demo.admin.email);
  await expect(hint).toContainText(path.relative(ROOT, path.join(dataDir, "demo.json")));
  await expect(hint).toContainText("npm run dev");
  expect(await page.locator("body").textContent()).not.toContain(demo.admin.password);
  // The page's own content, without the dev tools' overlay that only `next dev` adds.
  const axe = await new AxeBuilder({ page }).include("main").withTags(WCAG_21_AA).analyze();
  expect(axe.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, "signin-dev.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(hint).toBeInViewport({ ratio: 0.5 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "/signin with the hint scrolls sideways on a phone").toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(SCREENSHOTS, "phone-signin-dev.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("the dev server survives a restart: pages load once, no reload loop", async ({ browser }) => {
  test.setTimeout(420_000);
  const dataDir = path.join(ROOT, ".data", `e2e-restart-${Date.now().toString(36)}`);
  // Next.js prints its telemetry notice once per machine (in a container or on CI, once per
  // .next/dev/cache): forget that it was shown, so the check below would see it if it were printed.
  for (const dir of [".next/cache", ".next/dev/cache"]) fs.rmSync(path.join(ROOT, dir, "config.json"), { force: true });
  // A restart compiles from a clean state, as a first start does: Turbopack's cache is neither
  // written nor restored (next.config.ts says why).
  const turbopackCache = path.join(ROOT, ".next", "dev", "cache", "turbopack");
  const cacheBefore = snapshot(turbopackCache);
  // A tab left open on /signin while the server is stopped and started again, as a person leaves it.
  const keeper = await browser.newContext({ baseURL: `http://localhost:${PORT}` });
  const openTab = await keeper.newPage();
  let openTabLoads = 0;
  openTab.on("request", (request) => {
    if (request.resourceType() === "document") openTabLoads += 1;
  });
  try {
    for (const start of [1, 2]) {
      const output: string[] = [];
      const child = await startDev(dataDir, output);
      try {
        if (start === 1) {
          await openTab.goto("/signin");
        } else {
          // Back after the restart, the open tab reloads once to pick up the new server, then stays.
          openTabLoads = 0;
          await openTab.waitForTimeout(8000);
          expect(openTabLoads, "the tab left open across the restart").toBeLessThanOrEqual(1);
          await expect(openTab.getByRole("button", { name: "Sign in" })).toBeVisible();
        }
        const demo = JSON.parse(fs.readFileSync(path.join(dataDir, "demo.json"), "utf8")) as {
          admin: { email: string; password: string };
        };
        const context = await browser.newContext({ baseURL: `http://localhost:${PORT}` });
        const page = await context.newPage();
        expect(await documentLoads(page, "/signin"), `start ${start}: /signin`).toBe(1);
        if (start === 1) await expectDemoHint(page, demo, dataDir);
        await page.getByLabel("Email").fill(demo.admin.email);
        await page.getByLabel("Password").fill(demo.admin.password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(/\/dashboard$/, { timeout: 60_000 });
        expect(await documentLoads(page, "/dashboard/history"), `start ${start}: /dashboard/history`).toBe(1);
        await expect(page.getByRole("heading", { name: "History", level: 1 })).toBeVisible();
        await context.close();
      } finally {
        await stopDev(child);
      }
      // The console, from start to stop: the banner once, no telemetry notice, no repeated warning.
      const printed = output.join("");
      const times = (text: string) => printed.split(text).length - 1;
      expect(times("Points service on http://localhost"), `start ${start}: the banner`).toBe(1);
      const secretLines = printed.split("\n").filter((line) => line.includes("AUTH_SECRET"));
      expect(
        secretLines.length,
        `start ${start}: the AUTH_SECRET notice, ${JSON.stringify(secretLines)}`,
      ).toBeLessThanOrEqual(1);
      expect(printed, `start ${start}: Next.js telemetry`).not.toContain("collects completely anonymous telemetry");
      // "⨯" is Next.js's mark for an error: a clean start prints none, nor next.config.ts's cache setting
      // marked so in the banner's experiments (scripts/next-banner.mjs).
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes start with ESC.
      const lines = printed.split("\n").map((line) => line.replace(/\u001b\[[0-9;]*m/g, "").trimStart());
      expect(
        lines.filter((line) => line.startsWith("⨯")),
        `start ${start}: lines marked ⨯`,
      ).toEqual([]);
      // Nothing was edited: a reload loop shows on the server as a stream of empty recompiles.
      expect(times("Compiled in"), `start ${start}: recompiles with no edit`).toBeLessThan(5);
    }
    expect(snapshot(turbopackCache), "Turbopack's dev cache, written by the two starts").toEqual(cacheBefore);
  } finally {
    await keeper.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
