"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { ActionState } from "@/lib/dashboard/action-state";
import { ShownOnce } from "../account/shown-once";
import { useFormAction } from "../account/use-form-action";

type Done = ActionState<{ message: string }>;
type Secret = ActionState<{ secret: string; endpointId: string }>;
type Act<S> = (state: S, data: FormData) => Promise<S>;

/** How an endpoint's action went: its message, or what went wrong. */
export function Outcome({ state }: { state: Done | Secret }) {
  if (!state) return null;
  if (!state.ok)
    return (
      <p role="alert" className="text-xs font-medium text-rose-700">
        {state.error}
      </p>
    );
  if ("message" in state)
    return (
      <p role="status" className="text-xs font-medium text-emerald-800">
        {state.message}
      </p>
    );
  return null;
}

/** One button that posts the endpoint's id to an action and says how it went. */
function ActOn<S extends Done | Secret>({
  endpointId,
  action,
  label,
  busy,
  extra,
  canEdit,
  variant = "secondary",
  render,
}: {
  endpointId: string;
  action: Act<S>;
  label: string;
  busy: string;
  extra?: Record<string, string>;
  canEdit: boolean;
  variant?: "secondary" | "danger";
  render?: (state: S) => React.ReactNode;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null as Awaited<S>);
  return (
    <form onSubmit={onSubmit} className="flex flex-col items-start gap-1">
      <input type="hidden" name="endpointId" value={endpointId} />
      {Object.entries(extra ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" variant={variant} disabled={!canEdit || pending}>
        {pending ? busy : label}
      </Button>
      {render ? render(state) : <Outcome state={state} />}
    </form>
  );
}

/** An endpoint's actions for an admin: send a test event, rotate the secret, disable or enable, delete (confirmed). */
export function EndpointActions({
  endpointId,
  url,
  enabled,
  canEdit,
  actions,
}: {
  endpointId: string;
  url: string;
  enabled: boolean;
  canEdit: boolean;
  actions: { test: Act<Done>; rotate: Act<Secret>; status: Act<Done>; remove: Act<Done> };
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="flex flex-wrap items-start gap-2">
      <ActOn endpointId={endpointId} action={actions.test} label="Send test event" busy="Sending…" canEdit={canEdit} />
      <ActOn
        endpointId={endpointId}
        action={actions.rotate}
        label="Rotate secret"
        busy="Rotating…"
        canEdit={canEdit}
        render={(state) =>
          state?.ok ? (
            <ShownOnce
              title="New signing secret"
              value={state.secret}
              copyLabel="Copy secret"
              testId={{ box: "rotated-webhook-secret", value: "rotated-webhook-secret-value" }}
            >
              The old secret also signs for 24 hours, so your receiver can switch. Copy this one now:{" "}
              <strong>it will not be shown again</strong>.
            </ShownOnce>
          ) : (
            <Outcome state={state} />
          )
        }
      />
      <ActOn
        endpointId={endpointId}
        action={actions.status}
        extra={{ status: enabled ? "disabled" : "enabled" }}
        label={enabled ? "Disable" : "Enable"}
        busy={enabled ? "Disabling…" : "Enabling…"}
        canEdit={canEdit}
      />
      {confirming ? (
        <div className="flex flex-col gap-2 rounded-lg border border-rose-200 bg-rose-50 p-3">
          <p className="text-sm text-rose-900">
            Delete <span className="break-all font-mono">{url}</span> and its delivery log?
          </p>
          <div className="flex gap-2">
            <ActOn
              endpointId={endpointId}
              action={actions.remove}
              label="Yes, delete"
              busy="Deleting…"
              variant="danger"
              canEdit={canEdit}
            />
            <Button variant="ghost" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <Button variant="secondary" disabled={!canEdit} onClick={() => setConfirming(true)}>
          Delete
        </Button>
      )}
    </div>
  );
}

/** "Send again" on one delivery of the log. */
export function RedeliverButton({
  deliveryId,
  canEdit,
  action,
}: {
  deliveryId: string;
  canEdit: boolean;
  action: (state: Done, data: FormData) => Promise<Done>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  return (
    <form onSubmit={onSubmit} className="flex flex-col items-start gap-1">
      <input type="hidden" name="deliveryId" value={deliveryId} />
      <Button type="submit" variant="secondary" disabled={!canEdit || pending} className="px-2.5 py-1 text-xs">
        {pending ? "Queuing…" : "Send again"}
      </Button>
      <Outcome state={state} />
    </form>
  );
}
