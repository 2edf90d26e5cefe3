import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { type BuyFixtureOrganization, headerBalance, readBuyFixtures, SCREENSHOTS, signIn } from "./buy.fixtures";

/*
 * Buy Points in the browser, as the `buyer` organisation's admin: every outcome of a purchase,
 * and the guarantees that a double click, a lost answer or the back button never charge twice.
 * Tests in this file run in order in one worker, so each can read the balance before and after.
 */

let org: BuyFixtureOrganization;

test.beforeAll(() => {
  org = readBuyFixtures().buyer;
});

type Card = "visa" | "declined" | "authentication_required" | "processing";
const last4: Record<Card, string> = {
  visa: "4242",
  declined: "0002",
  authentication_required: "3184",
  processing: "1881",
};

/** Chooses a bundle and a card, reviews, and returns the reference the confirmation carries. */
async function review(page: Page, points: number, card: Card): Promise<string> {
  await page.goto("/dashboard/buy");
  await page.locator(`label[for="bundle-${points}"]`).click();
  await page.getByRole("radio", { name: new RegExp(`•••• ${last4[card]}`) }).check();
  await page.getByRole("button", { name: "Review purchase" }).click();
  await expect(page.getByRole("heading", { name: "Confirm your purchase" })).toBeVisible();
  return page.locator('input[name="reference"]').inputValue();
}

async function buy(page: Page, points: number, card: Card): Promise<string> {
  const reference = await review(page, points, card);
  await page.getByRole("button", { name: /^Buy / }).click();
  await page.waitForURL(/\/dashboard\/history\/tu_\w+\?bought=1$/);
  return reference;
}

/** Submits the fields as a plain HTML form would, without the page's JavaScript. */
async function postNatively(page: Page, fields: string[][]): Promise<void> {
  await page.evaluate((entries) => {
    const form = document.createElement("form");
    form.method = "POST";
    form.action = "/dashboard/buy";
    form.enctype = "multipart/form-data";
    for (const [name, value] of entries) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name ?? "";
      input.value = value ?? "";
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  }, fields);
  await page.waitForLoadState();
}

/** History rows for one reference: a charge shows up as exactly one row. */
async function historyRows(page: Page, reference: string) {
  await page.goto("/dashboard/history");
  return page.locator(`[data-testid="top-up-row"][data-reference="${reference}"]`);
}

