import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import type { SettingsView } from "@/lib/points/cards/settings";

const currencyNames: Record<string, string> = { USD: "US dollar", GBP: "Pound sterling", EUR: "Euro" };

/** Settings' "In effect now": the saved settings the REST API follows at this moment. */
export function SettingsInEffect({ settings }: { settings: SettingsView }) {
  return (
    <Card title="In effect now" description="The saved settings the REST API is following at this moment.">
      <dl className="grid gap-4 sm:grid-cols-3" data-testid="settings-status">
        <ApiPurchasesStatus enabled={settings.apiPurchasesEnabled} />
        <DefaultCurrencyStatus currency={settings.currency} />
        <DefaultMethodStatus settings={settings} />
      </dl>
      {settings.apiPurchasesEnabled && settings.apiAvailable && (
        <p className="mt-4 text-sm text-slate-600">
          Payment method IDs for <code className="font-mono text-xs">payment_source_id</code> are on{" "}
          <Link
            href="/dashboard/payment-details"
            className="font-medium text-indigo-700 underline-offset-2 hover:underline"
          >
            Payment details
          </Link>
          .
        </p>
      )}
    </Card>
  );
}

function ApiPurchasesStatus({ enabled }: { enabled: boolean }) {
  return (
    <div>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">API Point purchases</dt>
      <dd className="mt-1.5 flex items-center gap-2">
        {enabled ? <Badge tone="green">Enabled</Badge> : <Badge tone="slate">Disabled</Badge>}
        <span className="text-sm text-slate-700">
          {enabled ? "API keys can use the API" : "The API refuses every request with your keys"}
        </span>
      </dd>
    </div>
  );
}

function DefaultCurrencyStatus({ currency }: { currency: SettingsView["currency"] }) {
  return (
    <div>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Default currency</dt>
      <dd className="mt-1.5 text-sm text-slate-900">
        {currency ? (
          <>
            <span className="font-semibold">{currency}</span> · {currencyNames[currency]}
          </>
        ) : (
          <span className="text-slate-600">None: requests must name a currency</span>
        )}
      </dd>
    </div>
  );
}

function DefaultMethodStatus({ settings }: { settings: SettingsView }) {
  const defaultMethod = settings.paymentMethods?.find((method) => method.id === settings.defaultPaymentMethodId);
  return (
    <div>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Default payment method</dt>
      <dd className="mt-1.5 text-sm text-slate-900">
        {settings.paymentMethods === null ? (
          <span className="text-amber-800">Unavailable right now</span>
        ) : defaultMethod ? (
          <span className="font-semibold">{defaultMethod.label}</span>
        ) : (
          <span className="text-slate-600">None</span>
        )}
      </dd>
    </div>
  );
}
