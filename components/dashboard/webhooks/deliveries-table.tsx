import type { ComponentProps } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { formatDateTime } from "@/lib/format";
import type { DeliveryLogEntry } from "@/lib/webhooks/delivery-log";
import { RedeliverButton } from "./endpoint-actions";

const deliveryTones: Record<string, BadgeTone> = { delivered: "green", failed: "red", pending: "amber" };

type RedeliverAction = ComponentProps<typeof RedeliverButton>["action"];

/** An endpoint's delivery log, newest event first; "Send again" on each delivery that is not pending. */
export function DeliveriesTable({
  url,
  enabled,
  deliveries,
  canEdit,
  redeliver,
}: {
  url: string;
  enabled: boolean;
  deliveries: DeliveryLogEntry[];
  canEdit: boolean;
  redeliver: RedeliverAction;
}) {
  return (
    <div
      className="mt-2 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways on a phone; a keyboard must reach it to scroll it.
      tabIndex={0}
    >
      <table className="w-full text-left text-sm" aria-label={`Deliveries to ${url}`}>
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
          {deliveries.map((entry) => (
            <DeliveryRow
              key={entry.delivery.id}
              entry={entry}
              enabled={enabled}
              canEdit={canEdit}
              redeliver={redeliver}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One delivery of the log: its event, status, attempts, last answer and next try. */
function DeliveryRow({
  entry: { delivery, eventType, lastDurationMs },
  enabled,
  canEdit,
  redeliver,
}: {
  entry: DeliveryLogEntry;
  enabled: boolean;
  canEdit: boolean;
  redeliver: RedeliverAction;
}) {
  return (
    <tr data-testid="webhook-delivery">
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
        {delivery.status === "pending" && delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : "–"}
      </td>
      <td className="py-2">
        {delivery.status !== "pending" && enabled && (
          <RedeliverButton deliveryId={delivery.id} canEdit={canEdit} action={redeliver} />
        )}
      </td>
    </tr>
  );
}
