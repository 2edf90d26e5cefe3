import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";

/** A missing page, or another organisation's purchase, inside the dashboard, with ways back. */
export default function DashboardNotFound() {
  return (
    <>
      <PageHeader title="Not found" description="There is nothing here for your organisation." />
      <Card>
        <p className="text-sm text-slate-700">
          The page or purchase you asked for does not exist, or belongs to another organisation.
        </p>
        <div className="mt-4 flex flex-wrap gap-3">
          <Link href="/dashboard/history" className={buttonClasses("primary")}>
            View history
          </Link>
          <Link href="/dashboard" className={buttonClasses("secondary")}>
            Back to the overview
          </Link>
        </div>
      </Card>
    </>
  );
}