test.describe("Buy Points as an admin", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, org.admin);
  });

  test("shows the seven bundles at the provider's prices, in the chosen currency", async ({ page }) => {
    await page.goto("/dashboard/buy");
    await expect(page.getByTestId("bundle-option")).toHaveCount(7);
    // The organisation saved USD, so USD is chosen first.
    await expect(page.getByRole("link", { name: "USD" })).toHaveAttribute("aria-current", "true");
    await expect(page.locator('label[for="bundle-100"]')).toContainText("$10.00");
    await expect(page.locator('label[for="bundle-7500"]')).toContainText("$525.00");
    // The default card is preselected; expired cards are never offered. With nothing bought yet, the
    // smallest bundle is preselected, so Review purchase always has one.
    await expect(page.getByRole("radio", { name: /•••• 4242/ })).toBeChecked();
    await expect(page.locator("#bundle-100")).toBeChecked();
    await page.screenshot({ path: path.join(SCREENSHOTS, "buy.png"), fullPage: true });

    await page.getByRole("link", { name: "GBP" }).click();
    await expect(page.locator('label[for="bundle-100"]')).toContainText("£8.00");
    await page.getByRole("link", { name: "EUR" }).click();
    await expect(page.locator('label[for="bundle-1000"]')).toContainText("€78.00");
    await page.locator('label[for="bundle-1000"]').click();
    await page.getByRole("button", { name: "Review purchase" }).click();
    await expect(page.getByTestId("confirm-amount")).toHaveText("€78.00");
  });

  test("a paid purchase shows the exact amount and card first, then adds the Points to the balance", async ({
    page,
  }) => {
    const before = await headerBalance(page);
    await review(page, 500, "visa");
    await expect(page.getByTestId("confirm-amount")).toHaveText("$45.00");
    await expect(page.getByTestId("confirm-card")).toHaveText("Visa •••• 4242");
    await page.screenshot({ path: path.join(SCREENSHOTS, "buy-confirm.png"), fullPage: true });
    await page.getByRole("button", { name: "Buy 500 Points for $45.00" }).click();

    const outcome = page.getByTestId("purchase-outcome");
    await expect(outcome).toHaveAttribute("data-status", "paid");
    await expect(outcome).toContainText("Payment successful");
    await expect(page.getByTestId("outcome-balance")).toHaveText(`${(before + 500).toLocaleString("en-GB")} Points`);
    expect(await headerBalance(page)).toBe(before + 500);
    await page.screenshot({ path: path.join(SCREENSHOTS, "buy-paid.png"), fullPage: true });
    await page.goto("/dashboard");
    expect(await headerBalance(page)).toBe(before + 500);

    // The next visit starts on the bundle just bought, and can be reviewed as it is.
    await page.goto("/dashboard/buy");
    await expect(page.locator("#bundle-500")).toBeChecked();
    await page.getByRole("button", { name: "Review purchase" }).click();
    await expect(page.getByRole("heading", { name: "Confirm your purchase" })).toBeVisible();
    await expect(page.getByTestId("confirm-amount")).toHaveText("$45.00");
  });

  test("a declined card says why, and adds nothing", async ({ page }) => {
    const before = await headerBalance(page);
    await buy(page, 100, "declined");
    const outcome = page.getByTestId("purchase-outcome");
    await expect(outcome).toHaveAttribute("data-status", "failed");
    await expect(page.getByTestId("outcome-reason")).toHaveText("Your card was declined.");
    await expect(outcome).toContainText("Nothing was charged");
    expect(await headerBalance(page)).toBe(before);
  });

  test("a purchase awaiting authentication is paid once the cardholder completes it", async ({ page }) => {
    const before = await headerBalance(page);
    await buy(page, 250, "authentication_required");
    const outcome = page.getByTestId("purchase-outcome");
    await expect(outcome).toHaveAttribute("data-status", "awaiting_payment");
    expect(await headerBalance(page)).toBe(before);
    await page.screenshot({ path: path.join(SCREENSHOTS, "buy-awaiting.png"), fullPage: true });

    await page.getByRole("button", { name: "Complete authentication" }).click();
    await expect(outcome).toHaveAttribute("data-status", "paid");
    await expect(page.getByTestId("outcome-balance")).toHaveText(`${(before + 250).toLocaleString("en-GB")} Points`);
    expect(await headerBalance(page)).toBe(before + 250);
  });

  test("a failed authentication ends the purchase without taking the payment", async ({ page }) => {
    const before = await headerBalance(page);
    await buy(page, 100, "authentication_required");
    await page.getByRole("button", { name: "Fail authentication" }).click();
    await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "failed");
    await expect(page.getByTestId("outcome-reason")).toContainText("did not complete authentication");
    expect(await headerBalance(page)).toBe(before);
  });

  test("an unresolved payment says it will resolve and where to look, and checking again settles it", async ({
    page,
  }) => {
    const before = await headerBalance(page);
    const reference = await buy(page, 100, "processing");
    const outcome = page.getByTestId("purchase-outcome");
    await expect(outcome).toHaveAttribute("data-status", "processing");
    await expect(outcome).toContainText("will resolve");
    await expect(outcome).toContainText("Check History");
    expect(await headerBalance(page)).toBe(before);

    // Checking again re-sends the same purchase: the provider is asked, nothing is charged anew.
    await page.getByRole("button", { name: "Check again now" }).click();
    await expect(outcome).toHaveAttribute("data-status", "paid");
    // Said as the answer to the check, not as a repeated purchase.
    await expect(outcome.getByRole("heading", { name: "Paid", exact: true })).toBeVisible();
    await expect(outcome).toContainText("The payment is confirmed: 100 Points were added");
    await expect(outcome).not.toContainText("Already bought");
    await expect(outcome).not.toContainText("nothing was charged again");
    expect(await headerBalance(page)).toBe(before + 100);
    await expect(await historyRows(page, reference)).toHaveCount(1);
  });

  test("a double click on Buy charges once", async ({ page }) => {
    const before = await headerBalance(page);
    const reference = await review(page, 100, "visa");
    await page.getByRole("button", { name: /^Buy / }).dblclick();
    await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
    const rows = await historyRows(page, reference);
    await expect(rows).toHaveCount(1);
    expect(await headerBalance(page)).toBe(before + 100);
  });

  test("a retry after the answer was lost returns the first purchase instead of charging again", async ({ page }) => {
    const before = await headerBalance(page);
    const reference = await review(page, 250, "visa");
    let dropped = false;
    await page.route("**/dashboard/buy**", async (route) => {
      if (route.request().method() !== "POST" || dropped) return route.continue();
      dropped = true;
      // The server takes the payment, but its answer never reaches the browser.
      await route.fetch();
      await route.abort("connectionreset");
    });
    await page.getByRole("button", { name: /^Buy / }).click();
    await expect(page.getByRole("heading", { name: "We could not get an answer from the server" })).toBeVisible();
    expect(dropped).toBe(true);

    // Trying again finds the purchase the lost answer was about, and says so rather than offer to pay.
    await page.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByText("Already bought", { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: /^Buy / })).toHaveCount(0);
    await page.getByRole("link", { name: "See that purchase" }).click();
    await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
    await expect(page.getByText(reference).first()).toBeVisible();
    await expect(await historyRows(page, reference)).toHaveCount(1);
    expect(await headerBalance(page)).toBe(before + 250);
  });

  test("refreshing the outcome or going back and buying again never buys twice", async ({ page }) => {
    const before = await headerBalance(page);
    const reference = await review(page, 100, "visa");
    // The confirmation as a tab left open before the purchase holds it: server HTML, the action's fields.
    await page.reload();
    const fields = await page
      .getByTestId("purchase-form")
      .locator("input[type=hidden]")
      .evaluateAll((inputs) =>
        inputs.map((input) => [(input as HTMLInputElement).name, (input as HTMLInputElement).value]),
      );
    await page.getByRole("button", { name: /^Buy / }).click();
    await page.waitForURL(/\/dashboard\/history\/tu_\w+\?bought=1$/);
    await page.reload();
    await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
    // Back on the confirmation: it says the purchase was made, and offers no Buy button or new balance.
    await page.goBack();
    await expect(page.getByText("Already bought", { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: /^Buy / })).toHaveCount(0);
    await expect(page.getByText("Balance after payment")).toHaveCount(0);
    // The stale tab's form sent anyway: answered with the first purchase.
    await postNatively(page, fields);
    await expect(page.getByTestId("purchase-outcome")).toContainText("nothing was charged again");
    // Said once and plainly: not "were added" beside "nothing was charged again".
    await expect(page.getByRole("heading", { name: "Already bought" })).toBeVisible();
    await expect(page.getByTestId("purchase-outcome")).not.toContainText("were added");
    await expect(await historyRows(page, reference)).toHaveCount(1);
    expect(await headerBalance(page)).toBe(before + 100);
  });

  test("a spent form sent again for a different bundle is refused, and nothing is charged", async ({ page }) => {
    const before = await headerBalance(page);
    const reference = await buy(page, 100, "visa");
    // The confirmation of another bundle carrying the spent reference, as the back button can produce.
    // It says so before any click, and offers no Buy button.
    await page.goto(`/dashboard/buy?step=confirm&currency=USD&points=250&method=${org.cards.visa}&ref=${reference}`);
    const notice = page
      .getByRole("status")
      .filter({ hasText: "This reference was already used for a different purchase" });
    await expect(notice).toBeVisible();
    await expect(page.getByRole("button", { name: /^Buy / })).toHaveCount(0);
    await expect(notice.getByRole("link", { name: "Start a new purchase" })).toBeVisible();
    await expect(await historyRows(page, reference)).toHaveCount(1);
    expect(await headerBalance(page)).toBe(before + 100);
  });

  test("a new purchase gets a new reference", async ({ page }) => {
    const first = await buy(page, 100, "visa");
    await page.getByRole("link", { name: "Start a new purchase" }).click();
    await page.locator('label[for="bundle-100"]').click();
    await page.getByRole("button", { name: "Review purchase" }).click();
    const second = await page.locator('input[name="reference"]').inputValue();
    expect(second).toMatch(/^dash_/);
    expect(second).not.toBe(first);
  });
});

