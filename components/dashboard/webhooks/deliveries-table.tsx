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
    // On a phone each delivery is a card of its own, so nothing is cut off or scrolls sideways.
    <div className="mt-2">
      <table className="w-full text-left text-sm max-sm:block" aria-label={`Deliveries to ${url}`}>
        <thead className="text-xs text-slate-600 max-sm:hidden">
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
        <tbody className="divide-y divide-slate-100 max-sm:block">
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
    <tr
      data-testid="webhook-delivery"
      className="max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-3 max-sm:gap-y-1 max-sm:py-3"
    >
      <td className="py-2 pr-4 max-sm:w-full max-sm:p-0">
        <span className="font-mono text-xs">
          #{delivery.eventSequence} {eventType}
        </span>
      </td>
      <td className="py-2 pr-4 max-sm:p-0">
        <Badge tone={deliveryTones[delivery.status] ?? "slate"}>{delivery.status}</Badge>
      </td>
      <td className="py-2 pr-4 tabular-nums max-sm:p-0 max-sm:text-xs max-sm:text-slate-700">
        <span className="sm:hidden">Attempts: </span>
        {delivery.attempts}
      </td>
      <td className="py-2 pr-4 text-xs text-slate-700 max-sm:w-full max-sm:p-0 max-sm:break-words">
        <span className="sm:hidden">Answer: </span>
        {delivery.lastResponseStatus ?? (delivery.lastError ? "no answer" : "–")}
        {lastDurationMs !== null && ` · ${lastDurationMs} ms`}
        {delivery.lastError && delivery.status !== "delivered" && (
          <span className="block text-slate-500">{delivery.lastError}</span>
        )}
      </td>
      <td className="py-2 pr-4 text-xs text-slate-700 max-sm:w-full max-sm:p-0">
        <span className="sm:hidden">Next try: </span>
        {delivery.status === "pending" && delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : "–"}
      </td>
      <td className="py-2 max-sm:p-0 max-sm:empty:hidden">
        {delivery.status !== "pending" && enabled && (
          <RedeliverButton deliveryId={delivery.id} canEdit={canEdit} action={redeliver} />
        )}
      </td>
    </tr>
  );
}
