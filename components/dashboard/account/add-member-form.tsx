"use client";

import { useEffect, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { ShownOnce } from "./shown-once";
import { useFormAction } from "./use-form-action";

type AddState = ActionState<{ email: string; role: string; password: string }>;

/** Adds a person; their generated password is shown here once for the admin to pass on. */
export function AddMemberForm({
  canEdit,
  action,
}: {
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
        <ShownOnce
          title={`${state.email} was added as ${state.role === "admin" ? "an admin" : "a member"}`}
          value={state.password}
          copyLabel="Copy password"
          testId={{ box: "new-member", value: "new-member-password" }}
        >
          Pass this password on securely: <strong>it will not be shown again</strong>.
        </ShownOnce>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <form ref={form} onSubmit={onSubmit} noValidate>
        <fieldset
          disabled={!canEdit || pending}
          className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_12rem_auto] sm:items-start"
        >
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
