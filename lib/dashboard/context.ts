import { redirect } from "next/navigation";
import type { SessionUser } from "@/lib/auth/users";
import { requireUser } from "@/lib/dashboard/session";
import type { Organization } from "@/lib/db/schema";
import { getOrganization } from "@/lib/points/accounts/organizations";
import { getRuntime, type Runtime } from "@/lib/server/runtime";

/** What every signed-in dashboard page reads with: the signed-in user and the services. */
export interface PageContext {
  user: SessionUser;
  runtime: Runtime;
}

/** The preamble of every signed-in dashboard page: signed out, the answer is to sign in. */
export async function pageContext(): Promise<PageContext> {
  const user = await requireUser();
  return { user, runtime: await getRuntime() };
}

/** What a dashboard page reads with: the signed-in user, the services, and the user's organisation as stored now. */
export interface DashboardContext extends PageContext {
  organization: Organization;
}

/**
 * The preamble of every dashboard page that shows the organisation. Signed out, or signed in to an
 * organisation that no longer exists, the answer is the same: sign in. (The session check already
 * joins the organisation, so the second case is only a removal between the two reads.)
 */
export async function dashboardContext(): Promise<DashboardContext> {
  const { user, runtime } = await pageContext();
  const organization = await getOrganization(runtime.db, user.organizationId);
  if (!organization) redirect("/signin");
  return { user, runtime, organization };
}
