import type { Metadata } from "next";
import { ChangePasswordForm } from "@/components/dashboard/account/change-password-form";
import { Badge } from "@/components/ui/badge";
import { Card, PageHeader } from "@/components/ui/card";
import { requireUser } from "@/lib/dashboard/session";
import { changePasswordAction } from "./actions";

export const metadata: Metadata = { title: "Your account · Points" };

/** The signed-in person's own account, whatever their role: who they are signed in as, and their password. */
export default async function AccountPage() {
  const user = await requireUser();
  return (
    <>
      <PageHeader
        title="Your account"
        description="Who you are signed in as, and your password. Everyone with access, admin or member, manages their own here."
      />
      <div className="space-y-6">
        <Card title="Signed in as">
          {/* A pair per row beside each other from sm up; on a phone each pair stacks, the pairs spaced apart. */}
          <dl className="grid gap-3 text-sm sm:grid-cols-[auto_minmax(0,1fr)] sm:gap-x-8">
            <div className="sm:contents">
              <dt className="text-slate-600">Email</dt>
              <dd className="break-words font-medium text-slate-900" data-testid="account-email">
                {user.email}
              </dd>
            </div>
            <div className="sm:contents">
              <dt className="text-slate-600">Organisation</dt>
              <dd className="break-words font-medium text-slate-900">{user.organizationName}</dd>
            </div>
            <div className="sm:contents">
              <dt className="text-slate-600">Role</dt>
              <dd className="mt-0.5 sm:mt-0">
                <Badge tone={user.role === "admin" ? "indigo" : "slate"}>{user.role}</Badge>
                <span className="ml-2 text-slate-600">
                  {user.role === "admin" ? "can change everything" : "can look; an admin makes changes"}
                </span>
              </dd>
            </div>
          </dl>
        </Card>
        <Card
          title="Change password"
          description="Changing it signs you out everywhere else: other browsers and devices need the new password. This one stays signed in."
        >
          <ChangePasswordForm email={user.email} action={changePasswordAction} />
        </Card>
      </div>
    </>
  );
}