test.describe("Buy Points as a member", () => {
  test("a member sees the prices but cannot buy, not even by posting the form", async ({ browser }) => {
    // Two people sign in (scrypt, by design slow) and one of them buys: about 30 s on a busy CI machine.
    test.slow();
    // The admin's confirmation form, as the page renders it for a browser without JavaScript.
    const adminContext = await browser.newContext();
    const adminPage = await adminContext.newPage();
    await signIn(adminPage, org.admin);
    await review(adminPage, 100, "visa");
    // A full load renders the form as server HTML, with the fields that name the server action.
    await adminPage.reload();
    const fields = await adminPage
      .getByTestId("purchase-form")
      .locator("input[type=hidden]")
      .evaluateAll((inputs) =>
        inputs.map((input) => [(input as HTMLInputElement).name, (input as HTMLInputElement).value]),
      );

    const memberContext = await browser.newContext();
    const page = await memberContext.newPage();
    await signIn(page, org.member);
    const before = await headerBalance(page);
    await page.goto("/dashboard/buy");
    await expect(page.getByText("Only admins can buy Points")).toBeVisible();
    await expect(page.getByTestId("bundle-option")).toHaveCount(7);
    await expect(page.getByRole("button", { name: "Review purchase" })).toHaveCount(0);
    await expect(page.getByRole("radio").first()).toBeDisabled();

    // Even the confirmation URL offers no Buy button to a member.
    await page.goto(`/dashboard/buy?step=confirm&currency=USD&points=100&method=${org.cards.visa}&ref=member-try`);
    await expect(page.getByTestId("purchase-summary")).toBeVisible();
    await expect(page.getByRole("button", { name: /^Buy / })).toHaveCount(0);

    // Posting the admin's form with the member's session is refused by the server action itself.
    const reference = fields.find(([name]) => name === "reference")?.[1] ?? "";
    await postNatively(page, fields);
    await expect(page.getByText("Only admins can buy Points")).toBeVisible();
    await expect(await historyRows(page, reference)).toHaveCount(0);
    expect(await headerBalance(page)).toBe(before);

    // The control: the very same post with the admin's session is a purchase.
    await postNatively(adminPage, fields);
    await expect(adminPage.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
    await expect(await historyRows(page, reference)).toHaveCount(1);
    await memberContext.close();
    await adminContext.close();
  });
});
