"use client";

import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";

/**
 * Shown when a purchase's answer was lost (the connection dropped after Buy) or the page failed to
 * render. The purchase may have been made, so the honest next step is to send the same form again:
 * it carries the same reference, so the service answers with the first purchase instead of charging.
 */
export default function BuyError({
  reset,
  retry,
}: {
  error: Error & { digest?: string };
  reset: () => void;
  retry?: () => void;
}) {
  return (
    <>
      <PageHeader title="Buy Points" />
      <div role="alert" className="rounded-xl border border-amber-200 bg-amber-50 p-5 text-sm text-amber-950 sm:p-6">
        <h2 className="text-lg font-semibold">We could not get an answer from the server</h2>
        <p className="mt-2 max-w-2xl">
          If you pressed Buy, we do not know yet whether the purchase went through. Try again: the page keeps the same
          purchase reference, so pressing Buy again returns that purchase and it will not be charged twice.
        </p>
        <div className="mt-4 flex flex-wrap gap-3">
          <button type="button" onClick={() => (retry ?? reset)()} className={buttonClasses("primary")}>
            Try again
          </button>
          <Link href="/dashboard/history" className={buttonClasses("secondary")}>
            Check History
          </Link>
        </div>
      </div>
    </>
  );
}
