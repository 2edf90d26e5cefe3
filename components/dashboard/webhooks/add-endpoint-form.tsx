"use client";

import { useEffect, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { ShownOnce } from "../account/shown-once";
import { useFormAction } from "../account/use-form-action";

type AddState = ActionState<{ secret: string; endpointId: string }>;

/** Adds an endpoint (URL, and the event types it wants: none ticked is every type) and shows its secret this once. */
export function AddEndpointForm({
  canEdit,
  eventTypes,
  action,
}: {
  canEdit: boolean;
  eventTypes: readonly string[];
  action: (state: AddState, data: FormData) => Promise<AddState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const [chosen, setChosen] = useState<string[]>([]);
  const form = useRef<HTMLFormElement>(null);
  // Added: the form is empty again for the next endpoint; a refusal keeps what was typed.
  useEffect(() => {
    if (!state?.ok) return;
    form.current?.reset();
    setChosen([]);
  }, [state]);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  const disabled = !canEdit || pending;
  return (
    <div className="space-y-4">
      {state?.ok && (
        <ShownOnce
          title={`Signing secret of ${state.endpointId}`}
          value={state.secret}
          copyLabel="Copy secret"
          testId={{ box: "new-webhook-secret", value: "new-webhook-secret-value" }}
        >
          Your receiver verifies each delivery's <code className="font-mono">webhook-signature</code> with it. Copy it
          now: <strong>it will not be shown again</strong>.
        </ShownOnce>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <form ref={form} onSubmit={onSubmit} noValidate className="space-y-4">
        <Field
          id="webhook-url"
          label="Endpoint URL"
          error={fields.url}
          hint="A public https address of yours. Deliveries are POSTed there as JSON."
        >
          <Input
            id="webhook-url"
            name="url"
            type="url"
            inputMode="url"
            placeholder="https://example.com/points/webhooks"
            autoComplete="off"
            disabled={disabled}
            aria-invalid={fields.url ? true : undefined}
            aria-describedby={fields.url ? "webhook-url-error" : "webhook-url-hint"}
          />
        </Field>
        <fieldset>
          <legend className="text-sm font-medium text-slate-900">Events</legend>
          <p className="mt-1 text-xs text-slate-500">None ticked: every type, those added later too.</p>
          <input type="hidden" name="events" value={chosen.join(",")} />
          <div className="mt-2 grid gap-x-4 gap-y-1.5 sm:grid-cols-2 lg:grid-cols-3">
            {eventTypes.map((type) => (
              <label key={type} className="flex items-center gap-2 text-sm text-slate-800">
                <input
                  type="checkbox"
                  className="h-4 w-4 rounded border-slate-300 text-indigo-600"
                  checked={chosen.includes(type)}
                  disabled={disabled}
                  onChange={(event) =>
                    setChosen((now) =>
                      event.target.checked ? [...now, type] : now.filter((candidate) => candidate !== type),
                    )
                  }
                />
                <code className="font-mono text-xs">{type}</code>
              </label>
            ))}
          </div>
          {fields.events && (
            <p role="alert" className="mt-1.5 text-xs font-medium text-rose-700">
              {fields.events}
            </p>
          )}
        </fieldset>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={disabled}>
            {pending ? "Adding…" : "Add endpoint"}
          </Button>
          {!canEdit && <p className="text-sm text-slate-600">Only an admin can add endpoints.</p>}
        </div>
      </form>
    </div>
  );
}
