import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import type { AccountFixtureOrganization } from "./dashboard/account.fixtures";

/** WCAG 2.1 A and AA: the rules every page of this app is held to. */
export const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** The pages a person meets before signing in, and the two "not found" pages. */
export const PUBLIC_PAGES = ["/", "/signin", "/docs", "/docs/guide", "/no-such-page"];

/** One line per violated rule: the page, the rule, how bad, and the first few elements it found. */
export async function axeViolations(page: Page): Promise<string[]> {
  // After a server action the page's <title> is streamed back in a moment later than the content:
  // analysing in that moment would report a title the page does have. A page with none still fails.
  await page.waitForFunction(() => document.title !== "", undefined, { timeout: 5_000 }).catch(() => {});
  const results = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  const where = new URL(page.url()).pathname + new URL(page.url()).search;
  return results.violations.map((violation) => {
    const nodes = violation.nodes
      .slice(0, 4)
      .map(
        (node) =>
          `${node.target.join(" ")}${node.failureSummary ? ` (${node.failureSummary.split("\n").slice(1).join(" ").trim()})` : ""}`,
      );
    return `${where}: ${violation.id} [${violation.impact}] ${violation.help}: ${nodes.join("; ")}`;
  });
}

/** Purchases of each outcome, made through the API, so the outcome pages and History have something to show. */
export async function makePurchases(
  request: APIRequestContext,
  org: AccountFixtureOrganization,
  tag: string,
): Promise<{ paid: { id: string; reference: string }; failed: { id: string }; awaiting: { id: string } }> {
  const card = (kind: string) => {
    const found = org.paymentMethods.find((method) => method.kind === kind);
    if (!found) throw new Error(`The ${kind} card was not provisioned.`);
    return found.id;
  };
  const buy = async (kind: string, suffix: string) => {
    const reference = `a11y-${tag}-${suffix}-${Date.now()}`;
    const response = await request.post("/v3/points/top-ups", {
      headers: { Authorization: `Bearer ${org.apiKey}` },
      data: { points: 100, currency: "USD", payment_source_id: card(kind), reference },
    });
    const body = (await response.json()) as { data?: { top_up?: { id: string } } };
    const id = body.data?.top_up?.id;
    if (!id) throw new Error(`The ${kind} purchase answered ${response.status()} without a top-up.`);
    return { id, reference };
  };
  return {
    paid: await buy("visa", "paid"),
    failed: await buy("declined", "failed"),
    awaiting: await buy("authentication_required", "awaiting"),
  };
}

/** Every dashboard page a signed-in person can open, with the purchases above (`visa`: a card's ID). */
export function dashboardPages(purchases: Awaited<ReturnType<typeof makePurchases>>, visa: string): string[] {
  return [
    "/dashboard",
    "/dashboard/buy",
    `/dashboard/buy?step=confirm&currency=USD&points=250&method=${visa}`,
    // A confirmation whose purchase was already made.
    `/dashboard/buy?step=confirm&currency=USD&points=100&method=${visa}&ref=${purchases.paid.reference}`,
    // A purchase's page right after Buy (with the steps), from History, and by its old address under Buy.
    `/dashboard/history/${purchases.paid.id}?bought=1`,
    `/dashboard/history/${purchases.failed.id}`,
    `/dashboard/buy/${purchases.awaiting.id}`,
    "/dashboard/history",
    "/dashboard/history?status=paid&source=api&from=2026-01-01&to=2099-12-31",
    "/dashboard/payment-details",
    "/dashboard/settings",
    "/dashboard/api-keys",
    "/dashboard/webhooks",
    "/dashboard/limits",
    "/dashboard/members",
    "/dashboard/audit",
    "/dashboard/account",
    "/dashboard/no-such-page",
  ];
}
