import type { Metadata } from "next";
import { AddMemberForm } from "@/components/dashboard/account/add-member-form";
import { MemberActions } from "@/components/dashboard/account/member-actions";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { Badge } from "@/components/ui/badge";
import { Card, PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { formatDateTime } from "@/lib/format";
import { listMembers } from "@/lib/points/accounts/members";
import { addMemberAction, manageMemberAction } from "./actions";

export const metadata: Metadata = { title: "Members · Points" };

export default async function MembersPage() {
  const { user, runtime } = await pageContext();
  const members = await listMembers(runtime.db, user.organizationId);
  const canEdit = user.role === "admin";

  return (
    <>
      <PageHeader
        title="Members"
        description="People who can sign in to this dashboard. Members can look at everything; admins can also change settings, buy Points and manage keys."
      />
      <div className="space-y-6">
        {!canEdit && <ReadOnlyNotice what="who has access" />}
        <Card title="Add a person" description="They get a generated password, shown once here.">
          <AddMemberForm canEdit={canEdit} action={addMemberAction} />
        </Card>
        <Card
          title={`People (${members.length})`}
          description={
            canEdit
              ? "An organisation always keeps at least one admin. You cannot remove yourself; another admin can."
              : undefined
          }
        >
          <ul className="-my-2 divide-y divide-slate-100" aria-label="People">
            {members.map((member) => (
              // One column for the person, one of fixed width for the role and controls: each row's
              // controls start at the same place, whichever buttons a row has.
              <li
                key={member.id}
                className={`flex flex-col gap-2 py-3 lg:grid lg:items-center lg:gap-4 ${canEdit ? "lg:grid-cols-[minmax(0,1fr)_30rem]" : "lg:grid-cols-[minmax(0,1fr)_6rem]"}`}
                data-testid="member-row"
              >
                <div className="min-w-0">
                  <p className="truncate text-sm font-medium text-slate-900">
                    {member.email}
                    {member.id === user.userId && (
                      <span className="ml-2 text-xs font-normal text-slate-500">(you)</span>
                    )}
                  </p>
                  <p className="text-xs text-slate-500">Added {formatDateTime(member.createdAt)}</p>
                </div>
                {/* An admin sees the role in its select; a badge beside it would say it twice. */}
                {!canEdit && (
                  <span className="w-fit" data-testid="member-role">
                    <Badge tone={member.role === "admin" ? "indigo" : "slate"}>
                      {member.role === "admin" ? "Admin" : "Member"}
                    </Badge>
                  </span>
                )}
                {canEdit && (
                  <MemberActions
                    userId={member.id}
                    email={member.email}
                    role={member.role}
                    isSelf={member.id === user.userId}
                    action={manageMemberAction}
                  />
                )}
              </li>
            ))}
          </ul>
        </Card>
      </div>
    </>
  );
}
