import path from "node:path";
import type { Locator } from "@playwright/test";

/*
 * The documentation pages and their contents (components/docs/docs-layout.tsx), for the specs at
 * 1280 px (e2e/dashboard/docs-navigation.spec.ts) and on a phone (e2e/phone/docs-navigation.spec.ts).
 */

export const SCREENSHOTS = path.join(process.cwd(), "e2e", ".artifacts", "screenshots");

export const DOCS_PAGES = [
  // `jump`: a section far down the page, whose link the specs follow.
  { url: "/docs", label: "API reference contents", jump: "listEvents", name: "api-reference" },
  { url: "/docs/guide", label: "Guide contents", jump: "events-and-webhooks", name: "api-guide" },
] as const;

/** The links of the contents whose anchor names no element of the page (none, when every link lands). */
export async function missingTargets(contents: Locator): Promise<string[]> {
  const hrefs = await contents.locator("a").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
  const missing: string[] = [];
  for (const href of hrefs) {
    if (!href?.startsWith("#")) {
      missing.push(`${href} is not an anchor`);
      continue;
    }
    const found = await contents.page().evaluate((id) => document.getElementById(id) !== null, href.slice(1));
    if (!found) missing.push(href);
  }
  return missing;
}
