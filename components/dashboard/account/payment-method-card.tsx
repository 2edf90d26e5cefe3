import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";

export interface PaymentMethodCardProps {
  id: string;
  label: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
  expiresSoon: boolean;
  /** The ready-to-paste purchase; absent when IDs may not be shown (API purchases disabled). */
  curl?: string;
  showId: boolean;
  /** What a simulated test card does when charged; absent for a real card. */
  behaviour?: string;
  /** A form that removes this card (a simulated test card, for an admin); absent otherwise. */
  remove?: ReactNode;
}

const brandNames: Record<string, string> = { visa: "Visa", mastercard: "Mastercard", amex: "American Express" };

/** One saved payment method: what it is and, once API purchases are enabled, how to charge it from the API. */
export function PaymentMethodCard(props: PaymentMethodCardProps) {
  const headingId = `pm-${props.id}`;
  const expiry = `${String(props.expMonth).padStart(2, "0")}/${props.expYear}`;
  return (
    <section
      aria-labelledby={headingId}
      className="rounded-xl border border-slate-200 bg-white shadow-sm"
      data-testid="payment-method"
    >
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-slate-100 px-5 py-4">
        <CardGlyph brand={props.brand} />
        <h2 id={headingId} className="text-base font-semibold text-slate-900">
          {props.label}
          {props.behaviour && (
            <span className="font-normal text-slate-600" data-testid="card-behaviour">
              {" "}
              — test card: {props.behaviour}
            </span>
          )}
        </h2>
        {props.isDefault && <Badge tone="indigo">Default</Badge>}
        {props.expiresSoon && <Badge tone="amber">Expires soon</Badge>}
        {props.remove && <div className="ml-auto">{props.remove}</div>}
      </header>
      <div className="space-y-4 px-5 py-4">
        <dl className="grid grid-cols-3 gap-4 text-sm">
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Brand</dt>
            <dd className="mt-1 text-slate-900">{brandNames[props.brand] ?? props.brand}</dd>
          </div>
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Last four</dt>
            <dd className="mt-1 font-mono text-slate-900">{props.last4}</dd>
          </div>
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Expires</dt>
            <dd className={`mt-1 ${props.expiresSoon ? "font-semibold text-amber-800" : "text-slate-900"}`}>
              {expiry}
              {props.expiresSoon && <span className="sr-only"> (expires within two months)</span>}
            </dd>
          </div>
        </dl>

        {props.showId && (
          <div>
            <p id={`${headingId}-id-label`} className="text-xs font-medium uppercase tracking-wide text-slate-500">
              Payment method ID <span className="normal-case tracking-normal">(payment_source_id)</span>
            </p>
            <div className="mt-1.5 flex items-center gap-2">
              <code
                data-testid="payment-method-id"
                className="min-w-0 flex-1 select-all break-all rounded-md bg-slate-50 px-2.5 py-2 font-mono text-xs text-slate-900 sm:px-3 sm:text-sm ring-1 ring-inset ring-slate-200"
              >
                {props.id}
              </code>
              <CopyButton value={props.id} label="Copy ID" of={`of ${props.label}`} />
            </div>
          </div>
        )}

        {props.curl && (
          <details className="group rounded-lg border border-slate-200" open={props.isDefault}>
            <summary className="cursor-pointer list-none rounded-lg px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
              <span className="inline-block transition-transform group-open:rotate-90" aria-hidden="true">
                ›
              </span>{" "}
              Example purchase with this card
            </summary>
            <div className="border-t border-slate-200 p-3">
              <div className="overflow-hidden rounded-md bg-slate-900">
                <div className="flex items-center justify-between gap-2 border-b border-slate-700 px-3 py-1.5">
                  <span className="text-xs font-medium text-slate-300">curl</span>
                  <CopyButton value={props.curl} label="Copy command" of={`for ${props.label}`} />
                </div>
                <pre
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways; a keyboard must reach it to scroll it.
                  tabIndex={0}
                  className="overflow-x-auto p-3 text-xs leading-relaxed text-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-400"
                  data-testid="curl-example"
                >
                  <code>{props.curl}</code>
                </pre>
              </div>
              <p className="mt-2 text-xs text-slate-500">
                Replace <code className="font-mono">&lt;YOUR_API_KEY&gt;</code> with a key from API keys, and use a new{" "}
                <code className="font-mono">reference</code> for every purchase: repeating one returns the first
                purchase instead of buying again.
              </p>
            </div>
          </details>
        )}
      </div>
    </section>
  );
}

function CardGlyph({ brand }: { brand: string }) {
  const colours = brand === "mastercard" ? "bg-orange-100 text-orange-800" : "bg-sky-100 text-sky-800";
  return (
    <span
      aria-hidden="true"
      className={`inline-flex h-7 w-10 items-center justify-center rounded-md text-[10px] font-bold uppercase tracking-wide ${colours}`}
    >
      {brand === "mastercard" ? "MC" : brand.slice(0, 4)}
    </span>
  );
}
