"use client";

import type { ReactNode } from "react";
import { useFormStatus } from "react-dom";
import { type ButtonVariant, buttonClasses } from "./button";

/** A form's submit button that disables itself while the form is being sent (no double submits). */
export function SubmitButton({ children, pendingLabel, variant = "primary", name, value }: {
  children: ReactNode;
  pendingLabel?: ReactNode;
  variant?: ButtonVariant;
  name?: string;
  value?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" name={name} value={value} disabled={pending} aria-disabled={pending} className={buttonClasses(variant)}>
      {pending ? (pendingLabel ?? "Working…") : children}
    </button>
  );
}
