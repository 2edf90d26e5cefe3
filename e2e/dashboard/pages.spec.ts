import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

/*
 * Issue 18's rough edges, as a person meets them: a reopened confirmation that still offered to pay,
 * buttons whose names do not say which card, a table with no caption, wording, the Members columns,
 * and Buy steps that never reached Done.
 */

const org = accountFixtures().accessibility;
const visa = org.paymentMethods.find((method) => method.kind === "visa")?.id ?? "";

test("a purchase's steps end at Done, and its confirmation reopened says it was bought", async ({ page }) => {
  await signIn(page, org.admin);
  const confirm = `/dashboard/buy?step=confirm&currency=USD&points=100&method=${visa}`;
  await page.goto(confirm);
  const steps = page.getByRole("list", { name: "Purchase steps" });
  await expect(steps.locator('[aria-current="step"]')).toHaveText(/Confirm/);
  const reference = await page.locator('input[name="reference"]').inputValue();
  await page.getByRole("button", { name: "Buy 100 Points for $10.00" }).click();

  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
  await expect(steps.locator('[aria-current="step"]')).toHaveText("✓Done (done)");
  await expect(steps.getByText("✓")).toHaveCount(3);

  await page.goto(`${confirm}&ref=${reference}`);
  await expect(page.getByText("Already bought", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Buy / })).toHaveCount(0);
  await expect(page.getByText("Balance after payment")).toHaveCount(0);
  await page.getByRole("link", { name: "See that purchase" }).click();
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
});

test("an API purchase's outcome shows no Buy steps; a declined one's last step says Declined", async ({
  page,
  request,
}) => {
  const declined = org.paymentMethods.find((method) => method.kind === "declined")?.id ?? "";
  const answer = await request.post("/v3/points/top-ups", {
    headers: { Authorization: `Bearer ${org.apiKey}` },
    data: { points: 100, currency: "USD", payment_source_id: declined, reference: `steps-${Date.now()}` },
  });
  const id = ((await answer.json()) as { data: { top_up: { id: string } } }).data.top_up.id;
  await signIn(page, org.admin);
  await page.goto(`/dashboard/buy/${id}`);
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "failed");
  await expect(page.getByRole("list", { name: "Purchase steps" })).toHaveCount(0);

  await page.goto(`/dashboard/buy?step=confirm&currency=USD&points=100&method=${declined}`);
  await page.getByRole("button", { name: "Buy 100 Points for $10.00" }).click();
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "failed");
  await expect(page.getByRole("list", { name: "Purchase steps" }).locator('[aria-current="step"]')).toHaveText(
    "3Declined",
  );
});

test("buttons on Payment details name their card; History's table has a caption", async ({ page }) => {
  await signIn(page, org.admin);
  await page.goto("/dashboard/payment-details");
  for (const label of [
    "Visa •••• 4242",
    "Mastercard •••• 4444",
    "Visa •••• 0002",
    "Visa •••• 3184",
    "Visa •••• 0069",
  ]) {
    await expect(page.getByRole("button", { name: `Remove ${label}`, exact: true })).toHaveCount(1);
  }
  await expect(page.getByRole("button", { name: "Copy ID of Visa •••• 4242", exact: true })).toHaveCount(1);
  // Each card is a row; its example purchase opens on demand.
  await expect(page.getByRole("button", { name: /^Copy command/ })).toHaveCount(0);
  await page.getByRole("region", { name: "Visa •••• 4242" }).getByText("Example purchase with this card").click();
  await expect(page.getByRole("button", { name: "Copy command for Visa •••• 4242", exact: true })).toHaveCount(1);
  for (const card of await page.getByTestId("payment-method").all()) {
    const box = await card.boundingBox();
    if ((await card.getByTestId("curl-example").isVisible()) || !box) continue;
    expect(box.height, "a card's row, its example closed").toBeLessThanOrEqual(160);
  }
  // No button is named by the value it copies (a whole curl command).
  await expect(page.getByRole("button", { name: /curl|Authorization|pm_/ })).toHaveCount(0);

  await page.goto("/dashboard/history");
  await expect(page.getByRole("table", { name: "Top-ups, newest first" })).toBeVisible();
  await page.goto("/dashboard/history?source=api");
  await expect(page.getByRole("table", { name: "Top-ups matching the filters, newest first" })).toBeVisible();
});

test("Members at 1280 px: one role per row, in the same column on every row", async ({ page, browser }) => {
  test.slow();
  await signIn(page, org.admin);
  await page.goto("/dashboard/members");
  const rows = page.getByTestId("member-row");
  await expect(rows).toHaveCount(2);
  // The admin's select says the role: no badge beside it says it again.
  await expect(page.getByTestId("member-role")).toHaveCount(0);
  const selects = rows.getByLabel(/^Access level of/);
  const left = await selects.evaluateAll((elements) =>
    elements.map((element) => Math.round(element.getBoundingClientRect().left)),
  );
  expect(left).toHaveLength(2);
  expect(new Set(left).size, `the role selects start at ${left.join(" and ")} px`).toBe(1);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const member = await context.newPage();
  await signIn(member, org.member);
  await member.goto("/dashboard/members");
  const badges = member.getByTestId("member-role");
  await expect(badges).toHaveCount(2);
  const badgeLeft = await badges.evaluateAll((elements) =>
    elements.map((element) => Math.round(element.getBoundingClientRect().left)),
  );
  expect(new Set(badgeLeft).size, `the role badges start at ${badgeLeft.join(" and ")} px`).toBe(1);

  // Wording a member reads: the notice fits a plural; Limits says what counts against the balance.
  await expect(member.getByRole("status").filter({ hasText: "View only" })).toContainText(
    "You are signed in as a member: you can see who has access, and an admin of your organisation can make changes.",
  );
  await member.goto("/dashboard/payment-details");
  await expect(member.getByText("but not change it")).toHaveCount(0);
  await expect(member.getByRole("status").filter({ hasText: "View only" })).toContainText(
    "you can see the payment methods, and an admin",
  );
  await member.goto("/dashboard/limits");
  await expect(member.getByText(/being processed/)).toHaveCount(0);
  await expect(member.getByTestId("limit-max-balance")).toContainText("awaiting the cardholder or being confirmed");
  await context.close();
});
