import Link from "next/link";
import type { ComponentProps } from "react";
import { Card, PageHeader } from "@/components/ui/card";
import { EVENT_TYPES } from "@/lib/points/events/events";
import { AddEndpointForm } from "./add-endpoint-form";
import { EndpointCard, type EndpointCardActions, type EndpointWithDeliveries } from "./endpoint-card";

/** The Webhooks page's title, and how events reach an endpoint. */
export function WebhooksHeader() {
  return (
    <PageHeader
      title="Webhooks"
      description={
        <>
          Your endpoints receive each event as it happens, signed (Standard Webhooks), retried for 3 days. Events are
          numbered 1, 2, 3… so your receiver can spot a gap and fill it from{" "}
          <code className="font-mono text-xs">GET /v3/points/events</code>;{" "}
          <Link href="/docs/guide#webhooks" className="font-medium text-indigo-700 hover:underline">
            how to verify and fill gaps
          </Link>
          .
        </>
      }
    />
  );
}

/** "Add an endpoint": its URL and event types; the signing secret is shown once. */
export function AddEndpointCard({
  canEdit,
  action,
}: {
  canEdit: boolean;
  action: ComponentProps<typeof AddEndpointForm>["action"];
}) {
  return (
    <Card title="Add an endpoint" description="The signing secret is shown once, right after you add it.">
      <AddEndpointForm canEdit={canEdit} eventTypes={EVENT_TYPES} action={action} />
    </Card>
  );
}

/** Each endpoint as its own card, or a card saying there are none yet. */
export function EndpointList({
  endpoints,
  canEdit,
  actions,
}: {
  endpoints: EndpointWithDeliveries[];
  canEdit: boolean;
  actions: EndpointCardActions;
}) {
  if (endpoints.length === 0)
    return (
      <Card title="Endpoints">
        <p className="text-sm text-slate-600">No endpoints yet.</p>
      </Card>
    );
  return endpoints.map(({ endpoint, deliveries }) => (
    <EndpointCard key={endpoint.id} endpoint={endpoint} deliveries={deliveries} canEdit={canEdit} actions={actions} />
  ));
}
