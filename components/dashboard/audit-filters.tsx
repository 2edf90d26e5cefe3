"use client";

import Form from "next/form";
import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";

/** The Audit page's filters, in its URL like History's: a change applies at once. */
export function AuditFilters({
  actions,
  filters,
}: {
  actions: readonly string[];
  filters: { action?: string; actorType?: string };
}) {
  const active = Boolean(filters.action || filters.actorType);
  return (
    <Form
      key={`${filters.action ?? ""}:${filters.actorType ?? ""}`}
      action="/dashboard/audit"
      className="flex flex-wrap items-end gap-3"
      aria-label="Filter the audit log"
      onChange={(event) => event.currentTarget.requestSubmit()}
    >
      <div className="w-full sm:w-64">
        <Field id="filter-action" label="Action">
          <Select id="filter-action" name="action" defaultValue={filters.action ?? ""}>
            <option value="">Every action</option>
            {actions.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <div className="w-full sm:w-48">
        <Field id="filter-actor" label="Who">
          <Select id="filter-actor" name="actor" defaultValue={filters.actorType ?? ""}>
            <option value="">Anyone</option>
            <option value="user">A person (dashboard)</option>
            <option value="api_key">An API key</option>
            <option value="operator">An operator</option>
          </Select>
        </Field>
      </div>
      <div className="flex gap-2">
        <noscript>
          <button type="submit" className={buttonClasses("secondary")}>
            Apply filters
          </button>
        </noscript>
        {active && (
          <Link href="/dashboard/audit" className={buttonClasses("ghost")}>
            Clear
          </Link>
        )}
      </div>
    </Form>
  );
}
