import type { Metadata } from "next";
import Link from "next/link";
import { BalanceSettingsSection } from "@/components/dashboard/account/balance-settings-section";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { SettingsForm } from "@/components/dashboard/account/settings-form";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { getSettings } from "@/lib/points/cards/settings";
import { loadBalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";
import { saveBalanceSettingsAction, saveSettingsAction } from "./actions";

export const metadata: Metadata = { title: "Settings · Points" };

const currencyNames: Record<string, string> = { USD: "US dollar", GBP: "Pound sterling", EUR: "Euro" };

export default async function SettingsPage() {
  const { user, runtime, organization } = await dashboardContext();
  const [settings, balanceAlerts] = await Promise.all([
    getSettings(runtime, user.organizationId),
    loadBalanceAlerts(runtime.db, organization, runtime.clock.now()),
  ]);
  const defaultMethod = settings.paymentMethods?.find((method) => method.id === settings.defaultPaymentMethodId);
  const canEdit = user.role === "admin";

  return (
    <>
      <PageHeader
        title="Settings"
        description="How your organisation buys Points through the REST API. The API follows what is saved here, nothing else."
      />
      <div className="space-y-6">
        <BillingProblemNotice code={settings.billingProblem} provider={runtime.provider} />
        {!canEdit && <ReadOnlyNotice what="these settings" />}

        <Card title="In effect now" description="The saved settings the REST API is following at this moment.">
          <dl className="grid gap-4 sm:grid-cols-3" data-testid="settings-status">
            <div>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">API Point purchases</dt>
              <dd className="mt-1.5 flex items-center gap-2">
                {settings.apiPurchasesEnabled ? (
                  <Badge tone="green">Enabled</Badge>
                ) : (
                  <Badge tone="slate">Disabled</Badge>
                )}
                <span className="text-sm text-slate-700">
                  {settings.apiPurchasesEnabled ? "API keys can buy Points" : "The API refuses purchases"}
                </span>
              </dd>
            </div>
            <div>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Default currency</dt>
              <dd className="mt-1.5 text-sm text-slate-900">
                {settings.currency ? (
                  <>
                    <span className="font-semibold">{settings.currency}</span> · {currencyNames[settings.currency]}
                  </>
                ) : (
                  <span className="text-slate-600">None: requests must name a currency</span>
                )}
              </dd>
            </div>
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

        {!settings.apiAvailable && (
          <Alert tone="warning" title="API top-ups are not available for this organisation">
            Our team has not made API purchases available to your organisation yet, so the API answers{" "}
            <code className="font-mono text-xs">404 not_available</code> whatever is saved here. Contact support to have
            them made available.
          </Alert>
        )}

        <Card title="Change settings">
          <SettingsForm
            saved={{
              apiPurchasesEnabled: settings.apiPurchasesEnabled,
              currency: settings.currency ?? "",
              defaultPaymentMethodId: settings.defaultPaymentMethodId ?? "",
            }}
            methods={settings.paymentMethods?.map(({ id, label }) => ({ id, label })) ?? null}
            canEdit={canEdit}
            action={saveSettingsAction}
          />
        </Card>

        <BalanceSettingsSection alerts={balanceAlerts} canEdit={canEdit} action={saveBalanceSettingsAction} />
      </div>
    </>
  );
}
