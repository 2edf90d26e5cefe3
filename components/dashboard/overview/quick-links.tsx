import Link from "next/link";

const QUICK_LINKS = [
  ["/dashboard/buy", "Buy Points", "Choose a bundle and pay with a saved card."],
  ["/dashboard/history", "History", "Every top-up, with filters and CSV export."],
  ["/dashboard/payment-details", "Payment details", "Saved cards and their IDs for the API."],
  ["/dashboard/api-keys", "API keys", "Create and revoke keys that buy, spend or only read through the API."],
] as const;

/** The Overview's ways to the pages used most. */
export function QuickLinks() {
  return (
    <nav aria-label="Quick links" className="grid gap-3 sm:grid-cols-2 lg:col-span-2">
      {QUICK_LINKS.map(([href, title, text]) => (
        <Link
          key={href}
          href={href}
          className="group rounded-xl border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          <span className="flex items-center justify-between text-sm font-semibold text-slate-900">
            {title}
            <span aria-hidden="true" className="text-slate-400 group-hover:text-indigo-600">
              →
            </span>
          </span>
          <span className="mt-1 block text-sm text-slate-600">{text}</span>
        </Link>
      ))}
    </nav>
  );
}
