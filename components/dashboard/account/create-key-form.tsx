"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { ActionState } from "@/lib/dashboard/action-state";
import { ShownOnce } from "./shown-once";
import { useFormAction } from "./use-form-action";

type CreateState = ActionState<{ apiKey: string; prefix: string }>;

/** Creates a key and shows it this once, with a copy button; a reload forgets it for good. */
export function CreateKeyForm({ canEdit, action }: {
  canEdit: boolean;
  action: (state: CreateState, data: FormData) => Promise<CreateState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  return (
    <div className="space-y-4">
      {state?.ok && (
        <ShownOnce title="Your new API key" value={state.apiKey} copyLabel="Copy key" testId={{ box: "new-api-key", value: "new-api-key-value" }}>
          Copy it now and keep it somewhere safe: <strong>it will not be shown again</strong>. We store only a hash.
        </ShownOnce>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <form onSubmit={onSubmit} className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={!canEdit || pending}>
          {pending ? "Creating…" : "Create API key"}
        </Button>
        <p className="text-sm text-slate-600">
          {canEdit
            ? "Existing keys keep working; revoke them separately."
            : "Only an admin can create or revoke keys."}
        </p>
      </form>
    </div>
  );
}
