import type { EndpointWithDeliveries } from "@/components/dashboard/webhooks/endpoint-card";
import type { PageContext } from "@/lib/dashboard/context";
import { deliveryLog } from "@/lib/webhooks/delivery-log";
import { listEndpoints } from "@/lib/webhooks/endpoints";

/** The Webhooks page: the organisation's endpoints, each with its delivery log, and whether the user may change them. */
export interface WebhooksPageState {
  canEdit: boolean;
  endpoints: EndpointWithDeliveries[];
}

/** Reads the organisation's endpoints and each one's delivery log. */
export async function loadWebhooksPage({ user, runtime }: PageContext): Promise<WebhooksPageState> {
  const endpoints = await listEndpoints(runtime.db, user.organizationId);
  const logs = await Promise.all(endpoints.map((endpoint) => deliveryLog(runtime.db, endpoint)));
  return {
    canEdit: user.role === "admin",
    endpoints: endpoints.map((endpoint, index) => ({ endpoint, deliveries: logs[index] ?? [] })),
  };
}
