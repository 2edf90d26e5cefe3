"use client";

import Form from "next/form";
import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { formatUtcDay } from "@/lib/format";
import type { HistoryView as Filters } from "@/lib/points/views/history";

const kindOptions = [
  ["", "All"],
  ["top_up", "Top-ups"],
  ["spend", "Spent"],
] as const;

const statusOptions = [
  ["", "All statuses"],
  ["paid", "Paid"],
  ["failed", "Failed"],
  ["awaiting_payment", "Awaiting payment"],
  ["processing", "Processing"],
  ["pending", "Pending"],
] as const;

const sourceOptions = [
  ["", "All sources"],
  ["api", "API"],
  ["dashboard", "Dashboard"],
  ["auto_recharge", "Auto-recharge"],
] as const;

const afterOptions = [
  ["", "Anything"],
  ["refunded", "Refunded"],
  ["disputed", "Disputed"],
] as const;

const filterFields = [
  { name: "kind", label: "Kind", options: kindOptions },
  { name: "status", label: "Status", options: statusOptions },
  { name: "source", label: "Source", options: sourceOptions },
  { name: "after", label: "After payment", options: afterOptions },
] as const;

/** UTC days, both included: the page says its times are UTC. */
const dateFields = [
  { name: "from", label: "From" },
  { name: "to", label: "To" },
] as const;

/**
 * A GET form: the filters live in the URL, so a filtered page can be shared, reloaded and exported.
 * A change applies at once. A browser without JavaScript gets an Apply button instead (in
 * <noscript>, so a browser that runs scripts never shows a button that does nothing new).
 * Spends have no status, source or after payment: with Spent chosen those are disabled. The dates
 * apply to both kinds.
 */
export function HistoryFilters({ filters }: { filters: Filters }) {
  const active = Boolean(
    filters.kind || filters.status || filters.source || filters.after || filters.from || filters.to,
  );
  // The browser writes the date fields in its own way (mm/dd/yyyy in the US): the days chosen are
  // said again as the rows write dates.
  const range =
    filters.from || filters.to
      ? `${filters.from ? `From ${formatUtcDay(filters.from)}` : "Up"} ${filters.to ? `to ${formatUtcDay(filters.to)}` : "to now"}, UTC days, both included.`
      : null;
  return (
    <Form
      // Remounted when the URL changes, so "Clear" and the back button reset the selects too.
      key={[filters.kind, filters.status, filters.source, filters.after, filters.from, filters.to].join(":")}
      action="/dashboard/history"
      className="flex flex-wrap items-end gap-3"
      aria-label="Filter history"
      onChange={(event) => event.currentTarget.requestSubmit()}
    >
      {filterFields.map(({ name, label, options }) => (
        <div key={name} className="w-full sm:w-40">
          <Field id={`filter-${name}`} label={label}>
            <Select
              id={`filter-${name}`}
              name={name}
              defaultValue={filters[name] ?? ""}
              disabled={name !== "kind" && filters.kind === "spend"}
              className="h-9"
            >
              {options.map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </Select>
          </Field>
        </div>
      ))}
      {dateFields.map(({ name, label }) => (
        <div key={name} className="w-full sm:w-40">
          <Field id={`filter-${name}`} label={label}>
            <Input
              id={`filter-${name}`}
              type="date"
              name={name}
              defaultValue={filters[name] ?? ""}
              aria-describedby={range ? "filter-range" : undefined}
              className="h-9"
            />
          </Field>
        </div>
      ))}
      <div className="flex gap-2">
        <noscript>
          <button type="submit" className={buttonClasses("secondary")}>
            Apply filters
          </button>
        </noscript>
        {active && (
          <Link href="/dashboard/history" className={buttonClasses("ghost")}>
            Clear
          </Link>
        )}
      </div>
      {range && (
        <p id="filter-range" className="w-full text-xs text-slate-600" data-testid="history-range">
          {range}
        </p>
      )}
    </Form>
  );
}
