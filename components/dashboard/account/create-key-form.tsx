"use client";

import { useEffect, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { ShownOnce } from "./shown-once";
import { useFormAction } from "./use-form-action";

type CreateState = ActionState<{
  name: string;
  apiKey: string;
  prefix: string;
  scope: string;
  dailyPointsCap: number | null;
}>;

/**
 * Creates a key, with its name, scope and optional daily cap, and shows it this once; a reload
 * forgets it for good. The form is cleared once the key is made (ready for the next one) and
 * kept when refused, so it can be corrected.
 */
export function CreateKeyForm({
  canEdit,
  action,
}: {
  canEdit: boolean;
  action: (state: CreateState, data: FormData) => Promise<CreateState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  // Each control is disabled by itself (no disabled fieldset), so a forced button still reaches the server's refusal.
  const disabled = !canEdit || pending;
  return (
    <div className="space-y-4">
      {state?.ok && (
        <ShownOnce
          title={`${
            state.scope === "read"
              ? "Your new read-only API key"
              : state.scope === "spend"
                ? "Your new spend API key"
                : "Your new API key"
          }, “${state.name}”`}
          value={state.apiKey}
          copyLabel="Copy key"
          testId={{ box: "new-api-key", value: "new-api-key-value" }}
        >
          Copy it now and keep it somewhere safe: <strong>it will not be shown again</strong>. We store only a hash.
        </ShownOnce>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <form ref={form} onSubmit={onSubmit} noValidate className="space-y-4">
        <Field
          id="key-name"
          label="Name"
          error={fields.name}
          hint="What or who uses it, e.g. “Build server”: shown beside the key from now on. Up to 100 characters."
        >
          <Input
            id="key-name"
            name="name"
            required
            autoComplete="off"
            disabled={disabled}
            aria-invalid={fields.name ? true : undefined}
            aria-describedby={fields.name ? "key-name-error" : "key-name-hint"}
          />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id="key-scope"
            label="Scope"
            error={fields.scope}
            hint="purchase: buy and spend; spend: read and spend, never buy; read: read and quote."
          >
            <Select id="key-scope" name="scope" defaultValue="purchase" disabled={disabled}>
              <option value="purchase">Purchase (default): can buy and spend</option>
              <option value="spend">Spend: reads, quotes and spends, never buys</option>
              <option value="read">Read only: GET requests and quotes</option>
            </Select>
          </Field>
          <Field
            id="key-daily-cap"
            label="Daily Points cap (optional)"
            error={fields.dailyPointsCap}
            hint="The most Points this key may buy in 24 hours; empty for no cap of its own. Spend and read-only keys cannot buy, so they take none."
          >
            <Input
              id="key-daily-cap"
              name="dailyPointsCap"
              inputMode="numeric"
              placeholder="No cap"
              autoComplete="off"
              disabled={disabled}
              aria-invalid={fields.dailyPointsCap ? true : undefined}
              aria-describedby={fields.dailyPointsCap ? "key-daily-cap-error" : "key-daily-cap-hint"}
            />
          </Field>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={disabled}>
            {pending ? "Creating…" : "Create API key"}
          </Button>
          <p className="text-sm text-slate-600">
            {canEdit
              ? "Existing keys keep working; revoke them separately."
              : "Only an admin can create or revoke keys."}
          </p>
        </div>
      </form>
    </div>
  );
}
