import type { Metadata } from "next";
import Link from "next/link";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { AddEndpointForm } from "@/components/dashboard/webhooks/add-endpoint-form";
import { EndpointActions, RedeliverButton } from "@/components/dashboard/webhooks/endpoint-actions";
import { RecoverForm } from "@/components/dashboard/webhooks/recover-form";
import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card, PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { formatDateTime } from "@/lib/format";
import { EVENT_TYPES } from "@/lib/points/events/events";
import { deliveryLog } from "@/lib/webhooks/delivery-log";
import { listEndpoints } from "@/lib/webhooks/endpoints";
import {
  addEndpointAction,
  deleteEndpointAction,
  endpointStatusAction,
  recoverAction,
  redeliverAction,
  rotateSecretAction,
  sendTestAction,
} from "./actions";

export const metadata: Metadata = { title: "Webhooks · Points" };

const deliveryTones: Record<string, BadgeTone> = { delivered: "green", failed: "red", pending: "amber" };

export default async function WebhooksPage() {
  const { user, runtime } = await pageContext();
  const endpoints = await listEndpoints(runtime.db, user.organizationId);
  const logs = await Promise.all(endpoints.map((endpoint) => deliveryLog(runtime.db, endpoint)));
  const canEdit = user.role === "admin";
  const actions = {
    test: sendTestAction,
    rotate: rotateSecretAction,
    status: endpointStatusAction,
    remove: deleteEndpointAction,
  };

  return (
    <>
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
      <div className="space-y-6">
        {!canEdit && <ReadOnlyNotice what="your organisation's webhook endpoints" />}
        <Card title="Add an endpoint" description="The signing secret is shown once, right after you add it.">
          <AddEndpointForm canEdit={canEdit} eventTypes={EVENT_TYPES} action={addEndpointAction} />
        </Card>
        {endpoints.length === 0 ? (
          <Card title="Endpoints">
            <p className="text-sm text-slate-600">No endpoints yet.</p>
          </Card>
        ) : (
          endpoints.map((endpoint, index) => (
            <Card
              key={endpoint.id}
              title={<span className="break-all font-mono text-sm">{endpoint.url}</span>}
              description={
                <>
                  {endpoint.eventTypes?.join(", ") ?? "Every event type"} · added {formatDateTime(endpoint.createdAt)}
                </>
              }
              actions={
                endpoint.status === "enabled" ? <Badge tone="green">Enabled</Badge> : <Badge tone="red">Disabled</Badge>
              }
            >
              <div className="space-y-4" data-testid="webhook-endpoint" data-endpoint-id={endpoint.id}>
                {endpoint.status === "disabled" && (
                  <Alert tone="warning" title="Nothing is sent to this endpoint">
                    Disabled: {endpoint.disabledReason ?? "by an admin"}. Enable it to receive new events; those
                    meanwhile are in the feed.
                  </Alert>
                )}
                <EndpointActions
                  endpointId={endpoint.id}
                  url={endpoint.url}
                  enabled={endpoint.status === "enabled"}
                  canEdit={canEdit}
                  actions={actions}
                />
                {endpoint.status === "enabled" && (
                  <RecoverForm endpointId={endpoint.id} canEdit={canEdit} action={recoverAction} />
                )}
                <div>
                  <h3 className="text-sm font-semibold text-slate-900">Deliveries</h3>
                  {(logs[index] ?? []).length === 0 ? (
                    <p className="mt-1 text-sm text-slate-600">None yet: events from now on are sent here.</p>
                  ) : (
                    <div
                      className="mt-2 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
                      // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways on a phone; a keyboard must reach it to scroll it.
                      tabIndex={0}
                    >
                      <table className="w-full text-left text-sm" aria-label={`Deliveries to ${endpoint.url}`}>
                        <thead className="text-xs text-slate-600">
                          <tr>
                            <th className="py-2 pr-4 font-medium">Event</th>
                            <th className="py-2 pr-4 font-medium">Status</th>
                            <th className="py-2 pr-4 font-medium">Attempts</th>
                            <th className="py-2 pr-4 font-medium">Answer</th>
                            <th className="py-2 pr-4 font-medium">Next try</th>
                            <th className="py-2 font-medium">
                              <span className="sr-only">Actions</span>
                            </th>
                          </tr>
                        </thead>
                        <tbody className="divide-y divide-slate-100">
                          {(logs[index] ?? []).map(({ delivery, eventType, lastDurationMs }) => (
                            <tr key={delivery.id} data-testid="webhook-delivery">
                              <td className="py-2 pr-4">
                                <span className="font-mono text-xs">
                                  #{delivery.eventSequence} {eventType}
                                </span>
                              </td>
                              <td className="py-2 pr-4">
                                <Badge tone={deliveryTones[delivery.status] ?? "slate"}>{delivery.status}</Badge>
                              </td>
                              <td className="py-2 pr-4 tabular-nums">{delivery.attempts}</td>
                              <td className="py-2 pr-4 text-xs text-slate-700">
                                {delivery.lastResponseStatus ?? (delivery.lastError ? "no answer" : "–")}
                                {lastDurationMs !== null && ` · ${lastDurationMs} ms`}
                                {delivery.lastError && delivery.status !== "delivered" && (
                                  <span className="block text-slate-500">{delivery.lastError}</span>
                                )}
                              </td>
                              <td className="py-2 pr-4 text-xs text-slate-700">
                                {delivery.status === "pending" && delivery.nextAttemptAt
                                  ? formatDateTime(delivery.nextAttemptAt)
                                  : "–"}
                              </td>
                              <td className="py-2">
                                {delivery.status !== "pending" && endpoint.status === "enabled" && (
                                  <RedeliverButton
                                    deliveryId={delivery.id}
                                    canEdit={canEdit}
                                    action={redeliverAction}
                                  />
                                )}
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  )}
                </div>
              </div>
            </Card>
          ))
        )}
      </div>
    </>
  );
}
