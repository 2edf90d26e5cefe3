import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

const account = accountFixtures();

test("each test card says what it does, on Payment details and on Buy", async ({ page }) => {
  await signIn(page, account.cards.admin);
  await page.goto("/dashboard/payment-details");
  const declined = page.getByTestId("payment-method").filter({ hasText: "•••• 0002" });
  await expect(declined.getByRole("heading")).toHaveText("Visa •••• 0002 — test card: Declined (402)");
  const visa = page.getByTestId("payment-method").filter({ hasText: "•••• 4242" });
  await expect(visa.getByRole("heading")).toHaveText("Visa •••• 4242 — test card: Succeeds");

  await page.goto("/dashboard/buy");
  await expect(page.getByTestId("method-option").filter({ hasText: "•••• 0002" })).toContainText("Declined (402)");

  // The API's label keeps its contract format.
  const listed = await page.request.get("/v3/points/payment-methods", {
    headers: { Authorization: `Bearer ${account.cards.apiKey}` },
  });
  const labels = ((await listed.json()) as { data: { payment_methods: { label: string }[] } }).data.payment_methods.map(
    (method) => method.label,
  );
  expect(labels).toContain("Visa •••• 0002");
});
