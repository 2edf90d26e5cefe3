"use client";

import type { ReactNode } from "react";
import { useFormStatus } from "react-dom";
import { type ButtonVariant, buttonClasses } from "./button";

/**
 * A form's submit button that disables itself while the form is being sent (no double submits).
 * `label`: its accessible name when the visible text alone does not say what it acts on; it must
 * begin with that text ("Remove Visa •••• 4242" for "Remove").
 */
export function SubmitButton({
  children,
  pendingLabel,
  variant = "primary",
  name,
  value,
  label,
}: {
  children: ReactNode;
  pendingLabel?: ReactNode;
  variant?: ButtonVariant;
  name?: string;
  value?: string;
  label?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      name={name}
      value={value}
      disabled={pending}
      aria-disabled={pending}
      aria-label={pending ? undefined : label}
      className={buttonClasses(variant)}
    >
      {pending ? (pendingLabel ?? "Working…") : children}
    </button>
  );
}
