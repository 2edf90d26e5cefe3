import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { WebhookDelivery, WebhookEndpoint } from "@/lib/db/schema";
import type { DeliveryLogEntry } from "@/lib/webhooks/delivery-log";
import { EndpointCard, type EndpointCardActions } from "./endpoint-card";

/* An endpoint whose deliveries the address guard refuses says so on its card, not only in the log. */
const endpoint = {
  id: "we_1",
  organizationId: "org_1",
  url: "http://127.0.0.1:5001/hooks",
  status: "enabled",
  eventTypes: null,
  disabledReason: null,
  createdAt: new Date("2026-11-28T09:00:00Z"),
} as WebhookEndpoint;

const never = async () => null;
const actions = { endpoint: {}, recover: never, redeliver: never } as unknown as EndpointCardActions;

function entry(delivery: Partial<WebhookDelivery>): DeliveryLogEntry {
  return {
    delivery: { id: "wd_1", eventSequence: 3, status: "pending", attempts: 1, lastError: null, ...delivery },
    eventType: "top_up.paid",
    lastDurationMs: 0,
  } as DeliveryLogEntry;
}

const text = (deliveries: DeliveryLogEntry[], status = "enabled") =>
  renderToStaticMarkup(
    <EndpointCard endpoint={{ ...endpoint, status }} deliveries={deliveries} canEdit actions={actions} />,
  ).replace(/<[^>]+>/g, " ");

describe("an endpoint's card", () => {
  const refused = "refused: 127.0.0.1 is a loopback address; webhooks go only to public addresses.";

  it("says its deliveries are refused, and why, while the newest one is", () => {
    const shown = text([entry({ lastError: refused })]);
    expect(shown).toContain("Deliveries are refused here");
    expect(shown).toContain(`The last delivery was ${refused}`);
  });

  it("says nothing of it once a delivery arrives, for other errors, or while disabled", () => {
    expect(text([entry({ status: "delivered" }), entry({ lastError: refused })])).not.toContain("refused here");
    expect(text([entry({ lastError: "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5001" })])).not.toContain(
      "refused here",
    );
    expect(text([entry({ lastError: refused })], "disabled")).not.toContain("refused here");
  });
});
