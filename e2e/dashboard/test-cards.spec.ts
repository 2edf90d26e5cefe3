import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

const account = accountFixtures();

test("each test card says what it does, on Payment details and on Buy", async ({ page }) => {
  await signIn(page, account.cards.admin);
  await page.goto("/dashboard/payment-details");
  const declined = page.getByTestId("payment-method").filter({ hasText: "•••• 0002" });
  await expect(declined.getByRole("heading")).toHaveText("Visa •••• 0002 — test card: Declined");
  const visa = page.getByTestId("payment-method").filter({ hasText: "•••• 4242" });
  await expect(visa.getByRole("heading")).toHaveText("Visa •••• 4242 — test card: Succeeds");

  await page.goto("/dashboard/buy");
  await expect(page.getByTestId("method-option").filter({ hasText: "•••• 0002" })).toContainText("Declined");

  // The API's label keeps its contract format.
  const listed = await page.request.get("/v3/points/payment-methods", {
    headers: { Authorization: `Bearer ${account.cards.apiKey}` },
  });
  const labels = ((await listed.json()) as { data: { payment_methods: { label: string }[] } }).data.payment_methods.map(
    (method) => method.label,
  );
  expect(labels).toContain("Visa •••• 0002");
});

test("a test card is saved once, and can be removed; removing the default says to choose another", async ({ page }) => {
  const org = account.cardRemoval;
  await signIn(page, org.admin);
  await page.goto("/dashboard/payment-details");
  const cards = page.getByTestId("payment-method");
  await expect(cards).toHaveCount(3);

  // A card already saved is listed, marked, and cannot be chosen again.
  const choice = (kind: string) => page.getByLabel("Test card", { exact: true }).locator(`option[value="${kind}"]`);
  await expect(choice("declined")).toBeDisabled();
  await expect(choice("declined")).toContainText("(saved)");
  await expect(choice("expired")).toBeEnabled();

  // A tab opened before a card was saved is refused when it saves the same card: never a twin.
  const staleTab = await page.context().newPage();
  await staleTab.goto("/dashboard/payment-details");
  await page.getByLabel("Test card", { exact: true }).selectOption("expired");
  await page.getByRole("button", { name: "Add test card" }).click();
  // Expired, so saved but never offered for a purchase: the message says so rather than "can be used".
  await expect(
    page.getByText(
      'Visa •••• 0069 was saved. It has expired, so it is listed under "Not usable for purchases" and never charged.',
    ),
  ).toBeVisible();
  await expect(choice("expired")).toBeDisabled();
  await staleTab.getByLabel("Test card", { exact: true }).selectOption("expired");
  await staleTab.getByRole("button", { name: "Add test card" }).click();
  await expect(
    staleTab.getByText(/Visa •••• 0069 .* is already saved; each test card can be saved once\./).first(),
  ).toBeVisible();
  await staleTab.close();
  await page.reload();
  await expect(cards).toHaveCount(3);
  await expect(page.getByText("Visa •••• 0069")).toHaveCount(1);

  await cards.filter({ hasText: "•••• 4444" }).getByRole("button", { name: "Remove Mastercard •••• 4444" }).click();
  await expect(
    page.getByText("The card was removed: it is no longer offered or charged. Past purchases keep it."),
  ).toBeVisible();
  await expect(cards).toHaveCount(2);

  await cards.filter({ hasText: "•••• 4242" }).getByRole("button", { name: "Remove Visa •••• 4242" }).click();
  await expect(
    page.getByText(/It was the default, so the organisation has none now: choose a new default/),
  ).toBeVisible();
  await expect(cards).toHaveCount(1);
  await expect(page.getByText("Default", { exact: true })).toHaveCount(0);

  const listed = await page.request.get("/v3/points/payment-methods", {
    headers: { Authorization: `Bearer ${org.apiKey}` },
  });
  const labels = ((await listed.json()) as { data: { payment_methods: { label: string }[] } }).data.payment_methods.map(
    (method) => method.label,
  );
  expect(labels).toEqual(["Visa •••• 0002"]);
});

test("with every test card saved, the form says so instead of offering nothing", async ({ page }) => {
  await signIn(page, account.allCards.admin);
  await page.goto("/dashboard/payment-details");
  await expect(page.getByText("Every test card is saved. Remove one to add it again.")).toBeVisible();
  await expect(page.getByLabel("Test card", { exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Add test card" })).toHaveCount(0);
});
