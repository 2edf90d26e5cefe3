import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type ProductionServer, startProduction } from "../production-server";
import { runBlock, shellBlockAfter } from "../readme";
import { runPasteBlock, type StripeFakeProcess, startStripeFake } from "../stripe-fake-process";

/*
 * The README's Stripe walkthrough ("Stripe, end to end"), as a person follows it: `npm run stripe:fake`
 * on a port of this run, its printed block pasted whole (org create on an embedded database of its
 * own), the app started with what that block exported (`next start` of this build, where the block
 * says `npm run dev`), and then the README's calls for the organisation it made.
 */

const BASE = Number(process.env.E2E_PORT ?? 3100);

/** A block with its values and trailing comments taken out, to compare what is printed with what the README shows. */
function shape(block: string): string[] {
  return block
    .trim()
    .split("\n")
    .map((line) => line.replace(/^(export \w+)=.*$/, "$1=…").replace(/^PORT=\d+/, "PORT=N"));
}

test("the README's Stripe walkthrough runs as written against npm run stripe:fake", async () => {
  test.setTimeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-readme-stripe-"));
  const appPort = BASE + 60;
  let fake: StripeFakeProcess | undefined;
  let app: ProductionServer | undefined;
  try {
    fake = await startStripeFake([
      "--port",
      String(BASE + 61),
      "--state-dir",
      path.join(dir, "stripe-fake"),
      "--forward-to",
      `http://127.0.0.1:${appPort}/api/stripe/webhook`,
    ]);
    // What it prints is what the README shows, and names the app's port from --forward-to.
    expect(shape(fake.pasteBlock)).toEqual(shape(shellBlockAfter("README.md", "It listens on `127.0.0.1:12111`")));
    expect(fake.pasteBlock.split("\n").at(-1)).toBe(`PORT=${appPort} npm run dev`);
    expect(fake.exports.STRIPE_API_URL).toBe(`http://127.0.0.1:${BASE + 61}`);

    const pgliteDir = path.join(dir, "pglite");
    runPasteBlock(fake, pgliteDir, path.join(dir, ".data"));
    app = startProduction(60, { ...fake.exports, PGLITE_DIR: pgliteDir });
    await app.ready();

    const calls = shellBlockAfter("README.md", "Then, in a third terminal");
    expect(runBlock(calls, `http://127.0.0.1:${appPort}`, { WORKDIR: dir })).toEqual([201, 200, 402]);

    // The test server said what it did: the charge, and the app's answer to its webhook. (The test
    // process reads the server's output once the block, run synchronously, has finished.)
    await expect
      .poll(() => fake?.output())
      .toMatch(/^\d\d:\d\d:\d\d webhook payment_intent\.succeeded evt_\w+ -> 200$/m);
    expect(fake.output()).toMatch(/^\d\d:\d\d:\d\d POST \/v1\/payment_intents 200 idempotency-key=\S+$/m);
    // The app's startup check accepted the printed key: no refusal, no "did not answer".
    expect(app.output()).not.toMatch(/^billing: |"msg":"billing: /m);
    const logLines = fake.output().split("Stop with Ctrl-C.")[1];
    for (const secret of [fake.exports.STRIPE_SECRET_KEY, fake.exports.STRIPE_WEBHOOK_SECRET])
      expect(logLines).not.toContain(secret);
  } finally {
    await app?.stop();
    await fake?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
