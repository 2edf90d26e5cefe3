import { scopedKeysOf } from "../api/scoped-keys.fixtures";
import { expect, test } from "../fixtures";
import { TOP_UPS, uniqueRef } from "../utils";
import { signIn } from "./buy.fixtures";

/*
 * The API keys page with scopes and caps: an admin creates a read-only key, or a capped one, and
 * the list says which is which; a member sees the same, read-only.
 */

test("an admin creates a read-only key and a capped key: the list shows each, and the API follows", async ({
  page,
  request,
  fx,
}) => {
  const keys = scopedKeysOf(fx);
  await signIn(page, keys.admin);
  await page.goto("/dashboard/api-keys");

  await page.getByLabel("Name", { exact: true }).fill("Status page");
  await page.getByLabel("Scope").selectOption("read");
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("Your new read-only API key, “Status page”")).toBeVisible();
  const readKey = (await page.getByTestId("new-api-key-value").textContent()) ?? "";
  expect(readKey).toMatch(/^pts_[A-Za-z0-9]{40}$/);
  const readRow = page.locator(`[data-testid="api-key-row"][data-prefix="${readKey.slice(0, 12)}"]`);
  await expect(readRow).toContainText("Read only");
  await expect(readRow).toContainText("Daily cap None");

  const refused = await request.post(TOP_UPS, {
    headers: { Authorization: `Bearer ${readKey}` },
    data: { points: 100, reference: uniqueRef("dashboard-read") },
  });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("insufficient_scope");

  // A cap that is not a positive number is refused by the field, and no key is made.
  const rows = await page.getByTestId("api-key-row").count();
  await page.getByLabel("Name", { exact: true }).fill("Capped buyer");
  await page.getByLabel("Scope").selectOption("purchase");
  await page.getByLabel("Daily Points cap (optional)").fill("0");
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("Check the highlighted field; no key was created.")).toBeVisible();
  await expect(page.getByTestId("api-key-row")).toHaveCount(rows);

  // A read-only key cannot buy, so it takes no cap: the field says so, and no key is made.
  await page.getByLabel("Scope").selectOption("read");
  await page.getByLabel("Daily Points cap (optional)").fill("1000");
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("must be empty for a read key")).toBeVisible();
  await expect(page.getByTestId("api-key-row")).toHaveCount(rows);
  await page.getByLabel("Scope").selectOption("purchase");

  await page.getByLabel("Daily Points cap (optional)").fill("1000");
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("Your new API key, “Capped buyer”")).toBeVisible();
  const cappedKey = (await page.getByTestId("new-api-key-value").textContent()) ?? "";
  const cappedRow = page.locator(`[data-testid="api-key-row"][data-prefix="${cappedKey.slice(0, 12)}"]`);
  await expect(cappedRow).toContainText("Purchase");
  await expect(cappedRow).toContainText("Daily cap 1,000 Points");
});

test("a member sees each key's scope and cap, and cannot create one", async ({ page, fx }) => {
  const keys = scopedKeysOf(fx);
  await signIn(page, keys.member);
  await page.goto("/dashboard/api-keys");
  await expect(page.locator('[data-testid="api-key-row"][data-scope="read"]').first()).toContainText("Read only");
  await expect(page.getByTestId("api-key-row").filter({ hasText: "Daily cap 500 Points" })).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Create API key" })).toBeDisabled();
  await expect(page.getByLabel("Scope")).toBeDisabled();
});
