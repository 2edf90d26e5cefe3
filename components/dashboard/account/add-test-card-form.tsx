"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { useFormAction } from "./use-form-action";

type AddState = ActionState<{ label: string; usable: boolean }>;

/**
 * Saves one of the simulated provider's test cards for the organisation. Each card can be saved
 * once: those already saved are listed but cannot be chosen (the service refuses them too, for a
 * page left open while another tab saved one).
 */
export function AddTestCardForm({
  choices,
  saved,
  canEdit,
  action,
}: {
  choices: { kind: string; label: string; behaviour: string }[];
  saved: string[];
  canEdit: boolean;
  action: (state: AddState, data: FormData) => Promise<AddState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  const available = choices.filter((choice) => !saved.includes(choice.kind));
  return (
    <form onSubmit={onSubmit} className="space-y-4">
      {state?.ok && (
        <Alert tone="success">
          {state.usable
            ? `${state.label} was saved and can be used at once.`
            : `${state.label} was saved. It has expired, so it is listed under "Not usable for purchases" and never charged.`}
        </Alert>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      {available.length === 0 ? (
        <p className="text-sm text-slate-600">Every test card is saved. Remove one to add it again.</p>
      ) : (
        <fieldset disabled={!canEdit || pending} className="flex flex-col gap-3 sm:flex-row sm:items-end">
          <legend className="sr-only">Add a test card</legend>
          <div className="sm:w-96">
            <Field id="kind" label="Test card" error={fields.kind}>
              <Select
                id="kind"
                name="kind"
                // Remounted when the saved cards change, so the choice moves off a card just saved.
                key={saved.join(",")}
                defaultValue={available[0]?.kind}
                aria-invalid={fields.kind ? true : undefined}
                aria-describedby={fields.kind ? "kind-error" : undefined}
              >
                {choices.map(({ kind, label, behaviour }) => {
                  const isSaved = saved.includes(kind);
                  return (
                    <option key={kind} value={kind} disabled={isSaved}>
                      {`${label}: ${behaviour}${isSaved ? " (saved)" : ""}`}
                    </option>
                  );
                })}
              </Select>
            </Field>
          </div>
          <Button type="submit" variant="secondary" disabled={!canEdit || pending}>
            {pending ? "Adding…" : "Add test card"}
          </Button>
        </fieldset>
      )}
    </form>
  );
}
