import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";

export interface PaymentDetailsNoticesProps {
  /** A card was just saved (the URL says so). */
  added: boolean;
  /** A card was just removed: "default" when it was the default, so the organisation has none now. */
  removed: "card" | "default" | null;
  /** Whether the IDs for API purchases are shown; when not, the page says how to show them. */
  showIds: boolean;
}

/** What the Payment details page says first, whatever the billing provider answered. */
export function PaymentDetailsNotices({ added, removed, showIds }: PaymentDetailsNoticesProps) {
  return (
    <>
      {added && <Alert tone="success">Your card was saved and can be used at once.</Alert>}
      {removed === "card" && (
        <Alert tone="success">The card was removed: it is no longer offered or charged. Past purchases keep it.</Alert>
      )}
      {removed === "default" && (
        <Alert tone="success">
          The card was removed. It was the default, so the organisation has none now: choose a new default in{" "}
          <Link href="/dashboard/settings" className="font-medium underline">
            Settings
          </Link>
          .
        </Alert>
      )}
      {!showIds && (
        <Alert tone="warning" title="API Point purchases are disabled">
          <p>
            Payment method IDs for API purchases are shown here once an admin enables API Point purchases and saves.
          </p>
          <Link href="/dashboard/settings" className={buttonClasses("secondary", "mt-3")}>
            Go to Settings
          </Link>
        </Alert>
      )}
    </>
  );
}
