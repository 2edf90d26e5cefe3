import Link from "next/link";
import { CURRENCIES, type Currency } from "@/lib/catalog";

const names: Record<Currency, string> = { USD: "US dollar", GBP: "Pound sterling", EUR: "Euro" };

/** Plain links, so prices in another currency are a server render away and work without JavaScript. */
export function BuyCurrencySwitch({
  current,
  hrefFor,
}: {
  current: Currency;
  hrefFor: (currency: Currency) => string;
}) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      <span id="currency-label" className="text-sm font-medium text-slate-900">
        Currency
      </span>
      <ul
        aria-labelledby="currency-label"
        className="inline-flex rounded-lg bg-slate-100 p-1"
        data-testid="currency-switch"
      >
        {CURRENCIES.map((currency) => (
          <li key={currency}>
            <Link
              href={hrefFor(currency)}
              aria-current={currency === current ? "true" : undefined}
              title={names[currency]}
              scroll={false}
              className={`block rounded-md px-3 py-1.5 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
                currency === current ? "bg-white text-indigo-700 shadow-sm" : "text-slate-600 hover:text-slate-900"
              }`}
            >
              {currency}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
