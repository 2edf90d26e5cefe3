"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import type { ActionState } from "./action-state";
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
        <div className="rounded-lg border border-emerald-200 bg-emerald-50 p-4" role="status" data-testid="new-api-key">
          <p className="text-sm font-semibold text-emerald-900">Your new API key</p>
          <p className="mt-1 text-sm text-emerald-900">
            Copy it now and keep it somewhere safe: <strong>it will not be shown again</strong>. We store only a hash.
          </p>
          <div className="mt-3 flex items-center gap-2">
            <code
              className="min-w-0 flex-1 select-all break-all rounded-md bg-white px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-inset ring-emerald-200"
              data-testid="new-api-key-value"
            >
              {state.apiKey}
            </code>
            <CopyButton value={state.apiKey} label="Copy key" />
          </div>
        </div>
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
