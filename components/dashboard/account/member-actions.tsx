"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { ShownOnce } from "./shown-once";
import { useFormAction } from "./use-form-action";

/** What Change role / Reset password / Remove answered; a reset carries the new password, shown once. */
export type ManageMemberState = ActionState<{ done: "role" | "removed" | "reset"; email?: string; password?: string }>;

/**
 * An admin's controls for one person: change the role, reset the password (shown here once) and
 * remove, which asks to confirm first because the person loses access at once.
 */
export function MemberActions({
  userId,
  email,
  role,
  isSelf,
  action,
}: {
  userId: string;
  email: string;
  role: "admin" | "member";
  isSelf: boolean;
  action: (state: ManageMemberState, data: FormData) => Promise<ManageMemberState>;
}) {
  // useFormAction sends the initial state, never the previous answer (a password shown once).
  const { state, pending, onSubmit } = useFormAction(action, null);
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="flex w-full flex-col gap-2">
      <form onSubmit={onSubmit} className="flex flex-wrap items-center gap-2" aria-label={`Manage ${email}`}>
        <input type="hidden" name="userId" value={userId} />
        <label htmlFor={`role-${userId}`} className="sr-only">
          Access level of {email}
        </label>
        <div className="w-full sm:w-32">
          <Select id={`role-${userId}`} name="role" defaultValue={role} disabled={pending}>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </Select>
        </div>
        <Button type="submit" name="intent" value="role" variant="secondary" disabled={pending}>
          Change role
        </Button>
        <Button type="submit" name="intent" value="reset" variant="secondary" disabled={pending}>
          Reset password
        </Button>
        {!isSelf && !confirming && (
          <Button variant="ghost" onClick={() => setConfirming(true)} disabled={pending}>
            Remove
          </Button>
        )}
        {confirming && (
          <span className="flex flex-wrap items-center gap-2 rounded-md bg-rose-50 px-2 py-1 text-sm text-rose-900">
            Remove {email}? They can no longer sign in.
            <Button type="submit" name="intent" value="remove" variant="danger" disabled={pending} autoFocus>
              Yes, remove
            </Button>
            <Button variant="ghost" onClick={() => setConfirming(false)} disabled={pending}>
              Cancel
            </Button>
          </span>
        )}
      </form>
      {state && !state.ok && (
        <p role="alert" className="text-sm font-medium text-rose-700">
          {state.error}
        </p>
      )}
      {state?.ok && state.done === "role" && (
        <p role="status" className="text-sm text-emerald-800">
          Role saved.
        </p>
      )}
      {state?.ok && state.done === "reset" && state.password && (
        <ShownOnce
          value={state.password}
          copyLabel="Copy password"
          testId={{ box: "reset-password", value: "reset-password-value" }}
        >
          New password for {state.email}. Pass it on securely: <strong>it will not be shown again</strong>.
        </ShownOnce>
      )}
    </div>
  );
}
