import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import type { PaymentMethod } from "@/lib/points/cards/payment-methods";
import { testCardBehaviour } from "@/lib/points/cards/test-cards";

/** The usable saved cards (the same list the API offers), the default first and preselected. */
export function BuyMethodPicker({
  methods,
  selected,
  disabled,
}: {
  methods: PaymentMethod[];
  selected?: string;
  disabled: boolean;
}) {
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-900">Pay with</legend>
      <div className="mt-2 grid gap-2 sm:grid-cols-2">
        {methods.map((method) => {
          const id = `method-${method.id}`;
          const behaviour = testCardBehaviour(method.kind);
          return (
            <label
              key={method.id}
              htmlFor={id}
              data-testid="method-option"
              className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm hover:border-indigo-300 has-[:checked]:border-indigo-600 has-[:checked]:ring-1 has-[:checked]:ring-indigo-600 has-[:disabled]:cursor-not-allowed has-[:disabled]:bg-slate-50"
            >
              <input
                id={id}
                type="radio"
                name="method"
                value={method.id}
                defaultChecked={selected === method.id}
                disabled={disabled}
                required
                className="h-4 w-4 border-slate-300 text-indigo-600 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
              />
              <span className="min-w-0 flex-1">
                <span className="block text-sm font-medium text-slate-900">
                  {method.label}
                  {behaviour && <span className="font-normal text-slate-600"> — test card: {behaviour}</span>}
                </span>
                <span className="block text-xs text-slate-500">
                  Expires {String(method.expMonth).padStart(2, "0")}/{method.expYear}
                </span>
              </span>
              {method.isDefault && <Badge tone="indigo">Default</Badge>}
            </label>
          );
        })}
      </div>
      <p className="mt-2 text-xs text-slate-500">
        Cards are managed in{" "}
        <Link
          href="/dashboard/payment-details"
          className="font-medium text-indigo-700 underline-offset-2 hover:underline"
        >
          Payment details
        </Link>
        .
      </p>
    </fieldset>
  );
}
