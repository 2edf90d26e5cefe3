"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { ActionState } from "@/lib/dashboard/action-state";
import { useFormAction } from "./use-form-action";

type RevokeState = ActionState<{ revoked: boolean }>;

/**
 * Revoke, then "Yes, revoke": a revoked key is refused by the API at once and cannot be
 * restored, so one click must not be enough.
 */
export function RevokeKeyForm({
  keyId,
  name,
  prefix,
  canEdit,
  action,
}: {
  keyId: string;
  name: string;
  prefix: string;
  canEdit: boolean;
  action: (state: RevokeState, data: FormData) => Promise<RevokeState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const [confirming, setConfirming] = useState(false);

  const error = state && !state.ok && (
    <p role="alert" className="text-xs font-medium text-rose-700">
      {state.error}
    </p>
  );

  if (!confirming) {
    return (
      <div className="flex flex-col items-start gap-1 sm:items-end">
        <Button
          variant="secondary"
          disabled={!canEdit}
          onClick={() => setConfirming(true)}
          aria-label={`Revoke key ${name} (${prefix}…)`}
          title={canEdit ? undefined : "Only an admin can revoke keys"}
        >
          Revoke
        </Button>
        {error}
      </div>
    );
  }
  return (
    <form
      onSubmit={onSubmit}
      className="flex w-full flex-col gap-2 rounded-lg border border-rose-200 bg-rose-50 p-3 sm:w-auto"
      aria-label={`Confirm revoking ${name} (${prefix}…)`}
    >
      <input type="hidden" name="keyId" value={keyId} />
      <p className="text-sm text-rose-900">
        Revoke <span className="break-words font-semibold">{name}</span> (<span className="font-mono">{prefix}…</span>)?
        Requests with it fail at once. This cannot be undone.
      </p>
      <div className="flex gap-2">
        <Button type="submit" variant="danger" disabled={pending} autoFocus>
          {pending ? "Revoking…" : "Yes, revoke"}
        </Button>
        <Button variant="ghost" onClick={() => setConfirming(false)} disabled={pending}>
          Cancel
        </Button>
      </div>
      {error}
    </form>
  );
}
