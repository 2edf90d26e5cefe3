import type { ComponentProps } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import type { WebhookEndpoint } from "@/lib/db/schema";
import { formatDateTime } from "@/lib/format";
import type { DeliveryLogEntry } from "@/lib/webhooks/delivery-log";
import { DeliveriesTable } from "./deliveries-table";
import { EndpointActions, type RedeliverButton } from "./endpoint-actions";
import { RecoverForm } from "./recover-form";

/** An endpoint with its delivery log, as the Webhooks page lists it. */
export interface EndpointWithDeliveries {
  endpoint: WebhookEndpoint;
  deliveries: DeliveryLogEntry[];
}

/** The server actions an endpoint's card posts to, handed down from the page. */
export interface EndpointCardActions {
  endpoint: ComponentProps<typeof EndpointActions>["actions"];
  recover: ComponentProps<typeof RecoverForm>["action"];
  redeliver: ComponentProps<typeof RedeliverButton>["action"];
}

/** One endpoint: its URL, events and status, its actions, recovery while enabled, and its deliveries. */
export function EndpointCard({
  endpoint,
  deliveries,
  canEdit,
  actions,
}: EndpointWithDeliveries & { canEdit: boolean; actions: EndpointCardActions }) {
  return (
    <Card
      title={<span className="break-all font-mono text-sm">{endpoint.url}</span>}
      description={
        <>
          {endpoint.eventTypes?.join(", ") ?? "Every event type"} · added {formatDateTime(endpoint.createdAt)}
        </>
      }
      actions={endpoint.status === "enabled" ? <Badge tone="green">Enabled</Badge> : <Badge tone="red">Disabled</Badge>}
    >
      <div className="space-y-4" data-testid="webhook-endpoint" data-endpoint-id={endpoint.id}>
        {endpoint.status === "enabled" && refusalOf(deliveries) && (
          <Alert tone="error" title="Deliveries are refused here">
            The last delivery was {refusalOf(deliveries)}. Nothing reaches this endpoint until its address is allowed or
            changed.
          </Alert>
        )}
        {endpoint.status === "disabled" && (
          <Alert tone="warning" title="Nothing is sent to this endpoint">
            Disabled: {endpoint.disabledReason ?? "by an admin"}. Enable it to receive new events; those meanwhile are
            in the feed.
          </Alert>
        )}
        <EndpointActions
          endpointId={endpoint.id}
          url={endpoint.url}
          enabled={endpoint.status === "enabled"}
          canEdit={canEdit}
          actions={actions.endpoint}
        />
        {endpoint.status === "enabled" && (
          <RecoverForm endpointId={endpoint.id} canEdit={canEdit} action={actions.recover} />
        )}
        <div>
          <h3 className="text-sm font-semibold text-slate-900">Deliveries</h3>
          {deliveries.length === 0 ? (
            <p className="mt-1 text-sm text-slate-600">None yet: events from now on are sent here.</p>
          ) : (
            <DeliveriesTable
              url={endpoint.url}
              enabled={endpoint.status === "enabled"}
              deliveries={deliveries}
              canEdit={canEdit}
              redeliver={actions.redeliver}
            />
          )}
        </div>
      </div>
    </Card>
  );
}

/**
 * Why deliveries to the endpoint are refused before any request is made (the address guard: http,
 * a loopback or private address), when its newest delivery still waiting or given up says so.
 */
function refusalOf(deliveries: DeliveryLogEntry[]): string | null {
  const newest = deliveries[0]?.delivery;
  if (!newest || newest.status === "delivered") return null;
  return newest.lastError?.startsWith("refused: ") ? newest.lastError : null;
}
