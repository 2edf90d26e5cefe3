import type { Metadata } from "next";
import { BalanceSettingsSection } from "@/components/dashboard/account/balance-settings-section";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { ApiNotAvailableNotice } from "@/components/dashboard/settings/api-not-available-notice";
import { ChangeSettingsCard } from "@/components/dashboard/settings/change-settings-card";
import { SettingsInEffect } from "@/components/dashboard/settings/settings-in-effect";
import { PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { saveBalanceSettingsAction, saveSettingsAction } from "./actions";
import { loadSettingsPage } from "./load";

export const metadata: Metadata = { title: "Settings · Points" };

export default async function SettingsPage() {
  const context = await dashboardContext();
  const { settings, balanceAlerts, canEdit } = await loadSettingsPage(context);

  return (
    <>
      <PageHeader
        title="Settings"
        description="How your organisation buys Points through the REST API. The API follows what is saved here, nothing else."
      />
      <div className="space-y-6">
        <BillingProblemNotice code={settings.billingProblem} provider={context.runtime.provider} />
        {!canEdit && <ReadOnlyNotice what="these settings" />}
        <SettingsInEffect settings={settings} />
        {!settings.apiAvailable && <ApiNotAvailableNotice />}
        <ChangeSettingsCard settings={settings} canEdit={canEdit} action={saveSettingsAction} />
        <BalanceSettingsSection alerts={balanceAlerts} canEdit={canEdit} action={saveBalanceSettingsAction} />
      </div>
    </>
  );
}
