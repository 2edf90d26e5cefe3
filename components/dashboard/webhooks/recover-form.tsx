"use client";

import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { useFormAction } from "../account/use-form-action";
import { Outcome } from "./endpoint-actions";

type Done = ActionState<{ message: string }>;

/**
 * Sends an enabled endpoint again what it missed since a time (UTC): events written while it was
 * disabled, and deliveries given up. Each is sent once, in sequence order.
 */
export function RecoverForm({
  endpointId,
  canEdit,
  action,
}: {
  endpointId: string;
  canEdit: boolean;
  action: (state: Done, data: FormData) => Promise<Done>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  const id = `recover-since-${endpointId}`;
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-wrap items-start gap-x-2 gap-y-1">
      <input type="hidden" name="endpointId" value={endpointId} />
      <Field
        id={id}
        label="Send again what it missed since (UTC)"
        error={fields.since}
        hint="Events written while it was disabled, and deliveries given up: each is sent once, in order."
      >
        <Input
          id={id}
          name="since"
          type="datetime-local"
          required
          disabled={!canEdit || pending}
          aria-invalid={fields.since ? true : undefined}
          aria-describedby={fields.since ? `${id}-error` : `${id}-hint`}
        />
      </Field>
      <div className="sm:pt-[1.625rem]">
        <Button type="submit" variant="secondary" disabled={!canEdit || pending}>
          {pending ? "Queuing…" : "Send missed events"}
        </Button>
      </div>
      <div className="w-full">
        <Outcome state={state} />
      </div>
    </form>
  );
}
