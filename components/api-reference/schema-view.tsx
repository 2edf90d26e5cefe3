import { Inline } from "./prose";
import type { FieldRow, SchemaLayout } from "./schema";

function RequiredMark({ required }: { required: boolean }) {
  return required ? (
    <span className="ml-2 rounded bg-rose-50 px-1.5 py-0.5 text-xs font-medium text-rose-700">required</span>
  ) : (
    <span className="ml-2 text-xs text-slate-500">optional</span>
  );
}

export function EnumValues({ values }: { values: string[] }) {
  if (values.length === 0) return null;
  return (
    <p className="mt-1 text-sm text-slate-600">
      One of:{" "}
      {values.map((value, index) => (
        <span key={value}>
          {index > 0 ? ", " : ""}
          <code className="rounded bg-slate-100 px-1 font-mono text-[0.9em] text-slate-800">{value}</code>
        </span>
      ))}
    </p>
  );
}

/** The anchor of a component schema's entry in the Schemas section. */
export function schemaAnchor(name: string): string {
  return `schema-${name.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
}

/** A type label whose named schemas link to their entries ("array of <TopUp>"). */
function TypeText({ type, links }: { type: string; links: string[] }) {
  if (links.length === 0) return <>{type}</>;
  const names = new Set(links);
  const alternatives = links.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const pattern = new RegExp(`\\b(${alternatives})\\b`);
  return (
    <>
      {type.split(pattern).map((part, index) =>
        names.has(part) ? (
          <a
            // biome-ignore lint/suspicious/noArrayIndexKey: a label split once; its parts never move.
            key={index}
            href={`#${schemaAnchor(part)}`}
            className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900"
          >
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </>
  );
}

function Rows({ rows }: { rows: FieldRow[] }) {
  if (rows.length === 0) return null;
  return (
    <div
      // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways on a phone; a keyboard must reach it to scroll it.
      tabIndex={0}
      className="overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-indigo-600"
    >
      <table className="w-full text-left text-sm sm:min-w-[32rem]">
        <thead className="border-b border-slate-200 bg-slate-50 text-slate-600 max-sm:sr-only">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">
              Field
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Type
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Description
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 max-sm:block">
          {rows.map((row) => (
            <tr key={row.path} data-field={row.path} className="align-top max-sm:block max-sm:py-2">
              <td
                className="px-3 py-2 max-sm:block max-sm:py-0.5"
                style={{ paddingLeft: `${0.75 + row.depth * 1}rem` }}
              >
                <code className="font-mono font-medium whitespace-nowrap text-slate-900">{row.path}</code>
                <RequiredMark required={row.required} />
              </td>
              <td className="px-3 py-2 font-mono text-slate-600 max-sm:block max-sm:py-0.5">
                <TypeText type={row.type} links={row.links} />
              </td>
              <td className="px-3 py-2 text-slate-700 max-sm:block max-sm:py-0.5">
                {row.description ? <Inline text={row.description} /> : null}
                <EnumValues values={row.enumValues} />
                {row.notes.length > 0 ? <p className="mt-1 text-sm text-slate-500">{row.notes.join(" · ")}</p> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A schema's fields as a table; alternatives (oneOf/anyOf) each under their own title. */
export function SchemaView({ layout, named = false }: { layout: SchemaLayout | undefined; named?: boolean }) {
  if (!layout) return null;
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-600">
        <span className="font-mono">{named ? layout.innerType : layout.type}</span>
        {layout.description ? (
          <>
            {" · "}
            <Inline text={layout.description} />
          </>
        ) : null}
      </p>
      <Rows rows={layout.rows} />
      {layout.variants.map((variant) => (
        <div key={variant.title} className="space-y-2">
          <p className="text-sm font-medium text-slate-800">{variant.title}</p>
          {variant.description ? (
            <p className="text-sm text-slate-600">
              <Inline text={variant.description} />
            </p>
          ) : null}
          <Rows rows={variant.rows} />
        </div>
      ))}
    </div>
  );
}
