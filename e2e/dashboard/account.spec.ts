import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { PAYMENT_METHODS, TOP_UPS } from "../utils";
import { SCREENSHOTS } from "./buy.fixtures";
import { accountFixtures, recordPostBodies, signIn } from "./journey-helpers";

const account = accountFixtures();

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

let referenceCount = 0;
const newReference = (label: string) => `acct-${label}-${Date.now()}-${++referenceCount}`;

async function purchase(
  request: APIRequestContext,
  apiKey: string,
  body: Record<string, unknown>,
): Promise<{
  status: number;
  json: { status: string; data?: { top_up?: Record<string, unknown> }; error?: { code: string } };
}> {
  const response = await request.post(TOP_UPS, { headers: { Authorization: `Bearer ${apiKey}` }, data: body });
  return { status: response.status(), json: await response.json() };
}

const settingsStatus = (page: Page) => page.getByTestId("settings-status");
/** The switch is a visually hidden checkbox inside its label, so people (and this test) click the label. */
const apiSwitch = (page: Page) => page.getByRole("switch", { name: /API Point purchases/ });
// Settings also has the balance alerts form, with a switch and a fieldset of its own.
const apiSwitchLabel = (page: Page) => page.locator("label", { has: apiSwitch(page) });

test.describe("the account pages", () => {
  test("enabling API purchases takes effect when saved, not before", async ({ page, request }) => {
    const org = account.enable;
    const before = await purchase(request, org.apiKey, { points: 100, reference: newReference("enable") });
    expect(before.status).toBe(403);
    expect(before.json.error?.code).toBe("api_purchases_disabled");

    await signIn(page, org.admin);
    await page.goto("/dashboard/settings");
    await expect(settingsStatus(page)).toContainText("Disabled");
    const toggle = page.getByRole("switch", { name: /API Point purchases/ });
    await expect(toggle).not.toBeChecked();
    await apiSwitchLabel(page).click();
    await expect(toggle).toBeChecked();
    await expect(page.getByText("Unsaved changes: the API still follows the saved settings.")).toBeVisible();

    // Switched on screen but not saved: the API still refuses.
    const unsaved = await purchase(request, org.apiKey, { points: 100, reference: newReference("enable") });
    expect(unsaved.json.error?.code).toBe("api_purchases_disabled");

    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved")).toBeVisible();
    await expect(settingsStatus(page)).toContainText("Enabled");
    await screenshot(page, "settings");

    const after = await purchase(request, org.apiKey, { points: 100, reference: newReference("enable") });
    expect(after.status).toBe(201);
    expect(after.json.data?.top_up?.status).toBe("paid");
  });

  test("a payment method ID copied from Payment details buys with that method", async ({
    page,
    context,
    request,
    baseURL,
  }) => {
    const org = account.copy;
    const mastercard = org.paymentMethods.find((method) => method.kind === "mastercard");
    if (!mastercard) throw new Error("The copy organisation has no Mastercard.");
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);

    await signIn(page, org.admin);
    await page.goto("/dashboard/payment-details");
    const card = page.getByRole("region", { name: mastercard.label });
    await expect(card.getByTestId("payment-method-id")).toHaveText(mastercard.id);
    await expect(card).toContainText("4444");
    await expect(card).toContainText(/\d{2}\/\d{4}/);
    const visa = page.getByRole("region", { name: "Visa •••• 4242" });
    await expect(visa.getByText("Default", { exact: true })).toBeVisible();
    // The expired card is not offered for API purchases.
    await expect(page.getByTestId("payment-method")).toHaveCount(2);
    await expect(page.getByText("Not usable for purchases")).toBeVisible();

    const copy = card.getByRole("button", { name: /^Copy ID/ });
    await copy.click();
    await expect(card.getByRole("button", { name: "Copied" })).toContainText("Copied");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(mastercard.id);

    // The example is ready to paste: this deployment's URL, this card, a placeholder and never a real key.
    await card.getByText("Example purchase with this card").click();
    const example = card.getByTestId("curl-example");
    await expect(example).toContainText(`${baseURL}${TOP_UPS}`);
    await expect(example).toContainText(`"payment_source_id":"${mastercard.id}"`);
    await expect(example).toContainText("Authorization: Bearer <YOUR_API_KEY>");
    await expect(page.locator("body")).not.toContainText(org.apiKey);
    await screenshot(page, "payment-details");

    const bought = await purchase(request, org.apiKey, {
      points: 250,
      currency: "USD",
      payment_source_id: copied,
      reference: newReference("copy"),
    });
    expect(bought.status).toBe(201);
    expect(bought.json.data?.top_up?.payment_source_id).toBe(mastercard.id);
  });

  test("a saved default currency and payment method are what the API uses when a request leaves them out", async ({
    page,
    request,
  }) => {
    const org = account.defaults;
    const mastercard = org.paymentMethods.find((method) => method.kind === "mastercard");
    if (!mastercard) throw new Error("The defaults organisation has no Mastercard.");
    const before = await purchase(request, org.apiKey, { points: 100, reference: newReference("defaults") });
    expect(before.status).toBe(422);
    expect(before.json.error?.code).toBe("currency_required");

    await signIn(page, org.admin);
    await page.goto("/dashboard/settings");
    await expect(settingsStatus(page)).toContainText("None: requests must name a currency");
    await page.getByLabel("Default currency").selectOption("GBP");
    // Each test card says what it does, so the declining one is not picked by mistake.
    await expect(page.getByLabel("Default payment method").locator("option")).toContainText([
      "No default",
      `${mastercard.label} (test card: Succeeds)`,
    ]);
    await page.getByLabel("Default payment method").selectOption(mastercard.id);
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved")).toBeVisible();
    // The message says what this save changed: not the API switch, which it left alone.
    await expect(
      page.getByText(
        `The default currency is now GBP, and the default payment method is now ${mastercard.label} (test card: Succeeds)`,
      ),
    ).toBeVisible();
    await expect(page.getByText("API Point purchases are now")).toHaveCount(0);
    await expect(settingsStatus(page)).toContainText("GBP");
    await expect(settingsStatus(page)).toContainText(mastercard.label);

    // Reloaded, the form shows what was saved.
    await page.reload();
    await expect(page.getByLabel("Default currency")).toHaveValue("GBP");
    await expect(page.getByLabel("Default payment method")).toHaveValue(mastercard.id);

    const after = await purchase(request, org.apiKey, { points: 100, reference: newReference("defaults") });
    expect(after.status).toBe(201);
    expect(after.json.data?.top_up).toMatchObject({ currency: "GBP", payment_source_id: mastercard.id });

    const methods = await request.get(PAYMENT_METHODS, { headers: { Authorization: `Bearer ${org.apiKey}` } });
    const listed = (await methods.json()) as { data: { payment_methods: { id: string; is_default: boolean }[] } };
    expect(listed.data.payment_methods[0]).toMatchObject({ id: mastercard.id, is_default: true });
  });

  test("a key created in the dashboard works at once, and is refused once revoked", async ({ page, request }) => {
    const org = account.keys;
    await signIn(page, org.admin);
    await page.goto("/dashboard/api-keys");
    const rows = await page.getByTestId("api-key-row").count();
    // A key needs a name: without one nothing is made, and the field says why.
    await page.getByRole("button", { name: "Create API key" }).click();
    await expect(page.getByText("must not be empty")).toBeVisible();
    await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByTestId("api-key-row")).toHaveCount(rows);

    await page.getByLabel("Name", { exact: true }).fill("  Build server  ");
    await page.getByLabel("Daily Points cap (optional)").fill("5000");
    await page.getByRole("button", { name: "Create API key" }).click();
    const shown = page.getByTestId("new-api-key-value");
    await expect(shown).toHaveText(/^pts_[A-Za-z0-9]{40}$/);
    await expect(page.getByText("it will not be shown again")).toBeVisible();
    await expect(page.getByText("Your new API key, “Build server”")).toBeVisible();
    // The form is cleared for the next key; the new one is still shown, this once.
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("");
    await expect(page.getByLabel("Daily Points cap (optional)")).toHaveValue("");
    await expect(page.getByLabel("Scope")).toHaveValue("purchase");
    const apiKey = (await shown.textContent()) ?? "";
    await screenshot(page, "api-keys");

    const listed = await request.get(PAYMENT_METHODS, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(listed.status()).toBe(200);
    const bought = await purchase(request, apiKey, { points: 100, reference: newReference("keys") });
    expect(bought.status).toBe(201);

    const row = page.locator(`[data-testid="api-key-row"][data-prefix="${apiKey.slice(0, 12)}"]`);
    await expect(row).toContainText("Active");
    await expect(row.getByTestId("api-key-name")).toHaveText("Build server");
    await expect(row).toContainText("Daily cap 5,000 Points");
    await expect(row).toContainText("Last used Never");
    // Used through the API (above): the list says when, once the page is read again.
    await page.reload();
    await expect(row).not.toContainText("Last used Never");
    await row.getByRole("button", { name: /^Revoke key Build server/ }).click();
    await expect(row).toContainText("This cannot be undone.");
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(row).toContainText("Revoked");

    const refused = await request.get(PAYMENT_METHODS, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    // The organisation's other key was not touched.
    const original = await request.get(PAYMENT_METHODS, { headers: { Authorization: `Bearer ${org.apiKey}` } });
    expect(original.status()).toBe(200);
    // A reload never shows a whole key again.
    await page.reload();
    await expect(page.locator("body")).not.toContainText(apiKey);
  });

  test("a member sees every account page but cannot change anything, even by forcing the form", async ({
    page,
    request,
  }) => {
    const org = account.viewer;
    await signIn(page, org.member);

    await page.goto("/dashboard/settings");
    await expect(page.getByText("View only")).toBeVisible();
    await expect(settingsStatus(page)).toContainText("Disabled");
    await screenshot(page, "settings-member");
    await expect(page.getByRole("switch", { name: /API Point purchases/ })).toBeDisabled();
    const save = page.getByRole("button", { name: "Save settings" });
    await expect(save).toBeDisabled();
    // Bypass the disabled controls, as a hand-made request would: the server refuses it.
    await page.locator("fieldset", { has: apiSwitch(page) }).evaluate((element) => element.removeAttribute("disabled"));
    await save.evaluate((element) => element.removeAttribute("disabled"));
    await apiSwitchLabel(page).click();
    await save.click();
    await expect(page.getByText("Only an admin of this organisation can do that.")).toBeVisible();
    const still = await purchase(request, org.apiKey, { points: 100, reference: newReference("viewer") });
    expect(still.json.error?.code).toBe("api_purchases_disabled");

    await page.goto("/dashboard/api-keys");
    await expect(page.getByRole("button", { name: "Create API key" })).toBeDisabled();
    await expect(page.getByRole("button", { name: /^Revoke key/ })).toBeDisabled();
    const create = page.getByRole("button", { name: "Create API key" });
    await create.evaluate((element) => element.removeAttribute("disabled"));
    await create.click();
    await expect(page.getByText("Only an admin of this organisation can do that.")).toBeVisible();
    await expect(page.getByTestId("new-api-key")).toHaveCount(0);
    await page.reload();
    await expect(page.getByTestId("api-key-row")).toHaveCount(1);

    await page.goto("/dashboard/payment-details");
    await expect(page.getByText("API Point purchases are disabled")).toBeVisible();
    await expect(page.getByRole("region", { name: "Visa •••• 4242" })).toBeVisible();
    await expect(page.getByTestId("payment-method-id")).toHaveCount(0);
    await screenshot(page, "payment-details-disabled");
    await expect(page.getByRole("button", { name: "Add test card" })).toBeDisabled();

    await page.goto("/dashboard/members");
    await expect(page.getByRole("button", { name: "Add person" })).toBeDisabled();
    await expect(page.getByTestId("member-row")).toHaveCount(2);

    await page.goto("/dashboard/limits");
    await expect(page.getByRole("heading", { name: "Limits", level: 1 })).toBeVisible();
  });

  test("the Limits page shows each limit and today's usage against it", async ({ page, request }) => {
    const org = account.limits;
    const declined = org.paymentMethods.find((method) => method.kind === "declined");
    if (!declined) throw new Error("The limits organisation has no declined card.");
    expect((await purchase(request, org.apiKey, { points: 500, reference: newReference("limits") })).status).toBe(201);
    // A failed purchase counts toward the frequency limit, not toward the daily Points.
    const failed = await purchase(request, org.apiKey, {
      points: 1000,
      payment_source_id: declined.id,
      reference: newReference("limits"),
    });
    expect(failed.status).toBe(402);

    await signIn(page, org.admin);
    await page.goto("/dashboard/limits");
    await expect(page.getByText("Limits are set by our team")).toBeVisible();
    await expect(page.getByTestId("limit-max-per-top-up")).toContainText("2,500 Points");
    await expect(page.getByTestId("limit-max-balance")).toContainText("500 of 10,000 Points");
    await expect(page.getByTestId("limit-frequency")).toContainText("2 of 5 purchases in the last hour");
    await expect(page.getByTestId("limit-daily")).toContainText("500 of 5,000 Points in the last 24 hours");
    await expect(page.getByRole("progressbar", { name: "Points in the last 24 hours" })).toHaveAttribute(
      "aria-valuenow",
      "500",
    );
    await screenshot(page, "limits");
  });

  test("a secret shown once never travels back to the server with the next submit", async ({ page }) => {
    await signIn(page, account.keys.admin);
    const sent = recordPostBodies(page);
    await page.goto("/dashboard/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("First of two");
    await page.getByRole("button", { name: "Create API key" }).click();
    const shown = page.getByTestId("new-api-key-value");
    await expect(shown).toHaveText(/^pts_[A-Za-z0-9]{40}$/);
    const firstKey = (await shown.textContent()) ?? "";
    await page.getByLabel("Name", { exact: true }).fill("Second of two");
    await page.getByRole("button", { name: "Create API key" }).click();
    await expect(shown).not.toHaveText(firstKey);
    const secondKey = (await shown.textContent()) ?? "";

    await page.goto("/dashboard/members");
    await page.getByLabel("Email").fill(`secret-${Date.now()}@e2e-account.example`);
    await page.getByRole("button", { name: "Add person" }).click();
    const password = page.getByTestId("new-member-password");
    await expect(password).toHaveText(/^\S{20,}$/);
    const shownPassword = (await password.textContent()) ?? "";
    await page.getByLabel("Email").fill(`secret-2-${Date.now()}@e2e-account.example`);
    await page.getByRole("button", { name: "Add person" }).click();
    await expect(password).not.toHaveText(shownPassword);

    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const body of sent) {
      for (const secret of [firstKey, secondKey, shownPassword]) expect(body).not.toContain(secret);
    }
  });

  test("an admin adds a member, and the password shown once signs them in", async ({ page, browser }) => {
    // Two sign-ins (scrypt, by design slow): near 30 s on a busy CI machine.
    test.slow();
    const org = account.members;
    const email = `added-${Date.now()}@e2e-account.example`;
    await signIn(page, org.admin);
    await page.goto("/dashboard/members");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role").selectOption("member");
    await page.getByRole("button", { name: "Add person" }).click();
    const password = page.getByTestId("new-member-password");
    await expect(password).toHaveText(/^\S{20,}$/);
    const shownPassword = (await password.textContent()) ?? "";
    await expect(page.getByLabel("Email")).toHaveValue("");
    await expect(page.getByTestId("member-row").filter({ hasText: email })).toContainText("Member");
    await screenshot(page, "members");

    // The same email again is refused on its field, and what was typed stays.
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Add person" }).click();
    await expect(page.getByText("Someone with this email already has an account.")).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue(email);

    const fresh = await browser.newContext();
    const newcomer = await fresh.newPage();
    await signIn(newcomer, { email, password: shownPassword });
    const header = newcomer.getByRole("banner");
    await expect(header).toContainText(org.name);
    await expect(header).toContainText(email);
    await expect(header.getByText("member", { exact: true })).toBeVisible();
    await fresh.close();
  });

  test("nobody sees or touches another organisation's data", async ({ page, request }) => {
    const mine = account.copy;
    const theirs = account.other;
    await signIn(page, mine.admin);
    for (const target of [
      "/dashboard/payment-details",
      "/dashboard/api-keys",
      "/dashboard/members",
      "/dashboard/settings",
    ]) {
      await page.goto(target);
      const body = page.locator("body");
      for (const method of theirs.paymentMethods) await expect(body).not.toContainText(method.id);
      await expect(body).not.toContainText(theirs.apiKey.slice(0, 12));
      await expect(body).not.toContainText(theirs.admin.email);
      await expect(body).not.toContainText(theirs.name);
    }

    // A revoke form pointed at their key ID, as a crafted request would be, revokes nothing.
    await page.goto("/dashboard/api-keys");
    const row = page.getByTestId("api-key-row").first();
    await row.getByRole("button", { name: /^Revoke key/ }).click();
    await row.locator('input[name="keyId"]').evaluate((input, keyId) => {
      if (input instanceof HTMLInputElement) input.value = keyId;
    }, theirs.keyId);
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(page.getByText("That key was already revoked or does not belong to this organisation.")).toBeVisible();
    const theirKey = await request.get(PAYMENT_METHODS, { headers: { Authorization: `Bearer ${theirs.apiKey}` } });
    expect(theirKey.status()).toBe(200);
    await page.reload();
    await expect(page.getByTestId("api-key-row").first()).toContainText("Active");

    // Their card as the default is refused, and nothing is saved.
    await page.goto("/dashboard/settings");
    const foreign = theirs.paymentMethods[1];
    if (!foreign) throw new Error("The other organisation has no second card.");
    await page.getByLabel("Default payment method").evaluate((select, id) => {
      if (select instanceof HTMLSelectElement) select.options[0]?.setAttribute("value", id);
    }, foreign.id);
    await page.getByLabel("Default payment method").selectOption({ index: 0 });
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Choose one of this organisation's usable saved payment methods.")).toBeVisible();
    await page.reload();
    await expect(settingsStatus(page)).toContainText("Visa •••• 4242");
  });
});
