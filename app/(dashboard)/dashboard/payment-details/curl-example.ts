import type { Currency } from "@/lib/catalog";
import { randomString } from "@/lib/ids";

/**
 * A ready-to-paste purchase with this method, never with a real key. Its reference is new each
 * time the page is shown: a reference names one purchase, so pasting an old example again would
 * replay that purchase (or answer 409 with other parameters) rather than buy.
 */
export function curlExample(input: {
  baseUrl: string;
  paymentSourceId: string;
  currency: Currency | null;
  reference?: string;
}): string {
  const body = JSON.stringify({
    points: 100,
    currency: input.currency ?? "USD",
    payment_source_id: input.paymentSourceId,
    reference: input.reference ?? `order-${randomString(10).toLowerCase()}`,
  });
  return [
    `curl -X POST ${input.baseUrl}/v3/points/top-ups \\`,
    `  -H "Authorization: Bearer <YOUR_API_KEY>" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body}'`,
  ].join("\n");
}
