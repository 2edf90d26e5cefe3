import { expect, type Page, test } from "@playwright/test";
import { openApiDocument } from "@/lib/openapi/document";
import { readBuyFixtures, signIn } from "./buy.fixtures";

/*
 * The API reference at /docs, rendered from the OpenAPI document the API serves with this deployment's URL, and
 * the guide at /docs/guide (docs/api.md): reached from the landing page and from the dashboard, and
 * loading nothing from another origin.
 */

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** Every operation the document describes, read here independently of the page's own code. */
function documentOperations(): { id: string; method: string; path: string }[] {
  const document: unknown = openApiDocument();
  const paths = (document as { paths?: Record<string, Record<string, { operationId?: string }>> }).paths ?? {};
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ id: operation.operationId ?? "", method: method.toUpperCase(), path })),
  );
}

/** Every URL the page requests from now on: documents, scripts, styles, fonts, images, fetches. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  return urls;
}

test("the landing page leads to the API reference, which shows every operation and leads to the guide, all from this origin", async ({
  page,
  baseURL,
}) => {
  const requests = recordRequests(page);
  await page.goto("/");
  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // The base URL and the curl examples are this deployment's, not localhost's.
  const here = new URL(baseURL ?? "").origin;
  await expect(page.getByText(/Base URL/).first()).toContainText(`Base URL ${here}`);
  await expect(page.getByText(`curl -X GET ${here}/v3/points/balance`).first()).toBeVisible();
  await expect(page.getByText("localhost:3000")).toHaveCount(0);

  const operations = documentOperations();
  expect(operations.length).toBeGreaterThan(0);
  const contents = page.getByRole("navigation", { name: "API reference contents" });
  for (const { id, method, path } of operations) {
    expect(id, `${method} ${path} has an operationId`).not.toBe("");
    const section = page.locator(`section[id="${id}"]`);
    await expect(section.getByText(method, { exact: true }).first()).toBeVisible();
    await expect(section.getByText(path, { exact: true }).first()).toBeVisible();
    const entry = contents.locator(`a[href="#${id}"]`);
    await expect(entry).toContainText(method);
    await expect(entry).toContainText(path);
  }

  // The contents lead to an operation's section.
  const last = operations[operations.length - 1];
  if (last) {
    await contents.locator(`a[href="#${last.id}"]`).click();
    await expect(page).toHaveURL(new RegExp(`#${last.id}$`));
    await expect(page.locator(`section[id="${last.id}"]`).getByRole("heading").first()).toBeInViewport();
  }

  await page.getByRole("link", { name: "API guide" }).first().click();
  await expect(page).toHaveURL(/\/docs\/guide$/);
  await expect(page.getByRole("heading", { level: 1, name: "Points API" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "POST /v3/points/top-ups" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "payment_action_required" })).toBeVisible();
  // The guide's own links land on its headings.
  await page.getByRole("link", { name: "below" }).first().click();
  await expect(page).toHaveURL(/#api-keys-scope-and-daily-cap$/);
  await expect(page.getByRole("heading", { name: "API keys: scope and daily cap" })).toBeInViewport();

  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);

  const origin = new URL(baseURL ?? "").origin;
  expect(requests.length).toBeGreaterThan(3);
  const elsewhere = requests.filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin);
  expect(elsewhere, "requests to another origin").toEqual([]);
});

test("the API reference and the guide work without JavaScript", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const page = await context.newPage();
  await page.goto("/docs");
  const first = documentOperations()[0];
  if (first) await expect(page.locator(`section[id="${first.id}"]`)).toContainText(first.path);
  // An error response's details open by a click with no script.
  const closed = page.locator("details[data-status]:not([open])").first();
  const status = await closed.getAttribute("data-status");
  const operationId = await closed.evaluate((element) => element.closest("section[data-operation]")?.id);
  const error = page.locator(`section[id="${operationId}"] details[data-status="${status}"]`);
  await expect(error.getByText("Example:").first()).toBeHidden();
  await error.locator("summary").click();
  await expect(error).toHaveAttribute("open", "");
  await expect(error.getByText("Example:").first()).toBeVisible();
  await page.goto("/docs/guide");
  await expect(page.getByRole("heading", { level: 1, name: "Points API" })).toBeVisible();
  await context.close();
});

test("a signed-in member finds the API reference and the guide from the dashboard", async ({ page }) => {
  const { ledger } = readBuyFixtures();
  await signIn(page, ledger.member);
  const links = page.getByRole("navigation", { name: "API documentation" });
  await links.getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await expect(page.getByRole("navigation", { name: "API reference contents" })).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\/dashboard$/);
  await links.getByRole("link", { name: "API guide" }).click();
  await expect(page).toHaveURL(/\/docs\/guide$/);
});
