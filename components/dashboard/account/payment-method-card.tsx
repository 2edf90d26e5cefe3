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

/**
 * One saved payment method as a row: what it is, its expiry and, once API purchases are enabled,
 * its ID with Copy; a ready-to-paste purchase with it opens on demand.
 */
export function PaymentMethodCard(props: PaymentMethodCardProps) {
  const headingId = `pm-${props.id}`;
  const expiry = `${String(props.expMonth).padStart(2, "0")}/${props.expYear}`;
  return (
    <section
      aria-labelledby={headingId}
      className="min-w-0 rounded-xl border border-slate-200 bg-white px-4 py-3 shadow-sm sm:px-5"
      data-testid="payment-method"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <CardGlyph brand={props.brand} />
        <div className="min-w-0">
          <h2 id={headingId} className="text-sm font-semibold text-slate-900 sm:text-base">
            {props.label}
            {props.behaviour && (
              <span className="font-normal text-slate-600" data-testid="card-behaviour">
                {" "}
                — test card: {props.behaviour}
              </span>
            )}
          </h2>
          <p className={`text-xs ${props.expiresSoon ? "font-semibold text-amber-800" : "text-slate-500"}`}>
            Expires {expiry}
            {props.expiresSoon && <span className="sr-only"> (within two months)</span>}
          </p>
        </div>
        {props.isDefault && <Badge tone="indigo">Default</Badge>}
        {props.expiresSoon && <Badge tone="amber">Expires soon</Badge>}
        {props.remove && <div className="ml-auto">{props.remove}</div>}
      </div>

      {props.showId && (
        <div className="mt-3 flex items-center gap-2">
          <span className="sr-only">Payment method ID (payment_source_id):</span>
          <code
            data-testid="payment-method-id"
            title="Payment method ID, payment_source_id in the API"
            className="min-w-0 flex-1 select-all break-all rounded-md bg-slate-50 px-2.5 py-1.5 font-mono text-xs text-slate-900 ring-1 ring-inset ring-slate-200 sm:text-sm"
          >
            {props.id}
          </code>
          <CopyButton value={props.id} label="Copy ID" of={`of ${props.label}`} />
        </div>
      )}

      {props.curl && (
        <details className="group mt-2">
          <summary className="inline-flex cursor-pointer list-none items-center gap-1 rounded-md px-1 py-1 text-sm font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
            <span className="inline-block transition-transform group-open:rotate-90" aria-hidden="true">
              ›
            </span>
            Example purchase with this card
          </summary>
          <div className="mt-2 min-w-0 overflow-hidden rounded-md bg-slate-900">
            <div className="flex items-center justify-between gap-2 border-b border-slate-700 px-3 py-1.5">
              <span className="text-xs font-medium text-slate-300">curl</span>
              <CopyButton value={props.curl} label="Copy command" of={`for ${props.label}`} />
            </div>
            {/* Wrapped, not scrolled: the whole command is readable in the box at any width; Copy takes it as written. */}
            <pre
              className="whitespace-pre-wrap break-all p-3 text-xs leading-relaxed text-slate-100"
              data-testid="curl-example"
            >
              <code>{props.curl}</code>
            </pre>
          </div>
          <p className="mt-2 text-xs text-slate-500">
            Replace <code className="font-mono">&lt;YOUR_API_KEY&gt;</code> with a key from API keys, and use a new{" "}
            <code className="font-mono">reference</code> for every purchase: repeating one returns the first purchase
            instead of buying again.
          </p>
        </details>
      )}
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
