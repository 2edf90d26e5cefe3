"use client";

import { useEffect, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, Input, Select } from "@/components/ui/field";
import type { ActionState } from "./action-state";
import { useFormAction } from "./use-form-action";

type AddState = ActionState<{ email: string; role: string; password: string }>;

/** Adds a person; their generated password is shown here once for the admin to pass on. */
export function AddMemberForm({ canEdit, action }: {
  canEdit: boolean;
  action: (state: AddState, data: FormData) => Promise<AddState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  const form = useRef<HTMLFormElement>(null);
  // Cleared once the person is added (ready for the next); kept when refused, so it can be corrected.
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  return (
    <div className="space-y-4">
      {state?.ok && (
        <div className="rounded-lg border border-emerald-200 bg-emerald-50 p-4" role="status" data-testid="new-member">
          <p className="text-sm font-semibold text-emerald-900">
            {state.email} was added as {state.role === "admin" ? "an admin" : "a member"}
          </p>
          <p className="mt-1 text-sm text-emerald-900">
            Pass this password on securely: <strong>it will not be shown again</strong>.
          </p>
          <div className="mt-3 flex items-center gap-2">
            <code
              className="min-w-0 flex-1 select-all break-all rounded-md bg-white px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-inset ring-emerald-200"
              data-testid="new-member-password"
            >
              {state.password}
            </code>
            <CopyButton value={state.password} label="Copy password" />
          </div>
        </div>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <form ref={form} onSubmit={onSubmit} noValidate>
        <fieldset disabled={!canEdit || pending} className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_12rem_auto] sm:items-start">
          <legend className="sr-only">Add a member</legend>
          <Field id="member-email" label="Email" error={fields.email}>
            <Input
              id="member-email"
              name="email"
              type="email"
              autoComplete="off"
              required
              placeholder="colleague@example.com"
              aria-invalid={fields.email ? true : undefined}
              aria-describedby={fields.email ? "member-email-error" : undefined}
            />
          </Field>
          <Field id="member-role" label="Role" error={fields.role}>
            <Select id="member-role" name="role" defaultValue="member">
              <option value="member">Member: can look</option>
              <option value="admin">Admin: can change</option>
            </Select>
          </Field>
          <div className="sm:pt-[26px]">
            <Button type="submit" disabled={!canEdit || pending} className="w-full sm:w-auto">
              {pending ? "Adding…" : "Add person"}
            </Button>
          </div>
        </fieldset>
      </form>
    </div>
  );
}
