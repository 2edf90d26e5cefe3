"use client";

import { useEffect, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import { useFormAction } from "./use-form-action";

type ChangeState = ActionState<{ otherSessionsEnded: true }>;

const FIELDS = [
  { name: "currentPassword", id: "current-password", label: "Current password", autoComplete: "current-password" },
  {
    name: "newPassword",
    id: "new-password",
    label: "New password",
    autoComplete: "new-password",
    hint: "At least 12 characters; a few unrelated words make a good one.",
  },
  { name: "confirmPassword", id: "confirm-password", label: "New password again", autoComplete: "new-password" },
] as const;

/**
 * The signed-in person's own password: the current one, then the new one twice. Cleared once it
 * is changed; kept when refused, so it can be corrected. The email travels in a hidden field only
 * for password managers, which file the new password under it.
 */
export function ChangePasswordForm({
  email,
  action,
}: {
  email: string;
  action: (state: ChangeState, data: FormData) => Promise<ChangeState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const fields: Record<string, string> = state && !state.ok ? (state.fields ?? {}) : {};
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  return (
    <div className="space-y-4">
      {state?.ok && (
        <Alert tone="success" title="Your password was changed">
          You are still signed in here. Every other browser or device signed in as you has been signed out and needs the
          new password.
        </Alert>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <form ref={form} onSubmit={onSubmit} noValidate className="max-w-md space-y-4">
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        {FIELDS.map((field) => (
          <Field
            key={field.name}
            id={field.id}
            label={field.label}
            error={fields[field.name]}
            hint={"hint" in field ? field.hint : undefined}
          >
            <Input
              id={field.id}
              name={field.name}
              type="password"
              autoComplete={field.autoComplete}
              required
              disabled={pending}
              aria-invalid={fields[field.name] ? true : undefined}
              aria-describedby={
                fields[field.name] ? `${field.id}-error` : "hint" in field ? `${field.id}-hint` : undefined
              }
            />
          </Field>
        ))}
        <Button type="submit" disabled={pending}>
          {pending ? "Changing…" : "Change password"}
        </Button>
      </form>
    </div>
  );
}
