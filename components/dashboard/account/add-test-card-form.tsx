"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import type { ActionState } from "./action-state";
import { useFormAction } from "./use-form-action";

type AddState = ActionState<{ label: string }>;

/** Saves one of the simulated provider's test cards for the organisation. */
export function AddTestCardForm({ choices, canEdit, action }: {
  choices: { kind: string; label: string; behaviour: string }[];
  canEdit: boolean;
  action: (state: AddState, data: FormData) => Promise<AddState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  return (
    <form onSubmit={onSubmit} className="space-y-4">
      {state?.ok && <Alert tone="success">{state.label} was saved and can be used at once.</Alert>}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <fieldset disabled={!canEdit || pending} className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <legend className="sr-only">Add a test card</legend>
        <div className="sm:w-96">
          <Field id="kind" label="Test card" error={fields.kind}>
            <Select
              id="kind"
              name="kind"
              defaultValue="visa"
              aria-invalid={fields.kind ? true : undefined}
              aria-describedby={fields.kind ? "kind-error" : undefined}
            >
              {choices.map((choice) => (
                <option key={choice.kind} value={choice.kind}>
                  {choice.label}: {choice.behaviour}
                </option>
              ))}
            </Select>
          </Field>
        </div>
        <Button type="submit" variant="secondary" disabled={!canEdit || pending}>
          {pending ? "Adding…" : "Add test card"}
        </Button>
      </fieldset>
    </form>
  );
}
