import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { accountFixtures, DASHBOARD_PAGES, signIn } from "./journey-helpers";

/*
 * Issue 18's budget: a browser receives at most 150 KiB of JavaScript on the wire per dashboard page,
 * with the cache off, from the server as e2e/serve.ts starts it (`next start` with the app's own
 * settings, no proxy in front). "On the wire" is what Chromium counts as received for each script:
 * compressed bytes and headers, from the DevTools protocol.
 */

const BUDGET = 150 * 1024;

/** Loads `url` with the cache off and sums the bytes received for its scripts, and which encodings they came in. */
async function scriptBytes(
  page: Page,
  url: string,
): Promise<{ bytes: number; decoded: number; encodings: Set<string>; largest: string[] }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  const scripts = new Map<string, string>();
  const encodings = new Set<string>();
  const sizes = new Map<string, number>();
  let bytes = 0;
  let decoded = 0;
  cdp.on("Network.responseReceived", (event) => {
    if (event.type !== "Script") return;
    scripts.set(event.requestId, event.response.url);
    const headers = Object.fromEntries(Object.entries(event.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    encodings.add(String(headers["content-encoding"] ?? "identity"));
  });
  cdp.on("Network.dataReceived", (event) => {
    if (scripts.has(event.requestId)) decoded += event.dataLength;
  });
  cdp.on("Network.loadingFinished", (event) => {
    const script = scripts.get(event.requestId);
    if (script === undefined) return;
    bytes += event.encodedDataLength;
    sizes.set(script, event.encodedDataLength);
  });
  await page.goto(url, { waitUntil: "networkidle" });
  await cdp.detach();
  const largest = [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([script, size]) => `${new URL(script).pathname} ${(size / 1024).toFixed(1)} KiB`);
  return { bytes, decoded, encodings, largest };
}

test("every dashboard page sends at most 150 KiB of JavaScript on the wire", async ({ page }) => {
  test.slow();
  await signIn(page, accountFixtures().accessibility.admin);
  const measured: string[] = [];
  const over: string[] = [];
  for (const url of DASHBOARD_PAGES) {
    const { bytes, decoded, encodings, largest } = await scriptBytes(page, url);
    const line = `${url}: ${(bytes / 1024).toFixed(1)} KiB on the wire (${(decoded / 1024).toFixed(1)} KiB of script; ${[...encodings].join(", ")})`;
    measured.push(line);
    if (bytes > BUDGET) over.push(`${line}; largest: ${largest.join(", ")}`);
    // A page that loaded no script at all would pass for the wrong reason.
    expect(decoded, `${url} loaded no JavaScript`).toBeGreaterThan(0);
  }
  test.info().annotations.push({ type: "javascript", description: measured.join("\n") });
  console.log(measured.join("\n"));
  expect(over).toEqual([]);
});
