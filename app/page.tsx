import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";

/** What the product is, where to sign in, and where the API is described. */
export default function Home() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <div className="flex items-center gap-3">
        <span className="inline-flex h-10 w-10 items-center justify-center rounded-xl bg-indigo-600 text-lg font-bold text-white">
          P
        </span>
        <h1 className="text-2xl font-semibold tracking-tight">Points</h1>
      </div>
      <p className="mt-6 text-lg text-slate-700">
        Prepaid Points for your organisation, in fixed bundles from 100 to 7,500, charged to a saved card at the prices
        your billing provider sets.
      </p>
      <ul className="mt-6 space-y-2 text-slate-700">
        <li>
          <strong className="font-semibold text-slate-900">Admins</strong> sign in to enable API purchases, manage cards
          and API keys, buy bundles, and see the balance and every purchase.
        </li>
        <li>
          <strong className="font-semibold text-slate-900">Your systems</strong> use the API with organisation keys,
          each scoped to buy, spend or only read: buy with{" "}
          <code className="font-mono text-sm">POST /v3/points/top-ups</code>, spend with{" "}
          <code className="font-mono text-sm">POST /v3/points/spends</code>, and read the balance, payment methods and
          events. A retry with the same <code className="font-mono text-sm">reference</code> never charges or spends
          twice.
        </li>
      </ul>
      <div className="mt-8 flex flex-wrap gap-3">
        <Link href="/signin" className={buttonClasses("primary")}>
          Sign in
        </Link>
        <Link href="/docs" className={buttonClasses("secondary")}>
          API reference
        </Link>
        <Link href="/docs/guide" className={buttonClasses("secondary")}>
          API guide
        </Link>
      </div>
    </main>
  );
}
