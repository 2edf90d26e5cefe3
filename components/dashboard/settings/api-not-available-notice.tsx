import { Alert } from "@/components/ui/alert";

/** Settings' word that the operator has not made API purchases available, so the API refuses whatever is saved. */
export function ApiNotAvailableNotice() {
  return (
    <Alert tone="warning" title="API top-ups are not available for this organisation">
      Our team has not made API purchases available to your organisation yet, so the API answers{" "}
      <code className="font-mono text-xs">404 not_available</code> whatever is saved here. Contact support to have them
      made available.
    </Alert>
  );
}
