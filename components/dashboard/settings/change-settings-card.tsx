import type { ComponentProps } from "react";
import { SettingsForm } from "@/components/dashboard/account/settings-form";
import { Card } from "@/components/ui/card";
import type { SettingsView } from "@/lib/points/cards/settings";
import { testCardBehaviour } from "@/lib/points/cards/test-cards";

/** Settings' form, filled with what is saved; `action` saves it. */
export function ChangeSettingsCard({
  settings,
  canEdit,
  action,
}: {
  settings: SettingsView;
  canEdit: boolean;
  action: ComponentProps<typeof SettingsForm>["action"];
}) {
  return (
    <Card title="Change settings">
      <SettingsForm
        saved={{
          apiPurchasesEnabled: settings.apiPurchasesEnabled,
          currency: settings.currency ?? "",
          defaultPaymentMethodId: settings.defaultPaymentMethodId ?? "",
        }}
        methods={
          settings.paymentMethods?.map(({ id, label, kind }) => {
            const behaviour = testCardBehaviour(kind);
            return { id, label: behaviour ? `${label} (test card: ${behaviour})` : label };
          }) ?? null
        }
        canEdit={canEdit}
        action={action}
      />
    </Card>
  );
}
