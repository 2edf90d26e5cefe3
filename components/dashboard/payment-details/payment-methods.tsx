import Link from "next/link";
import type { ComponentProps } from "react";
import { PaymentMethodCard, type PaymentMethodCardProps } from "@/components/dashboard/account/payment-method-card";
import { RemoveCardForm } from "@/components/dashboard/account/remove-card-form";
import { Card } from "@/components/ui/card";

export type RemoveCardAction = ComponentProps<typeof RemoveCardForm>["action"];

/** One usable payment method as its card shows it; the remove form is the page's to add. */
export type PaymentMethodRow = Omit<PaymentMethodCardProps, "remove">;

/** A saved payment method the API will not accept (expired). */
export interface UnusablePaymentMethod {
  id: string;
  label: string;
}

/** The usable payment methods, the default first; or, when there are none, who can add one. */
export function PaymentMethodList({
  methods,
  showIds,
  canEdit,
  remove,
}: {
  methods: PaymentMethodRow[];
  showIds: boolean;
  canEdit: boolean;
  remove: RemoveCardAction;
}) {
  if (methods.length === 0)
    return (
      <Card>
        <p className="text-sm text-slate-700">
          No usable payment method is saved yet. {canEdit ? "Add one below." : "An admin can add one."}
        </p>
      </Card>
    );
  return (
    <div className="space-y-4">
      {showIds && (
        // biome-ignore format: "names no " stays one text node before <code>, as the page has always rendered it.
        <p className="text-sm text-slate-600">
          The API charges the <strong className="font-semibold text-slate-900">default</strong> when a request
          names no <code className="font-mono text-xs">payment_source_id</code>. Change it in{" "}
          <Link href="/dashboard/settings" className="font-medium text-indigo-700 underline-offset-2 hover:underline">
            Settings
          </Link>
          .
        </p>
      )}
      {methods.map((method) => (
        <PaymentMethodCard
          key={method.id}
          {...method}
          remove={
            canEdit ? <RemoveCardForm paymentMethodId={method.id} label={method.label} action={remove} /> : undefined
          }
        />
      ))}
    </div>
  );
}

/** The saved methods that are not usable for purchases, named so the admin knows why the API leaves them out. */
export function UnusablePaymentMethods({
  methods,
  canEdit,
  remove,
}: {
  methods: UnusablePaymentMethod[];
  canEdit: boolean;
  remove: RemoveCardAction;
}) {
  return (
    <Card
      title="Not usable for purchases"
      description="Expired cards stay saved until removed, but are never listed by the API or charged."
    >
      <ul className="divide-y divide-slate-100 text-sm">
        {methods.map((method) => (
          <li key={method.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
            <span className="text-slate-700">
              {method.label} <span className="text-xs font-medium text-rose-700">Expired</span>
            </span>
            {canEdit && <RemoveCardForm paymentMethodId={method.id} label={method.label} action={remove} />}
          </li>
        ))}
      </ul>
    </Card>
  );
}
